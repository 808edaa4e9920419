"""The compaction guard keeps a person's prompts in doubt, besides the frozen turns.

`turnlens.agents.guard.in_doubt` decides from a classification's probabilities; the ledger
remembers such prompts among its frozen turns under `decision?` / `spec?`, after the sure
ones, and the PreCompact instructions and the give-back after a compaction carry them.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests.agents.make_fixtures import session
from turnlens.agents import compaction, guard
from turnlens.agents.guard import frozen_classes, guard_share, guarded_class, in_doubt
from turnlens.agents.ledger import Ledger
from turnlens.classifier import Classification, classify


def _answer(task_class: str, probabilities: dict[str, float]) -> Classification:
    """A model's answer with these probabilities (the rest of the record from a real one)."""
    from turnlens.core.classes import task_class as class_of

    base = classify("please look at the parser")
    tc = class_of(task_class)
    return base._replace(
        task_class=task_class,
        max_ratio=tc.max_ratio,
        frozen=tc.frozen,
        verdict=tc.verdict,
        confidence=probabilities[task_class],
        probabilities=probabilities,
    )


def _probs(**given: float) -> dict[str, float]:
    rest = (1.0 - sum(given.values())) / (6 - len(given))
    names = ("decision", "spec", "code", "review", "context", "chitchat")
    return {n: given.get(n, rest) for n in names}


def test_the_share_is_the_frozen_classes_even_share() -> None:
    # decision and spec of the six classes: a third, from the classes' own data
    assert frozen_classes() == ["decision", "spec"]
    assert abs(guard_share() - 1 / 3) < 1e-12


@pytest.mark.parametrize(
    ("probabilities", "want"),
    [
        (_probs(context=0.45, decision=0.30, spec=0.10), "decision?"),  # 0.40 frozen in all
        (_probs(context=0.50, decision=0.05, spec=0.30), "spec?"),
        (_probs(context=0.40, decision=0.20, spec=0.15), "decision?"),  # together, not each
        (_probs(context=0.60, decision=0.20, spec=0.10), None),  # 0.30: under a third
        (_probs(context=0.90, decision=0.02, spec=0.02), None),
    ],
)
def test_a_persons_prompt_is_kept_in_doubt_by_its_frozen_share(
    probabilities: dict[str, float], want: str | None
) -> None:
    c = _answer("context", probabilities)
    assert in_doubt(c, "user", "prompt") == want
    assert guarded_class(c, "user", "prompt") == want


def test_only_a_persons_prompts_and_never_a_frozen_one() -> None:
    doubtful = _answer("context", _probs(context=0.45, decision=0.40))
    for role, kind in (("assistant", "reply"), ("user", "tool_result"), (None, None), ("user", None)):
        assert in_doubt(doubtful, role, kind) is None
        assert guarded_class(doubtful, role, kind) is None
    sure = _answer("decision", _probs(decision=0.55, context=0.30))
    assert in_doubt(sure, "user", "prompt") is None
    assert guarded_class(sure, "user", "prompt") == "decision"
    # the rules' answers carry no probabilities: nothing is in doubt
    rules = _answer("context", _probs(context=0.45, decision=0.40))._replace(probabilities=None)
    assert in_doubt(rules, "user", "prompt") is None


DOUBTFUL = "Right, then we leave the old export endpoint in place for the mobile clients until June."


@pytest.fixture
def doubtful(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Ledger:
    """The fixture session with one more prompt, which the guard (stubbed: the policy is
    tested above) keeps in doubt; the same words as the agent's reply are not kept."""
    # a prompt the model answers frozen would be kept as a sure one: choose another text then
    assert classify(DOUBTFUL, kind="prompt").frozen != "true"
    real = guard.in_doubt

    def stub(c: Classification, role: str | None, kind: str | None) -> str | None:
        if role == "user" and kind == "prompt" and c.words == len(DOUBTFUL.split()) and c.frozen != "true":
            return "decision?"
        return real(c, role, kind)

    monkeypatch.setattr(guard, "in_doubt", stub)
    w = session()
    w.user(DOUBTFUL)
    w.assistant(DOUBTFUL)
    path = tmp_path / "doubt.jsonl"
    path.write_text("\n".join(w.lines) + "\n", encoding="utf-8")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    led = Ledger(str(path), "claude-code")
    led.update(time.monotonic() + 600)
    return led


def test_the_ledger_keeps_a_prompt_in_doubt_after_the_sure_ones(doubtful: Ledger) -> None:
    led = doubtful
    turns = led.frozen_turns()
    doubted = [t for t in turns if t.quote == DOUBTFUL]
    assert len(doubted) == 1 and doubted[0].role == "user" and doubted[0].kind == "prompt"
    assert doubted[0].task_class == "decision?"
    ordered = compaction.by_importance(turns)
    sure = [t for t in ordered if not t.task_class.endswith("?")]
    assert ordered[: len(sure)] == sure  # every decision and spec first, however old
    assert ordered.index(doubted[0]) == len(sure)  # then the prompts in doubt, most recent first
    text = compaction.instructions(led, 200_000)
    assert text is not None
    assert f'decision? · turn {doubted[0].index} · line {doubted[0].line} · user: "{DOUBTFUL}"' in text
    assert "A class marked ? is a person's prompt that may be one" in text
    # a prompt typed again is listed once, at its most recent place
    for t in turns:
        assert text.count(f'user: "{t.quote}"') == 1
    # the plan's figures are by the classes shown: a prompt kept in doubt is not counted frozen
    assert "decision?" not in led.totals("session")


def test_a_prompt_in_doubt_is_never_given_back_after_a_compaction(doubtful: Ledger) -> None:
    # given back "still in force", a request made once could be carried out again: only the
    # sure decisions and specs the summary lost come back
    led = doubtful
    turns = led.frozen_turns()
    sure = [t for t in turns if not t.task_class.endswith("?")]
    assert len(sure) < len(turns)
    result = compaction.lost_turns(led, turns, "We built a token bucket limiter in Redis.")
    assert result.checked == len(sure)
    assert {x.turn.index for x in result.lost} <= {t.index for t in sure}
    given = compaction.restore_context(result)
    assert given is not None and DOUBTFUL not in given
    blocks = re.findall(r"^\[(\S+) · turn ", given, flags=re.MULTILINE)
    assert len(blocks) == len(result.restored) > 0
    assert all(not b.endswith("?") for b in blocks)


def test_without_doubt_the_instructions_say_nothing_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(guard, "in_doubt", lambda c, role, kind: None)
    w = session()
    path = tmp_path / "plain.jsonl"
    path.write_text("\n".join(w.lines) + "\n", encoding="utf-8")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    led = Ledger(str(path), "claude-code")
    led.update(time.monotonic() + 600)
    text = compaction.instructions(led, 200_000)
    assert text is not None and "marked ?" not in text
    assert all(not t.task_class.endswith("?") for t in led.frozen_turns())
