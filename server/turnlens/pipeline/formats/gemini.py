"""Gemini CLI chat recordings (`~/.gemini/tmp/<project>/chats/session-<time>-<id>.json[l]`).

The JSON form is one `ConversationRecord`: `sessionId`, `projectHash`,
`messages[]`, each with `type` (`user`, `gemini`, `info`, `error`,
`warning`), `content` (a string or parts with `text`), and on `gemini`
messages `thoughts[]` (`subject`, `description`) and `toolCalls[]` (`name`,
`args`, `result`). The JSON Lines form writes the same record as a log: a
first line with the session's metadata, then message records (a message
written again with the same `id` replaces the earlier one: tool results and
token counts arrive later), `{"$set": {…}}` metadata patches (a `messages`
list there replaces the whole history) and `{"$rewindTo": id}` (that message
and all after it are dropped).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from turnlens.pipeline.formats.base import Problem, SessionInfo, parse_time
from turnlens.pipeline.formats.claude_code import tool_call_text
from turnlens.pipeline.formats.jsondoc import (
    Doc,
    JsonDocFormat,
    keys_in,
    offset_of,
    refuse,
    whole,
)
from turnlens.pipeline.formats.jsonl import JsonlFormat, Record, first_json_lines, make_unit
from turnlens.pipeline.formats.jsonspan import JStr, plain
from turnlens.pipeline.units import Unit

_TYPES = frozenset({"user", "gemini", "info", "error", "warning"})


def _text_parts(content: Any) -> Iterator[tuple[Any, bool]]:
    """Each text of a `PartListUnion` (a string, a part, or a list of both), and whether it is a thought."""
    if isinstance(content, (JStr, str)):
        yield content, False
    elif isinstance(content, dict):
        if "text" in content:
            yield content["text"], bool(content.get("thought"))
    elif isinstance(content, list):
        for part in content:
            yield from _text_parts(part)


def _results(result: Any) -> Iterator[Any]:
    """The output strings of a tool call's result parts (`functionResponse.response.output`)."""
    if isinstance(result, (JStr, str)):
        yield result
    elif isinstance(result, dict):
        response = result.get("functionResponse")
        if isinstance(response, dict):
            body = response.get("response")
            if isinstance(body, dict):
                for key in ("output", "error", "content"):
                    if isinstance(body.get(key), (JStr, str)):
                        yield body[key]
        elif "text" in result:
            yield result["text"]
    elif isinstance(result, list):
        for part in result:
            yield from _results(part)


def message_units(msg: Any, make: Any, report: Any) -> Iterator[Unit]:
    """The units of one message record; `make(value, role, kind, text)` places them,
    `report(key, message)` says an unknown message type once."""
    if not isinstance(msg, dict):
        return
    mtype = plain(msg.get("type"))
    content = msg.get("content")
    if mtype == "user":
        for value, _ in _text_parts(content):
            yield from _some(make(value, "user", "prompt", None))
    elif mtype == "gemini":
        thoughts = msg.get("thoughts")
        for thought in thoughts if isinstance(thoughts, list) else ():
            if not isinstance(thought, dict):
                continue
            subject, description = thought.get("subject"), thought.get("description")
            s, d = plain(subject) or "", plain(description) or ""
            anchor = description if d.strip() else subject
            text = f"{s}\n{d}" if s.strip() and d.strip() else None
            yield from _some(make(anchor, "assistant", "thinking", text))
        for value, thought in _text_parts(content):
            yield from _some(make(value, "assistant", "thinking" if thought else "reply", None))
        calls = msg.get("toolCalls")
        for call in calls if isinstance(calls, list) else ():
            if not isinstance(call, dict):
                continue
            name = call.get("name")
            text = tool_call_text(plain(name) or "tool", call.get("args"))
            asked = make(name, "assistant", "tool_call", text)
            yield from _some(asked)
            outputs = list(_results(call.get("result")))
            if not outputs and isinstance(call.get("resultDisplay"), (JStr, str)):
                outputs = [call["resultDisplay"]]
            for output in outputs:
                result = make(output, "tool", "tool_result", None)
                if result is not None and asked is not None:  # the result is read with its call
                    result = result._replace(call=asked.text)
                yield from _some(result)
    elif mtype in ("info", "error", "warning"):
        for value, _ in _text_parts(content):
            yield from _some(make(value, "system", "system", None))
    else:
        report(f"type:{mtype}", f"unknown message type {mtype!r} passed over")


def _some(unit: Unit | None) -> Iterator[Unit]:
    if unit is not None:
        yield unit


def _is_message(obj: Any) -> bool:
    return (
        isinstance(obj, dict)
        and obj.get("type") in _TYPES
        and "id" in obj
        and "content" in obj
        and "message" not in obj
    )


def _is_header(obj: Any) -> bool:
    return isinstance(obj, dict) and "sessionId" in obj and "projectHash" in obj and "type" not in obj


class GeminiJsonlFormat(JsonlFormat):
    name = "gemini-jsonl"
    label = "Gemini CLI session (JSONL)"

    def detect(self, path: str | None, head: str) -> int:
        lines = first_json_lines(head)
        if not lines:
            return 0
        if _is_header(lines[0]) or sum(map(_is_message, lines)) >= max(1, len(lines) // 2):
            return 86 if path and "/.gemini/" in path.replace("\\", "/") else 82
        return 0

    def title_of(self, record: Record) -> str | None:
        obj = record.obj
        if isinstance(obj, dict):
            meta = obj.get("$set") if isinstance(obj.get("$set"), dict) else obj if _is_header(obj) else None
            if isinstance(meta, dict):
                return plain(meta.get("summary"))
        return None

    def read(
        self, records: Iterable[Record], problems: list[Problem], info: SessionInfo | None = None
    ) -> Iterator[Unit]:
        # a message may be written again later (its tool results, its tokens): the last
        # writing wins, in the place of the first, so the whole log is read before any unit
        messages: dict[str, tuple[Record, Any]] = {}
        said: set[str] = set()
        for r in records:
            obj = r.obj
            if not isinstance(obj, dict):
                problems.append(Problem(r.line, "not a Gemini CLI record (expected a JSON object)"))
                continue
            if "$rewindTo" in obj:
                target = plain(obj.get("$rewindTo"))
                ids = list(messages)
                keep = ids.index(target) if target in ids else 0
                for mid in ids[keep:]:
                    del messages[mid]
            elif "$set" in obj:
                patch = obj.get("$set")
                if isinstance(patch, dict) and isinstance(patch.get("messages"), list):
                    messages.clear()
                    for i, msg in enumerate(patch["messages"]):
                        found = plain(msg.get("id")) if isinstance(msg, dict) else None
                        messages[found or f"{r.line}:{i}"] = (r, msg)
            elif "id" in obj and "type" in obj:
                mid = plain(obj.get("id")) or f"{r.line}"
                messages[mid] = (r, obj)
            elif not _is_header(obj):
                key = "record"
                if key not in said:
                    said.add(key)
                    problems.append(Problem(r.line, "unknown record passed over", "info"))
        if info is not None:
            for _, msg in messages.values():
                message_facts(msg, info)
        for r, msg in messages.values():

            def make(value: Any, role: str, kind: str, text: str | None, r: Record = r) -> Unit | None:
                return make_unit(r, value, role, kind, text=text)

            def report(key: str, message: str, r: Record = r) -> None:
                if key not in said:
                    said.add(key)
                    problems.append(Problem(r.line, message, "info"))

            yield from message_units(msg, make, report)


class GeminiFormat(JsonDocFormat):
    name = "gemini"
    label = "Gemini CLI session (JSON)"
    lines_format = GeminiJsonlFormat()

    def detect(self, path: str | None, head: str) -> int:
        stripped = head.lstrip()
        if not stripped.startswith("{"):
            return 0
        obj = whole(head)
        if obj is not None:
            return 82 if _is_record(obj) else 0
        keys = keys_in(head)
        if {"sessionId", "messages"} <= keys and ("projectHash" in keys or "startTime" in keys):
            return 0 if first_json_lines(head, 2)[1:] else 82  # lines are the JSONL form's
        return 0

    def title_of(self, obj: Any) -> str | None:
        return plain(obj.get("summary")) if isinstance(obj, dict) else None

    def read(self, obj: Any, doc: Doc) -> Iterator[Unit]:
        if not _is_record(obj):
            raise refuse("JSON without a Gemini CLI session's sessionId and messages")
        for msg in obj["messages"]:
            when = parse_time(msg.get("timestamp")) if isinstance(msg, dict) else None

            def make(
                value: Any, role: str, kind: str, text: str | None, when: float | None = when
            ) -> Unit | None:
                unit = doc.unit(value, role, kind, text=text)
                return None if unit is None else unit._replace(time=when)

            def report(key: str, message: str, msg: Any = msg) -> None:
                where = msg.get("type") if isinstance(msg, dict) else msg
                doc.once(key, offset_of(where), message)

            yield from message_units(msg, make, report)

    def info_of(self, obj: Any, units: list[Unit]) -> SessionInfo | None:
        """The session's id, times, models and the tokens its messages record."""
        if not _is_record(obj):
            return None
        info = SessionInfo(session_id=plain(obj.get("sessionId")))
        info.see_time(obj.get("startTime"))
        info.see_time(obj.get("lastUpdated"))
        for msg in obj["messages"]:
            message_facts(msg, info)
        return info


def message_facts(msg: Any, info: SessionInfo) -> None:
    """What one message records besides text: its time, the model, and its `tokens` (`input`
    includes `cached`; `thoughts` are output the answer does not show)."""
    if not isinstance(msg, dict):
        return
    info.see_time(msg.get("timestamp"))
    info.see_model(plain(msg.get("model")))
    tokens = msg.get("tokens")
    if isinstance(tokens, dict):
        read_in, cached = tokens.get("input"), tokens.get("cached")
        fresh = read_in - cached if isinstance(read_in, int) and isinstance(cached, int) else read_in
        out, thoughts = tokens.get("output"), tokens.get("thoughts")
        total_out = out + thoughts if isinstance(out, int) and isinstance(thoughts, int) else out
        info.add_usage("tokens", input=fresh, cache_read=cached, output=total_out, reasoning=thoughts)


def _is_record(obj: Any) -> bool:
    return isinstance(obj, dict) and "sessionId" in obj and isinstance(obj.get("messages"), list)


GEMINI_JSONL = GeminiJsonlFormat()
GEMINI = GeminiFormat()
