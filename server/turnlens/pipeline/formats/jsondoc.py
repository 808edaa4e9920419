"""What every one-document JSON reader shares: parse whole, point units at their string values.

Exports and message arrays (ChatGPT, Gemini CLI, OpenAI, Anthropic) are one
JSON document, not lines: the whole text is parsed with `loads_spanned`, each
unit points at the string literal its text comes from, and an edit re-splits
the whole document (a change anywhere can move every span after it).
Detection only sees the document's head, so it reads keys with patterns
rather than parsing.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Iterator
from typing import Any

from turnlens.pipeline.formats.base import (
    Edit,
    FormatOptions,
    NotATranscript,
    OpenCalls,
    Problem,
    SessionInfo,
    Split,
)
from turnlens.pipeline.formats.jsonspan import BOM, JStr, SpanError, TooDeep, loads, loads_spanned, plain
from turnlens.pipeline.units import Unit


class Doc:
    """One parsed document: where its lines start, and the problems met while reading it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.problems: list[Problem] = []
        self._starts: list[int] | None = None
        self._said: set[str] = set()
        self.calls = OpenCalls()  # tool calls waiting for their results, by id (`Unit.call`)

    def line_of(self, offset: int) -> int:
        """1-based line of a document offset."""
        if self._starts is None:
            self._starts = [0, *(m.end() for m in re.finditer("\n", self.text))]
        return bisect_right(self._starts, offset)

    def once(self, key: str, offset: int, message: str, severity: str = "info") -> None:
        """A problem said once per `key` (an unknown type is reported where first met)."""
        if key not in self._said:
            self._said.add(key)
            self.problems.append(Problem(self.line_of(offset) if offset >= 0 else 0, message, severity))

    def unit(
        self,
        value: Any,
        role: str,
        kind: str,
        *,
        text: str | None = None,
        effort_used: str | None = None,
    ) -> Unit | None:
        """A unit for a spanned string (or given text anchored on it); None when there is no text."""
        body = text if text is not None else plain(value)
        if body is None or not body.strip():
            return None
        if isinstance(value, JStr):
            start, end = value.start, value.end
        else:  # no position known (a document whose strings could not be paired)
            start = end = 0
        return Unit(0, start, end, body, None, False, role, kind, effort_used, self.line_of(start))


def offset_of(value: Any) -> int:
    """Where a value's first string starts (-1 when it holds none), to say where a problem is."""
    if isinstance(value, JStr):
        return value.start
    if isinstance(value, dict):
        values: Any = value.values()
    elif isinstance(value, list):
        values = value
    else:
        return -1
    for item in values:
        found = offset_of(item)
        if found >= 0:
            return found
    return -1


def parse(text: str, doc: Doc) -> Any:
    """The spanned document; invalid JSON becomes one problem (with its line) and None."""
    try:
        return loads_spanned(text)
    except TooDeep as exc:
        doc.problems.append(Problem(1, f"JSON {exc}; nothing read"))
        return None
    except SpanError:
        doc.problems.append(
            Problem(0, "strings could not be placed (duplicate keys?); labels point at the start")
        )
        return loads(text)
    except ValueError as exc:
        line = getattr(exc, "lineno", 0)
        if "\0" in text:
            message = "binary data, not JSON; nothing read"
        elif isinstance(exc, json.JSONDecodeError) and (
            exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
        ):
            line = text.rstrip().count("\n") + 1  # where the text stops
            message = "the document ends early (still being written?); nothing read"
        else:
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "parse error"
            message = f"not valid JSON ({reason}); nothing read"
        doc.problems.append(Problem(line, message))
        return None


class JsonDocFormat:
    """A one-document JSON format: subclasses give `name`, `label`, `detect` and `read`."""

    name = "json"
    label = "JSON document"
    comments = False
    #: a JSON Lines format that reads the same records one per line (used when the text is lines)
    lines_format: Any = None

    def read(self, obj: Any, doc: Doc) -> Iterator[Unit]:
        """The units of the parsed document, in order (index not yet set).

        Raises NotATranscript when the document is JSON of another kind.
        """
        raise NotImplementedError

    def title_of(self, obj: Any) -> str | None:
        return None

    def split(self, text: str, options: FormatOptions) -> Split:
        if self.lines_format is not None and looks_like_lines(text):
            split: Split = self.lines_format.split(text, options)
            return split
        doc = Doc(text)
        obj = parse(text, doc)
        units: list[Unit] = []
        if obj is not None:
            hidden = options.hide_kinds
            for unit in self.read(obj, doc):
                if not (hidden and unit.kind in hidden):
                    units.append(unit._replace(index=len(units) + 1))
        doc.problems.sort(key=lambda p: p.line)
        title = self.title_of(obj) if obj is not None else None
        return Split(units, doc.problems, None, title, self.info_of(obj, units))

    def info_of(self, obj: Any, units: list[Unit]) -> SessionInfo | None:
        """What the document records about the session: by default, the span of its units' times."""
        info = SessionInfo()
        for unit in units:
            info.see_time(unit.time)
        return info if info.started is not None else None

    def resplit(self, text: str, options: FormatOptions, previous: Split, edit: Edit) -> Split:
        return self.split(text, options)

    def split_marker(self, options: FormatOptions) -> str | None:
        return None


def looks_like_lines(text: str) -> bool:
    """True when the first non-blank line is a whole JSON value and more lines follow (JSON Lines)."""
    stripped = text.removeprefix(BOM).lstrip()
    nl = stripped.find("\n")
    if nl < 0 or not stripped[nl:].strip():
        return False
    first = stripped[:nl].strip()
    if not first.startswith("{"):
        return False
    try:
        json.loads(first)
    except RecursionError:
        return True  # a line too deep is still a line: the lines reader reports it
    except ValueError:
        return False
    return True


def whole(head: str) -> Any:
    """The parsed head when it holds a whole JSON document, else None (plain values, no spans)."""
    try:
        return loads(head)
    except ValueError:  # TooDeep too
        return None


def keys_in(head: str) -> set[str]:
    """The object keys written in a document's head (a cheap look at a document too big to parse)."""
    return set(_KEY.findall(head))


_KEY = re.compile(r'"([A-Za-z_$][A-Za-z0-9_$]*)"\s*:')


def refuse(what: str) -> NotATranscript:
    return NotATranscript(f"not a transcript: {what}")
