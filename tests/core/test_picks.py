"""A person's bare pick or go-ahead, typed to an agent, is a decision (core.picks, core.kinds)."""

from __future__ import annotations

import pytest

from turnlens.classifier import classify, classify_unit
from turnlens.core.kinds import allowed_classes
from turnlens.core.picks import GO_AHEAD_WHY, PICK_MAX, answered_go_ahead, bare_pick
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
    "opçao A, mas antes atualize o plano com os pontos pendentes",
    "B is wrong: the cache must be per tenant",
    "do it\nand then run the tests",
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
    assert allowed_classes("prompt", text) is None


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
]


@pytest.mark.parametrize("text", GO_AHEADS)
def test_a_yes_then_what_to_do_is_a_decision(text: str) -> None:
    assert answered_go_ahead(text)
    assert allowed_classes("prompt", text) == ("decision",)
    c = classify_unit(text, "prompt", explain=True)
    assert c.task_class == "decision" and c.frozen == "true"


@pytest.mark.parametrize("text", NOT_GO_AHEADS)
def test_questions_reports_and_new_requests_after_a_yes_are_left_to_the_model(text: str) -> None:
    assert not answered_go_ahead(text)


def test_the_go_ahead_says_why_and_holds_only_for_a_persons_prompt() -> None:
    from turnlens.core.kinds import kind_evidence

    assert kind_evidence("prompt", "sure push it") == (("decision",), GO_AHEAD_WHY)
    # a thread's "yes, merge it" or an agent's reply: the model's, as before
    assert allowed_classes(None, "sure push it") is None
    assert "decision" not in (allowed_classes("reply", "sure push it") or ())
