"""`**` globs in `batch` and `check` visit each real folder once: symbolic-link loops neither
multiply sessions nor stall a run, and a link that loops is a note, not a refusal."""

from __future__ import annotations

import glob as std_glob
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.formats.common import FIXTURES
from turnlens.cli.paths import glob

SESSION = FIXTURES / "claude-code" / "3a7c9e10-5b2d-4f61-8e0a-1c2d3e4f5a6b.jsonl"


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "turnlens", *args], capture_output=True, text=True, timeout=120, cwd=cwd
    )


def _looped(root: Path) -> Path:
    """archive/a/s.jsonl with a/up → .. and a/b/top → ../.. (two loops), and self → self."""
    archive = root / "archive"
    (archive / "a" / "b").mkdir(parents=True)
    (archive / "a" / "s.jsonl").write_bytes(SESSION.read_bytes())
    (archive / "a" / "up").symlink_to("..")
    (archive / "a" / "b" / "top").symlink_to("../..")
    (archive / "self").symlink_to("self")
    return archive


def test_batch_glob_reads_each_session_once_through_link_loops(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow", reason="turnlens batch needs pyarrow")
    _looped(tmp_path)
    done = _run("batch", "-q", "archive/**/*.jsonl", "--out", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "1 sessions" in done.stderr, done.stderr
    everything = _run("batch", "-q", "archive/**", "--out", "out2", cwd=tmp_path)
    assert everything.returncode == 0 and "1 sessions" in everything.stderr, everything.stderr
    notes = [line for line in everything.stderr.splitlines() if "self" in line]
    assert notes and all(line.startswith("turnlens batch: warning:") for line in notes), notes


def test_check_glob_and_a_looping_link_are_notes_with_checks_prefix(tmp_path: Path) -> None:
    _looped(tmp_path)
    done = _run("check", "archive/**/*.jsonl", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert {line.split(":")[0] for line in done.stdout.splitlines()} == {"archive/a/s.jsonl"}
    looping = _run("check", "archive/self", "archive/a/s.jsonl", cwd=tmp_path)
    assert looping.returncode == 0, looping.stderr
    assert looping.stderr.startswith("turnlens check: warning: archive/self:"), looping.stderr
    assert "archive/a/s.jsonl" in looping.stdout


@pytest.mark.parametrize(
    "pattern",
    ["**/*.jsonl", "*/*.json", "**", "**/chatgpt/*", "*/*", "**/.hidden/*.md", "c*/**/*.jsonl", "**/x*"],
)
def test_glob_matches_what_python_glob_matches_without_links(tmp_path: Path, pattern: str) -> None:
    import shutil

    tree = tmp_path / "t"
    shutil.copytree(FIXTURES, tree)
    (tree / "aider" / ".hidden").mkdir(parents=True)
    (tree / "aider" / ".hidden" / "n.md").write_text("x")
    (tree / ".top.jsonl").write_text("{}")
    here = os.getcwd()
    os.chdir(tree)
    try:
        assert sorted(glob(pattern, "check")) == sorted(std_glob.glob(pattern, recursive=True))
        absolute = str(tree / pattern)
        # Python's glob also gives the folder itself (with a slash) for a trailing `**`
        python = set(std_glob.glob(absolute, recursive=True)) - {str(tree) + os.sep}
        assert sorted(glob(absolute, "check")) == sorted(python)
    finally:
        os.chdir(here)
