"""`turnlens plan`: exit 0 FITS, 1 OVERFLOW, 2 on usage errors; the table and the JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.conftest import Run, run_turnlens

Cli = Callable[..., Run]
SESSION = (
    "Approved. Merge it.\n"
    "---TURN---\n"
    "See SPEC-7 🚀 for details\n"
    "---TURN---\n"
    "thanks!\n"
)  # 3 + 5 + 1 = 9 planned words -> 11 tokens (classes of the SE-029 scorer: --rules reference)


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = tmp_path / "session.md"
    path.write_text(SESSION, encoding="utf-8")
    return path


def test_fits_exits_0(session: Path) -> None:
    result = run_turnlens("plan", "--session", session, "--budget", "11", "--rules", "reference")
    assert result.code == 0 and result.err == ""
    assert result.out.splitlines() == [
        "turn  class     frozen     words  ratio  kept words",
        "   1  decision  true           3     1:1           3",
        "   2  spec      true           5     1:1           5",
        "   3  chitchat  false          1    80:1           1",
        " all                           9                  9  ≈ 11 tokens (1.3 a word)",
        "FITS: 11 planned tokens within a budget of 11 (3 turns)",
    ]


def test_overflow_exits_1(session: Path) -> None:
    result = run_turnlens("plan", "--session", session, "--budget", "10", "--rules", "reference")
    assert result.code == 1
    assert result.out.splitlines()[-1] == "OVERFLOW: 11 planned tokens exceed the budget of 10 by 1"


def test_json(cli: Cli, session: Path) -> None:
    result = cli("plan", "--session", session, "--budget", "10", "--json", "--rules", "reference")
    assert result.code == 1
    data = json.loads(result.out)
    assert {k: v for k, v in data.items() if k != "plan"} == {
        "verdict": "OVERFLOW",
        "n_turns": 3,
        "total_orig_words": 9,
        "total_plan_words": 9,
        "total_orig_tokens": 11,
        "total_plan_tokens": 11,
        "budget": 10,
        "message": "OVERFLOW: 11 planned tokens exceed the budget of 10 by 1",
        "excess": 1,
    }
    assert data["plan"][2] == {
        "turn": 3,
        "class": "chitchat",
        "frozen": "false",
        "words_orig": 1,
        "applied_ratio": 80,
        "words_plan": 1,
    }


def test_custom_separator_and_rules(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "s.txt"
    path.write_text("CASE-12 is closed\n=== 2 ===\nhmm\n", encoding="utf-8")
    ref = json.loads(cli("plan", "--session", path, "--budget", "99", "--json", "--separator", "=== \\d+ ===",
                         "--rules", "reference").out)  # fmt: skip
    assert [t["class"] for t in ref["plan"]] == ["spec", "chitchat"]
    default = json.loads(
        cli("plan", "--session", path, "--budget", "99", "--json", "--separator", "=== \\d+ ===").out
    )
    assert default["n_turns"] == 2 and default["plan"][0]["class"] != "spec"  # CASE-12 is no ticket id


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--budget", "10"], "turnlens plan: missing --session FILE"),
        (["--session", "S"], "turnlens plan: missing --budget N"),
        (["--session", "S", "--budget", "ten"], "turnlens plan: --budget must be a whole number, got 'ten'"),
        (["--session", "S", "--budget", "1.5"], "turnlens plan: --budget must be a whole number, got '1.5'"),
        (["--session", "S", "--budget=-3"], "turnlens plan: --budget must be ≥ 0, got -3"),
        (
            ["--session", "S", "--budget", "3", "--separator", "("],
            "turnlens plan: the turn separator '(' does not",
        ),
    ],
)
def test_usage_errors_say_what_is_wrong(cli: Cli, session: Path, args: list[str], message: str) -> None:
    result = cli("plan", *[str(session) if a == "S" else a for a in args])
    assert (result.code, result.out) == (2, "")
    assert result.err.startswith(message) and result.err.count("\n") == 1


def test_missing_session_file_exits_2(tmp_path: Path) -> None:
    missing = tmp_path / "nope.md"
    result = run_turnlens("plan", "--session", missing, "--budget", "5")
    assert (result.code, result.out, result.err) == (2, "", f"turnlens: {missing}: no such file\n")
