"""Explanations name real features of the text: n-grams it contains, rules that fired in it."""

from __future__ import annotations

import re

import pytest

from turnlens.classifier import classify
from turnlens.core.rules import builtin_pack
from turnlens.learn.features import region
from turnlens.router.labeler import label_text

TEXTS = [
    "Could you add a unit test for the empty case? Otherwise LGTM.",
    "Vale, vamos con la opción B.",
    "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\nKeyError: 'id'",
    "As a rider I want to reserve a bike.\n\nAcceptance criteria:\n- holds for 10 minutes\n- one per rider",
    "Status: the migration is 70% done; the two tables with triggers are left.",
    "收到，谢谢！",
]


def _tokens(text: str) -> set[str]:
    """Words as the model reads them: runs of word characters, runs of punctuation, and each
    Chinese or Japanese character on its own."""
    cjk = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    return set(re.findall(rf"[{cjk}]|[^\W{cjk}]+|[^\w\s]+", region(text)))


def test_chinese_is_read_one_character_at_a_time() -> None:
    """`谢谢` is the bigram of two one-character words, not one opaque word."""
    from turnlens.learn.features import extract

    f = extract("收到，谢谢！", [], 1, 1)
    assert "谢" in f.words and "收" in f.words
    assert "谢 谢" in f.bigrams and "收 到" in f.bigrams
    assert "收到" not in f.words


@pytest.mark.parametrize("text", TEXTS)
def test_class_explanations_name_features_present_in_the_text(text: str) -> None:
    c = classify(text, builtin_pack("default"), explain=True)
    assert c.engine == "model" and c.features
    fired = {s.rule for s in c.signals}
    seen = region(text)
    for f in c.features:
        assert f.weight > 0
        if f.kind == "c":
            assert f.key in seen, f
        elif f.kind == "w":
            assert f.key in _tokens(text), f
        elif f.kind == "b":
            first, second = f.key.split(" ")
            assert first in _tokens(text) and second in _tokens(text), f
        elif f.key.startswith("r:"):
            assert f.key[2:] in fired, f
        elif f.key.startswith(("top:", "score:")):
            name = f.key.split(":")[1].rstrip("+3").split("≥")[0]
            assert c.scores[name] > 0, f
    assert c.rule_weights is not None and set(c.rule_weights) <= fired
    assert c.probabilities is not None and max(c.probabilities.values()) == c.confidence


def test_the_strongest_features_of_an_obvious_text_are_about_it() -> None:
    c = classify("thanks a lot, have a nice weekend!", builtin_pack("default"), explain=True)
    assert c.task_class == "chitchat"
    shown = " ".join(f.label() for f in c.features)
    assert any(word in shown for word in ("thank", "weekend", "nice", "chitchat"))


def test_router_explanations_name_features_present_in_the_prompt() -> None:
    text = "why does the nightly export crash since the deploy? check the logs"
    result = label_text(text)
    assert result.features
    seen = region(text)
    for f in result.features:
        if f.kind == "c":
            assert f.key in seen
        elif f.kind == "w":
            assert f.key in _tokens(text)
    assert result.explain().startswith(f"{result.label} ")


@pytest.mark.parametrize("text", ["", "ab", "abc", "abcd", "héllo wörld 中文 👋", "x" * 3000, *TEXTS])
def test_character_ngrams_are_every_3_and_4_character_slice(text: str) -> None:
    from turnlens.learn.features import extract

    seen = region(text)
    expected = {seen[i : i + n] for n in (3, 4) for i in range(len(seen) - n + 1)}
    assert set(extract(text, [], 1, 1).chars) == expected
