"""Emacs + eglot with exactly the configuration docs/editors/emacs.md shows, in a terminal in tmux."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.editors.harness import (
    Tmux,
    Workspace,
    add_jsonl_session,
    first_lines,
    make_workspace,
    missing,
    probe_until,
    record_screen,
    snippet,
)

PAGE, BLOCK = "emacs.md", "emacs"
PROBE = Path(__file__).with_name("emacs_probe.el")
TYPES = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}


def _why() -> str | None:
    gone = missing("emacs", "tmux")
    if gone:
        return gone
    if not (Path("/usr/share/emacs/site-lisp/elpa/eglot-1.9").exists() or _emacs_has_eglot()):
        return "eglot is not installed for this Emacs (apt-get install elpa-eglot; .ci/run does)"
    return None


def _emacs_has_eglot() -> bool:
    import subprocess

    done = subprocess.run(
        ["emacs", "--batch", "--eval", '(progn (package-initialize) (princ (locate-library "eglot")))'],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return "eglot" in done.stdout


pytestmark = pytest.mark.skipif(bool(_why()), reason=_why() or "")


@pytest.fixture
def emacs(tmp_path: Path) -> Iterator[tuple[Workspace, Tmux]]:
    ws = make_workspace(tmp_path)
    (ws.home / ".emacs.d").mkdir()
    (ws.home / ".emacs.d" / "init.el").write_text(snippet(PAGE, BLOCK), encoding="utf-8")
    (ws.project / "notes.txt").write_text("thanks!\n", encoding="utf-8")
    tmux = Tmux(ws, ["emacs", "-nw", "session.md"])
    try:
        yield ws, tmux
    finally:
        tmux.close()


def command(tmux: Tmux, name: str, answer: str | None = None, prompt: str | None = None) -> None:
    """M-x NAME, and the answer to its prompt once the prompt is on the screen."""
    tmux.keys("C-g")
    time.sleep(0.3)  # a quit discards the input that follows it too closely
    tmux.keys("M-x")
    tmux.type(name)
    tmux.keys("Enter")
    if answer is not None:
        if prompt is not None:
            tmux.wait_screen(lambda s: prompt in s.rstrip().splitlines()[-1])
        tmux.type(answer)
        tmux.keys("Enter")


def probe(ws: Workspace, tmux: Tmux, done: Any, timeout: float = 45.0) -> Any:
    # Flymake takes new diagnostics after 0.5 s without input: stay idle longer than that
    ask = lambda: command(tmux, "load-file", str(PROBE), "Load file")  # noqa: E731
    return probe_until(ws, ask, done, timeout, interval=1.5)


def by_line(seen: Any) -> dict[int, Any]:
    return {d["line"]: d for d in seen["diagnostics"]}


def class_of(diag: Any) -> str:
    m = re.match(r"turnlens \[TL\d\]: (\w+) ·", diag["text"])
    assert m, diag["text"]
    return m[1]


def test_emacs_page_works_as_written(emacs: tuple[Workspace, Tmux]) -> None:
    ws, tmux = emacs
    text = ws.session.read_text(encoding="utf-8")
    turns = first_lines(text)
    severity = re.search(r':severity "(\w+)"', snippet(PAGE, BLOCK))[1]  # type: ignore[index]

    # diagnostics on the first line of every turn, with the severity the page sets
    screen = tmux.wait_screen(lambda s: "[eglot:" in s and f"Flymake[0 {len(turns)}]" in s.replace("\n", ""))
    seen = probe(ws, tmux, lambda s: len(s["diagnostics"]) == len(turns))
    assert seen["server"] is True
    assert sorted(by_line(seen)) == turns
    for d in seen["diagnostics"]:
        assert d["type"].endswith(TYPES[severity]), d
        # a short code, then the class (`code?` when unsure)
        assert re.match(r"turnlens \[TL\d\]: \w+\?? · ≤\d+:1 · ", d["text"]), d
    # what the page shows: the buffer with Flymake's list of the diagnostics below it
    command(tmux, "flymake-show-buffer-diagnostics")
    screen = tmux.wait_screen(lambda s: s.count("turnlens [TL") >= 5)
    record_screen(PAGE, BLOCK, screen)
    tmux.keys("C-x", "1")

    # hover through ElDoc: resting on a turn's line shows the explanation's first line
    second = turns[1] + 1
    command(tmux, "goto-line", str(second), "Goto line")
    tmux.wait_screen(lambda s: re.search(r"TurnLens\** · turn 2 of \d+", s))

    # a code action applied: pin the last turn to another class
    from turnlens.lsp.features.diagnostics import CLASS_CODES

    last = turns[-1]
    before = class_of(by_line(seen)[last])
    pinned = next(c for c in CLASS_CODES if c != before)
    command(tmux, "goto-line", str(last + 1), "Goto line")
    command(tmux, "eglot-code-actions", f"TurnLens: pin this turn as {pinned}", "Pick an action")
    seen = probe(
        ws, tmux, lambda s: any("pinned" in d["text"] and class_of(d) == pinned for d in s["diagnostics"])
    )
    assert any(f"class={pinned}" in line for line in seen["lines"])

    # an edit is re-labelled: the first turn becomes a stack trace
    from turnlens.api import classify_unit, split_units

    tmux.keys("C-g")
    time.sleep(0.3)
    tmux.keys("M-<", "C-k")
    tmux.type("Traceback (most recent call last): ValueError: boom")
    tmux.wait_screen(lambda s: "ValueError: boom" in s)  # typed in before anything else is sent
    new_text = "\n".join(probe(ws, tmux, lambda s: s["lines"][0].startswith("Traceback"))["lines"])
    expected = classify_unit(next(u for u in split_units(new_text) if not u.ignored)).task_class
    assert expected != class_of(by_line(seen)[turns[0]])
    seen = probe(ws, tmux, lambda s: 0 in by_line(s) and class_of(by_line(s)[0]) == expected)
    assert len(seen["diagnostics"]) == len(turns)

    # a .txt file starts TurnLens too
    tmux.keys("C-g")
    time.sleep(0.3)
    tmux.keys("C-x", "C-f")
    tmux.wait_screen(lambda s: "Find file:" in s.rstrip().splitlines()[-1])
    tmux.keys("C-a", "C-k")
    tmux.type(str(ws.project / "notes.txt"))
    tmux.keys("Enter")
    tmux.wait_screen(lambda s: "notes.txt  " in s and "[eglot:" in s)
    seen = probe(ws, tmux, lambda s: s["file"].endswith("notes.txt") and len(s["diagnostics"]) == 1)
    assert seen["mode"] == "text-mode" and seen["server"] is True

    # leaving Emacs stops the server
    assert ws.server_pids()
    tmux.keys("C-g")
    time.sleep(0.3)
    tmux.keys("C-x", "s", "!")
    tmux.keys("C-x", "C-c")
    tmux.wait_exit()
    assert ws.wait_servers_gone() == []


def test_emacs_page_labels_a_claude_code_session(tmp_path: Path) -> None:
    """The page's configuration attaches the server to a `.jsonl` session too: one label per
    message, on the message's own line."""
    ws = make_workspace(tmp_path)
    (ws.home / ".emacs.d").mkdir()
    (ws.home / ".emacs.d" / "init.el").write_text(snippet(PAGE, BLOCK), encoding="utf-8")
    name, lines = add_jsonl_session(ws)
    tmux = Tmux(ws, ["emacs", "-nw", name])
    try:
        tmux.wait_screen(lambda s: "[eglot:" in s and "(Session" in s)  # a key sent before cancels the visit
        label = re.compile(r"turnlens \[TL\d\]: \w+\?? ·")
        labels = lambda s: [d for d in s["diagnostics"] if label.match(d["text"])]  # noqa: E731
        seen = probe(ws, tmux, lambda s: len(labels(s)) == len(lines), timeout=90)
        assert seen["server"] is True and seen["mode"] == "turnlens-session-mode"
        assert sorted(d["line"] for d in labels(seen)) == lines
    finally:
        tmux.close()
