"""Helpers of the CLI tests: `turnlens` as a subprocess (exit codes, real stdio) and in-process."""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from turnlens.cli import main


@dataclass
class Run:
    code: int
    out: str
    err: str


def run_turnlens(*args: str | Path, stdin: bytes | None = None, cwd: Path | None = None) -> Run:
    """`python -m turnlens ARGS` in a child process."""
    proc = subprocess.run(
        [sys.executable, "-m", "turnlens", *map(str, args)],
        input=stdin if stdin is not None else b"",
        capture_output=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )
    return Run(proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8"))


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Callable[..., Run]:
    """`turnlens.cli.main(ARGS)` in this process (fast); `stdin=` feeds --stdin."""

    def call(*args: str | Path, stdin: bytes | None = None) -> Run:
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
        capsys.readouterr()
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return call
