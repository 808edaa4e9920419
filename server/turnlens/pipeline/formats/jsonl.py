"""What every JSON Lines reader shares: lines, bad lines, a cut last line, re-split by line.

A reader sees records (line number, offset, parsed object with spanned strings)
and turns them into units. Parsed lines are memoised by their text, so after an
edit only the lines that changed are parsed again.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from turnlens.pipeline.formats.base import Edit, FormatOptions, Problem, Split
from turnlens.pipeline.formats.jsonspan import JStr, SpanError, loads_spanned
from turnlens.pipeline.units import Unit

MAX_LINE_CHARS = 64 * 1024 * 1024  # longer lines are reported and passed over


@dataclass(frozen=True, slots=True)
class Record:
    line: int  # 1-based
    offset: int  # document offset of the line's first character
    length: int  # characters in the line, without its line break
    obj: Any  # the parsed line; its JStr spans are relative to the line


_BAD = object()
_CUT = object()


def parse_lines(
    text: str, memo: dict[str, Any] | None = None
) -> tuple[list[Record], list[Problem], dict[str, Any]]:
    """Every line of `text` parsed, blank lines skipped, problems reported once per line."""
    old = memo or {}
    fresh: dict[str, Any] = {}
    records: list[Record] = []
    problems: list[Problem] = []
    pos = 0
    n = len(text)
    lineno = 0
    while pos < n:
        lineno += 1
        nl = text.find("\n", pos)
        end = n if nl < 0 else nl
        line = text[pos:end]
        if line.endswith("\r"):
            line = line[:-1]
        if line.strip():
            parsed = fresh.get(line, old.get(line, _BAD))
            if parsed is _BAD or parsed is _CUT:
                parsed = _parse(line, last=nl < 0 or not text[end:].strip())
            fresh[line] = parsed
            if parsed is _CUT:
                problems.append(
                    Problem(
                        lineno,
                        "the last line is incomplete (still being written?); read up to the line before",
                        "info",
                    )
                )
            elif isinstance(parsed, str):
                problems.append(Problem(lineno, parsed))
            else:
                records.append(Record(lineno, pos, len(line), parsed))
        pos = n if nl < 0 else nl + 1
    return records, problems, fresh


def _parse(line: str, *, last: bool) -> Any:
    """The spanned object, _CUT for a cut last line, or a problem message."""
    if len(line) > MAX_LINE_CHARS:
        return f"line of {len(line):,} characters passed over (limit {MAX_LINE_CHARS:,})"
    try:
        return loads_spanned(line)
    except SpanError:
        try:
            return json.loads(line)  # usable, without spans inside the line
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
    """A unit for a spanned string (or given text anchored on it); None when there is no text."""
    body = text if text is not None else (value.text if isinstance(value, JStr) else None)
    if body is None or not body.strip():
        return None
    start, end = span_of(record, value)
    return Unit(0, start, end, body, None, False, role, kind, effort_used, record.line)


Reader = Callable[[list[Record], list[Problem]], list[Unit]]


class JsonlFormat:
    """A JSON Lines format: subclasses give `name`, `label`, `detect` and `read`."""

    name = "jsonl"
    label = "JSON Lines"
    comments = False

    def read(self, records: list[Record], problems: list[Problem]) -> list[Unit]:
        raise NotImplementedError

    def title(self, records: list[Record]) -> str | None:
        return None

    def split(self, text: str, options: FormatOptions) -> Split:
        return self._split(text, options, None)

    def split_marker(self, options: FormatOptions) -> str | None:
        return None

    def resplit(self, text: str, options: FormatOptions, previous: Split, edit: Edit) -> Split:
        memo = previous.state if isinstance(previous.state, dict) else None
        return self._split(text, options, memo)

    def _split(self, text: str, options: FormatOptions, memo: dict[str, Any] | None) -> Split:
        from turnlens.pipeline.formats.base import reindex

        records, problems, fresh = parse_lines(text, memo)
        units = self.read(records, problems)
        problems.sort(key=_line_of)
        if options.hide_kinds:
            units = [u for u in units if u.kind not in options.hide_kinds]
        return Split(reindex(units), problems, fresh, self.title(records))


def _line_of(problem: Problem) -> int:
    return problem.line


def first_json_lines(head: str, limit: int = 20) -> list[Any]:
    """Up to `limit` parsed complete lines of a document's head, for detection."""
    out: list[Any] = []
    lines = head.split("\n")
    if len(lines) > 1:
        lines = lines[:-1]  # the head may end inside a line
    for line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
        if len(out) >= limit:
            break
    return out
