"""Help, bad flags and missing input: exit 0 for help, exit 2 with one line on stderr otherwise."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.conftest import Run, run_turnlens
from turnlens.core.classes import CLASS_NAMES

Cli = Callable[..., Run]


def test_help_exits_0_and_lists_the_commands() -> None:
    result = run_turnlens("--help")
    assert result.code == 0 and result.err == ""
    for command in ("classify", "plan", "check", "eval", "serve", "schema"):
        assert command in result.out


def test_classify_help_names_the_six_classes() -> None:
    result = run_turnlens("classify", "--help")
    assert result.code == 0
    for name in CLASS_NAMES:
        assert name in result.out
    assert "≤5:1" in result.out and "≤80:1" in result.out


def test_version(cli: Cli) -> None:
    with pytest.raises(SystemExit) as info:
        cli("--version")
    assert info.value.code == 0


def one_line_error(result: Run, *fragments: str) -> None:
    assert result.code == 2, result
    assert result.out == ""
    assert result.err.count("\n") == 1, result.err
    for fragment in fragments:
        assert fragment in result.err


def test_unknown_flag() -> None:
    one_line_error(run_turnlens("classify", "--stdin", "--bogus"), "unrecognized arguments: --bogus")


def test_unknown_flag_in_process(cli: Cli) -> None:
    one_line_error(cli("check", "--colour", "x.md"), "unrecognized arguments: --colour")
    one_line_error(cli("plan", "--budget"), "--budget: expected one argument")
    one_line_error(cli("classify", "--stdin", "--input", "x"), "not allowed with argument")


def test_no_input(cli: Cli) -> None:
    one_line_error(cli("classify"), "no input: give --stdin or --input FILE")


def test_missing_file(cli: Cli, tmp_path: Path) -> None:
    missing = tmp_path / "missing.md"
    one_line_error(cli("classify", "--input", missing), f"turnlens: {missing}: no such file")
    one_line_error(cli("classify", "--input", tmp_path), "is a directory")


def test_no_command_prints_usage_and_exits_2() -> None:
    result = run_turnlens()
    assert result.code == 2 and result.out == ""
    assert result.err.startswith("usage: turnlens")


def test_unknown_command(cli: Cli) -> None:
    one_line_error(cli("frobnicate"), "invalid choice: 'frobnicate'")
