"""Where the wide translation claims to be exact on ASCII text, RE2 must find a match on
exactly the lines where Python's `re` does (word boundaries next to optional parts included)."""

from __future__ import annotations

import random
import re

import pytest
import re2

from turnlens.core.translate import translate

PATTERNS = [
    r"^(revisión (del?|de la)\b|x)",
    r"review (of|for)\b",
    r"\bab?\b",
    r"x(a?)\b",
    r"\b(ship|merge)(d|ed)?\b",
    r"^(go(ing)?|ok)\b",
    r"\b(de(l?| la))\b",
]
ALPHABET = "abdeilfgornstvwx ._-:(\t"


@pytest.mark.parametrize("pattern", PATTERNS)
def test_exact_translations_match_the_same_ascii_lines(pattern: str) -> None:
    t = translate(pattern, True, wide=True)
    assert t is not None and t.exact, pattern
    ours = re2.compile(t.pattern)
    python = re.compile(pattern, re.IGNORECASE)
    rng = random.Random(pattern)
    words = [
        "de",
        "del",
        "de la",
        "review of",
        "review for",
        "ab",
        "a",
        "ship",
        "shipped",
        "merged",
        "go",
        "going",
    ]
    for _ in range(3000):
        line = "".join(
            rng.choice([rng.choice(words), rng.choice(ALPHABET)]) for _ in range(rng.randint(0, 8))
        )
        assert (ours.search(line) is not None) == (python.search(line) is not None), (pattern, line)


def test_a_boundary_whose_neighbour_may_be_either_kind_stays_inexact() -> None:
    t = translate(r"\b(a|)\b", True, wide=True)
    assert t is not None and not t.exact
