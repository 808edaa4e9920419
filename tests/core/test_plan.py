"""The SE-029 session plan (SPEC §4): ratios, planned words, tokens, FITS / OVERFLOW, JSON."""

from __future__ import annotations

import pytest

from turnlens import api
from turnlens.classifier import classify
from turnlens.core.classify import Classification
from turnlens.core.plan import plan, tokens


def turn(words: int, task_class: str) -> Classification:
    return classify(" ".join(["word"] * words), pin=task_class)


SESSION = [
    turn(10, "decision"),  # frozen "true": ratio 1 -> 10
    turn(7, "spec"),  # frozen "true": ratio 1 -> 7
    turn(95, "code"),  # frozen "partial": its max_ratio 10 -> 9
    turn(31, "review"),  # 15 -> 2
    turn(100, "context"),  # 25 -> 4
    turn(3, "chitchat"),  # 80 -> max(1, 0) = 1
]


def test_applied_ratio_and_planned_words() -> None:
    result = plan(SESSION, budget=1000)
    rows = [
        (t.turn, t.task_class, t.frozen, t.words_orig, t.applied_ratio, t.words_plan) for t in result.turns
    ]
    assert rows == [
        (1, "decision", "true", 10, 1, 10),
        (2, "spec", "true", 7, 1, 7),
        (3, "code", "partial", 95, 10, 9),
        (4, "review", "false", 31, 15, 2),
        (5, "context", "false", 100, 25, 4),
        (6, "chitchat", "false", 3, 80, 1),
    ]
    assert result.total_orig_words == 246 and result.total_plan_words == 33


@pytest.mark.parametrize(("words", "expected"), [(0, 0), (1, 1), (10, 13), (33, 42), (246, 319), (7, 9)])
def test_tokens_are_words_times_13_integer_divided_by_10(words: int, expected: int) -> None:
    assert tokens(words) == expected == words * 13 // 10


def test_an_empty_turn_still_plans_one_word() -> None:
    assert plan([turn(0, "context")], budget=5).turns[0].words_plan == 1


def test_fits_when_planned_tokens_are_within_the_budget() -> None:
    exact = plan(SESSION, budget=42)  # 33 planned words -> 42 tokens
    assert (exact.fits, exact.verdict, exact.excess) == (True, "FITS", 0)
    assert exact.message == "FITS: 42 planned tokens within a budget of 42 (6 turns)"


def test_overflow_reports_the_excess() -> None:
    over = plan(SESSION, budget=40)
    assert (over.fits, over.verdict, over.excess) == (False, "OVERFLOW", 2)
    assert over.message == "OVERFLOW: 42 planned tokens exceed the budget of 40 by 2"


def test_json_field_names() -> None:
    data = plan(SESSION, budget=40).to_json()
    assert list(data) == [
        "verdict",
        "n_turns",
        "total_orig_words",
        "total_plan_words",
        "total_orig_tokens",
        "total_plan_tokens",
        "budget",
        "message",
        "excess",
        "plan",
    ]
    assert data["verdict"] == "OVERFLOW" and data["n_turns"] == 6 and data["budget"] == 40
    assert (data["total_orig_tokens"], data["total_plan_tokens"]) == (319, 42)
    assert data["plan"][0] == {
        "turn": 1,
        "class": "decision",
        "frozen": "true",
        "words_orig": 10,
        "applied_ratio": 1,
        "words_plan": 10,
    }
    assert "excess" not in plan(SESSION, budget=42).to_json()


def test_negative_budget_is_refused() -> None:
    with pytest.raises(ValueError, match="budget"):
        plan(SESSION, budget=-1)


def test_api_plans_a_whole_document_and_honours_pins() -> None:
    doc = (
        "thanks!\n---TURN---\n<!-- turnlens: class=spec -->\nthanks!\n"
        "---TURN---\n\n---TURN---\nLGTM, merge it\n"
    )
    result = api.plan(doc, budget=100)
    assert [(t.turn, t.task_class, t.applied_ratio) for t in result.turns] == [
        (1, "chitchat", 80),
        (2, "spec", 1),
        (3, "decision", 1),
    ]
    custom = api.plan("a b c\n@@@\nd e f g h i j k", budget=100, separator="@@@")
    assert [t.words_orig for t in custom.turns] == [3, 8]
