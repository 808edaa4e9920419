"""The plain spellings of `turnlens route` skip argparse too; they must mean exactly what
argparse makes of them, and every option with a value to check goes through argparse."""

from __future__ import annotations

from pathlib import Path

import pytest

from turnlens.cli import _plain_route, build_parser, main

PLAIN = [
    ["route", "--stdin"],
    ["route", "--input", "prompt.txt"],
    ["route", "--json", "--stdin", "--explain"],
    ["route", "--input", "my prompt.md", "--json"],
    ["route"],
]
NOT_PLAIN = [
    ["route", "--stdin", "--input", "x"],
    ["route", "--stdin", "--stdin"],
    ["route", "--stdin", "--backend", "rules"],
    ["route", "--stdin", "--model", "m.tlm"],
    ["route", "--stdin", "--min-confidence", "0.5"],
    ["route", "--exp"],
    ["route", "--input"],
    ["route", "-h"],
    ["route", "extra"],
    ["classify", "--stdin"],
    [],
]


@pytest.mark.parametrize("argv", PLAIN, ids=" ".join)
def test_plain_forms_mean_what_argparse_says(argv: list[str]) -> None:
    parsed = vars(build_parser(argv).parse_args(argv))
    expected = {k: v for k, v in parsed.items() if k not in ("command", "func")}
    assert _plain_route(argv) == expected


@pytest.mark.parametrize("argv", NOT_PLAIN, ids=lambda a: " ".join(a) or "(none)")
def test_other_forms_go_to_argparse(argv: list[str]) -> None:
    assert _plain_route(argv) is None


@pytest.mark.parametrize(
    "prompt",
    ["thanks!", "Design the retry policy for the importer: compare backoff schemes and propose one.\n"],
)
def test_the_plain_route_prints_what_the_argparse_route_prints(
    prompt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "p.txt"
    path.write_text(prompt, encoding="utf-8")
    outputs = []
    for extra in ([], ["--json"], ["--explain"]):
        # the same call, once plain and once with an option that sends it through argparse
        assert main(["route", "--input", str(path), *extra]) == 0
        plain = capsys.readouterr().out
        assert main(["route", "--input", str(path), "--backend", "rules", *extra]) == 0
        assert capsys.readouterr().out == plain
        outputs.append(plain)
    assert len(set(outputs)) == 3
