"""Helpers of the agent tests: the real `turnlens` process, payloads of the agents' own shape.

Every run gets its own HOME and XDG_STATE_HOME, so the hook log, the restore log and the
session ledgers of one test never meet another's (or the user's).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
CLAUDE = FIXTURES / "claude-code"
SESSION = CLAUDE / "session.jsonl"
COMPACTED = CLAUDE / "compacted.jsonl"
SUMMARY = (CLAUDE / "summary.txt").read_text(encoding="utf-8")
CODEX = next((FIXTURES / "codex").glob("rollout-*.jsonl"))


@dataclass
class Run:
    code: int
    out: str
    err: str
    state: Path

    @property
    def log(self) -> str:
        path = self.state / "turnlens" / "hooks.log"
        return path.read_text(encoding="utf-8") if path.exists() else ""

    @property
    def restores(self) -> list[dict[str, object]]:
        path = self.state / "turnlens" / "restore.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def command() -> list[str]:
    """The installed console script (what an agent runs), else `python -m turnlens`."""
    found = shutil.which("turnlens", path=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    return [found] if found else [sys.executable, "-m", "turnlens"]


def payload(agent: str, event: str, **values: str) -> bytes:
    """A payload file of `fixtures/payloads/AGENT/EVENT.json` with its `{name}` fields filled."""
    text = (FIXTURES / "payloads" / agent / f"{event}.json").read_text(encoding="utf-8")
    for name, value in values.items():
        text = text.replace(f'"{{{name}}}"', json.dumps(value))
    return text.encode("utf-8")


Runner = Callable[..., Run]


@pytest.fixture
def turnlens(tmp_path: Path) -> Runner:
    """`turnlens ARGS` in a child process with `stdin` bytes; `env` adds variables."""
    home = tmp_path / "home"
    state = tmp_path / "state"
    home.mkdir()

    def run(
        *args: str | Path, stdin: bytes = b"", env: dict[str, str] | None = None, cwd: Path | None = None
    ) -> Run:
        full = {k: v for k, v in os.environ.items() if not k.startswith(("TURNLENS_", "XDG_", "NO_COLOR"))}
        full.update(
            HOME=str(home),
            XDG_STATE_HOME=str(state),
            CLAUDE_CONFIG_DIR=str(home / ".claude"),
            CODEX_HOME=str(home / ".codex"),
            # a busy test machine must not leave the status line half-read (its slice is wall time)
            TURNLENS_STATUS_READ_SECONDS="120",
        )
        full.update(env or {})
        proc = subprocess.run(
            [*command(), *map(str, args)],
            input=stdin,
            capture_output=True,
            cwd=cwd or tmp_path,
            env=full,
            timeout=300,
            check=False,
        )
        return Run(proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8"), state)

    return run
