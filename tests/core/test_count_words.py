"""`count_words` counts from the UTF-8 bytes of long texts: it must equal `len(text.split())`
for every kind of whitespace Python splits at, and fall back when the bytes cannot tell."""

from __future__ import annotations

import random

import pytest

from turnlens.core.engine import count_words

# ASCII spaces str.split() knows (\x1c–\x1f too), whitespace outside ASCII, word characters of
# every width, and a lone surrogate (no UTF-8 form)
SPACES = [" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f"]
WIDE_SPACES = ["\x85", "\xa0", "\u1680", "\u2007", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000"]
LETTERS = ["a", "Z", "é", "ß", "中", "😀", "\u200b", "-"]


@pytest.mark.parametrize("length", [5, 4_095, 4_096, 9_000, 70_000])
@pytest.mark.parametrize("kinds", ["ascii", "unicode", "wide-spaces", "surrogate"])
def test_equals_str_split(length: int, kinds: str) -> None:
    rng = random.Random(f"{length}-{kinds}")
    alphabet = SPACES + LETTERS[:2] if kinds == "ascii" else SPACES + LETTERS
    if kinds == "wide-spaces":
        alphabet = alphabet + WIDE_SPACES
    for _ in range(20):
        text = "".join(rng.choice(alphabet) for _ in range(length))
        if kinds == "surrogate":
            text = text[: length // 2] + "\ud800" + text[length // 2 :]
        assert count_words(text) == len(text.split())


def test_edges() -> None:
    for text in ["", " ", "x", " x", "x ", "\x1cx\x1f", "a\xa0b" * 3000, "中文 " * 2000]:
        assert count_words(text) == len(text.split())
