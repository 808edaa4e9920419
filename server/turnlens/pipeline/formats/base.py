"""What a format is: detect a document, split it into units, re-split after an edit."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any, Protocol

from turnlens.core.record import MutableRecord, Record
from turnlens.pipeline.units import Unit

Edit = tuple[int, int]  # (unchanged prefix length, unchanged suffix length)


class NotATranscript(ValueError):
    """The text is not in the format asked for (or in none that auto-detection knows)."""


class Problem(Record):
    """Something a reader passed over: a bad line, an unknown record type, a cut last line.
    (Frozen records, here and below: a reader runs in every one-shot command, which then
    builds no dataclass.)"""

    _fields = ("line", "message", "severity")
    __slots__ = _fields
    line: int  # 1-based; 0 when the problem has no line
    message: str
    severity: str  # "warning" | "info"

    def __init__(self, line: int, message: str, severity: str = "warning") -> None:
        object.__setattr__(self, "line", line)
        object.__setattr__(self, "message", message)
        object.__setattr__(self, "severity", severity)


class FormatOptions(Record):
    """Per-document options a format may read (only `turns` reads the separator)."""

    _fields = ("separator", "hide_kinds")
    __slots__ = _fields
    separator: str
    hide_kinds: tuple[str, ...]

    def __init__(self, separator: str = "---TURN---", hide_kinds: tuple[str, ...] = ()) -> None:
        object.__setattr__(self, "separator", separator)
        object.__setattr__(self, "hide_kinds", hide_kinds)


#: recorded token counts a session file may hold, in the order views show them
USAGE_KEYS = ("input", "output", "cache_read", "cache_write", "reasoning")


def parse_time(value: Any) -> float | None:
    """Unix seconds of a recorded time: an ISO 8601 string (`Z` or an offset; no zone is UTC)
    or a number of seconds or milliseconds since 1970. None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        seconds = float(value) / 1000 if value > 1e11 else float(value)
        return seconds if 0 < seconds < 1e11 else None
    text = getattr(value, "text", value)  # a spanned string reads as its text
    if not isinstance(text, str) or not 10 <= len(text) <= 40:
        return None
    return _iso_seconds(text)


@functools.lru_cache(maxsize=64)
def _iso_seconds(text: str) -> float | None:
    """parse_time of a string (kept for the few last: a session line's time is asked for once
    per unit of the line and once for the session's span)."""
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.timestamp()


def iso_time(seconds: float | None) -> str | None:
    """A time as ISO 8601 in UTC, to the second (None stays None)."""
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class SessionInfo(MutableRecord):
    """What a session file records about the session itself, besides its messages: its id, the
    session it is a sub-agent of, when it started and ended, the models that answered, and the
    tokens the API reported. Readers fill it as they go (a streamed file is never held whole);
    every field stays empty where the file does not say. (A record with settable fields.)"""

    _fields = (
        "title",
        "session_id",
        "parent_session",
        "started",
        "ended",
        "models",
        "usage",
        "usage_source",
        "sidechain_units",
    )
    __slots__ = _fields
    title: str | None
    session_id: str | None
    parent_session: str | None  # set for a sub-agent's own file (a Task sidechain)
    started: float | None
    ended: float | None
    models: list[str]
    usage: Counter[str]  # USAGE_KEYS → tokens, as recorded
    usage_source: str | None  # where the counts come from, e.g. "message.usage"
    sidechain_units: int  # units of a sub-agent's conversation inside this file

    def __init__(
        self,
        title: str | None = None,
        session_id: str | None = None,
        parent_session: str | None = None,
        started: float | None = None,
        ended: float | None = None,
        models: list[str] | None = None,
        usage: Counter[str] | None = None,
        usage_source: str | None = None,
        sidechain_units: int = 0,
    ) -> None:
        self.title = title
        self.session_id = session_id
        self.parent_session = parent_session
        self.started = started
        self.ended = ended
        self.models = [] if models is None else models
        self.usage = Counter() if usage is None else usage
        self.usage_source = usage_source
        self.sidechain_units = sidechain_units

    def see_time(self, value: Any) -> float | None:
        """Widen the session's span to a recorded time; the time, parsed."""
        when = parse_time(value)
        if when is not None:
            if self.started is None or when < self.started:
                self.started = when
            if self.ended is None or when > self.ended:
                self.ended = when
        return when

    def see_model(self, name: Any) -> None:
        text = getattr(name, "text", name)
        # `<synthetic>`: a message the client wrote itself, no model's
        known = text in self.models or len(self.models) >= 32
        if isinstance(text, str) and text.strip() and not text.startswith("<") and not known:
            self.models.append(text)

    def add_usage(self, source: str, **counts: Any) -> None:
        """Add recorded token counts (non-numbers and negatives are passed over)."""
        for key, value in counts.items():
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                self.usage[key] += value
                self.usage_source = source

    def set_usage(self, source: str, **counts: Any) -> None:
        """Replace the counts with a running total the file records (Codex's token_count)."""
        self.usage.clear()
        self.add_usage(source, **counts)

    @property
    def recorded_tokens(self) -> int:
        """Input and output tokens the file records (cache reads and writes are part of the input
        where the API reports them apart); 0 when it records none."""
        u = self.usage
        return u["input"] + u["cache_read"] + u["cache_write"] + u["output"]

    def to_json(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "parent_session": self.parent_session,
            "started": iso_time(self.started),
            "ended": iso_time(self.ended),
            "models": list(self.models),
            "recorded_tokens": (
                {k: self.usage.get(k, 0) for k in USAGE_KEYS} | {"source": self.usage_source}
                if self.usage_source
                else None
            ),
            "sidechain_units": self.sidechain_units,
        }


class Split(MutableRecord):
    """The units of one document, what was passed over, and what a re-split may reuse."""

    _fields = ("units", "problems", "state", "title", "info")
    __slots__ = _fields
    units: list[Unit]
    problems: list[Problem]
    state: Any  # the format's own memo for `resplit`
    title: str | None  # a session title where the file records one
    info: SessionInfo | None  # times, models, recorded tokens, where the file has them

    def __init__(
        self,
        units: list[Unit],
        problems: list[Problem] | None = None,
        state: Any = None,
        title: str | None = None,
        info: SessionInfo | None = None,
    ) -> None:
        self.units = units
        self.problems = [] if problems is None else problems
        self.state = state
        self.title = title
        self.info = info


class OpenCalls:
    """The tool calls of a session still waiting for their results, by the id the file gives
    them (Claude Code's `tool_use_id`, Codex's `call_id`, OpenAI's `tool_call_id`…): a result is read with its call as
    evidence for its class (`Unit.call`, turnlens.core.kinds). Bounded: a call never answered
    is forgotten once `LIMIT` newer ones wait."""

    __slots__ = ("_open",)
    LIMIT = 256

    def __init__(self) -> None:
        self._open: dict[str, str] = {}

    def opened(self, call_id: str | None, unit: Unit | None) -> None:
        """A call unit read, with its id."""
        if unit is None or not call_id:
            return
        if len(self._open) >= self.LIMIT:
            del self._open[next(iter(self._open))]
        self._open[call_id] = unit.text

    def answered(self, call_id: str | None, units: Iterable[Unit | None]) -> Iterator[Unit]:
        """The units of one result (a result may come in several), with the id of the call it
        answers: each with its call where it is known."""
        call = self._open.pop(call_id, None) if call_id else None
        for unit in units:
            if unit is not None:
                yield unit if call is None else unit._replace(call=call)


class Format(Protocol):
    """One input format. Readers are pure: text in, units out, no I/O."""

    name: str  # e.g. "claude-code"
    label: str  # e.g. "Claude Code session (JSONL)"
    comments: bool  # whether `<!-- turnlens: … -->` comments can be inserted into a unit

    def detect(self, path: str | None, head: str) -> int:
        """How sure this format is that a document is its own: 0 (no) to 100 (certain).

        `head` is the document's first 64 KiB or so; `path` its file name, if any.
        """
        ...

    def split(self, text: str, options: FormatOptions) -> Split:
        """Every unit of `text`, in order, with index counting from 1.

        Raises NotATranscript when the text is clearly not this format.
        """
        ...

    def resplit(self, text: str, options: FormatOptions, previous: Split, edit: Edit) -> Split:
        """As `split`, reusing `previous` outside the edited stretch where the format can."""
        ...

    def split_marker(self, options: FormatOptions) -> str | None:
        """A line that, inserted, splits a unit in two (None: the format has none)."""
        ...


def reindex(units: list[Unit]) -> list[Unit]:
    """Number units 1…n (readers collect first, then number once)."""
    return [u if u.index == i else u._replace(index=i) for i, u in enumerate(units, 1)]
