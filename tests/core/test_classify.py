"""classify(): the SPEC §2 examples, ties, the fallback, word and line counts, the JSON."""

from __future__ import annotations

import json

import pytest

from turnlens.classifier import classify
from turnlens.core.classes import CLASS_NAMES, task_class
from turnlens.core.classify import pick
from turnlens.core.engine import count_lines, count_words
from turnlens.core.rules import builtin_pack, parse_pack, rules_only

REFERENCE = builtin_pack("reference")
DEFAULT = builtin_pack("default")
# the default pack's rules deciding on their own (the model uses their firings as features)
DEFAULT_RULES = rules_only(DEFAULT)
BOTH = [pytest.param(REFERENCE, id="reference"), pytest.param(DEFAULT, id="default")]
FENCED_PYTHON = "```python\ndef add(a, b):\n    return a + b\n```"


def test_class_table_matches_spec() -> None:
    assert CLASS_NAMES == ("decision", "spec", "code", "review", "context", "chitchat")
    table = {n: (task_class(n).max_ratio, task_class(n).frozen, task_class(n).verdict) for n in CLASS_NAMES}
    assert table == {
        "decision": (5, "true", "SKIP"),
        "spec": (3, "true", "SKIP"),
        "code": (10, "partial", "COMPRESS_LIMITED"),
        "review": (15, "false", "COMPRESS"),
        "context": (25, "false", "COMPRESS"),
        "chitchat": (80, "false", "COMPRESS"),
    }


def test_spec_json_example_is_reproduced_exactly_by_the_reference_pack() -> None:
    out = json.dumps(classify("APPROVED — ship it", REFERENCE).to_json(), separators=(",", ":"))
    spec = (
        '{"class":"decision","max_ratio":5,"frozen":"true","words":4,"lines":1,'
        '"scores":{"decision":5,"spec":0,"code":0,"review":0,"context":0,"chitchat":3}'
    )
    assert out.startswith(spec + ","), out
    assert json.loads(out)["verdict"] == "SKIP"


def test_json_field_names_and_types_are_fixed() -> None:
    data = classify("APPROVED — ship it", DEFAULT).to_json()
    assert list(data)[:6] == ["class", "max_ratio", "frozen", "words", "lines", "scores"]
    assert data["class"] == "decision" and data["frozen"] == "true"
    assert isinstance(data["max_ratio"], int) and isinstance(data["words"], int)
    assert list(data["scores"]) == list(CLASS_NAMES)
    assert all(isinstance(v, int) for v in data["scores"].values())
    assert "signals" not in data


def test_json_with_explain_lists_the_signals_with_lines() -> None:
    data = classify("intro\nSee SPEC-7 for details", DEFAULT, explain=True).to_json(explain=True)
    ticket = next(s for s in data["signals"] if s["rule"] == "spec.ticket")
    assert {k: v for k, v in ticket.items() if k != "model_weight"} == {
        "rule": "spec.ticket",
        "class": "spec",
        "weight": 3,
        "line": 2,
        "text": "SPEC-7",
    }
    assert isinstance(ticket["model_weight"], float)


@pytest.mark.parametrize("pack", BOTH)
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("APPROVED — ship it", "decision"),
        ("Implementing SPEC-120 AC-03 with new handler", "spec"),
        (FENCED_PYTHON, "code"),
        ("G6 BATS tests PASS: 227/227 suites", "review"),
        ("thanks!", "chitchat"),
        ("hmm", "chitchat"),
        ("", "chitchat"),
        ("   \n\t\n  ", "chitchat"),
    ],
)
def test_spec_examples(pack: object, text: str, expected: str) -> None:
    assert classify(text, pack).task_class == expected  # type: ignore[arg-type]


def test_spec_example_scores_in_the_reference_pack() -> None:
    assert classify("Implementing SPEC-120 AC-03 with new handler", REFERENCE).scores["spec"] == 5
    gate = classify("G6 BATS tests PASS: 227/227 suites", REFERENCE).scores
    assert gate["review"] == gate["chitchat"] == 3  # a tie: review is the stricter class
    assert classify("thanks!", REFERENCE).scores["chitchat"] == 6


# ─── ties ────────────────────────────────────────────────────────────────────


def test_pick_breaks_ties_towards_the_stricter_class() -> None:
    scores = dict.fromkeys(CLASS_NAMES, 0) | {"review": 3, "chitchat": 3, "context": 3}
    assert pick(scores, CLASS_NAMES) == ("review", 3)
    scores |= {"decision": 3}
    assert pick(scores, CLASS_NAMES) == ("decision", 3)


def test_a_tie_between_user_rules_goes_to_the_stricter_class() -> None:
    rules = """
[[rule]]
id = "t.code"
category = "code"
weight = 4
pattern = "zebra"

[[rule]]
id = "t.spec"
category = "spec"
weight = 4
pattern = "zebra"
"""
    pack = parse_pack(rules, "tie.toml", base=REFERENCE)
    text = "the zebra crossing on the long road by the old mill near the river bank today"
    result = classify(text, pack)
    assert (result.scores["code"], result.scores["spec"]) == (4, 4)
    assert result.task_class == "spec"


# ─── fallback ────────────────────────────────────────────────────────────────

FIFTEEN = "the river runs past the old mill and the bridge near the quiet town square"
SIXTEEN = FIFTEEN + " tonight"


RULES_ONLY = [pytest.param(REFERENCE, id="reference"), pytest.param(DEFAULT_RULES, id="default-rules")]


@pytest.mark.parametrize("pack", RULES_ONLY)
def test_fallback_at_most_15_words_is_chitchat(pack: object) -> None:
    result = classify(FIFTEEN, pack)  # type: ignore[arg-type]
    assert result.words == 15 and max(result.scores.values()) == 0
    assert result.task_class == "chitchat"


@pytest.mark.parametrize("pack", RULES_ONLY)
def test_fallback_longer_text_is_context(pack: object) -> None:
    result = classify(SIXTEEN, pack)  # type: ignore[arg-type]
    assert result.words == 16 and max(result.scores.values()) == 0
    assert result.task_class == "context"


def test_fallback_when_the_best_score_is_negative() -> None:
    text = "is the river running past the old mill and the bridge near the quiet town square?"
    result = classify(text, DEFAULT_RULES)  # the rules' own fallback (a model reads the words)
    assert result.scores["decision"] < 0 and max(result.scores.values()) == 0
    assert result.task_class == "context"


# ─── words and lines ─────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("text", "words", "lines"),
    [
        ("", 0, 1),
        ("   ", 0, 1),
        ("one", 1, 1),
        ("one\n", 1, 1),
        ("one\n\n\n", 1, 1),
        ("one\ntwo", 2, 2),
        ("one\n\ntwo\n", 2, 3),
        ("one\r\ntwo\r\n", 2, 2),
        ("\n", 0, 1),
        ("\n\nx", 1, 3),
        ("tab\tseparated  words", 3, 1),
    ],
)
def test_words_and_lines(text: str, words: int, lines: int) -> None:
    result = classify(text, REFERENCE)
    assert (result.words, result.lines) == (words, lines)
    if "\r" not in text:
        assert (count_words(text), count_lines(text)) == (words, lines)


# ─── the four SPEC §2 fixes of the default pack ──────────────────────────────


@pytest.mark.parametrize("text", ["CASE-12 is closed", "USE-3 done"])
def test_fix_ticket_ids_need_a_word_boundary(text: str) -> None:
    assert classify(text, REFERENCE).task_class == "spec"
    assert classify(text, DEFAULT_RULES).task_class == "chitchat"
    assert classify(text, DEFAULT_RULES).scores["spec"] == 0


@pytest.mark.parametrize("word", ["history", "hint", "hierarchy"])
def test_fix_greetings_need_a_word_boundary(word: str) -> None:
    text = f"{word} of the accounts in the ledger is explained in the onboarding guide with examples for all"
    assert classify(text, REFERENCE).task_class == "chitchat"  # "hi…" counted as a greeting
    assert classify(text, REFERENCE).scores["chitchat"] == 2
    assert classify(text, DEFAULT_RULES).task_class == "context"
    assert classify(text, DEFAULT_RULES).scores["chitchat"] == 0


def test_fix_a_bare_rule_line_is_not_a_diff_marker() -> None:
    text = (
        "---\ntitle: Onboarding notes\nowner: platform team\n---\n\n"
        "The onboarding guide explains how new engineers get access to staging and the dashboards."
    )
    assert classify(text, REFERENCE).task_class == "code"
    assert classify(text, REFERENCE).scores["code"] == 3
    assert classify(text, DEFAULT_RULES).scores["code"] == 0
    assert classify(text, DEFAULT_RULES).task_class == "spec"
    diff = "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n-x = 1\n+x = 2"
    assert classify(diff, DEFAULT_RULES).task_class == "code"


def test_fix_decision_colon_counts_whatever_follows() -> None:
    text = "decision: keep Postgres"
    assert classify(text, REFERENCE).scores["decision"] == 0
    assert classify(text, REFERENCE).task_class == "chitchat"
    assert classify(text, DEFAULT_RULES).task_class == "decision"
    assert classify("decision:postgres", REFERENCE).scores["decision"] == 3


def test_default_no_longer_counts_git_vocabulary_as_a_decision() -> None:
    text = "Changes not staged for commit:\n\tmodified:   app/models.py"
    assert classify(text, REFERENCE).scores["decision"] == 3
    assert classify(text, DEFAULT_RULES).scores["decision"] == 0


# ─── pins and packs ──────────────────────────────────────────────────────────


def test_pin_forces_the_class_but_keeps_the_scores() -> None:
    result = classify("thanks!", DEFAULT, pin="spec")
    assert (result.task_class, result.max_ratio, result.frozen, result.pinned) == ("spec", 3, "true", True)
    assert result.scores["chitchat"] == 6
    assert result.to_json()["pinned"] is True


def test_default_pack_is_used_when_none_is_given() -> None:
    assert classify("decision: keep Postgres").task_class == "decision"
