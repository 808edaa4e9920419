"""GitHub Copilot CLI sessions (`~/.copilot/session-state/<session>/events.jsonl`).

One event a line, `{type, data, id, timestamp, parentId}`: `session.start`
(the session's id and start), `session.model_change`, `user.message`
(`content`; `transformedContent` is what the model got, with context the CLI
added), `assistant.message` (`content`, `toolRequests`, `reasoningText`),
`assistant.reasoning`, `tool.execution_start` / `tool.execution_complete`
(`result.content`), `session.info` / `session.error`, `assistant.usage`
(tokens). A tool call is read from the message's `toolRequests`, or from its
`tool.execution_start` when the message did not list it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from turnlens.pipeline.formats.base import OpenCalls, Problem, SessionInfo
from turnlens.pipeline.formats.claude_code import tool_call_text
from turnlens.pipeline.formats.jsonl import JsonlFormat, Record, first_json_lines, make_unit
from turnlens.pipeline.formats.jsonspan import decoded_json, plain
from turnlens.pipeline.units import Unit

# events that carry no text to label: passed over quietly
_QUIET = frozenset(
    {
        "assistant.turn_start",
        "assistant.turn_end",
        "assistant.message_delta",
        "assistant.reasoning_delta",
        "tool.execution_partial_result",
        "tool.user_requested",
        "session.idle",
        "session.resume",
        "session.shutdown",
        "session.truncation",
        "session.compaction_start",
        "session.usage_info",
        "hook.start",
        "hook.end",
        "permission.requested",
        "permission.completed",
        "subagent.started",
        "subagent.completed",
        "subagent.failed",
        "subagent.selected",
        "abort",
    }
)


def _is_event(obj: Any) -> bool:
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("type"), str)
        and "." in obj["type"]
        and isinstance(obj.get("data"), dict)
        and "id" in obj
        and "timestamp" in obj
    )


class CopilotCliFormat(JsonlFormat):
    name = "copilot-cli"
    label = "GitHub Copilot CLI session (events.jsonl)"

    def detect(self, path: str | None, head: str) -> int:
        lines = first_json_lines(head)
        if not lines or not sum(map(_is_event, lines)) >= max(1, len(lines) // 2):
            return 0
        kinds = {obj.get("type") for obj in lines if isinstance(obj, dict)}
        if not kinds & {"session.start", "user.message", "assistant.message"}:
            return 0
        named = bool(path and "session-state" in path.replace("\\", "/"))
        return 91 if named else 84

    def read(
        self, records: Iterable[Record], problems: list[Problem], info: SessionInfo | None = None
    ) -> Iterator[Unit]:
        info = info if info is not None else SessionInfo()
        requested: set[str] = set()  # tool calls already read from a message's toolRequests
        calls = OpenCalls()  # calls waiting for their results, by toolCallId
        unknown: set[str] = set()
        for r in records:
            obj = r.obj
            if not isinstance(obj, dict) or not isinstance(obj.get("data"), dict):
                problems.append(Problem(r.line, "not a Copilot CLI event (expected {type, data, …})"))
                continue
            etype = plain(obj.get("type")) or ""
            data: dict[str, Any] = obj["data"]
            info.see_time(obj.get("timestamp"))
            units: list[Unit | None] = []
            if etype == "session.start":
                info.session_id = info.session_id or plain(data.get("sessionId"))
                info.see_time(data.get("startTime"))
                info.see_model(plain(data.get("selectedModel")))
            elif etype == "session.model_change":
                info.see_model(plain(data.get("newModel")))
            elif etype == "user.message":
                units.append(make_unit(r, data.get("content"), "user", "prompt"))
            elif etype == "assistant.message":
                units.append(make_unit(r, data.get("reasoningText"), "assistant", "thinking"))
                units.append(make_unit(r, data.get("content"), "assistant", "reply"))
                for request in data.get("toolRequests") or ():
                    if isinstance(request, dict):
                        call_id = plain(request.get("toolCallId"))
                        if call_id:
                            requested.add(call_id)
                        asked = _call(r, request.get("name"), request.get("arguments"))
                        calls.opened(call_id, asked)
                        units.append(asked)
            elif etype == "assistant.reasoning":
                units.append(make_unit(r, data.get("content"), "assistant", "thinking"))
            elif etype == "tool.execution_start":
                if plain(data.get("toolCallId")) not in requested:
                    asked = _call(r, data.get("toolName"), data.get("arguments"))
                    calls.opened(plain(data.get("toolCallId")), asked)
                    units.append(asked)
            elif etype == "tool.execution_complete":
                info.see_model(plain(data.get("model")))
                result = data.get("result")
                error = data.get("error")
                value = result.get("content") if isinstance(result, dict) else None
                if value is None and isinstance(error, dict):
                    value = error.get("message")
                result = make_unit(r, value, "tool", "tool_result")
                units.extend(calls.answered(plain(data.get("toolCallId")), [result]))
            elif etype in ("session.info", "session.error", "session.warning"):
                units.append(make_unit(r, data.get("message"), "system", "system"))
            elif etype == "assistant.usage":
                info.see_model(plain(data.get("model")))
                info.add_usage(
                    "assistant.usage",
                    input=data.get("inputTokens"),
                    output=data.get("outputTokens"),
                    cache_read=data.get("cacheReadTokens"),
                    cache_write=data.get("cacheWriteTokens"),
                )
            elif etype not in _QUIET and etype not in unknown:
                unknown.add(etype)
                problems.append(Problem(r.line, f"unknown event {etype!r} passed over", "info"))
            for unit in units:
                if unit is not None:
                    yield unit


def _call(r: Record, name: Any, arguments: Any) -> Unit | None:
    """A tool call, anchored on its name; arguments may be an object or a JSON string."""
    args = decoded_json(arguments)
    return make_unit(r, name, "assistant", "tool_call", text=tool_call_text(plain(name) or "tool", args))


COPILOT_CLI = CopilotCliFormat()
