"""Open documents: text, version, incremental edits and position conversion.

pygls's own TextDocument re-splits the whole text on every edit and position
lookup; TurnLens keeps transcripts of several megabytes open, so it holds the
text once and indexes line starts lazily. Line breaks are LSP's: `\\n`, `\\r\\n`
and `\\r`. Columns are counted in the negotiated position encoding.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Sequence

from lsprotocol import types

_BREAK = re.compile(r"\r\n|\r|\n")


def _units(text: str, encoding: str) -> int:
    """Length of `text` in code units of the position encoding."""
    if encoding == types.PositionEncodingKind.Utf32 or text.isascii():
        return len(text)
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _offset_in_line(line: str, units: int, encoding: str) -> int:
    """The str index in `line` of a column given in code units (clamped to the line)."""
    if units <= 0:
        return 0
    if encoding == types.PositionEncodingKind.Utf32 or line.isascii():
        return min(units, len(line))
    count = 0
    for i, ch in enumerate(line):
        if count >= units:
            return i
        cp = ord(ch)
        if encoding == types.PositionEncodingKind.Utf8:
            count += 1 if cp < 0x80 else 2 if cp < 0x800 else 3 if cp < 0x10000 else 4
        else:
            count += 2 if cp >= 0x10000 else 1
    return len(line)


class Document:
    """One open document as the client sees it."""

    def __init__(
        self, uri: str, text: str, version: int, language_id: str = "", encoding: str = "utf-16"
    ) -> None:
        self.uri = uri
        self.language_id = language_id
        self.encoding = encoding
        self.version = version
        self._text = text
        # line starts as 8-byte machine integers: a 5 MB transcript has ~110,000 lines, which
        # as a list of ints would take 3.4 MB instead of 0.9
        self._starts: array[int] | None = None
        self._dirty: tuple[int, int] | None = None

    @property
    def text(self) -> str:
        return self._text

    def take_edits(self) -> tuple[int, int] | None:
        """What changed since the last call, as (unchanged prefix length, unchanged suffix length);
        None when nothing changed."""
        dirty, self._dirty = self._dirty, None
        return dirty

    def _mark(self, start: int, end: int, old_len: int) -> None:
        prefix, suffix = self._dirty if self._dirty is not None else (old_len, old_len)
        self._dirty = (min(prefix, start), min(suffix, old_len - end))

    # -- line index ---------------------------------------------------------------
    def line_starts(self) -> Sequence[int]:
        if self._starts is None:
            text = self._text
            if "\r" in text:
                self._starts = array("q", [0, *(m.end() for m in _BREAK.finditer(text))])
            else:
                starts = [0]
                find = text.find
                i = find("\n")
                while i >= 0:
                    starts.append(i + 1)
                    i = find("\n", i + 1)
                self._starts = array("q", starts)
        return self._starts

    def line_text(self, line: int) -> str:
        """Line `line` without its line break ('' past the end)."""
        starts = self.line_starts()
        if line < 0 or line >= len(starts):
            return ""
        end = starts[line + 1] if line + 1 < len(starts) else len(self._text)
        return self._text[starts[line] : end].rstrip("\r\n")

    def line_of(self, offset: int) -> int:
        """The line holding a str index."""
        return bisect_right(self.line_starts(), offset) - 1

    def units(self, text: str) -> int:
        """Length of `text` in the client's position units."""
        return _units(text, self.encoding)

    # -- conversions ----------------------------------------------------------------
    def offset_at(self, position: types.Position) -> int:
        """str index of a client position, clamped into the document."""
        starts = self.line_starts()
        if position.line < 0:
            return 0
        if position.line >= len(starts):
            return len(self._text)
        line = self.line_text(position.line)
        return starts[position.line] + _offset_in_line(line, position.character, self.encoding)

    def position_at(self, offset: int) -> types.Position:
        """Client position of a str index."""
        offset = max(0, min(offset, len(self._text)))
        starts = self.line_starts()
        line = bisect_right(starts, offset) - 1
        return types.Position(line=line, character=_units(self._text[starts[line] : offset], self.encoding))

    def line_end_position(self, line: int) -> types.Position:
        return types.Position(line=line, character=_units(self.line_text(line), self.encoding))

    def range_at(self, start: int, end: int) -> types.Range:
        return types.Range(start=self.position_at(start), end=self.position_at(end))

    # -- edits ----------------------------------------------------------------------
    def apply(self, changes: Sequence[types.TextDocumentContentChangeEvent], version: int) -> None:
        """Apply incremental or full changes, in order, as LSP defines them."""
        text = self._text
        for change in changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                start = self.offset_at(change.range.start)
                end = self.offset_at(change.range.end)
                if end < start:
                    start, end = end, start
                self._mark(start, end, len(text))
                # one new string (slices, then one join): `a + b + c` would also build `a + b`
                text = "".join((text[:start], change.text, text[end:]))
                self._text = text
                self._starts = self._shift_starts(start, end, change.text)
            else:
                self._mark(0, len(text), len(text))
                text = change.text
                self._text = text
                self._starts = None
        self.version = version

    def _shift_starts(self, start: int, end: int, inserted: str) -> array[int] | None:
        """Update the line index after replacing [start, end) without rescanning the text."""
        starts = self._starts
        if (
            starts is None
            or "\r" in inserted
            or "\r" in self._text[max(0, start - 1) : start + len(inserted) + 1]
        ):
            return None
        lo = bisect_right(starts, start)
        hi = bisect_right(starts, end)
        new = array("q", [start + m + 1 for m in _newlines(inserted)])
        delta = len(inserted) - (end - start)
        tail = array("q", [s + delta for s in starts[hi:]]) if delta else starts[hi:]
        return starts[:lo] + new + tail


def _newlines(text: str) -> list[int]:
    out = []
    i = text.find("\n")
    while i >= 0:
        out.append(i)
        i = text.find("\n", i + 1)
    return out
