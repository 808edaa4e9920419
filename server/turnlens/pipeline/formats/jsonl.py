"""What every JSON Lines reader shares: lines, bad lines, a cut last line, re-split by line.

A reader sees records (line number, offset, parsed object with spanned strings)
and turns them into units. Parsed lines are memoised by their text, so after an
edit only the lines that changed are parsed again.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from turnlens.core.record import Record as _Record
from turnlens.pipeline.formats.base import (
    Edit,
    FormatOptions,
    NotATranscript,
    Problem,
    SessionInfo,
    Split,
    parse_time,
)
from turnlens.pipeline.formats.jsonspan import BOM, JStr, SpanError, TooDeep, loads, loads_spanned, plain
from turnlens.pipeline.units import Unit
from turnlens.userfiles import MAX_LINE_BYTES, Overlong

MAX_LINE_CHARS = 64 * 1024 * 1024  # longer lines are reported and passed over


class Record(_Record):
    """One parsed line (a frozen record)."""

    _fields = ("line", "offset", "length", "obj")
    __slots__ = _fields
    line: int  # 1-based
    offset: int  # document offset of the line's first character
    length: int  # characters in the line, without its line break
    obj: Any  # the parsed line; its JStr spans are relative to the line

    def __init__(self, line: int, offset: int, length: int, obj: Any) -> None:
        object.__setattr__(self, "line", line)
        object.__setattr__(self, "offset", offset)
        object.__setattr__(self, "length", length)
        object.__setattr__(self, "obj", obj)


_BAD = object()
_CUT = object()
CUT_MESSAGE = "the last line is incomplete (still being written?); read up to the line before"

Line = tuple[int, int, str, bool]  # (1-based number, document offset, text without break, is last)


def text_lines(text: str) -> Iterator[Line]:
    """The non-blank lines of a document held in memory."""
    pos = 0
    n = len(text)
    # a line is the last one when only blanks follow it: found once, not per line (that was
    # quadratic in the document's size)
    content_end = len(text.rstrip())
    lineno = 0
    while pos < n:
        lineno += 1
        nl = text.find("\n", pos)
        end = n if nl < 0 else nl
        line = text[pos:end]
        start = pos
        if line.endswith("\r"):
            line = line[:-1]
        if pos == 0 and line.startswith(BOM):  # a byte-order mark is not part of the first record
            line, start = line[1:], 1
        if line.strip():
            yield lineno, start, line, nl < 0 or end >= content_end
        pos = n if nl < 0 else nl + 1


def iter_records(
    lines: Iterable[Line],
    problems: list[Problem],
    memo: dict[str, Any] | None = None,
    *,
    spans: bool = True,
) -> Iterator[Record]:
    """Parsed lines; bad lines become problems (once each). `memo` maps line text → parse,
    read from and written back to, so a re-split parses only lines it has not seen. Without
    `spans` strings stay plain `str` (no positions inside a line: a third of the parse)."""
    old = dict(memo) if memo else {}
    if memo is not None:
        memo.clear()
    for lineno, offset, line, last in lines:
        parsed = _BAD if isinstance(line, Overlong) else old.get(line, _BAD)
        if parsed is _BAD or parsed is _CUT:
            parsed = _parse(line, last=last, spans=spans)
        if memo is not None:
            memo[line] = parsed
        if parsed is _CUT:
            problems.append(Problem(lineno, CUT_MESSAGE, "info"))
        elif isinstance(parsed, str):
            problems.append(Problem(lineno, parsed))
        else:
            yield Record(lineno, offset, len(line), parsed)


def _parse(line: str, *, last: bool, spans: bool = True) -> Any:
    """The spanned (or plain) object, _CUT for a cut last line, or a problem message."""
    if isinstance(line, Overlong):
        return f"line of {line.chars:,} characters passed over (limit {MAX_LINE_BYTES:,} bytes)"
    if len(line) > MAX_LINE_CHARS:
        return f"line of {len(line):,} characters passed over (limit {MAX_LINE_CHARS:,})"
    try:
        return loads_spanned(line) if spans else loads(line)
    except TooDeep as exc:
        return f"JSON {exc}; line passed over"
    except SpanError:
        try:
            return loads(line)  # usable, without spans inside the line
        except ValueError:
            return "not valid JSON"
    except ValueError as exc:
        if last:
            return _CUT
        if "\0" in line:
            return "binary data, not JSON"
        return f"not valid JSON ({exc.args[0].split(':')[0] if exc.args else 'parse error'})"


def span_of(record: Record, value: Any) -> tuple[int, int]:
    """The document span of a spanned string in `record`, or the whole line when it has none."""
    if isinstance(value, JStr):
        return record.offset + value.start, record.offset + value.end
    return record.offset, record.offset + record.length


def make_unit(
    record: Record,
    value: Any,
    role: str | None,
    kind: str | None,
    *,
    text: str | None = None,
    effort_used: str | None = None,
) -> Unit | None:
    """A unit for a spanned string (or given text anchored on it); None when there is no text.
    Its time is the record's `timestamp`, where it has one."""
    body = text if text is not None else plain(value)
    if body is None or not body.strip():
        return None
    start, end = span_of(record, value)
    obj = record.obj
    when = parse_time(obj.get("timestamp")) if isinstance(obj, dict) else None
    return Unit(0, start, end, body, None, False, role, kind, effort_used, record.line, None, when)


class JsonlFormat:
    """A JSON Lines format: subclasses give `name`, `label`, `detect` and `read`."""

    name = "jsonl"
    label = "JSON Lines"
    comments = False
    #: whether `read` takes plain `str` values as well as spanned ones (see `stream`)
    reads_plain = False

    def read(
        self, records: Iterable[Record], problems: list[Problem], info: SessionInfo | None = None
    ) -> Iterator[Unit]:
        """The units of the records, in order (index not yet set); problems are appended, and
        what the file records about the session goes into `info` (when given)."""
        raise NotImplementedError

    def title_of(self, record: Record) -> str | None:
        """A session title, if this record holds one."""
        return None

    def stream(
        self,
        lines: Iterable[Line],
        options: FormatOptions,
        problems: list[Problem],
        info: SessionInfo | None = None,
        *,
        spans: bool = True,
    ) -> Iterator[Unit]:
        """Units one by one from lines read as they come (bounded memory for huge files);
        `info` is complete once the units are. `spans=False` (honoured by readers that
        `reads_plain`) skips the string positions inside each line: the units' texts are the
        same, their start and end are the whole line's (for a caller that wants only texts)."""
        index = 0
        hidden = options.hide_kinds
        plain_strings = not spans and self.reads_plain
        for unit in self.read(iter_records(lines, problems, spans=not plain_strings), problems, info):
            if hidden and unit.kind in hidden:
                continue
            index += 1
            yield unit._replace(index=index)

    def split(self, text: str, options: FormatOptions) -> Split:
        return self._split(text, options, None)

    def split_marker(self, options: FormatOptions) -> str | None:
        return None

    def resplit(self, text: str, options: FormatOptions, previous: Split, edit: Edit) -> Split:
        memo = previous.state if isinstance(previous.state, dict) else None
        return self._split(text, options, memo)

    def _split(self, text: str, options: FormatOptions, memo: dict[str, Any] | None) -> Split:
        problems: list[Problem] = []
        fresh: dict[str, Any] = dict(memo) if memo else {}
        records = list(iter_records(text_lines(text), problems, fresh))  # the memo, refreshed
        if not records and any(p.severity == "warning" for p in problems):
            raise NotATranscript(f"not a {self.label}: no line of it is a JSON record")
        units: list[Unit] = []
        hidden = options.hide_kinds
        info = SessionInfo()
        for unit in self.read(records, problems, info):
            if not (hidden and unit.kind in hidden):
                units.append(unit._replace(index=len(units) + 1))
        problems.sort(key=_line_of)
        title = self.title(records, info)
        return Split(units, problems, fresh, title, info)

    def title(self, records: list[Record], info: SessionInfo) -> str | None:
        """The session's title: the first record that holds one."""
        return next((t for t in map(self.title_of, records) if t), None)


def _line_of(problem: Problem) -> int:
    return problem.line


def first_json_lines(head: str, limit: int = 20) -> list[Any]:
    """Up to `limit` parsed complete lines of a document's head, for detection."""
    out: list[Any] = []
    lines = head.split("\n")
    if len(lines) > 1:
        lines = lines[:-1]  # the head may end inside a line
    tried = 0
    for line in lines:
        line = line.strip()
        if not line.startswith("{"):  # a record is an object: prose is passed over unparsed
            continue
        tried += 1
        try:
            out.append(loads(line))
        except ValueError:  # TooDeep too
            if tried >= 2 * limit and not out:
                break  # braces, but no JSON: not JSON Lines
            continue
        if len(out) >= limit:
            break
    return out
