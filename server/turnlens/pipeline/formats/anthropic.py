"""Anthropic Messages API JSON: a request body, a bare array of messages, or a response.

The request has a top-level `system` (a string or text blocks) and
`messages`, each with `role` (`user`, `assistant`) and `content`, a string or
blocks: `text`, `tool_use` (`name`, `input`), `tool_result` (`content`, a
string or text blocks; it arrives in a `user` message), `thinking`
(`thinking`), `redacted_thinking`, `image`, `document`. A response is one
assistant message (`"type": "message"`) with the same blocks.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from turnlens.pipeline.formats.claude_code import tool_call_text
from turnlens.pipeline.formats.jsondoc import (
    Doc,
    JsonDocFormat,
    keys_in,
    looks_like_lines,
    offset_of,
    refuse,
    whole,
)
from turnlens.pipeline.formats.jsonspan import JStr, plain
from turnlens.pipeline.units import Unit

_BLOCKS = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use"})
_QUIET = frozenset({"image", "document", "redacted_thinking", "search_result", "container_upload"})
_MARKER = re.compile(
    r'"type"\s*:\s*"(?:tool_use|tool_result|thinking|redacted_thinking)"|"anthropic_version"\s*:'
    r'|"model"\s*:\s*"claude|"stop_reason"\s*:'
)


def _is_message(obj: Any) -> bool:
    return isinstance(obj, dict) and plain(obj.get("role")) in ("user", "assistant") and "content" in obj


def _messages(obj: Any) -> list[Any] | None:
    if isinstance(obj, list):
        return obj if obj and all(_is_message(m) for m in obj) else None
    if not isinstance(obj, dict):
        return None
    if plain(obj.get("type")) == "message" and _is_message(obj):
        return [obj]  # a response
    messages = obj.get("messages")
    if isinstance(messages, list) and all(_is_message(m) for m in messages) and (messages or "system" in obj):
        return messages
    return None


def _anthropic_only(obj: Any) -> bool:
    """Whether a parsed document has something only the Messages API writes."""
    if isinstance(obj, dict):
        if "anthropic_version" in obj or "stop_reason" in obj:
            return True
        if isinstance(obj.get("system"), (str, list)) and "messages" in obj:
            return True
        if (plain(obj.get("model")) or "").startswith("claude"):
            return True
    messages = _messages(obj) or []
    for msg in messages:
        content = msg.get("content") if isinstance(msg, dict) else None
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and plain(block.get("type")) in _BLOCKS:
                return True
    return False


class AnthropicFormat(JsonDocFormat):
    name = "anthropic"
    label = "Anthropic Messages (JSON)"

    def detect(self, path: str | None, head: str) -> int:
        stripped = head.lstrip()
        if not stripped.startswith(("{", "[")) or looks_like_lines(head):
            return 0
        obj = whole(head)
        if obj is not None:
            return 75 if _messages(obj) is not None and _anthropic_only(obj) else 0
        keys = keys_in(head)
        if ("messages" in keys or "role" in keys) and "content" in keys and _MARKER.search(head):
            return 72
        return 0

    def read(self, obj: Any, doc: Doc) -> Iterator[Unit]:
        messages = _messages(obj)
        if messages is None:
            raise refuse("JSON without Anthropic messages (`messages` with `role` and `content`)")
        if isinstance(obj, dict):
            yield from _text_units(obj.get("system"), "system", "system", doc)
        for msg in messages:
            yield from self._message(msg, doc)

    def _message(self, msg: dict[str, Any], doc: Doc) -> Iterator[Unit]:
        role = plain(msg.get("role"))
        mine = ("user", "prompt") if role == "user" else ("assistant", "reply")
        content = msg.get("content")
        if isinstance(content, JStr):
            yield from _some(doc.unit(content, *mine))
            return
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict):
                continue
            btype = plain(block.get("type"))
            if btype == "text":
                yield from _some(doc.unit(block.get("text"), *mine))
            elif btype == "thinking":
                yield from _some(doc.unit(block.get("thinking"), "assistant", "thinking"))
            elif btype in ("tool_use", "server_tool_use"):
                name = block.get("name")
                text = tool_call_text(plain(name) or "tool", block.get("input"))
                asked = doc.unit(name, "assistant", "tool_call", text=text)
                doc.calls.opened(plain(block.get("id")), asked)
                yield from _some(asked)
            elif btype == "tool_result" or (btype or "").endswith("_tool_result"):
                units = _text_units(block.get("content"), "tool", "tool_result", doc)
                yield from doc.calls.answered(plain(block.get("tool_use_id")), units)
            elif btype not in _QUIET:
                doc.once(f"block:{btype}", offset_of(block), f"unknown content block {btype!r} passed over")


def _text_units(value: Any, role: str, kind: str, doc: Doc) -> Iterator[Unit]:
    """A string, or the `text` of text blocks."""
    if isinstance(value, (JStr, str)):
        yield from _some(doc.unit(value, role, kind))
    elif isinstance(value, list):
        for block in value:
            if isinstance(block, dict) and plain(block.get("type")) == "text":
                yield from _some(doc.unit(block.get("text"), role, kind))


def _some(unit: Unit | None) -> Iterator[Unit]:
    if unit is not None:
        yield unit


ANTHROPIC = AnthropicFormat()
