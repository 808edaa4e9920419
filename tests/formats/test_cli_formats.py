"""The CLI on session files of every format: stats, check (with the effort Codex used), plan."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.conftest import Run
from tests.formats.conftest import FIXTURES, NEARMISS, fixture
from tests.formats.test_detect import EXPECTED as JSON_EXPECTED
from tests.formats.test_detection import WALKED
from turnlens.cli import main

EXPECTED = {**JSON_EXPECTED, **WALKED}  # every session a walk of the fixtures finds


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., Run]:
    def call(*args: str | Path) -> Run:
        capsys.readouterr()
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return call


def test_stats_prints_a_summary_for_every_fixture(cli: Callable[..., Run]) -> None:
    run = cli("stats", FIXTURES)
    assert run.code == 0
    for name, fmt in EXPECTED.items():
        head = next(line for line in run.out.splitlines() if line.startswith(str(FIXTURES / name)))
        assert f"({fmt}):" in head and " units, " in head
    assert f"total: {len(EXPECTED)} sessions" in run.out
    assert "not a transcript" not in run.err


def test_stats_json_per_format(cli: Callable[..., Run]) -> None:
    run = cli("stats", "--format", "json", FIXTURES)
    data = json.loads(run.out)
    by_path = {Path(s["path"]).relative_to(FIXTURES).as_posix(): s for s in data["sessions"]}
    assert {p: s["format"] for p, s in by_path.items()} == EXPECTED
    codex = by_path[next(p for p in EXPECTED if p.startswith("codex/rollout-2026"))]
    assert codex["units"] == 14 and codex["by_kind"]["prompt"] == 3
    assert sum(pair["count"] for pair in codex["effort_routed_vs_used"]) == 3
    assert data["total"]["units"] == sum(s["units"] for s in data["sessions"])


def test_check_shows_the_effort_codex_used(cli: Callable[..., Run]) -> None:
    path = fixture("codex/rollout-2026-03-*.jsonl")
    run = cli("check", path)
    assert run.code == 0
    prompts = [line for line in run.out.splitlines() if "kind=prompt" in line]
    assert [line.split(":")[1] for line in prompts] == ["4", "17", "26"]
    assert [line.split(" used=")[1].split()[0] for line in prompts] == ["high", "medium", "low"]
    assert all(" effort=" in line for line in prompts)
    assert run.out.count(" used=") == 3  # only prompts record the effort used
    assert "29: unknown line type 'world_state'" in run.err


def test_check_json_carries_effort_used(cli: Callable[..., Run]) -> None:
    run = cli("check", "--format", "json", fixture("codex/rollout-2026-03-*.jsonl"))
    items = json.loads(run.out)
    assert [i["effort_used"] for i in items if i["kind"] == "prompt"] == ["high", "medium", "low"]
    assert all("effort_used" not in i for i in items if i["kind"] != "prompt")


def test_check_points_at_the_message_inside_the_json(cli: Callable[..., Run]) -> None:
    path = fixture("chatgpt/conversations.json")
    run = cli("check", path)
    first = run.out.splitlines()[0]
    line, col = (int(x) for x in first.split(":")[1:3])
    text = path.read_text(encoding="utf-8").splitlines()[line - 1]
    assert text[col - 1 :].startswith("Write a Python function that checks leap years")


def test_check_skips_near_misses_with_a_warning(cli: Callable[..., Run]) -> None:
    run = cli("check", NEARMISS)
    assert run.code == 0
    assert run.out == ""
    for path in NEARMISS.iterdir():
        assert f"turnlens: warning: {path}: not a transcript" in run.err
        assert run.err.count(f"{path}:") == 1


@pytest.mark.parametrize("name", ["app-log.jsonl", "tsconfig.json", "inbox.json"])
def test_plan_refuses_a_near_miss_with_exit_2(cli: Callable[..., Run], name: str) -> None:
    run = cli("plan", "--session", NEARMISS / name, "--budget", "100")
    assert run.code == 2
    assert "not a transcript" in run.err


def test_plan_of_a_chatgpt_export(cli: Callable[..., Run]) -> None:
    run = cli("plan", "--session", fixture("chatgpt/conversations.json"), "--budget", "100000", "--json")
    assert run.code == 0
    assert json.loads(run.out)["n_turns"] == 14


def test_from_names_the_format(cli: Callable[..., Run]) -> None:
    run = cli("check", "--from", "gemini", "--format", "json", fixture("gemini/session-*.jsonl"))
    items = json.loads(run.out)
    assert {i["format"] for i in items} == {"gemini"} and len(items) == 6
    wrong = cli("check", "--from", "chatgpt", NEARMISS / "inbox.json")
    assert "not a transcript" in wrong.err and wrong.out == ""


def test_check_reports_a_bad_line_once_and_reads_the_rest(cli: Callable[..., Run], tmp_path: Path) -> None:
    lines = fixture("codex/rollout-2026-03-*.jsonl").read_text(encoding="utf-8").splitlines()
    bad = tmp_path / "rollout-2026-03-14T09-30-00-bad.jsonl"
    bad.write_text("\n".join([*lines[:5], "{not json", *lines[5:]]) + "\n", encoding="utf-8")
    run = cli("check", bad)
    assert run.err.count(f"{bad}:6: not valid JSON") == 1
    assert len(run.out.splitlines()) == 14
