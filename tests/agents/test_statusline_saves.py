"""The status line writes a session's ledger once per call: the new lines it read and the new
prompt's route go to the state file together (and nothing is written when nothing changed)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.agents.make_fixtures import session
from turnlens.agents import state
from turnlens.agents.hook import statusline_answer
from turnlens.agents.ledger import Ledger
from turnlens.agents.payload import parse


def test_the_status_line_saves_the_ledger_once_per_new_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("NO_COLOR", "1")
    saves: list[dict[str, Any]] = []
    real = state.save_session

    def counted(key: str, data: dict[str, Any]) -> None:
        saves.append(json.loads(json.dumps(data)))
        real(key, data)

    monkeypatch.setattr(state, "save_session", counted)
    writer = session()
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(writer.lines) + "\n", encoding="utf-8")
    payload = parse(json.dumps({"session_id": "s", "transcript_path": str(path)}).encode())
    status = statusline_answer(colour=False)

    def call() -> str:
        return status(payload, time.monotonic() + 600)

    first = call()
    assert first.startswith("TurnLens") and len(saves) == 1
    assert saves[0]["route"] is not None and saves[0]["route"][0] == saves[0]["last_prompt"][3]
    for n, prompt in enumerate(
        ["Refactor the limiter's bucket store into its own module.", "ultrathink: why?"]
    ):
        writer.lines.clear()
        writer.user(prompt)
        with path.open("a", encoding="utf-8") as f:
            f.write(writer.lines[-1] + "\n")
        line = call()
        assert len(saves) == 2 + n, "one write for the lines read and the route"
        saved = saves[-1]
        assert saved["offset"] == path.stat().st_size  # the new line was read…
        assert saved["route"][0] == saved["last_prompt"][3]  # …and its prompt routed, in one write
        assert saved["route"][1] in line
    unchanged = call()
    assert unchanged == line and len(saves) == 3  # nothing new: nothing written
    again = Ledger(str(path), "claude-code")  # what was saved is what a later call finds
    again.update(time.monotonic() + 600)
    assert again.data["route"] == saves[-1]["route"] and len(saves) == 3
