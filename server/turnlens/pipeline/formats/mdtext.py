"""Text tools the Markdown-based readers share: closed code fences, line edges, trimming.

Readers of text formats keep `text == document[start:end]`, so everything here
works on offsets into the document. They find the few lines that matter (fences,
markers) with one regex pass each instead of looking at every line in Python:
a long history is read in a few milliseconds, and a plain Markdown file is
ruled out just as fast on every keystroke.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from turnlens.pipeline.units import DIRECTIVE_BODY, NO_DIRECTIVES, Directives, parse_directives

# a fence line: up to 3 spaces, 3+ backticks or tildes, then an info string
_FENCE_LINE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})([^\n]*)", re.MULTILINE)
# one or more `<!-- turnlens: … -->` comments (after leading blanks, skipped by `_INDENT`); a
# body cannot hold `-->`, so the comments of a line split one way only (the lazy `[^\n]*?` inside
# `(…)+` it replaces could split them exponentially many ways)
_DIRECTIVE_LINE = re.compile(rf"(?:<!--[ \t]*+turnlens:{DIRECTIVE_BODY}-->[ \t]*+)++\r?", re.IGNORECASE)
_INDENT = re.compile(r"[ \t]*+")
_BLANK = " \t\r\n\f\v"

Fences = tuple[list[int], list[int]]  # (starts, ends) of closed fences, sorted


def line_end(text: str, pos: int) -> int:
    """Where the content of the line holding `pos` ends (before `\\r\\n` or `\\n`)."""
    nl = text.find("\n", pos)
    if nl < 0:
        return len(text)
    return nl - 1 if nl > pos and text[nl - 1] == "\r" else nl


def next_line(text: str, pos: int) -> int:
    """Start of the line after the one holding `pos` (or the end of text)."""
    nl = text.find("\n", pos)
    return len(text) if nl < 0 else nl + 1


def closed_fences(text: str, lo: int = 0, hi: int | None = None) -> Fences:
    """The spans of code fences that close, from the opening line's start to the closing
    line's end.

    A fence left open (a reply cut off mid-block) is no fence here: treating it
    as one would swallow every turn after it. `lo` and `hi` (line starts) bound
    the search: no fence runs past them (an Aider session ends at the next header).
    """
    hi = len(text) if hi is None else hi
    lines = [(m.start(), m.group(1), m.group(2), m.end()) for m in _FENCE_LINE.finditer(text, lo, hi)]
    bare: dict[str, list[int]] = {"`": [], "~": []}  # indexes into `lines` of lines that can close
    for k, (_, marker, info, _) in enumerate(lines):
        if not info.strip():
            bare[marker[0]].append(k)
    starts: list[int] = []
    ends: list[int] = []
    after = -1
    for k, (start, marker, info, _) in enumerate(lines):
        if start <= after or (marker[0] == "`" and "`" in info):
            continue
        closers = bare[marker[0]]
        c = bisect_right(closers, k)
        while c < len(closers):
            close_start, close_marker, _, close_end = lines[closers[c]]
            if len(close_marker) >= len(marker):
                starts.append(start)
                ends.append(close_end)
                after = close_start
                break
            c += 1
    return starts, ends


def in_fence(fences: Fences, pos: int) -> bool:
    starts, ends = fences
    i = bisect_right(starts, pos) - 1
    return i >= 0 and pos <= ends[i]


def fence_at(fences: Fences, pos: int) -> int:
    """The end of the fence that opens at `pos`, or -1."""
    starts, ends = fences
    i = bisect_left(starts, pos)
    return ends[i] if i < len(starts) and starts[i] == pos else -1


def is_directive_line(text: str, start: int, end: int) -> bool:
    """A line that holds nothing but `<!-- turnlens: … -->` comments."""
    m = _INDENT.match(text, start, end)
    return _DIRECTIVE_LINE.fullmatch(text, m.end() if m else start, end) is not None


def trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    """The span without leading blank lines and trailing white space (empty: start == end)."""
    i = start
    while i < end and text[i] in _BLANK:
        i += 1
    if i == end:
        return end, end
    start = max(start, text.rfind("\n", start, i) + 1)
    while end > start and text[end - 1] in _BLANK:
        end -= 1
    return start, end


def peel_tail(
    text: str, start: int, end: int, skip: re.Pattern[str] | None = None
) -> tuple[int, Directives | None]:
    """Cut trailing blank lines (and lines `skip` matches, such as `---` rules) from
    [start, end); lines of steering comments just above `end` are cut too and
    returned: they are for the turn that follows."""
    end = _cut_back(text, start, end, skip)
    top = end
    while top > start:
        line_start = max(start, text.rfind("\n", start, top - 1) + 1) if top > 0 else 0
        content_end = top - 1 if text[top - 1] == "\n" else top
        if content_end > line_start and text[content_end - 1] == "\r":
            content_end -= 1
        if not is_directive_line(text, line_start, content_end):
            break
        top = line_start
    if top == end:
        return end, None
    return _cut_back(text, start, top, skip), directives_in(text[top:end])


def _cut_back(text: str, start: int, end: int, skip: re.Pattern[str] | None) -> int:
    """`end` moved back past blank lines and skipped lines (to just after a line break)."""
    while end > start:
        line_start = max(start, text.rfind("\n", start, end - 1) + 1)
        line = text[line_start:end]
        if line.strip() and not (skip is not None and skip.fullmatch(line.rstrip("\r\n"))):
            return end
        end = line_start
    return end


def directives_in(text: str) -> Directives:
    return parse_directives(text) if "<!--" in text else NO_DIRECTIVES


def file_ignored(text: str) -> bool:
    return "<!--" in text and parse_directives(text).ignore_file
