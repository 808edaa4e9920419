"""split_units(): turns with exact offsets, separators, inline directives."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turnlens.pipeline.formats.turns import DEFAULT_SEPARATOR, SeparatorError, split_units
from turnlens.pipeline.units import Unit, parse_directives


def texts(units: list[Unit]) -> list[str]:
    return [u.text for u in units]


def assert_exact(document: str, units: list[Unit]) -> None:
    for n, unit in enumerate(units, start=1):
        assert unit.index == n
        assert document[unit.start : unit.end] == unit.text


def test_a_document_without_separators_is_one_unit() -> None:
    doc = "just one prompt\nover two lines\n"
    (unit,) = split_units(doc)
    assert (unit.index, unit.start, unit.end, unit.text) == (1, 0, len(doc), doc)


def test_units_have_exact_offsets() -> None:
    doc = "first turn\n---TURN---\nsecond 🚀 turn\nmore\n---TURN---\nthird\n"
    units = split_units(doc)
    assert texts(units) == ["first turn\n", "second 🚀 turn\nmore\n", "third\n"]
    assert [(u.start, u.end) for u in units] == [(0, 11), (22, 41), (52, 58)]
    assert_exact(doc, units)


def test_crlf_separators() -> None:
    doc = "first turn\r\n---TURN---\r\nsecond\r\n---TURN---  \r\n\r\n---TURN---\r\nthird\r\n"
    units = split_units(doc)
    assert texts(units) == ["first turn\r\n", "second\r\n", "third\r\n"]
    assert_exact(doc, units)


def test_a_separator_is_a_whole_line() -> None:
    doc = "see the ---TURN--- marker\n  ---TURN---\n---TURN--- not alone\n"
    assert len(split_units(doc)) == 1
    assert texts(split_units("a\n---TURN--- \t\nb")) == ["a\n", "b"]  # trailing blanks are fine


def test_empty_units_are_skipped_and_indexes_stay_dense() -> None:
    doc = "---TURN---\n\n  \n---TURN---\nonly turn\n---TURN---\n---TURN---\n"
    units = split_units(doc)
    assert [(u.index, u.text) for u in units] == [(1, "only turn\n")]
    assert split_units("") == [] and split_units("\n \n\t") == []


def test_custom_separator() -> None:
    doc = "a\n=== turn 2 ===\nb\n=== turn 3 ===\nc"
    units = split_units(doc, r"^=== turn \d+ ===$")
    assert texts(units) == ["a\n", "b\n", "c"]
    assert_exact(doc, units)
    assert len(split_units(doc)) == 1  # the default separator is not in it


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [("", "empty"), ("^$", "empty"), ("(", "does not compile"), (" *", "matches an empty line")],
)
def test_bad_separators(pattern: str, problem: str) -> None:
    with pytest.raises(SeparatorError, match=problem):
        split_units("a\nb", pattern)


def test_content_start_skips_leading_blank_lines() -> None:
    doc = "a\n---TURN---\n\n   \n  turn two\n"
    unit = split_units(doc)[1]
    assert doc[unit.content_start :].startswith("turn two")


# ─── directives ──────────────────────────────────────────────────────────────


def test_directive_pins_a_unit() -> None:
    doc = "thanks!\n---TURN---\n<!-- turnlens: class=decision -->\nthanks!\n"
    first, second = split_units(doc)
    assert first.pin is None and second.pin == "decision"


def test_directive_ignore_and_ignore_file() -> None:
    doc = "a\n---TURN---\nb <!-- turnlens: ignore -->\n---TURN---\nc\n"
    assert [u.ignored for u in split_units(doc)] == [False, True, False]
    whole = "<!-- turnlens: ignore-file -->\na\n---TURN---\nb\n"
    assert [u.ignored for u in split_units(whole)] == [True, True]


def test_directives_are_case_insensitive_and_combine() -> None:
    d = parse_directives("<!-- TurnLens: ignore, class=Spec -->")
    assert (d.pin, d.ignore, d.ignore_file, d.problems) == ("spec", True, False, ())


def test_unknown_directives_are_reported_not_fatal() -> None:
    d = parse_directives("<!-- turnlens: frobnicate class=banter ignore=yes -->")
    assert d.pin is None and not d.ignore
    assert d.problems == (
        "unknown turnlens directive 'frobnicate'",
        "unknown turnlens directive 'class=banter'",
        "unknown turnlens directive 'ignore=yes'",
    )
    assert parse_directives("no comments here") == parse_directives("<!-- an ordinary comment -->")


# ─── the plain-text separator path agrees with the regex path ────────────────

PIECES = ["a", "turn", " ", "\t", "\n", "\r\n", "\r", DEFAULT_SEPARATOR, "---", "TURN", "é🚀", "<!--", "-->"]


@settings(max_examples=200, deadline=None, database=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
def test_literal_and_regex_separators_split_alike(doc: str) -> None:
    fast = split_units(doc)
    regex = split_units(doc, f"(?:{DEFAULT_SEPARATOR})")  # not plain text: goes through `re`
    assert fast == regex
    assert_exact(doc, fast)


@pytest.mark.parametrize("doc", ["a\r---TURN---\rb", "a\r\n---TURN---\rb\r", "x\r---TURN---"])
def test_lone_cr_line_breaks_lose_no_text(doc: str) -> None:
    kept = "".join(texts(split_units(doc)))
    for letter in "abx":
        assert kept.count(letter) == doc.count(letter)
