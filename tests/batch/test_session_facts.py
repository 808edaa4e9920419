"""Session rows carry what the files record: times, models, API token usage, the parent
session of a sub-agent, and units counted by role and kind (prompts are what a person typed)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from tests.batch.conftest import ROOT, read_rows
from turnlens.batch.run import run_batch
from turnlens.cli.check import collect

SESSIONS = ROOT / "tests" / "formats" / "fixtures" / "claude-code"
PARENT = "8f41c2d0-6a7b-4e3c-9d12-5b6a7c8d9e0f"


def test_session_rows_carry_times_models_tokens_kinds_and_parent(tmp_path: Path) -> None:
    files = [f for f in collect([str(SESSIONS)]) if PARENT in str(f)]
    assert len(files) == 2  # the session and its sub-agent's file
    run_batch(files, tmp_path / "out", partition_size=1 << 20, progress=None)
    rows = {Path(r["session_id"]).name: r for r in read_rows(tmp_path / "out", "sessions")}
    main, agent = rows[f"{PARENT}.jsonl"], rows["agent-a7f3c901.jsonl"]
    assert main["started"] == datetime(2026, 4, 2, 8, 15, 0, 120000, tzinfo=UTC)
    assert main["ended"] == datetime(2026, 4, 2, 8, 22, 41, tzinfo=UTC)
    assert main["model"] == "claude-opus-4-1-20250805, claude-sonnet-4-5-20250929"
    assert main["parent_session"] is None and agent["parent_session"] == PARENT
    assert (main["recorded_input_tokens"], main["recorded_output_tokens"]) == (26, 446)
    assert (main["recorded_cache_read_tokens"], main["recorded_cache_write_tokens"]) == (47300, 6300)
    assert main["kind_prompt"] == main["prompts"] == 3
    assert (main["kind_injected"], main["kind_command"]) == (4, 4)
    assert (
        main["role_user"] + main["role_assistant"] + main["role_tool"] + main["role_system"] == main["units"]
    )
    assert agent["model"] == "claude-haiku-4-5-20251001" and agent["kind_prompt"] == 1
