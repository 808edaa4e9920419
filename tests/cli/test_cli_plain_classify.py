"""The plain spellings of `turnlens classify` skip argparse (start-up time); they must mean
exactly what argparse makes of them, and everything else must still go through argparse."""

from __future__ import annotations

import pytest

from turnlens.cli import _plain_classify, build_parser

PLAIN = [
    ["classify", "--stdin"],
    ["classify", "--stdin", "--json"],
    ["classify", "--json", "--stdin", "--explain", "--strict"],
    ["classify", "--input", "turn.txt"],
    ["classify", "--input", "turn.txt", "--rules", "reference", "--json"],
    ["classify", "--rules", "my rules.toml", "--stdin"],
    ["classify"],
]
NOT_PLAIN = [
    ["classify", "--stdin", "--input", "x"],  # argparse: not allowed together
    ["classify", "--stdin", "--stdin"],
    ["classify", "--js"],  # an abbreviation argparse would expand
    ["classify", "--input=turn.txt"],
    ["classify", "--input"],
    ["classify", "--input", "--json"],
    ["classify", "-h"],
    ["classify", "extra"],
    ["route", "--stdin"],
    [],
]


@pytest.mark.parametrize("argv", PLAIN, ids=" ".join)
def test_plain_forms_mean_what_argparse_says(argv: list[str]) -> None:
    parsed = vars(build_parser(argv).parse_args(argv))
    expected = {k: v for k, v in parsed.items() if k not in ("command", "func")}
    assert _plain_classify(argv) == expected


@pytest.mark.parametrize("argv", NOT_PLAIN, ids=lambda a: " ".join(a) or "(none)")
def test_other_forms_go_to_argparse(argv: list[str]) -> None:
    assert _plain_classify(argv) is None
