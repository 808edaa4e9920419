"""Neovim 0.7–0.9 with exactly the configuration docs/editors/neovim-0.7.md shows, in tmux."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.editors.harness import (
    Tmux,
    Workspace,
    first_lines,
    make_workspace,
    missing,
    probe_until,
    record_screen,
    snippet,
)

PAGE, BLOCK = "neovim-0.7.md", "neovim-0.7"
PROBE = Path(__file__).with_name("nvim_probe.lua")
SEVERITIES = {"error": 1, "warning": 2, "information": 3, "hint": 4}

pytestmark = pytest.mark.skipif(bool(missing("nvim", "tmux")), reason=missing("nvim", "tmux") or "")


def nvim_version() -> tuple[int, ...]:
    out = subprocess.run(["nvim", "--version"], capture_output=True, text=True, check=False).stdout
    m = re.search(r"NVIM v(\d+)\.(\d+)", out)
    return (int(m[1]), int(m[2])) if m else (0, 0)


@pytest.fixture
def nvim(tmp_path: Path) -> Iterator[tuple[Workspace, Tmux]]:
    if not (0, 7) <= nvim_version() < (0, 10):
        pytest.skip(f"{PAGE} is for Neovim 0.7–0.9; this is {nvim_version()}")
    ws = make_workspace(tmp_path)
    config = ws.home / ".config" / "nvim"
    config.mkdir(parents=True)
    (config / "init.lua").write_text(snippet(PAGE, BLOCK), encoding="utf-8")
    tmux = Tmux(ws, ["nvim", "session.md"])
    try:
        yield ws, tmux
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


def test_neovim_page_works_as_written(nvim: tuple[Workspace, Tmux]) -> None:
    ws, tmux = nvim
    text = ws.session.read_text(encoding="utf-8")
    turns = first_lines(text)
    wanted = SEVERITIES[re.search(r'severity = "(\w+)"', snippet(PAGE, BLOCK))[1]]  # type: ignore[index]

    # diagnostics on the first line of every turn, with the severity the page sets, and lenses
    screen = tmux.wait_screen(lambda s: "Session plan:" in s)
    record_screen(PAGE, BLOCK, screen)
    seen = probe(ws, tmux, lambda s: len(s["diagnostics"]) == len(turns) and s["lenses"])
    assert seen["clients"] == ["turnlens"]
    assert sorted(by_line(seen)) == turns
    for d in seen["diagnostics"]:
        assert d["source"] == "turnlens" and d["severity"] == wanted
        assert d["code"] != d["data"]["class"] and d["message"].startswith(d["data"]["class"])
        assert d["codeDescription"]["href"].endswith("classes.md#what-counts-as-each-class")
    assert {lens["line"] for lens in seen["lenses"]} == set(turns)
    assert any(lens["title"].startswith("Session plan:") for lens in seen["lenses"])

    # K is hover: the explanation of the turn under the cursor
    second = turns[1] + 1
    tmux.keys("Escape", f"{second}G", "K")
    tmux.wait_screen(lambda s: re.search(r"TurnLens · turn 2 of \d+", s) and "| class | score |" in s)
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
