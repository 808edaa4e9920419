"""Neovim headless: the session map command, called the way docs/editors/neovim.md shows."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

nvim = shutil.which("nvim")
pytestmark = pytest.mark.skipif(
    nvim is None, reason="Neovim is not installed (apt-get install neovim; .ci/run does)"
)


def test_neovim_writes_the_session_map_with_the_documented_call(tmp_path: Path) -> None:
    """docs/editors/neovim.md: `vim.lsp.buf.execute_command` on `turnlens.sessionMap` writes
    the page (under the server's temporary folder) and answers its path."""
    assert nvim is not None
    example = tmp_path / "claude-session.jsonl"
    example.write_bytes((ROOT / "docs" / "examples" / "claude-session.jsonl").read_bytes())
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    folder = tmp / f"turnlens-{os.getuid()}"  # private to this user (docs/security.md)
    out = tmp_path / "seen.json"
    env = {
        **os.environ,
        "TMPDIR": str(tmp),
        "TURNLENS_NVIM_OUT": str(out),
        "TURNLENS_SERVER_CMD": json.dumps([sys.executable, "-m", "turnlens", "serve"]),
        "TURNLENS_ROOT": str(tmp_path),
        "TURNLENS_EXPECTED_PAGES": str(folder / "claude-session.jsonl-*.map.html"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    script = Path(__file__).with_name("nvim_sessionmap.lua")
    subprocess.run(
        [nvim, "--headless", "-u", "NONE", "-i", "NONE", "-c", f"luafile {script}", str(example)],
        env=env,
        timeout=90,
        check=False,
        capture_output=True,
        stdin=subprocess.DEVNULL,
    )
    seen = json.loads(out.read_text())
    assert seen["errors"] == []
    assert seen["written"] is True
    units = json.loads(
        subprocess.run(
            [sys.executable, "-m", "turnlens", "check", "--format", "json", str(example)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    page = Path(seen["answer"]["path"])
    assert page.parent == folder and page.name.startswith("claude-session.jsonl-")
    assert page.name.endswith(".map.html") and folder.stat().st_mode & 0o777 == 0o700
    assert seen["answer"]["units"] == len(units)
    assert any(str(page) in message for message in seen["messages"])
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "default-src 'none'" in html
