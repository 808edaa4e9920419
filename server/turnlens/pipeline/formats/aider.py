"""Aider chat histories (`.aider.chat.history.md`, Aider's `--chat-history-file`).

Aider appends to this Markdown file as it goes: `# aider chat started at …`
opens each session, each line the user typed is written as `#### ` + the line
(a prompt of several lines is several `#### ` lines in a row), command and tool
output is quoted with `> `, and the assistant's reply (prose, fences,
SEARCH/REPLACE blocks) is written as it is. This reader follows the same line
rules Aider uses to read the file back, except that a closed code fence in a
reply is kept whole: a `> ` or `#### ` line inside one is part of the reply.

Units keep `text == document[start:end]`: a prompt's span starts after its
first `#### ` marker and a tool output's after its first `> `, so a one-line
prompt is scored (and `/route`d) as the user typed it.
"""

from __future__ import annotations

import os

from turnlens.pipeline.formats.base import Edit, FormatOptions, Split, reindex
from turnlens.pipeline.formats.mdtext import Lines, directives_in, fence_ends, file_ignored, trimmed
from turnlens.pipeline.units import Directives, Unit

HEADER = "# aider chat started at"
FILE_NAME = ".aider.chat.history.md"

_USER, _TOOL, _HEADER, _OTHER = "user", "tool", "header", "other"
_ROLES = {_USER: ("user", "prompt"), _TOOL: ("tool", "tool_result"), _OTHER: ("assistant", "reply")}


def _kind(line: str) -> tuple[str, int]:
    """The line's kind and the length of its marker (`#### `, `> `)."""
    if line.startswith("####"):
        after = line[4:5]
        if after in ("", "\r"):
            return _USER, 4
        if after in (" ", "\t"):
            return _USER, 5
    elif line.startswith(">"):
        after = line[1:2]
        if after in ("", "\r"):
            return _TOOL, 1
        if after in (" ", "\t"):
            return _TOOL, 2
    elif line.startswith(HEADER):
        return _HEADER, 0
    return _OTHER, 0


def _empty_marker(line: str) -> bool:
    return not line[_kind(line)[1] :].strip()


def _runs(lines: Lines) -> list[tuple[str, int, int]]:
    """Consecutive lines of one kind: (kind, first line, line after the last)."""
    fences = fence_ends(lines, stop=lambda i: lines.line(i).startswith(HEADER))
    runs: list[tuple[str, int, int]] = []
    i, n = 0, len(lines)
    while i < n:
        close = fences.get(i)
        if close is not None:
            kind, nxt = _OTHER, close + 1  # a closed fence belongs to the reply, whatever it holds
        else:
            kind, nxt = _kind(lines.line(i))[0], i + 1
        if runs and runs[-1][0] == kind and kind != _HEADER:
            runs[-1] = (kind, runs[-1][1], nxt)
        else:
            runs.append((kind, i, nxt))
        i = nxt
    return runs


def _merge(first: Directives | None, second: Directives) -> tuple[str | None, bool]:
    if first is None:
        return second.pin, second.ignore
    return second.pin or first.pin, first.ignore or second.ignore


def split_history(text: str) -> list[Unit]:
    """The prompts, tool outputs and replies of an Aider history, in order."""
    lines = Lines(text)
    ignore_all = file_ignored(text)
    units: list[Unit] = []
    pending: Directives | None = None  # comment lines just above the next unit steer it
    for kind, a, b in _runs(lines):
        if kind == _HEADER:
            pending = None
            continue
        if kind == _OTHER:
            last = b
            while last > a and lines.is_blank(last - 1):
                last -= 1
            top = last
            while top > a and lines.is_directive(top - 1):
                top -= 1
            here = None
            if top < last:
                here = directives_in(text[lines.starts[top] : lines.ends[last - 1]])
            start, end = trimmed(text, lines.starts[a], lines.ends[top - 1]) if top > a else (0, 0)
            if start == end:  # nothing but steering comments: they are for the next unit
                pending = here if here is not None else pending
                continue
            after = here
        else:
            # `####` / `>` lines with nothing after the marker open or close no text
            while a < b and _empty_marker(lines.line(a)):
                a += 1
            while b > a and _empty_marker(lines.line(b - 1)):
                b -= 1
            if a == b:
                continue
            start, end = trimmed(text, lines.starts[a] + _kind(lines.line(a))[1], lines.ends[b - 1])
            after = None
        if start == end:
            continue
        body = text[start:end]
        pin, ignored = _merge(pending, directives_in(body))
        pending = after
        role, unit_kind = _ROLES[kind]
        units.append(Unit(0, start, end, body, pin, ignored or ignore_all, role, unit_kind))
    return reindex(units)


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
        return Split(_hide(split_history(text), options))

    def resplit(self, text: str, options: FormatOptions, previous: Split, edit: Edit) -> Split:
        return self.split(text, options)  # one linear pass; unchanged turns hit the analysis cache

    def split_marker(self, options: FormatOptions) -> str | None:
        return None  # a turn is whatever Aider wrote; there is no line that splits one


def _hide(units: list[Unit], options: FormatOptions) -> list[Unit]:
    if not options.hide_kinds:
        return units
    return reindex([u for u in units if u.kind not in options.hide_kinds])


AIDER = AiderFormat()
