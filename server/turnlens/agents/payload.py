"""The JSON an agent hands a hook on stdin: read with a bound, checked field by field.

Everything in it is untrusted: a field may be missing, of another type, or huge,
and `transcript_path` may name a FIFO or a device. A payload that is not a JSON
object raises BadPayload, which the hook turns into a no-op.
"""

from __future__ import annotations

import json
import sys
from typing import Any, BinaryIO

from turnlens.core.record import Record

MAX_PAYLOAD = 8 * 1024 * 1024  # a pasted prompt can be long; a payload beyond this is refused


class BadPayload(ValueError):
    """Not a hook payload TurnLens can answer (the reason goes to the hook log)."""


class Payload(Record):
    """The fields TurnLens reads; each is None when absent or of the wrong type.

    A record (`core.record`), not a dataclass or a named tuple: importing `dataclasses` (and
    `inspect`) or generating a class's methods costs every hook call more than reading its
    payload."""

    _fields = (
        "event",
        "session_id",
        "transcript_path",
        "cwd",
        "source",
        "trigger",
        "prompt",
        "compact_summary",
        "custom_instructions",
        "model_id",
        "model_name",
        "context_window",
    )
    __slots__ = _fields
    event: str | None
    session_id: str | None
    transcript_path: str | None
    cwd: str | None
    source: str | None  # SessionStart: startup, resume, clear, compact
    trigger: str | None  # PreCompact / PostCompact: manual, auto
    prompt: str | None  # UserPromptSubmit
    compact_summary: str | None  # PostCompact (Claude Code)
    custom_instructions: str | None  # PreCompact: what the user typed after /compact
    model_id: str | None  # status line: model.id
    model_name: str | None  # status line: model.display_name
    context_window: int | None  # status line: context_window.context_window_size, where given

    def __init__(
        self,
        *,
        event: str | None = None,
        session_id: str | None = None,
        transcript_path: str | None = None,
        cwd: str | None = None,
        source: str | None = None,
        trigger: str | None = None,
        prompt: str | None = None,
        compact_summary: str | None = None,
        custom_instructions: str | None = None,
        model_id: str | None = None,
        model_name: str | None = None,
        context_window: int | None = None,
    ) -> None:
        values = (
            event,
            session_id,
            transcript_path,
            cwd,
            source,
            trigger,
            prompt,
            compact_summary,
            custom_instructions,
            model_id,
            model_name,
            context_window,
        )
        for name, value in zip(self._fields, values, strict=True):
            object.__setattr__(self, name, value)


def read_stdin(stream: BinaryIO | None = None) -> bytes:
    """At most MAX_PAYLOAD bytes of stdin; more raises BadPayload."""
    source = stream if stream is not None else sys.stdin.buffer
    data = source.read(MAX_PAYLOAD + 1)
    if len(data) > MAX_PAYLOAD:
        raise BadPayload(f"payload larger than {MAX_PAYLOAD:,} bytes")
    return data


def _str(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    return value if isinstance(value, str) else None


def _int(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        return None
    return value


def parse(data: bytes) -> Payload:
    """The payload's fields; BadPayload when it is not a JSON object."""
    if not data.strip():
        raise BadPayload("empty payload")
    try:
        obj = json.loads(data.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError) as exc:
        raise BadPayload(f"payload is not JSON ({type(exc).__name__})") from None
    if not isinstance(obj, dict):
        raise BadPayload(f"payload is a JSON {type(obj).__name__}, not an object")
    model = obj.get("model")
    model_id = model_name = None
    if isinstance(model, dict):
        model_id, model_name = _str(model, "id"), _str(model, "display_name")
    elif isinstance(model, str):  # hook payloads name the model as a plain string
        model_id = model
    window = obj.get("context_window")
    size = _int(window.get("context_window_size")) if isinstance(window, dict) else None
    return Payload(
        event=_str(obj, "hook_event_name"),
        session_id=_str(obj, "session_id"),
        transcript_path=_str(obj, "transcript_path") or None,
        cwd=_str(obj, "cwd"),
        source=_str(obj, "source"),
        trigger=_str(obj, "trigger"),
        prompt=_str(obj, "prompt"),
        compact_summary=_str(obj, "compact_summary"),
        custom_instructions=_str(obj, "custom_instructions"),
        model_id=model_id,
        model_name=model_name,
        context_window=size,
    )
