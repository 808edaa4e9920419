"""The words that pushed an answer are the text's own words, on the lines where they are."""

from __future__ import annotations

import pytest

from turnlens.classifier import classify
from turnlens.learn.model import Contribution
from turnlens.learn.phrases import phrases

TEXTS = [
    "APPROVED — ship it",
    "intro line\nSee SPEC-7 for details",
    "我觉得这个方案可以，合并吧",
    "LGTM, but rename `x` and add a test please",
    "Hola, ¿podrías revisar el PR #42? Gracias",
    "word " * 2000 + "\nfinal line: merge it",  # head and tail of a long text
]


@pytest.mark.parametrize("text", TEXTS)
def test_phrases_are_located_words_of_the_text(text: str) -> None:
    result = classify(text, explain=True)
    assert result.phrases, result
    lines = text.split("\n")
    for ph in result.phrases:
        assert ph.weight > 0
        assert text[ph.start : ph.end].strip().startswith(ph.text.rstrip("…")[:10])
        assert ph.text.rstrip("…")[:10] in lines[ph.line - 1]
        assert "‹" not in ph.text
    weights = [ph.weight for ph in result.phrases]
    assert weights == sorted(weights, reverse=True)


def test_overlapping_ngrams_merge_into_one_phrase_on_word_bounds() -> None:
    text = "please ship it today"
    pushes = [Contribution("c", "hip", 1.0), Contribution("c", "ip i", 1.0), Contribution("w", "today", 0.5)]
    found = phrases(text, pushes)
    assert [(p.text, p.line) for p in found] == [("ship it", 1), ("today", 1)]
    assert found[0].weight == pytest.approx(2.0)


def test_negative_and_dense_pushes_are_not_phrases() -> None:
    pushes = [Contribution("c", "hip", -1.0), Contribution("d", "r:decision.ship", 2.0)]
    assert phrases("ship it", pushes) == []


def test_a_repeated_phrase_is_one_reason_on_its_first_line() -> None:
    found = phrases("merge it\nmerge it", [Contribution("w", "merge", 1.0)])
    assert [(p.text, p.line) for p in found] == [("merge", 1)]
    assert found[0].weight == pytest.approx(2.0)
