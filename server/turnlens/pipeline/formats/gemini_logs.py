"""Gemini CLI's prompt log (`~/.gemini/tmp/<project>/logs.json`).

A list of `{sessionId, messageId, type, message, timestamp}`: every prompt the
person typed in that project (slash commands too), across sessions; replies
are not in it. Prompts are read in file order; one starting with `/` is a
command (`/chat save`, `/memory add`), not a prompt.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from turnlens.pipeline.formats.base import parse_time
from turnlens.pipeline.formats.jsondoc import Doc, JsonDocFormat, keys_in, offset_of, refuse, whole
from turnlens.pipeline.formats.jsonspan import plain
from turnlens.pipeline.units import Unit

_COMMAND = re.compile(r"\A\s*+[/@!]?/[A-Za-z]")  # `/chat save x`; `@path` and `!shell` stay prompts


def _is_entry(obj: Any) -> bool:
    return isinstance(obj, dict) and "sessionId" in obj and "messageId" in obj and "message" in obj


class GeminiLogsFormat(JsonDocFormat):
    name = "gemini-logs"
    label = "Gemini CLI prompt log (logs.json)"

    def detect(self, path: str | None, head: str) -> int:
        if not head.lstrip().startswith("["):
            return 0
        named = bool(path and re.search(r"(?:^|[/\\])logs\.json$", path))
        obj = whole(head)
        if obj is not None:
            return (
                (90 if named else 80)
                if isinstance(obj, list) and obj and all(map(_is_entry, obj[:50]))
                else 0
            )
        keys = keys_in(head)
        return (90 if named else 80) if {"sessionId", "messageId", "message", "type"} <= keys else 0

    def read(self, obj: Any, doc: Doc) -> Iterator[Unit]:
        if not isinstance(obj, list) or not obj or not _is_entry(obj[0]):
            raise refuse("JSON without Gemini CLI log entries (`sessionId`, `messageId`, `message`)")
        for entry in obj:
            if not _is_entry(entry):
                doc.once(
                    "entry", offset_of(entry), "an entry without sessionId/messageId/message passed over"
                )
                continue
            etype = plain(entry.get("type"))
            if etype != "user":
                doc.once(f"type:{etype}", offset_of(entry), f"log entry of type {etype!r} passed over")
                continue
            value = entry.get("message")
            text = plain(value) or ""
            kind = "command" if _COMMAND.match(text) else "prompt"
            unit = doc.unit(value, "user", kind)
            if unit is not None:
                yield unit._replace(time=parse_time(entry.get("timestamp")))


GEMINI_LOGS = GeminiLogsFormat()
