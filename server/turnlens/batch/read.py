"""Reading session files into unit rows: any supported format, big JSON Lines line by line.

This is the batch view's I/O: it opens files, and hands the rows to the pure
`label_batch`. A file that cannot be read (binary, unreadable, JSON that is no
transcript, a reader failure) becomes a `Session` with an `error` and no rows,
so one bad file never stops a run.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from turnlens.batch.schema import input_schema, require_pyarrow
from turnlens.pipeline.formats import DETECT_HEAD, FormatOptions, NotATranscript, Problem, resolve
from turnlens.pipeline.formats.base import SessionInfo
from turnlens.pipeline.formats.turns import DEFAULT_SEPARATOR
from turnlens.pipeline.units import Unit
from turnlens.userfiles import MAX_INPUT_BYTES, jsonl_lines, read_limited, regular_file

log = logging.getLogger(__name__)

STREAM_MIN_BYTES = 8 * 1024 * 1024  # as `turnlens check`: larger JSON Lines files are streamed


@dataclass(frozen=True, slots=True)
class ReadOptions:
    """How to read: the format (`auto` detects per file) and the turn separator."""

    format: str = "auto"
    separator: str = DEFAULT_SEPARATOR


@dataclass(slots=True)
class Session:
    """What the reader learnt about one file besides its units."""

    session_id: str
    path: str
    size: int
    mtime: float
    format: str = ""
    problems: list[Problem] = field(default_factory=list)
    error: str | None = None
    invalid_utf8: bool = False
    info: SessionInfo = field(default_factory=SessionInfo)  # what the file records of the session

    def mark_invalid_utf8(self) -> None:
        self.invalid_utf8 = True


def read_units(path: Path, session: Session, options: ReadOptions) -> Iterator[Unit]:
    """The units of one file that count (ignored ones are left out); fills `session`."""
    fmt_options = FormatOptions(separator=options.separator)
    try:
        big = regular_file(path).st_size >= STREAM_MIN_BYTES  # a FIFO or a device is refused
        if big:
            with path.open("rb") as f:
                data = f.read(DETECT_HEAD)
        else:
            data = read_limited(path, STREAM_MIN_BYTES)
    except OSError as exc:  # ReadProblem too: not a regular file, vanished, unreadable
        session.error = exc.strerror or str(exc)
        return
    if b"\0" in data[:8192]:
        session.error = "binary file"
        return
    text = _decode(data, session)
    try:
        fmt = resolve(options.format, str(path), text)
        stream = getattr(fmt, "stream", None)
        session.format = fmt.name
        if big and stream is not None:
            units: Iterator[Unit] = stream(
                jsonl_lines(path, on_invalid_utf8=session.mark_invalid_utf8),
                fmt_options,
                session.problems,
                session.info,
            )
        else:
            if big:  # a big file that no reader can stream is read whole, with a bound
                text = _decode(read_limited(path, MAX_INPUT_BYTES), session)
            split = fmt.split(text, fmt_options)
            session.problems.extend(split.problems)
            if split.info is not None:
                session.info = split.info
            units = _with_lines(text, split.units)
        for unit in units:
            if not unit.ignored:
                yield unit
    except NotATranscript as exc:
        session.error = str(exc)
    except OSError as exc:
        session.error = exc.strerror or str(exc)
    except Exception as exc:  # a reader bug must not stop an archive run; it is reported
        log.exception("reading %s failed", path)
        session.error = f"reader failed: {type(exc).__name__}: {exc}"


def _with_lines(text: str, units: list[Unit]) -> Iterator[Unit]:
    """Units with the 1-based line of their first non-blank character (formats that read the
    whole text do not count lines); counted once, in order."""
    pos, line = 0, 1
    for unit in units:
        if unit.line:
            yield unit
            continue
        anchor = unit.content_start
        if anchor < pos:
            pos, line = 0, 1
        line += text.count("\n", pos, anchor)
        pos = anchor
        yield unit._replace(line=line)


def _decode(data: bytes, session: Session) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        session.invalid_utf8 = True
        return data.decode("utf-8", errors="replace")


def file_tables(session: Session, options: ReadOptions, rows: int) -> Iterator[Any]:
    """A file's unit rows (pyarrow Tables in `input_schema()`), at most `rows` at a time, as they
    are read: a streamed session is never held whole. `session` says afterwards whether the file
    failed (then the rows already given are not to be kept)."""
    pa = require_pyarrow()
    schema = input_schema()
    cols: dict[str, list[Any]] = {name: [] for name in schema.names}
    n = 0
    for unit in read_units(Path(session.path), session, options):
        cols["session_id"].append(session.session_id)
        cols["unit_index"].append(unit.index)
        cols["role"].append(unit.role)
        cols["kind"].append(unit.kind)
        cols["text"].append(unit.text)
        cols["pin"].append(unit.pin)
        cols["effort_used"].append(unit.effort_used)
        cols["format"].append(session.format)
        cols["line"].append(unit.line)
        cols["start"].append(unit.start)
        cols["end"].append(unit.end)
        cols["call"].append(unit.call)
        n += 1
        if n == rows:
            table = _table(pa, cols, schema, session)
            if table is None:
                return
            yield table
            cols = {name: [] for name in schema.names}
            n = 0
    if n:
        table = _table(pa, cols, schema, session)
        if table is not None:
            yield table


def _table(pa: Any, cols: dict[str, list[Any]], schema: Any, session: Session) -> Any:
    """The rows as a Table, or None with the session marked failed: a value Arrow cannot store
    skips this file, never the run."""
    try:
        return pa.Table.from_pydict(cols, schema=schema)
    except (pa.ArrowException, UnicodeError, ValueError, TypeError, OverflowError) as exc:
        session.error = f"cannot be stored: {type(exc).__name__}: {str(exc)[:200]}"
        return None


def read_table(files: list[tuple[str, str, int, float]], options: ReadOptions) -> tuple[Any, list[Session]]:
    """Unit rows (a pyarrow Table in `input_schema()`) of files given as
    (session id, path, size, mtime), and what was learnt about each file; a file that failed
    part way gives no rows."""
    pa = require_pyarrow()
    tables: list[Any] = []
    sessions: list[Session] = []
    for session_id, path, size, mtime in files:
        session = Session(session_id, path, size, mtime)
        sessions.append(session)
        parts = list(file_tables(session, options, 1 << 20))
        if session.error is None:
            tables.extend(parts)
    if not tables:
        return input_schema().empty_table(), sessions
    return pa.concat_tables(tables), sessions
