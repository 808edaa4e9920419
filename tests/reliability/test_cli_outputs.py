"""CLI output paths are checked before the work and never block.

Before, `stats --html FIFO` waited for a reader for ever, and `train --out /nonexistent/m.tlm`
read the corpus and trained (56 s with the shipped corpus) before saying the path was bad.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from turnlens.cli.outputs import OutputProblem, check_output, write_output

from .rawlsp import server_env

SESSION = "## User\n\nAPPROVED — ship it.\n\n## Assistant\n\nShipping.\n"


def _turnlens(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # the timeout only keeps a regression from hanging the suite; it is not what is tested
    return subprocess.run(
        [sys.executable, "-m", "turnlens", *args],
        cwd=cwd,
        env=server_env(),
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_stats_html_refuses_a_fifo_instead_of_blocking(tmp_path: Path) -> None:
    (tmp_path / "chat.md").write_text(SESSION, encoding="utf-8")
    os.mkfifo(tmp_path / "map.html")
    try:
        done = _turnlens("stats", "chat.md", "--html", "map.html", cwd=tmp_path)
    except subprocess.TimeoutExpired:
        pytest.fail("stats --html blocked on a FIFO")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("turnlens stats: --html map.html:"), done.stderr
    assert "not a regular file" in lines[0] and "Traceback" not in done.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_an_output_swapped_for_a_fifo_after_the_check_does_not_block(tmp_path: Path) -> None:
    target = tmp_path / "late.html"
    check_output(target)  # fine: a new file in a writable folder
    os.mkfifo(target)  # swapped in between the check and the write
    with pytest.raises(OSError):  # ENXIO at once (no reader), never a wait
        write_output(target, b"<!DOCTYPE html>")


def test_train_reports_a_bad_out_path_before_training(tmp_path: Path) -> None:
    rows = [
        {"text": "APPROVED — ship the release today.", "label": "decision"},
        {"text": "def f(x):\n    return x + 1", "label": "code"},
        "not an object",
    ]
    corpus = tmp_path / "rows.jsonl"
    corpus.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    for out in ("missing/folder/m.tlm", "rows.jsonl/m.tlm", "."):
        done = _turnlens("train", "--base", "none", "--corpus", "rows.jsonl", "--out", out, cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        # one line about --out, and nothing from reading the corpus (the bad row): no work done
        assert len(lines) == 1 and lines[0].startswith(f"turnlens train: --out {out}:"), done.stderr
    assert not (tmp_path / "missing").exists()


def test_check_output_accepts_regular_files_and_new_names(tmp_path: Path) -> None:
    check_output(tmp_path / "new.html")
    (tmp_path / "old.html").write_text("x", encoding="utf-8")
    check_output(tmp_path / "old.html")
    write_output(tmp_path / "old.html", b"y")
    assert (tmp_path / "old.html").read_bytes() == b"y"
    for bad in (tmp_path, tmp_path / "none" / "x.html", Path("/dev/null")):
        with pytest.raises(OutputProblem):
            check_output(bad)
