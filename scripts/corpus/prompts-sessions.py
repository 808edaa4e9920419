"""Hand-written prompts in the agent-session genre: pasted code, diffs, configs and stories,
with or without a short instruction. Run to regenerate prompts-sessions.jsonl."""

import json
from pathlib import Path

FENCE = "```"
ROWS = [
    (
        "coding",
        "en",
        f"here's the first version of the repository class:\n\n{FENCE}python\nclass OrderRepo:\n    def __init__(self, db):\n        self.db = db\n\n    def get(self, order_id: int) -> Order | None:\n        row = self.db.fetch_one('select * from orders where id = ?', order_id)\n        return Order(**row) if row else None\n{FENCE}",
    ),
    (
        "coding",
        "en",
        f"{FENCE}ts\nexport async function fetchUser(id: string) {{\n  const res = await fetch(`/api/users/${{id}}`);\n  return res.json();\n}}\n{FENCE}\nadd error handling and a timeout",
    ),
    (
        "coding",
        "es",
        f"Esta es mi versión del servicio:\n\n{FENCE}python\ndef total(lineas):\n    return sum(l.precio * l.cantidad for l in lineas)\n{FENCE}\nañade el IVA y redondea a dos decimales",
    ),
    (
        "coding",
        "pt",
        f"segue o componente atual:\n\n{FENCE}jsx\nfunction Lista({{ itens }}) {{\n  return <ul>{{itens.map(i => <li>{{i.nome}}</li>)}}</ul>;\n}}\n{FENCE}\nfalta a key e um estado vazio",
    ),
    (
        "coding",
        "de",
        f'So sieht der Handler jetzt aus:\n\n{FENCE}go\nfunc handle(w http.ResponseWriter, r *http.Request) {{\n    id := r.URL.Query().Get("id")\n    json.NewEncoder(w).Encode(load(id))\n}}\n{FENCE}\nbitte Validierung für id ergänzen',
    ),
    (
        "coding",
        "fr",
        f"voici le modèle actuel :\n\n{FENCE}python\n@dataclass\nclass Facture:\n    numero: str\n    montant: int\n{FENCE}\najoute une date d'échéance et la validation du montant",
    ),
    (
        "coding",
        "zh",
        f"这是现在的代码：\n\n{FENCE}python\ndef parse(line):\n    return line.split(',')\n{FENCE}\n改成用 csv 模块，处理带引号的字段",
    ),
    (
        "coding",
        "en",
        f"{FENCE}diff\n--- a/app/billing.py\n+++ b/app/billing.py\n@@ -20,4 +20,6 @@ def charge(card, amount):\n-    gateway.charge(card, amount)\n+    if amount <= 0:\n+        raise ValueError('amount must be positive')\n+    gateway.charge(card, amount)\n{FENCE}",
    ),
    (
        "coding",
        "en",
        "diff --git a/src/cache.rs b/src/cache.rs\n--- a/src/cache.rs\n+++ b/src/cache.rs\n@@ -8,3 +8,5 @@\n-    map.insert(k, v);\n+    if map.len() >= self.cap { self.evict(); }\n+    map.insert(k, v);\n\nfinish this: evict() doesn't exist yet",
    ),
    (
        "coding",
        "es",
        f"{FENCE}diff\n--- a/api/rutas.py\n+++ b/api/rutas.py\n@@ -3,2 +3,3 @@\n from .clientes import router as clientes\n+from .facturas import router as facturas\n{FENCE}\nsigue con esto, falta el router de facturas",
    ),
    (
        "coding",
        "en",
        f"{FENCE}python\n@app.get('/items')\ndef list_items(page: int = 1):\n    return db.items.all()\n{FENCE}\npage is ignored, make it work with 50 per page",
    ),
    (
        "coding",
        "en",
        "RIDE-51: As a rider I want to see my last ten rides so that I can check what I paid.\n\nAcceptance criteria:\n- newest first\n- price and duration per ride\n- empty state when there are none\n\nbuild this in the rides app",
    ),
    (
        "coding",
        "es",
        "TICKET-88: exportar pedidos a CSV\nCriterios de aceptación:\n- una fila por pedido\n- importes en céntimos\nimpleméntalo en el módulo de pedidos",
    ),
    (
        "coding",
        "de",
        "SPEC-77: Als Admin möchte ich Nutzer sperren können.\nAkzeptanzkriterien:\n- gesperrte Nutzer können sich nicht anmelden\n- die Sperre wird protokolliert\nsetz das bitte um",
    ),
    (
        "coding",
        "en",
        f"{FENCE}yaml\nservices:\n  web:\n    build: .\n    ports: ['8000:8000']\n{FENCE}\nadd a postgres service and wire DATABASE_URL into web",
    ),
    (
        "coding",
        "en",
        f"{FENCE}sql\nselect * from orders where customer_id = $1\n{FENCE}\nturn this into a repository method with pagination",
    ),
    (
        "coding",
        "pt",
        f"{FENCE}diff\n-    timeout = 5\n+    timeout = config.timeout\n{FENCE}\naplica isso em todos os clientes http e lê o valor do .env",
    ),
    (
        "coding",
        "fr",
        "Erreur au lancement :\n\nTraceback (most recent call last):\n  File \"main.py\", line 9, in <module>\n    app.run(port=int(os.environ['PORT']))\nKeyError: 'PORT'\n\ncorrige ça avec une valeur par défaut à 8000",
    ),
    (
        "coding",
        "zh",
        "报错：\nTypeError: Cannot read properties of undefined (reading 'length')\n    at render (list.js:14:22)\n修一下，列表为空时也要能显示",
    ),
    # analysis: code pasted with a question about it
    (
        "analysis",
        "en",
        f"{FENCE}python\ndef merge(a, b):\n    out = a\n    out.update(b)\n    return out\n{FENCE}\nwhy do my defaults change after calling this twice?",
    ),
    (
        "analysis",
        "es",
        f"{FENCE}js\nfor (var i = 0; i < 3; i++) {{\n  setTimeout(() => console.log(i), 0);\n}}\n{FENCE}\n¿por qué imprime 3 tres veces?",
    ),
    (
        "analysis",
        "en",
        f"here's the query plan:\n\n{FENCE}\nSeq Scan on events  (cost=0.00..48211.00 rows=1200000)\n  Filter: (tenant_id = 42)\n{FENCE}\nwhat's making this slow and what index would help?",
    ),
    (
        "analysis",
        "de",
        f"{FENCE}diff\n-    retries = 3\n+    retries = 0\n{FENCE}\nWas bewirkt diese Änderung im Fehlerfall? Ist das gefährlich?",
    ),
    (
        "analysis",
        "pt",
        "revisa esse diff e me diz se tem algum problema de concorrência:\n\n--- a/fila.py\n+++ b/fila.py\n@@ -4 +4,2 @@\n-    self.itens.append(x)\n+    with self.lock:\n+        self.itens.append(x)",
    ),
    # bookkeeping: exact edits
    (
        "bookkeeping",
        "en",
        "apply this exact patch and commit it as 'fix: guard amount':\n\n--- a/app/billing.py\n+++ b/app/billing.py\n@@ -20 +20,2 @@\n+    assert amount > 0",
    ),
    (
        "bookkeeping",
        "es",
        'cambia la versión en pyproject.toml:\n\n-version = "1.4.0"\n+version = "1.5.0"\n\ny haz commit',
    ),
    (
        "bookkeeping",
        "en",
        f"replace the README install block with this, nothing else:\n\n{FENCE}bash\npip install turnlens\n{FENCE}",
    ),
    # design with a pasted context
    (
        "design",
        "en",
        f"current schema:\n\n{FENCE}sql\ncreate table users (id serial primary key, email text);\ncreate table teams (id serial primary key, name text);\n{FENCE}\nhow should we model users belonging to several teams with roles? give me two options",
    ),
    (
        "design",
        "es",
        "RIDE-60: reservas recurrentes (todos los lunes a las 8).\n¿Cómo lo planteamos sin romper las reservas simples? Propón un diseño antes de tocar código.",
    ),
    (
        "design",
        "fr",
        f"{FENCE}ts\ninterface Plugin {{ name: string; run(): void }}\n{FENCE}\ncomment faire évoluer cette interface pour des plugins asynchrones sans casser l'existant ? propose une approche",
    ),
]


def main() -> None:
    out = Path(__file__).resolve().parent / "prompts-sessions.jsonl"
    with out.open("w", encoding="utf-8") as handle:
        for n, (label, lang, text) in enumerate(ROWS, start=1):
            row = {"id": f"ps-{n:05d}", "text": text, "label": label, "lang": lang, "genre": "pasted-code"}
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
