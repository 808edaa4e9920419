"""`classify_many` answers exactly as `classify` one text at a time, pins included."""

from __future__ import annotations

import pytest

from turnlens.classifier import classify, classify_many
from turnlens.core.rules import builtin_pack

TEXTS = [
    "APPROVED — ship it",
    "thanks!",
    "hmm",
    "",
    "Implementing SPEC-120 AC-03 with new handler",
    "```python\ndef f(x):\n    return x\n```",
    "G6 BATS tests PASS: 227/227 suites",
    "## Plan\n- one\n- two\n" + "word " * 120,
    "¿Aprobado? sí, adelante 🚀",
    "COMMİT now",
    "line one\r\nline two\r\n",
    "x" * 30_000,
    "fields\x1cand\x1frecords\x1d split words\x1e too",  # str.split() separates at these
    "Revisión del PR: falta un test, por lo demás LGTM",  # set hits `re` must confirm off ASCII
    "Código revisado — mergeamos mañana. Ship it!",
    "As a 用户 I want to export CSV so that I can audit",
]


@pytest.mark.parametrize("pack_name", ["default", "reference"])
def test_same_answers_as_one_at_a_time(pack_name: str) -> None:
    pack = builtin_pack(pack_name)
    texts = TEXTS * 3  # repeats are answered from what the first one decided
    assert classify_many(texts, pack) == [classify(t, pack) for t in texts]


def test_pins_apply_per_text() -> None:
    pack = builtin_pack("default")
    pins = [None, "decision", None] + [None] * (len(TEXTS) - 3)
    got = classify_many(TEXTS, pack, pins)
    assert got[1] == classify(TEXTS[1], pack, pin="decision")
    assert got[1].task_class == "decision" and got[1].pinned
    assert got[0] == classify(TEXTS[0], pack)


def test_answers_are_separate_objects() -> None:
    got = classify_many(["thanks!", "thanks!"], builtin_pack("default"))
    got[0].scores["chitchat"] = 99
    assert got[1].scores["chitchat"] != 99


def test_one_pin_per_text_or_none() -> None:
    with pytest.raises(ValueError):
        classify_many(["a", "b"], builtin_pack("default"), ["decision"])
    assert classify_many([], builtin_pack("default")) == []
