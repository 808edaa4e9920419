"""The embedded `rules` labeler: accuracy on the labelled corpora, ties, evidence, both languages."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from tests.router.router_testkit import corpus_dir
from turnlens.core.engine import score, score_plain
from turnlens.core.rules import parse_pack
from turnlens.router.labeler import label_pack, label_text

HERE = Path(__file__).resolve().parent
DEV = corpus_dir() / "prompts-dev.jsonl"


def _eval_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("eval_labels", HERE / "eval_labels.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(
    not DEV.is_file(), reason=f"labelled corpus not found at {DEV} (set TURNLENS_CORPUS_DIR to its folder)"
)
def test_dev_corpus_accuracy_at_least_85_percent() -> None:
    ev = _eval_module()
    result = ev.evaluate(ev.load(DEV))
    print(ev.format_table(result))
    assert result["n"] >= 100
    assert result["accuracy"] >= 0.85, ev.format_table(result)


@pytest.mark.parametrize(
    "name", ["prompts-holdout.jsonl", "prompts-holdout2.jsonl", "prompts-holdout3.jsonl"]
)
def test_holdout_accuracy_does_not_regress(name: str) -> None:
    """Our own held-out prompts (never tuned on): a regression floor, not a target."""
    ev = _eval_module()
    result = ev.evaluate(ev.load(HERE / "data" / name))
    print(ev.format_table(result))
    assert result["n"] >= 30
    assert result["accuracy"] >= 0.8, ev.format_table(result)


def test_tuning_set_accuracy() -> None:
    ev = _eval_module()
    result = ev.evaluate(ev.load(HERE / "data" / "prompts-train.jsonl"))
    assert result["n"] >= 100 and result["accuracy"] >= 0.9, ev.format_table(result)


def test_data_files_are_well_formed() -> None:
    labels = set(label_pack().categories)
    for path in sorted((HERE / "data").glob("*.jsonl")):
        ids = set()
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            assert row["label"] in labels and row["lang"] in ("en", "es") and row["text"].strip()
            assert row["id"] not in ids
            ids.add(row["id"])


def test_pack_is_data_with_the_labels_in_tie_order_and_no_fallback() -> None:
    pack = label_pack()
    assert pack.categories == ("design", "analysis", "coding", "bookkeeping", "chat")
    assert pack.fallback is None
    assert pack.source == "<builtin:labels.toml>"


def test_ties_go_to_the_label_with_more_effort() -> None:
    toml = """
[pack]
categories = ["design", "analysis", "coding", "bookkeeping", "chat"]
[[rule]]
id = "a"
label = "chat"
weight = 2
pattern = "x"
[[rule]]
id = "b"
label = "coding"
weight = 2
pattern = "x"
[[rule]]
id = "c"
label = "analysis"
weight = 2
pattern = "y"
"""
    pack = parse_pack(toml, "<test>")
    assert label_text("x", pack, use_model=False).label == "coding"
    assert label_text("x y", pack, use_model=False).label == "analysis"


def test_the_rules_alone_give_no_label_when_nothing_fired() -> None:
    result = label_text("zzzz qqqq xxxx yyyy wwww vvvv uuuu", use_model=False)
    assert result.label is None and result.signals == ()
    assert result.explain() == "no label rule fired"


def test_the_model_always_names_one_of_the_five_labels_with_a_probability() -> None:
    for text in ("zzzz qqqq xxxx yyyy wwww vvvv uuuu", "", "Now I want you to create a e2e testsuite."):
        result = label_text(text)
        assert result.engine == "model"
        assert result.label in label_pack().categories
        assert result.probabilities is not None and abs(sum(result.probabilities.values()) - 1) < 1e-6
        assert result.confidence == max(result.probabilities.values())


def test_the_model_explains_with_features_of_the_text() -> None:
    text = "Why does the parser drop the last line of the file?"
    result = label_text(text)
    assert result.features and all(c.weight > 0 for c in result.features)
    lowered = text.lower()
    for c in result.features:
        if c.kind in ("c", "w"):
            assert c.key in lowered, c
        elif c.kind == "b":
            assert all(word in lowered for word in c.key.split()), c
        elif c.key.startswith("r:"):
            assert any(s.rule == c.key[2:] for s in result.signals), c
    assert result.explain().startswith(f"{result.label} ")


def test_every_label_says_which_rules_fired_and_where() -> None:
    result = label_text("Some context first.\nWhy does the parser drop the last line?", use_model=False)
    assert result.label == "analysis"
    why = next(s for s in result.signals if s.rule == "analysis.why")
    assert (why.line, why.text) == (2, "Why")
    assert 'analysis.why "Why"' in result.explain()


def test_leading_route_directive_is_not_read_as_content() -> None:
    assert label_text("/route plan bump flask to 3.0.3").label == "bookkeeping"


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("¿Cómo diseñarías el sistema de permisos para varias sedes?", "design"),
        ("¿Por qué el worker se queda sin memoria cada noche?", "analysis"),
        ("Implementa el endpoint de exportación a CSV con paginación.", "coding"),
        ("Renombra la carpeta `old` a `legacy` y actualiza los imports.", "bookkeeping"),
        ("hola, buenos días, ¿qué tal?", "chat"),
        ("What trade-offs do we face between a queue and a cron job here?", "design"),
        ("Explain why the cache returns stale data after a deploy.", "analysis"),
        ("Add a --verbose flag to the CLI that prints every request.", "coding"),
        ("Fix the typo in the CONTRIBUTING guide and commit it.", "bookkeeping"),
        ("thanks a lot, see you tomorrow!", "chat"),
    ],
)
def test_one_example_per_label_and_language(text: str, label: str) -> None:
    assert label_text(text).label == label


def test_fast_path_agrees_with_the_plain_engine_on_the_corpora() -> None:
    pack = label_pack()
    texts = [json.loads(line)["text"] for p in (HERE / "data").glob("*.jsonl") for line in p.open()]
    if DEV.is_file():
        texts += [json.loads(line)["text"] for line in DEV.open()]
    for text in texts:
        assert score(text, pack).scores == score_plain(text, pack.rules, pack.categories), text


# The signals people name, in the other languages real prompts come in: each text fires the
# rule named beside it, as the English or Spanish form does.
SIGNALS_BY_LANGUAGE = [
    ("为什么这个配置没有生效", "analysis.why"),
    ("pourquoi le build échoue depuis hier", "analysis.why"),
    ("warum schlägt der Test auf CI fehl", "analysis.why"),
    ("почему падает сборка", "analysis.why"),
    ("なぜこのテストは失敗するのですか", "analysis.why"),
    ("Explique-moi ce que fait ce module", "analysis.explain"),
    ("请解释一下这个函数的返回值", "analysis.explain"),
    ("Erklär mir bitte den Ablauf beim Login", "analysis.explain"),
    ("排查一下登录失败的问题", "analysis.investigate"),
    ("выясни, откуда берётся этот таймаут", "analysis.investigate"),
    ("ログイン処理を調査してください", "analysis.investigate"),
    ("проверь этот код на утечки", "analysis.review"),
    ("分析一下项目的依赖结构", "analysis.review"),
    ("Vérifie la config de déploiement", "analysis.review"),
    ("这个接口是否支持分页", "analysis.yes-no"),
    ("この設定は必要ですか？", "analysis.yes-no"),
    ("Est-ce que le cache est vidé au redémarrage", "analysis.yes-no"),
    ("Wo wird der Token gespeichert?", "analysis.wh-question"),
    ("这个值在哪里设置？", "analysis.wh-question"),
    ("设计一个缓存层的方案", "design.verb"),
    ("Schlag mir vor, wie wir die Module trennen", "design.verb"),
    ("предложи структуру базы данных", "design.verb"),
    ("посоветуй, какой цвет взять для фона", "design.verb"),
    ("你推荐用哪个队列库？", "design.verb"),
    ("ログ基盤はどれがおすすめですか", "design.verb"),
    ("que me conseilles-tu pour le cache ?", "design.verb"),
    ("write an implementation plan in PLAN.md before touching the code", "design.plan-doc"),
    ("先帮我写一份需求文档", "design.plan-doc"),
    ("is there a cleaner way to pass the config around?", "design.plan-doc"),
    ("the page is blank after login", "analysis.symptom"),
    ("列表还是不显示", "analysis.symptom"),
    ("le bouton ne marche toujours pas", "analysis.symptom"),
    ("после обновления страница не загружается", "analysis.symptom"),
    ("設定を変えても反映されない", "analysis.symptom"),
    ("npm run build\nnpm run preview", "bookkeeping.shell-line"),
    ("запусти миграции на стейджинге", "bookkeeping.run"),
    ("ejecuta los tests de integración", "bookkeeping.run"),
    ("请运行一下所有测试", "bookkeeping.run"),
    ("Quelle approche pour la synchronisation hors ligne", "design.approach"),
    ("整体架构怎么分层比较好", "design.approach"),
    ("哪个方案更适合移动端", "design.options"),
    ("请实现用户注册接口", "coding.verb"),
    ("добавь проверку на пустой список", "coding.verb"),
    ("Ajoute un bouton d'export CSV", "coding.verb"),
    ("エラー表示を修正してください", "coding.verb"),
    ("把这个文件重命名为 utils.ts", "bookkeeping.rename-move"),
    ("Renomme le dossier old en legacy", "bookkeeping.rename-move"),
    ("コミットしてプッシュしてください", "bookkeeping.git"),
    ("提交代码并推送到远程", "bookkeeping.git"),
    ("清理一下无用的导入", "bookkeeping.cleanup"),
    ("bonjour !", "chat.greeting"),
    ("你好", "chat.greeting"),
    ("merci beaucoup", "chat.thanks"),
    ("谢谢你的帮助", "chat.thanks"),
    ("好的", "chat.ack"),
    ("わかりました", "chat.ack"),
]


@pytest.mark.parametrize(("text", "rule"), SIGNALS_BY_LANGUAGE)
def test_the_signals_fire_in_the_languages_people_write(text: str, rule: str) -> None:
    assert rule in {s.rule for s in label_text(text).signals}, text


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        # an acknowledgement in Chinese or Japanese is one only alone: here it opens a request
        ("好的，现在实现登录功能", "chat.ack"),
        # 提交 is also a form's submit: only a commit of the work is the git chore
        ("提交表单的时候报错了", "bookkeeping.git"),
        # "make" and "go" are English words before they are commands, and a command named
        # inside a sentence is not a command line
        ("make the header sticky on scroll", "bookkeeping.shell-line"),
        ("gh-pages和main有什么区别", "bookkeeping.shell-line"),
        ("npm run build fails on the CI runner, why?", "bookkeeping.shell-line"),
        # 推荐 is also the noun of a recommender system: building one is not asking for advice
        ("实现推荐系统的召回模块", "design.verb"),
        # "porque" is "because", not "why"
        ("não funciona porque o token expira", "analysis.why"),
    ],
)
def test_the_signals_stay_quiet_where_the_word_means_something_else(text: str, rule: str) -> None:
    assert rule not in {s.rule for s in label_text(text).signals}, text


def test_the_fast_path_agrees_with_the_plain_engine_in_every_language() -> None:
    pack = label_pack()
    for text, _ in SIGNALS_BY_LANGUAGE:
        assert score(text, pack).scores == score_plain(text, pack.rules, pack.categories), text


def _stated(name: str) -> float:
    """How sure an answer from the guide's evidence says it is (`defaults.toml`'s [evidence])."""
    from turnlens.router.vocabulary import vocabulary

    return vocabulary().evidence[name] / 100


class _SaysChat:
    """A scorer that reads every prompt as chat, with coding second: what the model does with
    a short request it reads few words in."""

    def predict(self, text: str, rules: object) -> object:
        from turnlens.learn.model import Prediction

        probabilities = {"design": 0.05, "analysis": 0.1, "coding": 0.2, "bookkeeping": 0.05, "chat": 0.6}
        return Prediction("chat", 0.6, probabilities)

    def predict_explained(self, text: str, rules: object, each: int = 4, phrases: int = 5) -> object:
        return self.predict(text, rules), ((), {}, ())


@pytest.mark.parametrize(
    "text",
    [
        "help me with this",
        "list what we did today",
        "看一下这个页面",
        "ayúdame con el login",
        "schau dir das an",
    ],
)
def test_a_persons_request_is_never_chat(text: str) -> None:
    # Part 2: chat is greetings, thanks, acknowledgements with no task; a request the model
    # calls chat takes the most probable label that routes, and says why
    from turnlens.router.labeler import REQUEST_WHY

    got = label_text(text, scorer=_SaysChat())  # type: ignore[arg-type]
    assert got.label == "coding" and got.evidence == REQUEST_WHY
    # it states how often such an answer was right on real text, and stays the likeliest
    assert got.confidence == pytest.approx(_stated("request"))
    assert got.probabilities is not None and max(got.probabilities.values()) == pytest.approx(got.confidence)
    assert REQUEST_WHY in got.explain()


def test_a_request_read_as_chat_then_meets_the_guides_evidence() -> None:
    # "look at this error" tells a symptom and asks for no change: once it is a request, the
    # guide's evidence reads it as analysis
    from turnlens.router.labeler import SYMPTOM_WHY

    got = label_text("看一下这个报错", scorer=_SaysChat())  # type: ignore[arg-type]
    assert got.label == "analysis" and got.evidence == SYMPTOM_WHY


@pytest.mark.parametrize(
    "text",
    [
        "what model are you?",  # a question to the agent about itself
        "你是什么模型？",
        "yes do it",  # a bare go-ahead
        "answer in Korean from now on",  # a standing rule with no task
        "should be fine now",  # a report that it is done
        "muchas gracias, de verdad",  # the pack's own chat words (a thanks)
        "thanks a lot, that was quick",  # a social opening
        "ok",  # too few words to ask
    ],
)
def test_what_the_guide_calls_chat_stays_chat(text: str) -> None:
    got = label_text(text, scorer=_SaysChat())  # type: ignore[arg-type]
    assert got.label == "chat" and got.evidence is None


def test_a_request_gets_a_route_the_user_sees_why() -> None:
    from dataclasses import replace

    from turnlens.router.labeler import REQUEST_WHY
    from turnlens.router.resolve import resolve_offline
    from turnlens.router.settings import DEFAULT

    settings = replace(DEFAULT, label_model=_SaysChat())
    route = resolve_offline("help me with this one please", settings)
    assert route.routed and route.phase == "implement" and REQUEST_WHY in route.reason
    assert not resolve_offline("what model are you?", settings).routed


class _SaysCoding(_SaysChat):
    """A scorer that reads every prompt as coding, with analysis second: what the model does with
    a symptom told, whose words it met in requests for code."""

    def predict(self, text: str, rules: object) -> object:
        from turnlens.learn.model import Prediction

        probabilities = {"design": 0.15, "analysis": 0.2, "coding": 0.5, "bookkeeping": 0.1, "chat": 0.05}
        return Prediction("coding", 0.5, probabilities)


@pytest.mark.parametrize(
    "text",
    [
        "the preview still doesn't show",
        "the export button does nothing when I click it, nothing happens",
        "la página sigue sin cargar después del login",
        "o botão de salvar não funciona",
        "le menu ne s'affiche toujours pas",
        "die Tabelle wird nicht angezeigt",
        "登录页还是不显示",
        "сайт не открывается после обновления",
        "the worker keeps crashing after a deploy",  # a failure as it is seen (core.prompt_shapes)
        "打开就闪退",
        "o app ainda trava no splash",
    ],
)
def test_a_symptom_told_is_analysis(text: str) -> None:
    # Part 2: a symptom told in words with no ask is analysis: the agent must find out why first
    from turnlens.router.labeler import SYMPTOM_WHY

    got = label_text(text, scorer=_SaysCoding())  # type: ignore[arg-type]
    assert got.label == "analysis" and got.evidence == SYMPTOM_WHY, text
    assert got.confidence == pytest.approx(_stated("symptom"))
    assert SYMPTOM_WHY in got.explain()


@pytest.mark.parametrize(
    "text",
    [
        "the preview still doesn't show, fix it",  # a fix asked for: coding, as "fix it" with an error
        "the preview still doesn't show. please fix",
        "登录页还是不显示，修复一下",
        "la página no carga, arréglalo",
        "the sidebar should not show on the login page",  # a requirement, not a symptom
        "add a retry: the upload still fails on slow networks",  # a coding rule fired
        "still not working:\nTypeError: cannot read properties of undefined (reading 'id')",  # a pasted error
        "it doesn't work\n\nthe save button\n\nthe delete button\n\nthe export",  # more than two lines
        "nothing happens "
        + "when I press the button and wait for the list " * 8,  # too long to be a few words
        "add a dark mode toggle to the settings page",  # no symptom told
    ],
)
def test_a_symptom_with_a_change_asked_is_left_to_the_model(text: str) -> None:
    got = label_text(text, scorer=_SaysCoding())  # type: ignore[arg-type]
    assert got.label == "coding" and got.evidence is None, text


def test_the_pack_rules_the_guides_evidence_reads_are_in_the_label_pack() -> None:
    # the evidence names rules by id: a rule renamed in the pack would silently switch it off
    from turnlens.router.labeler import QUESTION_RULES, RUN_RULE, SYMPTOM_RULE

    ids = {rule.id for rule in label_pack().rules}
    read = {SYMPTOM_RULE, RUN_RULE, *QUESTION_RULES}
    assert read <= ids, read - ids


@pytest.mark.parametrize(
    "text",
    [
        "is this header sticky on purpose?",
        "why is the cache cleared on every deploy",  # a question rule fired, no question mark
        "does GH_TOKEN also apply when git pushes?",
        "what does the retry count default to?",
        "la config de prod usa otro bucket?",
        "ce paramètre est encore utilisé ?",
        "wird das Token beim Push auch verwendet?",
        "这个环境变量是干什么用的？",
        "この設定は本番でも有効？",
        "이 옵션은 아직 쓰이고 있어?",
    ],
)
def test_a_question_about_the_work_is_analysis(text: str) -> None:
    # Part 2: a question about the work with no change asked for is analysis (the agent
    # explains); no change asked rules out coding and bookkeeping, and a question about the work
    # is not chat
    from turnlens.router.labeler import QUESTION_WHY

    got = label_text(text, scorer=_SaysCoding())  # type: ignore[arg-type]
    assert got.label == "analysis" and got.evidence == QUESTION_WHY, text
    assert got.probabilities is not None and got.confidence == pytest.approx(_stated("question"))
    assert max(got.probabilities, key=got.probabilities.__getitem__) == "analysis"
    assert QUESTION_WHY in got.explain()


class _SaysBookkeeping(_SaysChat):
    """A scorer that reads every prompt as bookkeeping, with design second."""

    def predict(self, text: str, rules: object) -> object:
        from turnlens.learn.model import Prediction

        probabilities = {"design": 0.2, "analysis": 0.1, "coding": 0.1, "bookkeeping": 0.55, "chat": 0.05}
        return Prediction("bookkeeping", 0.55, probabilities)


def test_a_question_read_as_bookkeeping_is_analysis_too() -> None:
    # "did you rebuild everything?" is no design question, though the model may find design
    # likelier than analysis: the guide's answer is analysis
    from turnlens.router.labeler import QUESTION_WHY

    got = label_text("where does the lock file live?", scorer=_SaysBookkeeping())  # type: ignore[arg-type]
    assert got.label == "analysis" and got.evidence == QUESTION_WHY


@pytest.mark.parametrize(
    "text",
    [
        "can you add a dark mode toggle?",  # a request phrased as a question
        "could you rename it to helpers.py?",
        "can we map the events from the export instead of made-up data?",
        "would it be possible to add two keybinds for this?",
        "please make the token check stricter?",
        "帮我看看这个接口有没有鉴权？",
        "不要なブランチを削除してもらっていいでしょうか？",
        "설정 파일 좀 만들어 주세요?",
        "is the upload handler wrong? add a test for it",  # a coding rule fired
        'what does this print?\nTraceback (most recent call last):\n  File "a.py", line 1',  # a pasted error
        "the export and the import in one module",  # neither a question nor a symptom
    ],
)
def test_a_request_phrased_as_a_question_is_left_to_the_model(text: str) -> None:
    got = label_text(text, scorer=_SaysCoding())  # type: ignore[arg-type]
    assert got.label == "coding" and got.evidence is None, text


@pytest.mark.parametrize(
    "text",
    [
        "yeah lets do it.",
        "お願いします。",
        "1) B 2) A 3) A",
        "sí, dale",
        "yes please do it",
        # a go-ahead said in clauses: every option, no asking (`core.picks.said_go_ahead`)
        "let's do both, one at a time",
        "Sure, and don't ask me again",
        "好的，全部都做，别问我",
        "pode fazer tudo sem perguntar",
        # a resume alone (`core.picks.said_resume`)
        "ok, keep going",
        "continue the plan",
    ],
)
def test_a_bare_go_ahead_is_chat_whatever_the_model_says(text: str) -> None:
    # Part 2: a go-ahead or a pick with no task of its own is chat: the route was set when the
    # work was asked
    from turnlens.router.labeler import PICK_WHY

    for scorer in (_SaysCoding(), _SaysBookkeeping()):
        got = label_text(text, scorer=scorer)  # type: ignore[arg-type]
        assert got.label == "chat" and got.evidence == PICK_WHY, text


@pytest.mark.parametrize(
    "text",
    [
        "write a detailed plan to fix them in TODO.md, then start on the first item",
        "Analyze the engines and make a detailed plan in PLAN.md for adding the new ones",
        "create an implementation plan that follows the spec exactly",
        "draft a rollout plan for the new billing service",
        "haz un plan de migración a Postgres, sin código todavía",
        "rédige une stratégie de cache pour l'API publique",
        "erstelle einen Plan für die Migration der Datenbank",
        "составь план переноса сервиса на новый кластер",
        "先制定一个迁移方案，再动代码",
        "移行の計画を立てて",
        "배포 계획을 세워줘",
        "write the requirements document for the booking app",  # a spec to be written
        "要件定義書を作ってください",
    ],
)
def test_a_plan_asked_for_is_design(text: str) -> None:
    # Part 2: a design document, a plan or an RFC to be written is design: the plan is the
    # deliverable, not the code (a coding verb such as "write" does not make it code)
    from turnlens.router.labeler import PLAN_WHY

    got = label_text(text, scorer=_SaysCoding())  # type: ignore[arg-type]
    assert got.label == "design" and got.evidence == PLAN_WHY, text
    assert got.confidence == pytest.approx(_stated("plan"))


@pytest.mark.parametrize(
    "text",
    [
        "follow the plan in PLAN.md and implement step 2",  # a plan named, not asked for
        "the plan says to add a cache, do that",
        "make plan\nmake test",  # a make target
        "update the design system tokens to the new palette",
        "write the migration as planned",
        "write the tests following the spec",  # a spec named, not asked for
    ],
)
def test_a_plan_only_named_is_left_to_the_model(text: str) -> None:
    got = label_text(text, scorer=_SaysCoding())  # type: ignore[arg-type]
    assert got.label == "coding" and got.evidence is None, text


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("src/app.ts:14:9 - error TS2322: Type 'string' is not assignable to type 'number'.", "coding"),
        ("✘ [ERROR] TS2307: Cannot find module '../services/projects'", "coding"),
        ("I'm getting:\nerror[E0308]: mismatched types\n  --> src/main.rs:4:5", "coding"),
        ("Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect", "analysis"),
        ("Traceback (most recent call last):\n  File \"app.py\", line 3\nKeyError: 'id'", "analysis"),
    ],
)
def test_an_error_pasted_with_no_request_is_settled_by_its_kind(text: str, label: str) -> None:
    # Part 2: a pasted error with no instruction is coding when it is a build, compile or type
    # error that names the line to change, analysis when it is a failure at run time; whatever
    # the model says, chat included
    from turnlens.router.labeler import BUILD_WHY, RUNTIME_WHY

    for scorer in (_SaysCoding(), _SaysChat(), _SaysBookkeeping()):
        got = label_text(text, scorer=scorer)  # type: ignore[arg-type]
        assert got.label == label and got.evidence == (BUILD_WHY if label == "coding" else RUNTIME_WHY), text


@pytest.mark.parametrize(
    "text",
    [
        "src/app.ts:14:9 - error TS2322: Type 'string' is not assignable. why?",  # a question asked
        "TypeError: total is undefined\nfix it",  # a fix asked for
        "the build fails with error TS2322 in app.ts",  # told, not pasted
    ],
)
def test_an_error_with_a_request_is_not_settled_by_its_kind(text: str) -> None:
    from turnlens.router.labeler import BUILD_WHY, RUNTIME_WHY

    got = label_text(text, scorer=_SaysCoding())  # type: ignore[arg-type]
    assert got.evidence not in (BUILD_WHY, RUNTIME_WHY), text


def test_the_shipped_labeler_reads_questions_plans_and_go_aheads_as_the_guide_does() -> None:
    from turnlens.router.resolve import resolve_offline

    assert resolve_offline("is this header sticky on purpose?").phase == "reflect"
    assert resolve_offline("write a detailed plan to fix these problems in TODO.md").phase == "plan"
    assert not resolve_offline("yes please do it").routed


def test_the_shipped_labeler_reads_a_symptom_as_the_guide_does() -> None:
    from turnlens.router.labeler import SYMPTOM_WHY
    from turnlens.router.resolve import resolve_offline

    assert label_text("the preview still doesn't show").label == "analysis"
    told = label_text("il pulsante non funziona più")
    assert told.label == "analysis" and told.evidence == SYMPTOM_WHY
    route = resolve_offline("the preview still doesn't show after the deploy")
    assert route.routed and route.phase == "reflect"


@pytest.mark.parametrize(
    "text",
    [
        "how can I test the pretrained model with this dataset",  # a question in words, no mark
        "what are the primary and secondary genres for these tracks",
        "are there tools that turn handwriting into typed text",
        "ok so where is the retry count set",
        "como faço para liberar o arquivo .env",
        "что с файлом upload_screen",
        "后端如何启动",
        "dll做了什么事情",
        "gh auth switch せずに、アカウントはどうやって切り替える",
        "실행 예시 뭐야",
    ],
)
def test_a_question_asked_in_words_is_analysis(text: str) -> None:
    # the guide reads a question by what it asks, not by its mark: people often leave it out
    from turnlens.router.labeler import QUESTION_WHY

    for scorer in (_SaysCoding(), _SaysBookkeeping()):
        got = label_text(text, scorer=scorer)  # type: ignore[arg-type]
        assert got.label == "analysis" and got.evidence == QUESTION_WHY, text


@pytest.mark.parametrize(
    "text",
    [
        "how about a dark mode toggle in the settings",  # a suggestion: a request
        "do the missing parts and the minor issues now",  # "do" asks for work
        "what I mean by port is the proxy port",  # an explanation
        "怎么让这个元素居中",  # how to make it so: a request
        "readmeなどの文書は全て日本語にして",  # "など" holds no question word
        "when I use --json mode I don't want the spinner",  # a condition, not a question
    ],
)
def test_words_that_only_look_like_a_question_are_left_to_the_model(text: str) -> None:
    got = label_text(text, scorer=_SaysCoding())  # type: ignore[arg-type]
    assert got.label == "coding" and got.evidence is None, text


def test_every_answer_from_the_guides_evidence_states_a_fitted_confidence() -> None:
    # each evidence has its figure in defaults.toml, and the answer stays the likeliest label
    from turnlens.router.labeler import EVIDENCE_NAMES
    from turnlens.router.vocabulary import vocabulary

    figures = vocabulary().evidence
    assert set(EVIDENCE_NAMES.values()) == set(figures), set(EVIDENCE_NAMES.values()) ^ set(figures)
    assert all(20 <= pct < 100 for pct in figures.values())
    for text, scorer in (
        ("is this header sticky on purpose?", _SaysCoding()),
        ("help me with this", _SaysChat()),
        ("yeah lets do it.", _SaysCoding()),
        ("打开就闪退", _SaysCoding()),
    ):
        got = label_text(text, scorer=scorer)  # type: ignore[arg-type]
        assert got.evidence is not None and got.probabilities is not None, text
        assert got.confidence == pytest.approx(figures[EVIDENCE_NAMES[got.evidence]] / 100)
        assert sum(got.probabilities.values()) == pytest.approx(1.0)
        assert max(got.probabilities.values()) == pytest.approx(got.confidence), got.probabilities
        assert all(p >= 0 for p in got.probabilities.values())


def test_the_rest_of_an_evidence_answer_goes_as_the_model_shared_it() -> None:
    # the model's second choice stays second; none of the others passes the answer
    got = label_text("is this header sticky on purpose?", scorer=_SaysCoding())  # type: ignore[arg-type]
    assert got.probabilities is not None
    others = sorted((p, c) for c, p in got.probabilities.items() if c != "analysis")
    assert others[-1][1] == "coding" and others[-1][0] <= got.confidence


@pytest.mark.parametrize("value", ["10", "100", "0", '"high"', "true", "55.5"])
def test_an_evidence_figure_out_of_range_is_refused_at_load(value: str) -> None:
    from turnlens.core.data import read_packaged
    from turnlens.router.vocabulary import RouterDataError, _parse_vocabulary

    text = read_packaged("turnlens.router", "defaults.toml")
    bad = text.replace("\nquestion = ", f"\nquestion = {value}  # was ", 1)
    with pytest.raises(RouterDataError, match="evidence"):
        _parse_vocabulary(bad)


@pytest.mark.parametrize(
    "text",
    [
        "run the benchmark script to write the side-by-side report",
        "use the other api key, run search again",
        "execute somente o teste que falhou",
        "ejecuta los tests de integración",
        "请运行一下所有测试",
        "запусти миграции на стейджинге",
    ],
)
def test_a_run_asked_for_with_no_change_is_bookkeeping(text: str) -> None:
    # Part 2: "run a command" is bookkeeping; the model met "run" in requests for code
    from turnlens.router.labeler import RUN_WHY

    got = label_text(text, scorer=_SaysCoding())  # type: ignore[arg-type]
    assert got.label == "bookkeeping" and got.evidence == RUN_WHY, text
    assert got.confidence == pytest.approx(_stated("run"))


@pytest.mark.parametrize(
    "text",
    [
        "run the backend and fix all the conflicts",  # a fix asked for
        "run the tests; they should all pass after the change",  # a requirement stated
        "start implementing the tests from TODO.md",  # no run asked for
        "add a script that runs the migrations",  # a coding rule fired
    ],
)
def test_a_run_with_a_change_is_left_to_the_model(text: str) -> None:
    got = label_text(text, scorer=_SaysCoding())  # type: ignore[arg-type]
    assert got.label == "coding" and got.evidence is None, text


class _SaysBookkeepingThenCoding(_SaysChat):
    """A scorer that reads every prompt as bookkeeping, coding second: what the model does with a
    document to write, whose words ("README", "docs") it met in mechanical changes."""

    def predict(self, text: str, rules: object) -> object:
        from turnlens.learn.model import Prediction

        probabilities = {"design": 0.1, "analysis": 0.1, "coding": 0.3, "bookkeeping": 0.45, "chat": 0.05}
        return Prediction("bookkeeping", 0.45, probabilities)


@pytest.mark.parametrize(
    "text",
    [
        "add an installation section to README.md",
        "refresh the API collection and update the docs accordingly",
        "Напиши README.md с инструкцией по сборке и запуску",
        "把readme全部翻译成中文",
        "READMEとガイドの文章を日本語に直して",
        "@docs/guide-template.md 에 yaml frontmatter 도 넣어줘.",
        "escribe una guía de instalación para Windows",
    ],
)
def test_a_document_to_write_is_coding(text: str) -> None:
    # Part 2: writing, updating or translating a document (a README, a guide) is coding
    from turnlens.router.labeler import DOC_WHY

    got = label_text(text, scorer=_SaysBookkeepingThenCoding())  # type: ignore[arg-type]
    assert got.label == "coding" and got.evidence == DOC_WHY, text
    assert got.confidence == pytest.approx(_stated("document"))


@pytest.mark.parametrize(
    "text",
    [
        "add today's fixes to CHANGELOG.md",  # a changelog line: Part 2's own bookkeeping
        "commit the README changes and push",  # a commit asked for
        "@docs/ remove this folder, we already have one inside @assets/",  # a folder removed
        "rename docs/setup.md to docs/install.md",  # a move (the pack's rename rule)
        "bump the version in package.json to 3.0.0",  # no document named
        "fix the typo in the docstring of parse_row",  # "docstring" is no document
    ],
)
def test_a_mechanical_change_to_a_document_is_left_to_the_model(text: str) -> None:
    got = label_text(text, scorer=_SaysBookkeepingThenCoding())  # type: ignore[arg-type]
    assert got.label == "bookkeeping" and got.evidence is None, text


class _SaysDesign(_SaysChat):
    """A scorer that reads every prompt as design, analysis second: what the model does with a
    question in words it met in design questions."""

    def predict(self, text: str, rules: object) -> object:
        from turnlens.learn.model import Prediction

        probabilities = {"design": 0.5, "analysis": 0.3, "coding": 0.1, "bookkeeping": 0.05, "chat": 0.05}
        return Prediction("design", 0.5, probabilities)


@pytest.mark.parametrize(
    "text",
    [
        "is a local server needed to start this game?",
        "what is the current focus of the settings page?",
        "サブエージェントをスキルに置き換えたら、設定はどうなるの？",
        "이 .env는 mysql host가 인스턴스 ip여야 하는 거 아니야?",
        "¿para publicar la imagen en el registro necesito un token aparte?",
    ],
)
def test_a_question_read_as_design_is_analysis_where_no_design_rule_fired(text: str) -> None:
    # Part 2: a question about the work is analysis; the model, which met such words in design
    # questions, says design, but none of the pack's design rules fired
    from turnlens.router.labeler import QUESTION_WHY

    got = label_text(text, scorer=_SaysDesign())  # type: ignore[arg-type]
    assert got.label == "analysis" and got.evidence == QUESTION_WHY, text


@pytest.mark.parametrize(
    "text",
    [
        "how should we structure the plugin system so third parties can add exporters?",  # a design rule
        "instead of a custom extension, is there some other way to do this?",  # options asked for
        "а какие еще есть схемы хранения?",
        "有什么办法可以实现数据的存储吗？",
        "can you sketch the schema for me?",  # a request phrased as a question
    ],
)
def test_a_design_question_or_options_asked_stay_with_the_model(text: str) -> None:
    got = label_text(text, scorer=_SaysDesign())  # type: ignore[arg-type]
    assert got.label == "design" and got.evidence is None, text


class _SaysAnalysis(_SaysChat):
    """A scorer that reads every prompt as analysis, design second: what the model does with a
    question it met in investigations."""

    def predict(self, text: str, rules: object) -> object:
        from turnlens.learn.model import Prediction

        probabilities = {"design": 0.25, "analysis": 0.5, "coding": 0.15, "bookkeeping": 0.05, "chat": 0.05}
        return Prediction("analysis", 0.5, probabilities)


@pytest.mark.parametrize("text", ["can you run commands?", "do you read pdfs?", "你能读取pdf吗"])
def test_a_question_to_the_agent_about_itself_is_chat_whatever_the_model_says(text: str) -> None:
    # Part 2: "can you see images?" is chat; the model met "can you run …" in requests
    from turnlens.router.labeler import ABOUT_WHY

    for scorer in (_SaysCoding(), _SaysAnalysis()):
        got = label_text(text, scorer=scorer)  # type: ignore[arg-type]
        assert got.label == "chat" and got.evidence == ABOUT_WHY, text
        assert got.confidence == pytest.approx(_stated("about"))


@pytest.mark.parametrize("text", ["Please always reply in Portuguese.", "한국어로 답변해줘."])
def test_a_standing_rule_alone_is_chat(text: str) -> None:
    # Part 2: a standing rule with no task of its own sets no route
    from turnlens.router.labeler import STANDING_WHY

    got = label_text(text, scorer=_SaysCoding())  # type: ignore[arg-type]
    assert got.label == "chat" and got.evidence == STANDING_WHY, text


def test_a_standing_rule_with_a_task_takes_the_tasks_label() -> None:
    got = label_text("answer in English from now on, and fix the login test", scorer=_SaysCoding())  # type: ignore[arg-type]
    assert got.label == "coding" and got.evidence is None


@pytest.mark.parametrize(
    "text",
    [
        "the build works now",
        "I removed the old config file",
        "部署完成",
        "うまくいきました！",
        "Всё готово, я включил биллинг",
        "okay, the migration is done. continue",
    ],
)
def test_a_report_that_something_is_done_is_chat(text: str) -> None:
    # Part 2: "a report that something is done or works now with no request" is chat
    from turnlens.router.labeler import DONE_WHY

    for scorer in (_SaysCoding(), _SaysBookkeeping()):
        got = label_text(text, scorer=scorer)  # type: ignore[arg-type]
        assert got.label == "chat" and got.evidence == DONE_WHY, text
        assert got.confidence == pytest.approx(_stated("done"))


@pytest.mark.parametrize(
    "text",
    [
        "the build works now, add the tests for the parser",  # a request follows
        "the login is done, now do the signup page",
        "the build works now but the tests still fail",  # what is not done
        "check that the export is working",  # a request worded with the state
        "继续完成剩下的测试",
    ],
)
def test_a_report_with_more_is_left_to_the_model(text: str) -> None:
    got = label_text(text, scorer=_SaysCoding())  # type: ignore[arg-type]
    assert got.label == "coding" and got.evidence is None, text


@pytest.mark.parametrize("text", ["ok, what should we do next", "部署好了，接下来该做什么", "что дальше?"])
def test_what_comes_next_is_design(text: str) -> None:
    # the next steps are a plan: design, whatever the model's question words say
    from turnlens.router.labeler import NEXT_WHY

    for scorer in (_SaysAnalysis(), _SaysCoding()):
        got = label_text(text, scorer=scorer)  # type: ignore[arg-type]
        assert got.label == "design" and got.evidence == NEXT_WHY, text
        assert got.confidence == pytest.approx(_stated("next"))


@pytest.mark.parametrize(
    "text",
    [
        "read all the docs in the docs folder and summarize them",
        "изучи все файлы в папке docs",
        "先阅读一下这个项目",
        "check whether the export covers every field in the spec",
    ],
)
def test_a_reading_or_a_check_asked_is_analysis(text: str) -> None:
    # Part 2: an investigation (read, review, audit) is analysis; no change is asked
    from turnlens.router.labeler import EXAMINE_WHY

    for scorer in (_SaysCoding(), _SaysBookkeeping()):
        got = label_text(text, scorer=scorer)  # type: ignore[arg-type]
        assert got.label == "analysis" and got.evidence == EXAMINE_WHY, text


@pytest.mark.parametrize(
    "text",
    [
        "read the config and fix the wrong port",  # a change asked
        "read the docs, then add a retry to the upload client",  # a coding rule fired
    ],
)
def test_a_reading_before_a_change_is_left_to_the_model(text: str) -> None:
    got = label_text(text, scorer=_SaysCoding())  # type: ignore[arg-type]
    assert got.label == "coding" and got.evidence is None, text


def test_an_error_seen_is_a_symptom() -> None:
    from turnlens.router.labeler import SYMPTOM_WHY

    got = label_text("the upload hits a CORS error on the second request", scorer=_SaysCoding())  # type: ignore[arg-type]
    assert got.label == "analysis" and got.evidence == SYMPTOM_WHY
