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


@pytest.mark.parametrize(
    ("pattern", "counts"),
    [
        (r"\w (or|o) (\w+ ){0,4}\w+\?", True),
        (r"\b(update|sube) (\S+ ){0,3}(to|a) v?[0-9]+", True),
        (r"([^a\n][^b\n]*){13}", True),
        (r"^([\w-]+[ \t]+){0,2}requirements", False),  # twice at most: mild
        (r"\b(as an? |como )[^.\n]{2,60}\bi want", False),  # a count of characters, not of runs
        (r"(ab){0,9}c", False),
        (r"(\w+ )+x", False),
    ],
)
def test_a_bounded_count_of_unbounded_runs_is_marked(pattern: str, counts: bool) -> None:
    t = translate(pattern, True, wide=True)
    assert t is not None and t.counts_runs is counts


def test_a_pattern_that_counts_runs_gets_an_re2_set_of_its_own() -> None:
    """Shared with other patterns, its counts multiply their DFA states (see engine._build_set);
    the answers stay those of the line-by-line reference."""
    from turnlens.core.engine import _matcher, score, score_plain
    from turnlens.core.rules import builtin_pack, parse_pack

    rules = [
        ("u.choice", r"\w (or|o) (\w+ ){0,4}\w+[^.!?\n]{0,60}\?"),
        ("u.plain", r"\bpick\b"),
        ("u.other", r"\bversion\b"),
    ]
    body = "".join(
        f"[[rule]]\nid = '{rid}'\ncategory = 'review'\nweight = 1\npattern = '''{p}'''\n" for rid, p in rules
    )
    pack = parse_pack(body, "u.toml", base=builtin_pack("reference"), strict=False)
    text = "which version should we pick, this one or the other one?\n" * 400  # builds the sets
    assert score(text, pack).scores == score_plain(text, pack.rules, pack.categories)
    matcher = _matcher(pack)
    ids = [rule.id for rule in pack.rules]
    groups = [{ids[matcher.set_index[k]] for k in indices} for _, indices in matcher.set.sets]
    assert {"u.choice"} in groups
    assert any({"u.plain", "u.other"} < group for group in groups)
