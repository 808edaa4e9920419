"""Aider chat histories (`.aider.chat.history.md`, Aider's `--chat-history-file`).

Aider appends to this Markdown file as it goes: `# aider chat started at …`
opens each session, each line the user typed is written as `#### ` + the line
(a prompt of several lines is several `#### ` lines in a row), command and tool
output is quoted with `> `, and the assistant's reply (prose, fences,
SEARCH/REPLACE blocks) is written as it is. This reader follows the same line
rules Aider uses to read the file back, except that a closed code fence in a
reply is kept whole: a `> ` or `#### ` line inside one is part of the reply.
Replies do not always follow CommonMark (a fence inside a fence, a closing
fence indented too far), so no fence runs past a `#### ` line after a blank
line: that is how Aider itself writes a prompt. A reply whose fence had to be
closed there is reported.

A prompt's span starts after its first `#### ` marker and a tool output's after
its first `> `, so a one-line prompt is the document's own slice, scored (and
`/route`d) as the user typed it. A prompt or output of several lines is read as
Aider reads it back: its text is the lines without their markers and without
the two spaces Aider ends each line with (`a  \n#### b` is `a\nb`), while its
span still covers the lines as written, so views point at them. Scoring the
markers instead would read a person's several-line request as Markdown headings.
"""

from __future__ import annotations

import os
import re
from itertools import pairwise

from turnlens.pipeline.formats.base import Edit, FormatOptions, NotATranscript, Problem, Split, reindex
from turnlens.pipeline.formats.mdtext import (
    Fences,
    closed_fences,
    directives_in,
    file_ignored,
    in_fence,
    line_end,
    next_line,
    peel_tail,
    trimmed,
)
from turnlens.pipeline.units import Directives, Unit

HEADER = "# aider chat started at"
FILE_NAME = ".aider.chat.history.md"

# the lines that are not the assistant's: a prompt line, a quoted output line, a session header
_MARKED = re.compile(r"^(?:####(?=[ \t\r\n]|$)|>(?=[ \t\r\n]|$)|# aider chat started at)", re.MULTILINE)
_HEADERS = re.compile(r"^# aider chat started at", re.MULTILINE)  # sessions start here
# a prompt line as Aider writes one: `#### ` at column 0 after a blank line; no fence crosses it
_PROMPT_AFTER_BLANK = re.compile(r"^[ \t]*\r?\n(####[ \t])", re.MULTILINE)
_ROLES = {"#": ("user", "prompt"), ">": ("tool", "tool_result")}


class _Run:
    """Consecutive prompt lines or output lines: (start, content end, marker length) of each."""

    __slots__ = ("kind", "lines", "next")

    def __init__(self, kind: str, line: tuple[int, int, int], nxt: int) -> None:
        self.kind = kind
        self.lines = [line]
        self.next = nxt  # where the line after the run starts


def _runs(text: str, lo: int, hi: int) -> list[_Run]:
    """Prompt, output and header lines of [lo, hi) outside closed fences, grouped into runs.

    [lo, hi) is one session: it starts at a header (or the top) and no header is inside it.
    """
    fences = _fences(text, lo, hi)
    runs: list[_Run] = []
    for m in _MARKED.finditer(text, lo, hi):
        start = m.start()
        if fences[0] and in_fence(fences, start):
            continue  # a closed fence belongs to the reply, whatever it holds
        kind = text[start]
        if kind == "#" and text.startswith(HEADER, start):
            kind = "header"
        width = 0 if kind == "header" else len(m.group(0))
        if width and text[start + width : start + width + 1] in (" ", "\t"):
            width += 1
        line = (start, line_end(text, start), width)
        last = runs[-1] if runs else None
        if last is not None and last.kind == kind != "header" and last.next == start:
            last.lines.append(line)
            last.next = next_line(text, start)
        else:
            runs.append(_Run(kind, line, next_line(text, start)))
    return runs


def _prompt_lines(text: str, lo: int, hi: int) -> list[int]:
    """Starts of the `#### ` lines after a blank line in [lo, hi)."""
    return [m.start(1) for m in _PROMPT_AFTER_BLANK.finditer(text, lo, hi)]


def _fences(text: str, lo: int, hi: int) -> Fences:
    """The closed fences of [lo, hi), none running past a prompt line after a blank line."""
    bounds = [lo, *_prompt_lines(text, lo, hi), hi]
    starts: list[int] = []
    ends: list[int] = []
    for a, b in pairwise(bounds):
        if a < b:
            s, e = closed_fences(text, a, b)
            starts += s
            ends += e
    return starts, ends


def closed_early(text: str) -> list[Problem]:
    """A problem for each reply whose code fence had to end at a prompt line (the fence would
    otherwise have run on into the next prompt and what follows it)."""
    problems: list[Problem] = []
    pos, line = 0, 1  # lines are counted on from the last problem: one pass over the text
    bounds = [m.start() for m in _HEADERS.finditer(text)]
    for lo, hi in pairwise([0, *bounds, len(text)]):
        if lo >= hi:
            continue
        prompts = _prompt_lines(text, lo, hi)
        if not prompts:
            continue
        whole = closed_fences(text, lo, hi)
        for at in prompts:
            if whole[0] and in_fence(whole, at):
                line += text.count("\n", pos, at)
                pos = at
                problems.append(
                    Problem(
                        line, "a reply's code fence was still open at this prompt line: closed there", "info"
                    )
                )
    return problems


def _merge(first: Directives | None, second: Directives) -> tuple[str | None, bool]:
    if first is None:
        return second.pin, second.ignore
    return second.pin or first.pin, first.ignore or second.ignore


def split_history(text: str) -> list[Unit]:
    """The prompts, tool outputs and replies of an Aider history, in order."""
    return reindex([u for _, _, units in _sessions(text, None, None, ()).sessions for u in units])


class _Memo:
    """A history's sessions — (start, end, units) each — for the next re-split."""

    __slots__ = ("hidden", "ignore_all", "sessions", "text")

    def __init__(
        self,
        text: str,
        ignore_all: bool,
        hidden: tuple[str, ...],
        sessions: list[tuple[int, int, list[Unit]]],
    ) -> None:
        self.text = text
        self.ignore_all = ignore_all
        self.hidden = hidden
        self.sessions = sessions


def _sessions(text: str, old: _Memo | None, edit: Edit | None, hidden: tuple[str, ...]) -> _Memo:
    """Units session by session; with an old memo and an edit, the sessions the edit did
    not touch are reused (shifted when after it): no fence, prompt or comment runs across
    a session header, so a session's units depend on its own text alone."""
    ignore_all = file_ignored(text)
    bounds = [m.start() for m in _HEADERS.finditer(text)]
    if not bounds or bounds[0] != 0:
        bounds.insert(0, 0)
    bounds.append(len(text))
    known: dict[tuple[int, int], list[Unit]] = {}
    prefix = tail = delta = 0
    if (
        old is not None
        and edit is not None
        and old.ignore_all == ignore_all
        and old.hidden == hidden
        and edit[0] + edit[1] <= min(len(old.text), len(text))
    ):
        known = {(a, b): units for a, b, units in old.sessions}
        prefix, delta = edit[0], len(text) - len(old.text)
        tail = len(text) - edit[1]
    sessions: list[tuple[int, int, list[Unit]]] = []
    for a, b in pairwise(bounds):
        if a == b:
            continue
        units: list[Unit] | None = None
        if known and b <= prefix:
            units = known.get((a, b))
        elif known and a >= tail:
            moved = known.get((a - delta, b - delta))
            if moved is not None:
                units = (
                    [u._replace(start=u.start + delta, end=u.end + delta) for u in moved] if delta else moved
                )
        if units is None:
            units = _session_units(text, a, b, ignore_all)
            if hidden:
                units = [u for u in units if u.kind not in hidden]
        sessions.append((a, b, units))
    return _Memo(text, ignore_all, hidden, sessions)


def _session_units(text: str, lo: int, hi: int, ignore_all: bool) -> list[Unit]:
    """The units of one session [lo, hi), index not yet set."""
    units: list[Unit] = []
    pending: Directives | None = None  # comment lines just above the next unit steer it

    def add(
        start: int, end: int, role: str, kind: str, after: Directives | None, said: str | None = None
    ) -> None:
        nonlocal pending
        body = text[start:end]
        pin, ignored = _merge(pending, directives_in(body))
        pending = after
        units.append(
            Unit(0, start, end, body if said is None else said, pin, ignored or ignore_all, role, kind)
        )

    def reply(a: int, b: int) -> None:
        """The assistant's text between two runs (steering comments at its end are for the next)."""
        nonlocal pending
        stop, after = peel_tail(text, a, b)
        start, end = trimmed(text, a, stop)
        if start < end:
            add(start, end, "assistant", "reply", after)
        elif after is not None:
            pending = after

    pos = lo
    for run in _runs(text, lo, hi):
        reply(pos, run.lines[0][0])
        pos = run.next
        if run.kind == "header":
            pending = None
            continue
        # `####` / `>` lines with nothing after the marker open or close no text
        lines = [ln for ln in run.lines if text[ln[0] + ln[2] : ln[1]].strip()]
        if not lines:
            continue
        first, last = lines[0], lines[-1]
        start, end = trimmed(text, first[0] + first[2], last[1])
        if start < end:
            role, kind = _ROLES[run.kind]
            said = None
            if first is not last:  # several lines: what was typed, without the markers
                inner = run.lines[run.lines.index(first) : run.lines.index(last) + 1]
                said = "\n".join(text[a + w : b].rstrip() for a, b, w in inner)
                said = said[start - (first[0] + first[2]) :]  # as the span: from its first text
            add(start, end, role, kind, None, said)
    reply(pos, hi)
    return units


def _is_history_name(path: str | None) -> bool:
    return bool(path) and os.path.basename(str(path).replace("\\", "/")).endswith(FILE_NAME)


class AiderFormat:
    """An Aider chat history: user prompts, tool output and replies."""

    name = "aider"
    label = "Aider chat history (Markdown)"
    comments = True  # an HTML comment line is plain Markdown; Aider reads the turns around it the same

    def detect(self, path: str | None, head: str) -> int:
        if _is_history_name(path):
            return 95
        if head.startswith(HEADER) or f"\n{HEADER}" in head:
            return 85
        return 0

    def split(self, text: str, options: FormatOptions) -> Split:
        return self._split(text, options, None, None)

    def resplit(self, text: str, options: FormatOptions, previous: Split, edit: Edit) -> Split:
        old = previous.state if isinstance(previous.state, _Memo) else None
        return self._split(text, options, old, edit)

    def _split(self, text: str, options: FormatOptions, old: _Memo | None, edit: Edit | None) -> Split:
        if _MARKED.search(text) is None and text.strip():
            raise NotATranscript(
                "not an Aider chat history: no `# aider chat started at` line and no `#### ` prompt line"
            )
        memo = _sessions(text, old, edit, options.hide_kinds)
        # numbered once; sessions before the edit keep their numbers, so their units are reused as is
        units = reindex([u for _, _, session in memo.sessions for u in session])
        at = 0
        numbered = []
        for a, b, session in memo.sessions:
            numbered.append((a, b, units[at : at + len(session)]))
            at += len(session)
        memo.sessions = numbered
        return Split(units, closed_early(text), state=memo)

    def split_marker(self, options: FormatOptions) -> str | None:
        return None  # a turn is whatever Aider wrote; there is no line that splits one


AIDER = AiderFormat()
