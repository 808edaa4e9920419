"""SIGTERM stops `check -j 2` and `batch -j 2` with their pool workers, as Ctrl-C does.

Before, SIGTERM (what `kill`, `timeout`, CI runners and service managers send) ended only the
parent: its pool workers, blocked on the task queue, were still running a minute later.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .rawlsp import server_env

TURN = "Please review the retry logic in fetch_page and add a test for the timeout path.\n---TURN---\n"


def _children(pid: int) -> set[int]:
    """Processes whose parent is `pid` (from /proc)."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid:
            found.add(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def _workload(folder: Path) -> None:
    folder.mkdir()
    body = TURN * 4000  # ~0.4 MB a file, 16 files: above check's parallel threshold (4 MB)
    for k in range(16):
        (folder / f"notes-{k:02}.md").write_text(body, encoding="utf-8")


def _terminate_and_collect(argv: list[str], cwd: Path) -> tuple[int, set[int]]:
    """Starts `argv`, waits for its pool workers, sends SIGTERM; (exit code, workers still alive)."""
    proc = subprocess.Popen(
        argv, cwd=cwd, env=server_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    workers: set[int] = set()
    try:
        for _ in range(1200):  # the pool starts after the files are collected (up to ~60 s)
            workers = _children(proc.pid)
            if len(workers) >= 2 or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert proc.poll() is None and len(workers) >= 2, "the pool never started"
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=60)
        for _ in range(300):  # behaviour, not speed: wait up to 30 s for them to be gone
            left = {pid for pid in workers if _alive(pid)}
            if not left:
                break
            time.sleep(0.1)
        return code, left
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in workers:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_sigterm_stops_check_workers(tmp_path: Path) -> None:
    _workload(tmp_path / "notes")
    code, left = _terminate_and_collect(
        [sys.executable, "-m", "turnlens", "check", "-j", "2", "--format", "json", "notes"], tmp_path
    )
    assert left == set(), f"pool workers still running after SIGTERM: {sorted(left)}"
    assert code == 128 + signal.SIGTERM


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_sigterm_stops_batch_workers(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    _workload(tmp_path / "notes")
    code, left = _terminate_and_collect(
        [
            sys.executable,
            "-m",
            "turnlens",
            "batch",
            "notes/*.md",
            "--out",
            "out",
            "-j",
            "2",
            "--partition-size",
            "64k",
        ],
        tmp_path,
    )
    assert left == set(), f"pool workers still running after SIGTERM: {sorted(left)}"
    assert code == 128 + signal.SIGTERM


@pytest.mark.parametrize(
    ("command", "code", "quick"),
    [("check", 143, True), ("batch", 143, True), ("check", 0, False), ("lsp", 143, False)],
)
def test_a_pooled_run_stopped_by_sigterm_ends_without_the_teardown(
    monkeypatch: pytest.MonkeyPatch, command: str, code: int, quick: bool
) -> None:
    # the teardown joins the pool's manager thread with no time limit: a run stopped by SIGTERM
    # (its workers already killed) ends at once; any other ends through SystemExit as before
    import turnlens.cli as cli

    ended: list[int] = []

    def fake_exit(status: int) -> None:
        ended.append(status)
        raise SystemExit(status)

    monkeypatch.setattr(sys, "argv", ["turnlens", command])
    monkeypatch.setattr(cli, "main", lambda: code)
    monkeypatch.setattr(os, "_exit", fake_exit)
    with pytest.raises(SystemExit) as stopped:
        cli.entry()
    assert stopped.value.code == code
    assert ended == ([code] if quick else [])
