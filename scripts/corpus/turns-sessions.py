"""Hand-written rows in the agent-session genre (SE-029 transcripts): ticket ids, gate
verdicts, approvals, specs with ids, pasted code. Run to regenerate turns-sessions.jsonl."""

import json
from pathlib import Path

ROWS = [
    # spec: tickets with ids, acceptance criteria
    ("spec", "en", "Starting on SPEC-212 AC-04 with a new parser"),
    (
        "spec",
        "en",
        "SPEC-204: export of invoices\nstatus: approved\norigin: billing team\n\nAC-01 the export is a CSV with one row per invoice\nAC-02 amounts are in minor units\nAC-03 the file name carries the date",
    ),
    (
        "spec",
        "en",
        "PBI-1236 — Password reset by e-mail\n\nAcceptance criteria:\n1. The link expires after 24 hours.\n2. Using the link twice shows an error page.\n3. The old password stops working at once.",
    ),
    (
        "spec",
        "en",
        "SE-031 scope: the session planner MUST keep decision turns verbatim and SHOULD compress context turns up to 25:1.",
    ),
    (
        "spec",
        "es",
        "SPEC-88: Alta de clientes\n\nCriterios de aceptación:\n- El NIF es obligatorio y se valida.\n- Un cliente duplicado devuelve 409.\n- El alta queda en el registro de auditoría.",
    ),
    (
        "spec",
        "pt",
        "PBI-77 — Exportar relatório mensal\nCritérios de aceite:\n- o relatório sai em PDF e CSV\n- o total bate com o painel\n- usuários sem permissão recebem 403",
    ),
    (
        "spec",
        "de",
        "SPEC-310: Der Import MUSS Dateien bis 200 MB annehmen; größere Dateien werden mit einer klaren Meldung abgelehnt. AC-1: Fortschritt wird angezeigt. AC-2: Abbruch ist jederzeit möglich.",
    ),
    (
        "spec",
        "fr",
        "SPEC-52 — Notifications\nCritères d'acceptation :\n- un utilisateur peut couper les notifications par projet\n- le réglage est gardé après déconnexion",
    ),
    (
        "spec",
        "en",
        "Working on PBI-902 next: the API must return 429 with a Retry-After header once a client passes 100 requests per minute.",
    ),
    (
        "spec",
        "zh",
        "SPEC-17：离线同步\n验收标准：\n1. 断网时可以继续编辑\n2. 恢复网络后 30 秒内完成同步\n3. 冲突时保留两份并提示用户",
    ),
    (
        "spec",
        "en",
        "---\nspec_id: SPEC-140\nstatus: draft\norigin: support tickets\n---\nThe search box returns results for partial words (prefix match) within 300 ms at p95.",
    ),
    (
        "spec",
        "en",
        "Picking up SE-044 AC-02: a frozen turn is never shortened by the planner, whatever the budget.",
    ),
    # review: gate verdicts and reports in session format
    ("review", "en", "G5 BATS PASS: 112/112 suites"),
    (
        "review",
        "en",
        "G1 lint PASS\nG2 types PASS\nG3 unit tests FAIL: 3 of 412\nG4 coverage WARN: 78% (target 80%)",
    ),
    ("review", "en", "VERDICT: PASS — all five gates green, no new warnings."),
    (
        "review",
        "en",
        "Court review of SPEC-120: FAIL: the handler swallows the timeout error; WARN: no test for the empty payload.",
    ),
    (
        "review",
        "es",
        "Revisión del PR 88: PASS en tests, FAIL en cobertura (71 %, mínimo 80 %). Falta probar el caso sin NIF.",
    ),
    ("review", "pt", "G2 testes PASS: 118/118\nG5 segurança WARN: dependência com CVE de severidade média"),
    (
        "review",
        "de",
        "Prüfung SPEC-310: PASS für Import und Abbruch, FAIL: die Fehlermeldung bei großen Dateien ist nur auf Englisch.",
    ),
    (
        "review",
        "en",
        "Auditor score: 82/100. Certified with two minor findings (log retention, a stale admin account).",
    ),
    (
        "review",
        "fr",
        "Tests d'intégration : 54 PASS, 2 FAIL (timeouts sur la file d'attente). Verdict : à corriger avant fusion.",
    ),
    (
        "review",
        "en",
        "truth tribunal: the claim that AC-03 is covered is false; the test checks the name, not the date.",
    ),
    ("review", "zh", "代码审查：G3 单元测试 FAIL：2/180，login_test 超时；其余通过。"),
    ("review", "en", "Re-ran the gates after the fix: G3 PASS 412/412, G4 coverage PASS 81.2%."),
    # decision: session approvals
    ("decision", "en", "APPROVED. Ship it tonight."),
    ("decision", "en", "SPEC-120 approved. Merge when G6 is green."),
    (
        "decision",
        "en",
        "Decision: we keep the 25:1 ratio for context turns; no per-project override for now.",
    ),
    ("decision", "es", "Aprobado el SPEC-88. Adelante con el merge."),
    ("decision", "es", "Decidido: el planificador no toca los turnos de decisión. Cerramos el tema."),
    ("decision", "pt", "Aprovado. Pode fazer o merge do PBI-77."),
    ("decision", "de", "Freigegeben, bitte mergen. SPEC-310 ist damit abgeschlossen."),
    ("decision", "fr", "Validé : on livre la version 2.3 vendredi, sans la fonction d'export."),
    ("decision", "en", "BLOCKED until the security finding is fixed. Do not merge."),
    ("decision", "en", "go ahead with option A, we can revisit after the release"),
    ("decision", "zh", "批准，合并吧。"),
    ("decision", "en", "LGTM, merging."),
    # code: pasted in sessions
    (
        "code",
        "en",
        "```python\ndef plan(turns, budget):\n    total = sum(t.words for t in turns)\n    return total * 13 // 10 <= budget\n```",
    ),
    (
        "code",
        "en",
        "diff --git a/planner.py b/planner.py\n--- a/planner.py\n+++ b/planner.py\n@@ -4,3 +4,4 @@\n-    ratio = 25\n+    ratio = RATIOS[turn.cls]\n+    ratio = 1 if turn.frozen else ratio",
    ),
    (
        "code",
        "es",
        'Me sale esto al lanzar los tests:\n\nTraceback (most recent call last):\n  File "tests/test_plan.py", line 12, in test_budget\n    assert plan(turns, 100)\nAssertionError',
    ),
    (
        "code",
        "en",
        "$ bats tests/\n 1..227\n ok 1 empty input is chitchat\n ok 2 fenced python is code\n not ok 3 SPEC ids are spec\n # (in test file tests/classify.bats, line 31)",
    ),
    (
        "code",
        "de",
        "Hier die Konfiguration:\n\n```yaml\nplanner:\n  budget: 8000\n  ratios:\n    context: 25\n    chitchat: 80\n```",
    ),
    (
        "code",
        "pt",
        "Erro no build:\n\nerror[E0502]: cannot borrow `turns` as mutable because it is also borrowed as immutable\n  --> src/plan.rs:41:9",
    ),
    (
        "code",
        "fr",
        "```ts\nexport function ratio(cls: TaskClass): number {\n  return RATIOS[cls] ?? 25;\n}\n```",
    ),
    (
        "code",
        "zh",
        "运行结果：\n```\n$ turnlens plan --session s.md --budget 500\nOVERFLOW: 812 tokens planned, 312 over\n```",
    ),
    # context: session narration
    (
        "context",
        "en",
        "Some background: the planner was written for one transcript format; now we read five, so the turn boundaries come from the readers instead of the separator.",
    ),
    (
        "context",
        "en",
        "Status: SPEC-120 is half done. The handler exists; the retry logic and its tests are still open.",
    ),
    (
        "context",
        "es",
        "Te cuento cómo está: el importador ya lee los ficheros grandes, pero la barra de progreso todavía no se actualiza.",
    ),
    (
        "context",
        "pt",
        "Contexto: o cliente usa a versão antiga da API e não consegue atualizar antes de março.",
    ),
    (
        "context",
        "de",
        "Zur Einordnung: Die Sitzungen sind im Schnitt 120 Turns lang, davon sind etwa zehn Entscheidungen.",
    ),
    (
        "context",
        "fr",
        "Pour le contexte : les tests de charge tournent la nuit sur une machine partagée, donc les chiffres varient de 10 %.",
    ),
    (
        "context",
        "en",
        "I looked at the last three sessions: most of the budget goes to pasted logs, not to the discussion itself.",
    ),
    ("context", "zh", "背景：这个服务最早只支持一个租户，所以很多查询没有带租户条件。"),
    # chitchat
    ("chitchat", "en", "hm, ok"),
    ("chitchat", "en", "thank you!!"),
    ("chitchat", "es", "¡Hola! Aquí estoy, cuando quieras empezamos."),
    ("chitchat", "es", "mil gracias 🙌"),
    ("chitchat", "en", "ok, back in 10"),
    ("chitchat", "de", "Moin zusammen 👋"),
    ("chitchat", "pt", "valeu, até amanhã"),
    ("chitchat", "fr", "merci, bonne soirée"),
    ("chitchat", "zh", "收到，谢谢"),
    # review: verdict lists, as reviewers and gate scripts write them
    (
        "review",
        "en",
        "Billing PR, second pass:\n- [PASS] amounts are stored in minor units\n- [FAIL] the refund path skips the audit log\n- [WARN] no test for a zero-amount invoice\nNot mergeable yet.",
    ),
    (
        "review",
        "en",
        "Checked the migration:\n- [PASS] runs forward and backward on a copy of prod\n- [PASS] no table lock longer than 2 s\nVerdict: good to go from my side.",
    ),
    (
        "review",
        "en",
        "- [FAIL] login rate limit is per process, not per user\n- [PASS] passwords are hashed with argon2\n- [WARN] session cookie lacks SameSite",
    ),
    (
        "review",
        "es",
        "Revisión del PR de exportación:\n- [PASS] el CSV tiene una fila por pedido\n- [FAIL] los importes salen en euros, no en céntimos\nVeredicto: hay que corregirlo.",
    ),
    (
        "review",
        "es",
        "- [PASS] los tests de integración pasan\n- [WARN] falta documentar el nuevo parámetro\n- [FAIL] el endpoint no valida el NIF",
    ),
    (
        "review",
        "pt",
        "Revisão do PR 212:\n- [PASS] paginação funciona\n- [FAIL] filtro por data ignora o fuso horário\nVeredito: precisa de ajustes.",
    ),
    (
        "review",
        "de",
        "Review des Import-PRs:\n- [PASS] große Dateien werden gestreamt\n- [FAIL] Abbruch hinterlässt temporäre Dateien\nUrteil: bitte nachbessern.",
    ),
    (
        "review",
        "fr",
        "Relecture de la PR notifications :\n- [PASS] le réglage par projet fonctionne\n- [WARN] pas de test pour la déconnexion\nVerdict : OK avec une réserve.",
    ),
    ("review", "zh", "评审结果：\n- [PASS] 离线编辑可用\n- [FAIL] 冲突时只保留了一份\n结论：需要修改。"),
    # spec: checklists of what must be built (open boxes), for contrast
    (
        "spec",
        "en",
        "Definition of done for the export:\n- [ ] one row per invoice\n- [ ] amounts in minor units\n- [ ] file name carries the date\n- [ ] documented in the admin guide",
    ),
    (
        "spec",
        "es",
        "Lo que tiene que cumplir la reserva:\n- [ ] dura 10 minutos\n- [ ] una por usuario\n- [ ] se libera sola al caducar",
    ),
    (
        "spec",
        "de",
        "Abnahmekriterien:\n- [ ] Nutzer können Benachrichtigungen pro Projekt abschalten\n- [ ] die Einstellung bleibt nach dem Abmelden erhalten",
    ),
]


def main() -> None:
    out = Path(__file__).resolve().parent / "turns-sessions.jsonl"
    with out.open("w", encoding="utf-8") as handle:
        for n, (label, lang, text) in enumerate(ROWS, start=1):
            row = {"id": f"ts-{n:05d}", "text": text, "label": label, "lang": lang, "genre": "agent-session"}
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
