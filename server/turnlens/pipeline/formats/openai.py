"""OpenAI chat messages: a JSON document, or JSON Lines (fine-tuning files, request logs).

A message has `role` (`system`, `developer`, `user`, `assistant`, `tool`,
the older `function`) and `content`, a string or a list of parts
(`{"type": "text", "text": …}`); an assistant message may carry `tool_calls`
(`function.name`, `function.arguments` — JSON written into a string),
`refusal`, and `reasoning_content` where a compatible server returns its
reasoning. The JSON form is `{"messages": […]}` (a request body, one
fine-tuning example), a bare array of messages, or a completion with
`choices[].message`. In JSON Lines each line is one of those (a fine-tuning
file), or a logged request (`body`/`request`) with its `response`; a request
that re-sends the previous one's conversation has that part counted once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from turnlens.pipeline.formats.base import OpenCalls, Problem, SessionInfo
from turnlens.pipeline.formats.claude_code import tool_call_text
from turnlens.pipeline.formats.jsondoc import (
    Doc,
    JsonDocFormat,
    looks_like_lines,
    offset_of,
    refuse,
    whole,
)
from turnlens.pipeline.formats.jsonl import JsonlFormat, Record, first_json_lines, make_unit
from turnlens.pipeline.formats.jsonspan import JStr, decoded_json, plain
from turnlens.pipeline.units import Unit

ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
_KINDS = {
    "system": ("system", "system"),
    "developer": ("system", "system"),
    "user": ("user", "prompt"),
    "assistant": ("assistant", "reply"),
    "tool": ("tool", "tool_result"),
    "function": ("tool", "tool_result"),
}
_TEXT_PARTS = frozenset({"text", "input_text", "output_text"})

Make = Any  # (value, role, kind, text) -> Unit | None
Report = Any  # (key, message, value) -> None


def is_message(obj: Any) -> bool:
    return (
        isinstance(obj, dict)
        and plain(obj.get("role")) in ROLES
        and ("content" in obj or "tool_calls" in obj)
    )


def is_messages(value: Any) -> bool:
    """A non-empty list of objects with a `role`, chat messages among them (an unknown role is
    reported when read, not a reason to refuse the document)."""
    return (
        isinstance(value, list)
        and any(is_message(m) for m in value)
        and all(isinstance(m, dict) and plain(m.get("role")) is not None for m in value)
    )


def _content_values(content: Any) -> Iterator[Any]:
    if isinstance(content, (JStr, str)):
        yield content
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, (JStr, str)):
                yield part
            elif isinstance(part, dict):
                ptype = plain(part.get("type"))
                if ptype in _TEXT_PARTS or (ptype is None and "text" in part):
                    yield part.get("text")
                elif ptype == "refusal":
                    yield part.get("refusal")


def message_units(msg: Any, make: Make, report: Report, calls: OpenCalls | None = None) -> Iterator[Unit]:
    """The units of one chat message, in the order a reader meets them; with `calls`, a tool
    message is read with the call its `tool_call_id` answers (`Unit.call`)."""
    if not isinstance(msg, dict):
        return
    role_name = plain(msg.get("role")) or ""
    if role_name not in _KINDS:
        report(f"role:{role_name}", f"unknown role {role_name!r} passed over", msg)
        return
    role, kind = _KINDS[role_name]
    if kind == "tool_result" and calls is not None:
        units = (make(value, role, kind, None) for value in _content_values(msg.get("content")))
        yield from calls.answered(plain(msg.get("tool_call_id")), units)
        return
    if role_name == "assistant":
        for field in ("reasoning_content", "reasoning"):
            yield from _some(make(msg.get(field), "assistant", "thinking", None))
    for value in _content_values(msg.get("content")):
        yield from _some(make(value, role, kind, None))
    if role_name != "assistant":
        return
    yield from _some(make(msg.get("refusal"), "assistant", "reply", None))
    made = msg.get("tool_calls")
    legacy = msg.get("function_call")
    # (the function called, the call's id): a legacy function_call has none
    functions = (
        [(c.get("function"), plain(c.get("id"))) for c in made if isinstance(c, dict)]
        if isinstance(made, list)
        else []
    )
    if isinstance(legacy, dict):
        functions.append((legacy, None))
    for fn, call_id in functions:
        if isinstance(fn, dict):
            name = fn.get("name")
            text = tool_call_text(plain(name) or "tool", decoded_json(fn.get("arguments")))
            unit = make(name, "assistant", "tool_call", text)
            if calls is not None:
                calls.opened(call_id, unit)
            yield from _some(unit)


def _some(unit: Unit | None) -> Iterator[Unit]:
    if unit is not None:
        yield unit


def conversation(obj: Any) -> tuple[list[Any], list[Any]] | None:
    """(messages sent, messages answered) of one JSON value, or None when it holds no chat."""
    if is_messages(obj):
        return list(obj), []
    if not isinstance(obj, dict):
        return None
    sent: list[Any] | None = None
    for holder in (obj, obj.get("body"), obj.get("request")):
        if isinstance(holder, dict) and is_messages(holder.get("messages")):
            sent = list(holder["messages"])
            break
    answered: list[Any] = []
    for holder in (obj, obj.get("response"), _get(obj, "response", "body")):
        choices = holder.get("choices") if isinstance(holder, dict) else None
        if isinstance(choices, list):
            answered = [
                c.get("message") for c in choices if isinstance(c, dict) and is_message(c.get("message"))
            ]
            if answered:
                break
    if sent is None and not answered:
        return None
    return sent or [], answered


def _get(obj: Any, *keys: str) -> Any:
    for key in keys:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj


def _key(msg: Any) -> tuple[str, str]:
    """What identifies a message when a log sends it again (role and its text)."""
    if not isinstance(msg, dict):
        return ("", "")
    parts = [plain(v) or "" for v in _content_values(msg.get("content"))]
    calls = msg.get("tool_calls")
    if isinstance(calls, list):
        parts += [json.dumps(_plainly(c), sort_keys=True) for c in calls]
    return (plain(msg.get("role")) or "", "\n".join(parts))


def _plainly(value: Any) -> Any:
    if isinstance(value, JStr):
        return value.text
    if isinstance(value, dict):
        return {k: _plainly(v) for k, v in value.items() if k != "id"}
    if isinstance(value, list):
        return [_plainly(v) for v in value]
    return value


class OpenAiJsonlFormat(JsonlFormat):
    name = "openai-jsonl"
    label = "OpenAI chat messages (JSONL: fine-tuning files, request logs)"

    def detect(self, path: str | None, head: str) -> int:
        lines = first_json_lines(head)
        if not lines:
            return 0
        hits = sum(1 for obj in lines if conversation(obj) is not None)
        if hits and hits * 2 >= len(lines):
            return 66 if len(lines) > 1 or (path or "").endswith((".jsonl", ".ndjson")) else 55
        return 0

    def read(
        self, records: Iterable[Record], problems: list[Problem], info: SessionInfo | None = None
    ) -> Iterator[Unit]:
        previous: list[tuple[str, str]] = []  # the last request's conversation, reply included
        said: set[str] = set()
        calls = OpenCalls()
        for r in records:
            found = conversation(r.obj)
            if found is None:
                if "line" not in said:
                    said.add("line")
                    problems.append(Problem(r.line, "a line without chat messages passed over", "info"))
                continue
            sent, answered = found
            keys = [_key(m) for m in sent]
            skip = len(previous) if previous and keys[: len(previous)] == previous else 0
            previous = keys + [_key(m) for m in answered]

            def make(value: Any, role: str, kind: str, text: str | None, r: Record = r) -> Unit | None:
                return make_unit(r, value, role, kind, text=text)

            def report(key: str, message: str, value: Any, r: Record = r) -> None:
                if key not in said:
                    said.add(key)
                    problems.append(Problem(r.line, message, "info"))

            for msg in sent[skip:] + answered:
                yield from message_units(msg, make, report, calls)


_MESSAGES_HEAD = re.compile(r'"messages"\s*:\s*\[\s*\{')
_ROLE_HEAD = re.compile(r'"role"\s*:\s*"(?:system|developer|user|assistant|tool)"')


class OpenAiFormat(JsonDocFormat):
    name = "openai"
    label = "OpenAI chat messages (JSON)"
    lines_format = OpenAiJsonlFormat()

    def detect(self, path: str | None, head: str) -> int:
        stripped = head.lstrip()
        if not stripped.startswith(("{", "[")) or looks_like_lines(head):
            return 0
        obj = whole(head)
        if obj is not None:
            return 65 if conversation(obj) is not None else 0
        if stripped.startswith("[") and re.match(r"\[\s*\{", stripped) and _ROLE_HEAD.search(stripped[:4096]):
            return 58
        if _MESSAGES_HEAD.search(head) and _ROLE_HEAD.search(head):
            return 60
        return 0

    def read(self, obj: Any, doc: Doc) -> Iterator[Unit]:
        found = conversation(obj)
        if found is None:
            raise refuse("JSON without chat messages (`messages` with `role` and `content`)")
        sent, answered = found

        def make(value: Any, role: str, kind: str, text: str | None) -> Unit | None:
            return doc.unit(value, role, kind, text=text)

        def report(key: str, message: str, value: Any) -> None:
            doc.once(key, offset_of(value), message)

        for msg in sent + answered:
            yield from message_units(msg, make, report, doc.calls)


OPENAI_JSONL = OpenAiJsonlFormat()
OPENAI = OpenAiFormat()
