"""Drive a real terminal editor in tmux with the configuration a docs page shows.

The configuration is read from the page itself (the fenced block after an
`<!-- editor-test: NAME -->` marker), so the page and the test cannot drift apart.
The editor finds `turnlens` on PATH, as the install page tells users to arrange; here that
`turnlens` is a small script that records the server's process id and runs this checkout.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "editors"
EXAMPLE = ROOT / "docs" / "examples" / "session.md"
WIDTH, HEIGHT = 110, 34

_MARKER = re.compile(r"<!-- editor-test: (?P<name>[\w.\-]+) -->\s*\n```[\w-]*\n(?P<body>.*?)\n```", re.S)


def snippet(page: str, name: str) -> str:
    """The fenced block that follows `<!-- editor-test: name -->` on docs/editors/<page>."""
    text = (DOCS / page).read_text(encoding="utf-8")
    found = {m["name"]: m["body"] for m in _MARKER.finditer(text)}
    assert name in found, f"docs/editors/{page} has no block marked editor-test: {name}"
    return found[name] + "\n"


def screen_block(page: str, name: str) -> str | None:
    """The captured screen a page shows under `<!-- editor-screen: name -->`, if any."""
    text = (DOCS / page).read_text(encoding="utf-8")
    m = re.search(rf"<!-- editor-screen: {re.escape(name)} -->\s*\n````text\n(.*?)\n````", text, re.S)
    return m[1] if m else None


def missing(*programs: str) -> str | None:
    """Why a test must skip: the editor (or tmux) is not installed."""
    gone = [p for p in programs if shutil.which(p) is None]
    if not gone:
        return None
    return f"{', '.join(gone)} not installed (apt-get install neovim emacs-nox elpa-eglot vim vim-ale tmux; .ci/run does)"


@dataclass
class Workspace:
    """A fresh HOME, a project folder with the example transcript, and `turnlens` on PATH."""

    root: Path
    home: Path
    project: Path
    pids: Path
    env: dict[str, str]

    @property
    def probe_file(self) -> Path:
        return Path(self.env["TURNLENS_PROBE"])

    @property
    def session(self) -> Path:
        return self.project / "session.md"

    def server_pids(self) -> list[int]:
        return [int(p.name) for p in self.pids.iterdir()]

    def wait_servers_gone(self, timeout: float = 15.0) -> list[int]:
        """The server processes still alive after `timeout` (empty when all are gone)."""
        deadline = time.monotonic() + timeout
        alive = self.server_pids()
        while alive and time.monotonic() < deadline:
            time.sleep(0.1)
            alive = [pid for pid in alive if _alive(pid)]
        return alive


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def make_workspace(tmp: Path) -> Workspace:
    home, project, bin_dir, pids = tmp / "home", tmp / "project", tmp / "bin", tmp / "pids"
    for d in (home, project, bin_dir, pids):
        d.mkdir(parents=True)
    (project / ".git").mkdir()  # a project root, as editors look for one
    shutil.copyfile(EXAMPLE, project / "session.md")
    server = ROOT / "server"
    script = bin_dir / "turnlens"
    script.write_text(
        "#!/bin/sh\n"
        f'echo > "{pids}/$$"\n'
        f'PYTHONPATH="{server}${{PYTHONPATH:+:$PYTHONPATH}}" exec "{sys.executable}" -m turnlens "$@"\n'
    )
    script.chmod(0o755)
    env = {
        "PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(home),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TMPDIR": str(tmp),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "TURNLENS_PROBE": str(tmp / "probe.json"),
    }
    return Workspace(tmp, home, project, pids, env)


class Tmux:
    """One editor in a detached tmux session of a fixed size, on its own tmux server."""

    def __init__(self, ws: Workspace, command: list[str]) -> None:
        self.ws = ws
        self.socket = str(ws.root / "tmux.sock")
        self._tmux(
            "new-session", "-d", "-s", "ed", "-x", str(WIDTH), "-y", str(HEIGHT), "-c", str(ws.project),
            "--", *command,
        )  # fmt: skip

    def _tmux(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(
            ["tmux", "-S", self.socket, "-f", "/dev/null", *args],
            env={**self.ws.env, "TMUX": ""},
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
        if check and done.returncode != 0:
            raise RuntimeError(f"tmux {args[0]}: {done.stderr.strip()}")
        return done.stdout

    def keys(self, *keys: str, literal: bool = False) -> None:
        self._tmux("send-keys", "-t", "ed", *(["-l"] if literal else []), *keys)

    def type(self, text: str) -> None:
        self.keys(text, literal=True)

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "ed")

    def alive(self) -> bool:
        return "ed" in self._tmux("list-sessions", "-F", "#{session_name}", check=False).split()

    def wait_screen(self, predicate: Callable[[str], Any], timeout: float = 45.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen() if self.alive() else ""
            if predicate(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"the screen never showed what was expected; last screen:\n{screen}")

    def wait_exit(self, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while self.alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not self.alive(), "the editor did not quit"

    def close(self) -> None:
        self._tmux("kill-server", check=False)


def wait_json(path: Path, timeout: float = 20.0) -> Any:
    """A JSON file the editor writes (probe scripts do, when asked through keystrokes)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            try:
                return json.loads(path.read_text(encoding="utf-8"))
            except ValueError:
                pass  # still being written
        time.sleep(0.1)
    raise AssertionError(f"{path.name} was never written")


def first_lines(text: str) -> list[int]:
    """0-based first non-blank line of every analysed turn, as the server places diagnostics."""
    from turnlens.api import split_units

    return sorted(text.count("\n", 0, u.content_start) for u in split_units(text) if not u.ignored)


def tidy(screen: str) -> str:
    """A captured screen for a docs page: trailing blanks and empty bottom lines removed."""
    lines = [line.rstrip() for line in screen.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def record_screen(page: str, name: str, screen: str) -> None:
    """With TURNLENS_RECORD_SCREENS=1, put `screen` into the page's `editor-screen: name` block
    (how the captured screens on the docs pages are made); otherwise do nothing."""
    if os.environ.get("TURNLENS_RECORD_SCREENS") != "1":
        return
    path = DOCS / page
    text = path.read_text(encoding="utf-8")
    screen = re.sub(r"/\S*?/project/", "~/project/", screen)  # the test's temporary folder
    pattern = re.compile(rf"(<!-- editor-screen: {re.escape(name)} -->\s*\n````text\n)(.*?)(\n````)", re.S)
    assert pattern.search(text), f"docs/editors/{page} has no editor-screen: {name} block"
    path.write_text(pattern.sub(lambda m: m[1] + tidy(screen) + m[3], text, count=1), encoding="utf-8")


def probe_until(
    ws: Workspace,
    ask: Callable[[], None],
    done: Callable[[Any], bool],
    timeout: float = 45.0,
    interval: float = 0.3,
) -> Any:
    """Ask the editor for its state (keystrokes that make it write ws.probe_file) until `done`;
    `interval` leaves the editor idle between asks (some run their checks on an idle timer)."""
    deadline = time.monotonic() + timeout
    seen: Any = None
    while time.monotonic() < deadline:
        ws.probe_file.unlink(missing_ok=True)
        ask()
        try:
            seen = wait_json(ws.probe_file, timeout=10)
        except AssertionError:
            seen = None
        if seen is not None and done(seen):
            return seen
        time.sleep(interval)
    raise AssertionError(f"the editor never reached the expected state; last seen: {seen!r}")


SESSION_JSONL = (
    ROOT / "tests" / "formats" / "fixtures" / "claude-code" / "8f41c2d0-6a7b-4e3c-9d12-5b6a7c8d9e0f.jsonl"
)


def add_jsonl_session(ws: Workspace) -> tuple[str, list[int]]:
    """A Claude Code session (JSON Lines) in the project: its file name, and the 0-based line of
    every message the server labels (a line holding several messages is listed once for each)."""
    from turnlens.pipeline.analyze import analyze
    from turnlens.pipeline.profile import Profile

    name = SESSION_JSONL.name
    shutil.copyfile(SESSION_JSONL, ws.project / name)
    text = SESSION_JSONL.read_text(encoding="utf-8")
    analyzed = analyze(text, Profile(), path=str(ws.project / name))
    return name, sorted(r.unit.line - 1 for r in analyzed.results if not r.unit.ignored)


def is_label(message: str) -> bool:
    """A diagnostic that labels a unit (not a line the reader passed over)."""
    from turnlens.core.classes import CLASS_NAMES

    return message.split(" ", 1)[0].removesuffix("?") in CLASS_NAMES  # `code?`: an unsure label
