"""A person's bare pick, go-ahead or stated choice, typed to an agent, is a decision (core.picks,
core.kinds)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from turnlens.classifier import classify, classify_unit
from turnlens.core.kinds import allowed_classes
from turnlens.core.picks import (
    GO_AHEAD_WHY,
    PICK_MAX,
    SAID_MAX,
    SAID_WHY,
    STATED_WHY,
    answered_go_ahead,
    bare_pick,
    said_go_ahead,
    said_resume,
    stated_choice,
)
from turnlens.core.rules import builtin_pack

PICKS = [
    "B",
    "2.",
    "opção A",
    "Option 2",
    "opción B por favor",
    "方案二",
    "B案でお願いします",
    "Q1: A, Q2: C, Q3: A",
    "yes do it",
    "Yes",
    "okay, go ahead",
    "sounds good, do it",
    "DO IT!",
    "let’s do it",
    "ship it 🚀",
    "dale",
    "pode fazer",
    "vas-y",
    "ja bitte",
    "mach das",
    "好的，执行",
    "开始吧",
    "はい、お願いします",
    "진행해주세요",
    "давай",
    "procedi",
    "no",
    "nein",
    # a terminal's yes/no answer, as Aider asks it
    "y",
    "N",
    # a full-width letter or digit, as a CJK input method types it
    "Ｂ",
    "３",
    # a bare yes or no in Chinese
    "是的",
    "对",
    "否",
    "不需要",
    # the guide's bare please that answers the agent
    "please do",
    "pls do it",
    "hazlo tú",
    # an answer word before the go-ahead, and go-aheads said as an approval
    "sim, pode começar",
    "oui, ok pour moi",
    "d'accord, ça me convient",
    "ja, mach das",
    "네 진행하자",
    "응~ 그래",
    "大丈夫です！",
    # more go-aheads: the agent's plan taken as it is, a "let it be done", the choice left to it
    "do it for me",
    "proceed with the plan",
    "Please proceed to your plan.",
    "可以执行了",
    "可以实现一下",
    "行吧，你看着来",
    "你来决定吧",
    "听你的",
    # the changes carried out, an approval, an Arabic ok or yes before a start or an agreement
    "执行修改",
    "承認します。",
    "حسنا ابدأ في التنفيذ",
    "نعم، تابع",
    "موافق",
]
NOT_PICKS = [
    "ok",
    "okay!",
    "thanks",
    "continue",
    "继续",
    "go on",
    "好的，谢谢",
    "fix it",
    "commit",
    "sure",
    "15",
    "no idea",
    "B is wrong: the cache must be per tenant",
    "do it\nand then run the tests",
    "ya",
    "yo",
    "好的",
    "是什么",
    "not yet",
    "please do not touch the tests",
    "ＯＫ",
    "pode começar pelos testes",  # what to start with: the model decides
    "그래서 어떻게 됐어?",  # "so" opening a question, not a yes
    "implement the plan",  # names the work: the model decides
    "proceed with the migration",
    "可以吗",  # asks
    "可以用吗？",
    "حسنا",  # an Arabic ok alone acknowledges
]


@pytest.mark.parametrize("text", PICKS)
def test_a_bare_pick_go_ahead_or_no_go_is_a_decision(text: str) -> None:
    assert bare_pick(text)
    assert allowed_classes("prompt", text) == ("decision",)
    c = classify_unit(text, "prompt")
    assert c.task_class == "decision" and c.frozen == "true"


@pytest.mark.parametrize("text", NOT_PICKS)
def test_acknowledgements_resumes_and_longer_prompts_are_left_to_the_model(text: str) -> None:
    assert not bare_pick(text)
    # left to the model (a prompt of a few words only loses chitchat: core.prompt_shapes)
    assert allowed_classes("prompt", text) != ("decision",)


def test_only_a_persons_prompt_is_read_so() -> None:
    """A "yes" in a thread is no answer to an agent, and an agent's own "Yes" decides nothing:
    both are classified as before."""
    pack = builtin_pack("default")
    for text in ("yes do it", "B"):
        assert classify_unit(text, "prompt").confidence == 1.0  # the kind settles it
        assert allowed_classes(None, text) is None
        assert classify(text, pack).confidence < 1.0  # a turn of a thread: the model's answer
        assert "decision" not in (allowed_classes("reply", text) or ())


def test_a_long_text_is_never_a_bare_pick() -> None:
    assert not bare_pick("yes " + "please " * PICK_MAX)


# a yes, then what to do: the person lets the agent go on, and says how
GO_AHEADS = [
    "yes, turn it on!",
    "sure push it",
    "yes use the simpler method",
    "yes but rename the helper first",
    "Yeah, keep the old endpoint for now",
    "sí, hazlo con la opción B",
    "sim, pode fazer o commit",
    "oui, supprime l'ancien module",
    "ja, nimm die zweite Variante",
    "да, переделай на async",
    "是的，按这个方案改",
    "はい、その方針で進めてください",
    "네, 그렇게 수정해 주세요",
    # a go-ahead or a no before a stop, then what to do
    "do it, and add a flag for the dry run",
    "Go ahead, keep the old endpoint for now",
    "ok - proceed, start with the parser",
    "No. Start with the plan in PLAN.md",
]
# a question, a report after the yes, a new request after an "ok", or too long: the model's
NOT_GO_AHEADS = [
    "yes?",
    "yes, can you also add tests?",
    "yes, it works now",
    "Yes I did",
    "sure, the error was in line 3",
    "ok, add tests for the parser",
    "great, now write the README",
    "yes",
    "yes, and then\nrun the tests",
    "Yes, add a doc teaching a dev to create an api integration from scratch with examples, please",
    "是的，这个问题在上周已经出现过很多次了，每次重启服务器之后都会再次出现",
    "是的，我已经改好了",
    "si no funciona, revisa el log",
    "si tu peux, ajoute un test",
    # a word that only opens with a yes
    "yesterday the nightly build broke again",
    "simplify the parser",
    "surely this is a bug in the cache",
    "japan locale shows the wrong date",
    "jaja, no me lo esperaba",
    # a go-ahead word with no stop after it, or a statement after the no
    "do it again with the new data",
    "proceed with the migration",
    "No. The tests still fail",
    "no, the parser is fine",
    "nobody uses the old flag",
]


# written for TurnLens in the shapes the real sets show: the option first, what the agent
# proposed taken, a choice said, things kept as they are
STATED = [
    "Option B, and keep the old flag behind an env var",
    "opción 2, pero deja los tests como están",
    "Opção A — só que primeiro anota no README o que ainda falta",
    # longer than a bare pick (`NOT_PICKS` once held it): the option said first decides it
    "opçao A, mas antes atualize o plano com os pontos pendentes",
    "方案二，先不要动数据库",
    "B案で進めてください。トークンは設定済みです。",
    "As you suggested, move the cache to redis and drop the file store",
    "Según sugieres, cambia el puerto al 8081",
    "como sugieres, deja la caché en memoria por ahora",
    "I've decided to drop the yaml loader, remove it and its tests",
    "forget it, I decided we stay on cron; walk me through how the job is scheduled",
    "let's go with the queue then",
    "pick #2 first, #4 after that, #1 can wait",
    "Once the changelog entry is in, proceed with option C",
    "这个先不改了，维持现状",
    "ok leave it as is",
    "me quedo con la versión de la rama main",
    # the option picked with a verb of choosing, or before the particle that takes it
    "let's try option two first",
    "we'll take option 2, the cache can wait",
    "现在开始做上传图片功能，我要方案 B。",
    "切到方案B，这也是这次的主要工作",
    "方法Bで進めてください。トークンは設定済みです。",
    "옵션 2로 해주세요",
]
NOT_STATED = [
    # an option mentioned, not picked
    "add an option B to the export menu",
    "the options are A or B, which one is faster?",
    "what does option 2 in the config do?",
    "use option parsing from the standard library",  # no option named by its letter
    "我用方法1试了，还是不行",  # a method tried, a report
    # a plain request or a report
    "refactor the loader so it streams the file",
    "it still fails after the change",
    # the choice deep in a long brief is part of it
    "Build the importer. "
    + "It reads every row, checks the header and writes a report. " * 8
    + "Then, as you suggested, add a dry run.",
]


# the longer shapes of a person's decision, each with what reads it
SHAPES = [(answered_go_ahead, GO_AHEAD_WHY, text) for text in GO_AHEADS] + [
    (stated_choice, STATED_WHY, text) for text in STATED
]


@pytest.mark.parametrize(("reads", "why", "text"), SHAPES)
def test_a_yes_then_what_to_do_or_a_choice_said_is_a_decision(
    reads: Callable[[str], bool], why: str, text: str
) -> None:
    from turnlens.core.kinds import kind_evidence

    assert reads(text)
    assert kind_evidence("prompt", text) == (("decision",), why)
    c = classify_unit(text, "prompt", explain=True)
    assert c.task_class == "decision" and c.frozen == "true"
    # a thread's "yes, merge it" or an agent's reply: the model's, as before
    assert allowed_classes(None, text) is None
    assert "decision" not in (allowed_classes("reply", text) or ())


@pytest.mark.parametrize("text", NOT_GO_AHEADS)
def test_questions_reports_and_new_requests_after_a_yes_are_left_to_the_model(text: str) -> None:
    assert not answered_go_ahead(text)


@pytest.mark.parametrize("text", NOT_STATED)
def test_options_mentioned_requests_and_long_briefs_are_left_to_the_model(text: str) -> None:
    assert not stated_choice(text)


# a go-ahead said in clauses with no task of its own: every option taken, the agent let go on
# without asking, what it proposed taken, in an order (our own wording, in the guide's languages)
SAID = [
    "let's do both, one at a time",
    "ok, do all four in order",
    "Sure, and don't ask me again",
    "go ahead with all of them, without asking",
    "apply the recommended fix",
    "LGTM, ship it",
    "ok great, go ahead",
    "네, 승인합니다",
    "2, and do everything without stopping",
    "两个都做吧",
    "好的，全部都做，别问我",
    "全部やって",
    "둘 다 진행해줘",
    "좋아 필요해 보이는 건 다 진행해줘",
    "хорошо, делай всё по порядку",
    "pode fazer tudo sem perguntar",
    "haz todos, uno por uno",
]
# a resume alone: chat for the router (Part 2), no decision for the task classes (Part 1)
RESUMES = [
    "ok, keep going",
    "please continue with the rest",
    "继续完成剩下的",
    "хорошо, делай дальше",
    "계속 진행해줘",
    "continue the plan",
    "ok, lanjutkan",
    "sigue",
    "go on from where you stopped",
]
# a task named, a question, a report, a state, an ok alone: not a go-ahead said in clauses
NOT_SAID = [
    "fix all of them",
    "do it and add the tests",
    "do all of them?",
    "all tests pass",
    "both endpoints return 500",
    "ok",
    "thanks",
    "全部删除",
    "make all the buttons blue",
    "continue, but rename the flag first",
    "todo",
    "Всё, я закончил",
    "don't ask me, just read the logs",
]


@pytest.mark.parametrize("text", SAID)
def test_a_go_ahead_said_in_clauses_decides(text: str) -> None:
    from turnlens.core.kinds import kind_evidence

    assert said_go_ahead(text)
    if not (bare_pick(text) or answered_go_ahead(text) or stated_choice(text)):
        assert kind_evidence("prompt", text) == (("decision",), SAID_WHY)
    assert classify_unit(text, "prompt").task_class == "decision"


@pytest.mark.parametrize("text", RESUMES)
def test_a_resume_alone_decides_nothing(text: str) -> None:
    # Part 2: chat (the router asks `said_resume`); Part 1: no decision
    assert not said_go_ahead(text)
    assert said_resume(text)


@pytest.mark.parametrize("text", NOT_SAID)
def test_tasks_questions_and_reports_are_no_go_ahead_said(text: str) -> None:
    assert not said_go_ahead(text)
    assert not said_resume(text)


def test_a_long_prompt_is_no_go_ahead_said() -> None:
    text = "ok, do all of them, " * (SAID_MAX // 20 + 1)
    assert len(text) > SAID_MAX and not said_go_ahead(text)
    assert said_go_ahead(text[:SAID_MAX].rstrip(" ,"))
