"""`split_units` splits plain transcripts (every separator a bare line) with one `str.split`;
whatever it gives must equal what the general path (separator lines found one by one) gives."""

from __future__ import annotations

import random

import pytest

from turnlens.pipeline.formats import turns as T

PIECES = [
    "hello", "world", "\n", "---TURN---", "---TURN---\n", "\n---TURN---\n", " ", "\t", "\r\n", "\r",
    "<!-- turnlens: class=code -->", "<!-- turnlens: ignore-file -->", "é", "👋", "---TURN---  \n",
    "x---TURN---", "\n\n",
]  # fmt: skip


def general(text: str) -> list[T.Unit]:
    view = T._lf_view(text)
    return T._units_between(text, view, T.separator_lines(view, T.DEFAULT_SEPARATOR))


@pytest.mark.parametrize("seed", range(4))
def test_both_paths_give_the_same_units(seed: int) -> None:
    rng = random.Random(seed)
    plain = 0
    for _ in range(3000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14)))
        assert T.split_units(text) == general(text), repr(text)
        plain += T._split_plain(text, "---TURN---") is not None
    assert plain > 100  # the fast path was taken often enough to be tested


def test_plain_transcript_takes_the_fast_path() -> None:
    text = "one\n---TURN---\ntwo 👋\n---TURN---\n\nthree"
    assert T._split_plain(text, "---TURN---") is not None
    units = T.split_units(text)
    assert [u.text for u in units] == ["one\n", "two 👋\n", "\nthree"]
    assert [text[u.start : u.end] for u in units] == [u.text for u in units]


@pytest.mark.parametrize(
    "text", ["a\n---TURN---  \nb", "a\r\n---TURN---\r\nb", "a\n---TURN---\n---TURN---\nb", "a\n---TURN---"]
)
def test_other_layouts_take_the_general_path(text: str) -> None:
    assert T._split_plain(text, "---TURN---") is None
    assert T.split_units(text) == general(text)
