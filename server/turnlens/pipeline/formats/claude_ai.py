"""claude.ai data exports (`conversations.json` of an Anthropic account export).

A list of conversations, each `{uuid, name, created_at, updated_at,
chat_messages}`; a message has `sender` (`human` or `assistant`), `text`, and
in newer exports `content` blocks (`text`, `thinking`, `tool_use`,
`tool_result`, …) that the `text` repeats flattened, so blocks are read when
there are any and `text` otherwise. Files a person attached arrive as
`attachments[].extracted_content`: text the person did not type (kind
`injected`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from turnlens.pipeline.formats.base import parse_time
from turnlens.pipeline.formats.claude_code import tool_call_text
from turnlens.pipeline.formats.jsondoc import Doc, JsonDocFormat, keys_in, offset_of, refuse, whole
from turnlens.pipeline.formats.jsonspan import JStr, plain
from turnlens.pipeline.units import Unit

_SENDERS = {"human": ("user", "prompt"), "assistant": ("assistant", "reply")}


def _is_conversation(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("chat_messages"), list)


class ClaudeAiFormat(JsonDocFormat):
    name = "claude-ai"
    label = "claude.ai export (conversations.json)"

    def detect(self, path: str | None, head: str) -> int:
        if not head.lstrip().startswith(("[", "{")):
            return 0
        named = bool(path and re.search(r"(?:^|[/\\])conversations\.json$", path))
        obj = whole(head)
        if obj is not None:
            items = obj if isinstance(obj, list) else [obj]
            return (92 if named else 86) if items and all(_is_conversation(c) for c in items) else 0
        keys = keys_in(head)
        if "chat_messages" in keys and ({"sender", "uuid"} & keys):
            return 92 if named else 86
        return 0

    def title_of(self, obj: Any) -> str | None:
        items = obj if isinstance(obj, list) else [obj]
        if len(items) == 1 and isinstance(items[0], dict):
            return plain(items[0].get("name")) or None
        return None

    def read(self, obj: Any, doc: Doc) -> Iterator[Unit]:
        items = obj if isinstance(obj, list) else [obj]
        if not items or not _is_conversation(items[0]):
            raise refuse("JSON without claude.ai conversations (no `chat_messages`)")
        for n, conversation in enumerate(items, 1):
            if not _is_conversation(conversation):
                doc.once(
                    f"conv:{n}",
                    offset_of(conversation),
                    f"conversation {n} has no chat_messages; passed over",
                    "warning",
                )
                continue
            for message in conversation["chat_messages"]:
                if isinstance(message, dict):
                    yield from _message_units(message, doc)


def _message_units(message: dict[str, Any], doc: Doc) -> Iterator[Unit]:
    sender = plain(message.get("sender"))
    if sender not in _SENDERS:
        doc.once(f"sender:{sender}", offset_of(message), f"unknown sender {sender!r} passed over")
        return
    role, kind = _SENDERS[sender]
    when = parse_time(message.get("created_at"))
    units: list[Unit | None] = []
    for attachment in message.get("attachments") or ():
        if isinstance(attachment, dict):
            units.append(doc.unit(attachment.get("extracted_content"), "system", "injected"))
    blocks = message.get("content")
    if isinstance(blocks, list) and blocks:
        for block in blocks:
            if isinstance(block, dict):
                units.extend(_block_units(block, role, kind, doc))
    else:
        units.append(doc.unit(message.get("text"), role, kind))
    for unit in units:
        if unit is not None:
            yield unit._replace(time=when)


def _block_units(block: dict[str, Any], role: str, kind: str, doc: Doc) -> Iterator[Unit | None]:
    btype = plain(block.get("type"))
    if btype == "text":
        yield doc.unit(block.get("text"), role, kind)
    elif btype == "thinking":
        yield doc.unit(block.get("thinking"), "assistant", "thinking")
    elif btype == "tool_use":
        name = block.get("name")
        yield doc.unit(
            name, "assistant", "tool_call", text=tool_call_text(plain(name) or "tool", block.get("input"))
        )
    elif btype == "tool_result":
        inner = block.get("content")
        parts = (
            [inner]
            if isinstance(inner, JStr)
            else [
                p.get("text") for p in inner if isinstance(p, dict) and (plain(p.get("text")) or "").strip()
            ]
            if isinstance(inner, list)
            else []
        )
        if parts:  # one result, however many parts
            text = None if len(parts) == 1 else "\n\n".join(plain(p) or "" for p in parts)
            yield doc.unit(parts[0], "tool", "tool_result", text=text)
    elif btype not in (None, "image", "document", "token_budget", "voice_note"):
        doc.once(f"block:{btype}", offset_of(block), f"unknown content block {btype!r} passed over")


CLAUDE_AI = ClaudeAiFormat()
