"""Line tools the Markdown-based readers share: lines with offsets, code fences, trimming.

Readers of text formats keep `text == document[start:end]`, so everything here
works on offsets into the document rather than on copies of its lines.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable

from turnlens.pipeline.units import NO_DIRECTIVES, Directives, parse_directives

# an opening fence: up to 3 spaces, 3+ backticks or tildes, an info string (no backtick for ```)
_FENCE_OPEN = re.compile(r"[ ]{0,3}(`{3,}|~{3,})")
_FENCE_BARE = re.compile(r"[ ]{0,3}(`{3,}|~{3,})[ \t]*\r?$")
_DIRECTIVE_LINE = re.compile(r"[ \t]*(?:<!--[ \t]*turnlens:[^\n]*?-->[ \t]*)+\r?$", re.IGNORECASE)
_BLANK = " \t\r\n\f\v"


class Lines:
    """The lines of a document: `starts[i]` is where line i begins, `ends[i]` where its
    content ends (before `\\r\\n` or `\\n`)."""

    __slots__ = ("ends", "starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        starts = [0]
        ends: list[int] = []
        find = text.find
        pos = 0
        while True:
            nl = find("\n", pos)
            if nl < 0:
                ends.append(len(text))
                break
            ends.append(nl - 1 if nl > pos and text[nl - 1] == "\r" else nl)
            pos = nl + 1
            starts.append(pos)
        if starts[-1] == len(text) and len(starts) > 1:
            starts.pop()  # a final line break does not open an empty last line
            ends.pop()
        self.starts = starts
        self.ends = ends

    def __len__(self) -> int:
        return len(self.starts)

    def line(self, i: int) -> str:
        return self.text[self.starts[i] : self.ends[i]]

    def is_blank(self, i: int) -> bool:
        return not self.line(i).strip()

    def is_directive(self, i: int) -> bool:
        """A line that holds nothing but `<!-- turnlens: … -->` comments."""
        return _DIRECTIVE_LINE.match(self.line(i)) is not None

    def line_at(self, offset: int) -> int:
        return bisect_right(self.starts, offset) - 1


def fence_ends(lines: Lines, stop: Callable[[int], bool] | None = None) -> dict[int, int]:
    """Each opening fence line → its closing fence line, for fences that do close.

    A fence left open (a reply cut off mid-block) is not a fence here: treating
    it as one would swallow every turn after it. `stop(i)` marks lines no fence
    runs across (a session header).
    """
    bare: dict[str, list[int]] = {"`": [], "~": []}
    openers: list[tuple[int, str, int]] = []
    stops: list[int] = []
    for i in range(len(lines)):
        if stop is not None and stop(i):
            stops.append(i)
            continue
        line = lines.line(i)
        head = line.lstrip(" ")[:1]
        if head not in ("`", "~") or len(line) - len(line.lstrip(" ")) > 3:
            continue
        m = _FENCE_OPEN.match(line)
        if m is None:
            continue
        marker = m.group(1)
        if marker[0] == "`" and "`" in line[m.end(1) :]:
            continue
        openers.append((i, marker[0], len(marker)))
        if _FENCE_BARE.match(line):
            bare[marker[0]].append(i)
    out: dict[int, int] = {}
    after = -1
    for i, char, size in openers:
        if i <= after:
            continue  # inside a fence already found
        closers = bare[char]
        k = bisect_right(closers, i)
        while k < len(closers):
            j = closers[k]
            nxt = bisect_right(stops, i)
            if nxt < len(stops) and stops[nxt] < j:
                break  # a stop line comes first: this fence never closes
            if len(lines.line(j).strip()) >= size:
                out[i] = j
                after = j
                break
            k += 1
    return out


def trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    """The span without leading blank lines and trailing white space (empty: start == end)."""
    i = start
    while i < end and text[i] in _BLANK:
        i += 1
    if i == end:
        return end, end
    line_start = text.rfind("\n", start, i) + 1
    start = max(start, line_start)
    while end > start and text[end - 1] in _BLANK:
        end -= 1
    return start, end


def directives_in(text: str) -> Directives:
    return parse_directives(text) if "<!--" in text else NO_DIRECTIVES


def file_ignored(text: str) -> bool:
    return "<!--" in text and parse_directives(text).ignore_file
