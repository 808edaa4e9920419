"""Vim + ALE with exactly the configuration docs/editors/vim.md shows, in tmux."""

from __future__ import annotations

import re
from collections.abc import Iterator
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

PAGE, BLOCK = "vim.md", "vim-ale"
PROBE = Path(__file__).with_name("vim_probe.vim")
TYPES = {"error": "E", "warning": "W", "information": "I", "hint": "I"}
ALE = Path("/usr/share/vim/vimfiles/pack/dist-bundle/opt/ale")


def _why() -> str | None:
    gone = missing("vim", "tmux")
    if gone:
        return gone
    if not ALE.exists():
        return "ALE is not installed where the page's `packadd! ale` finds it (apt-get install vim-ale)"
    return None


pytestmark = pytest.mark.skipif(bool(_why()), reason=_why() or "")


@pytest.fixture
def vim(tmp_path: Path) -> Iterator[tuple[Workspace, Tmux]]:
    ws = make_workspace(tmp_path)
    (ws.home / ".vimrc").write_text(snippet(PAGE, BLOCK), encoding="utf-8")
    tmux = Tmux(ws, ["vim", "session.md"])
    try:
        yield ws, tmux
    finally:
        tmux.close()


def probe(ws: Workspace, tmux: Tmux, done: Any) -> Any:
    def ask() -> None:
        tmux.keys("Escape")
        tmux.type(f":source {PROBE}")
        tmux.keys("Enter")

    return probe_until(ws, ask, done)


def by_line(seen: Any) -> dict[int, Any]:
    return {d["lnum"]: d for d in seen["diagnostics"]}


def class_of(diag: Any) -> str:
    return str(diag["text"].split(" ")[0])


def test_vim_ale_page_works_as_written(vim: tuple[Workspace, Tmux]) -> None:
    ws, tmux = vim
    text = ws.session.read_text(encoding="utf-8")
    turns = first_lines(text)
    severity = re.search(r"'severity': '(\w+)'", snippet(PAGE, BLOCK))[1]  # type: ignore[index]

    # diagnostics on the first line of every turn, with the severity the page sets
    seen = probe(ws, tmux, lambda s: len(s["diagnostics"]) == len(turns))
    assert seen["filetype"] == "markdown"
    assert sorted(by_line(seen)) == turns
    for d in seen["diagnostics"]:
        assert d["linter"] == "turnlens" and d["type"] == TYPES[severity], d
        assert re.fullmatch(r"TL\d", d["code"]) and re.match(r"\w+\?? · ≤\d+:1 · ", d["text"]), d
    tmux.keys("Escape", ":lopen", "Enter")
    screen = tmux.wait_screen(lambda s: s.count(f"{severity}| TL") == len(turns))
    record_screen(PAGE, BLOCK, screen)
    tmux.keys(":lclose", "Enter")

    # K is the hover, in a popup: ALE asks for plain text first, so it reads as plain text
    # (aligned columns, no Markdown table, no backslash escapes)
    second = turns[1] + 1
    tmux.keys("Escape", f"{second}G", "K")
    hover = tmux.wait_screen(
        lambda s: re.search(r"TurnLens · turn 2 of \d+", s) and re.search(r"class\s+(score|probability)\b", s)
    )
    assert "**" not in hover and "| class |" not in hover and "\\" not in hover, hover
    tmux.keys("Escape", "gg")

    # a code action applied: pin the last turn to another class
    last = turns[-1]
    before = class_of(by_line(seen)[last])
    tmux.keys(f"{last + 1}G")
    tmux.type("\\a")
    menu = tmux.wait_screen(lambda s: "Code Fixes:" in s and "Type number" in s)
    number, pinned = next(
        (n, c)
        for n, c, now in re.findall(
            r"^(\d+)\) TurnLens: pin this turn as (\w+)( \(its class now\))?$", menu, re.M
        )
        if not now
    )
    assert pinned != before
    tmux.type(number)
    tmux.keys("Enter")
    seen = probe(
        ws, tmux, lambda s: any("pinned" in d["text"] and class_of(d) == pinned for d in s["diagnostics"])
    )
    assert any(f"class={pinned}" in line for line in seen["lines"])

    # an edit is re-labelled: the first turn becomes a stack trace
    from turnlens.api import classify_unit, split_units

    tmux.keys("Escape", "gg", "S")
    tmux.type("Traceback (most recent call last): ValueError: boom")
    tmux.keys("Escape")
    new_text = "\n".join(probe(ws, tmux, lambda s: s["lines"][0].startswith("Traceback"))["lines"]) + "\n"
    expected = classify_unit(next(u for u in split_units(new_text) if not u.ignored)).task_class
    assert expected != class_of(by_line(seen)[turns[0]])
    seen = probe(ws, tmux, lambda s: 0 in by_line(s) and class_of(by_line(s)[0]) == expected)
    assert len(seen["diagnostics"]) == len(turns)

    # quitting Vim stops the server
    assert ws.server_pids()
    tmux.keys("Escape")
    tmux.type(":qa!")
    tmux.keys("Enter")
    tmux.wait_exit()
    assert ws.wait_servers_gone() == []


def test_vim_ale_page_labels_a_claude_code_session(tmp_path: Path) -> None:
    """The page's configuration attaches the server to a `.jsonl` session too: one label per
    message, on the message's own line."""
    ws = make_workspace(tmp_path)
    (ws.home / ".vimrc").write_text(snippet(PAGE, BLOCK), encoding="utf-8")
    name, lines = add_jsonl_session(ws)
    tmux = Tmux(ws, ["vim", name])
    try:
        labels = lambda s: [d for d in s["diagnostics"] if is_label(d["text"])]  # noqa: E731
        seen = probe(ws, tmux, lambda s: len(labels(s)) == len(lines))
        assert seen["filetype"] == "jsonl"
        assert sorted(d["lnum"] for d in labels(seen)) == lines
        assert all(d["linter"] == "turnlens" for d in labels(seen))
    finally:
        tmux.close()
