"""ChatGPT data exports (`conversations.json`).

A list of conversations, each with `mapping` (node id → `{message, parent,
children}`) and `current_node`, the leaf of the branch the user last saw.
Editing a prompt or regenerating a reply leaves the old branch in the mapping;
only the active branch is read: from `current_node` up through `parent` to the
root, then in order. A message has `author.role` and `content.content_type`
(`text`, `multimodal_text`, `code`, `execution_output`, `tether_quote`,
`tether_browsing_display`, `thoughts`, `reasoning_recap`, …).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from turnlens.pipeline.formats.base import FormatOptions, Problem, Split
from turnlens.pipeline.formats.jsondoc import Doc, JsonDocFormat, keys_in, offset_of, refuse, whole
from turnlens.pipeline.formats.jsonspan import (
    BOM,
    JStr,
    SpanError,
    TooDeep,
    plain,
    raw_decode,
    raw_decode_spanned,
)
from turnlens.pipeline.units import Unit

# content types with no text worth a label (images, pairing notices, …): passed over quietly
_QUIET = frozenset(
    {"image_asset_pointer", "app_pairing_content", "computer_output", "system_error_no_text", "sonic_webpage"}
)
_ROLES = {"user": ("user", "prompt"), "assistant": ("assistant", "reply"), "tool": ("tool", "tool_result")}


def _is_conversation(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("mapping"), dict)


def branch(conversation: dict[str, Any]) -> list[dict[str, Any]]:
    """The nodes of the active branch, root first.

    From `current_node` up through `parent`; without a usable `current_node`,
    down from the root through each node's last child (the latest regeneration).
    """
    mapping: dict[str, Any] = conversation["mapping"]
    current = plain(conversation.get("current_node"))
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    if current is not None and isinstance(mapping.get(current), dict):
        node_id: str | None = current
        while node_id is not None and node_id not in seen and isinstance(mapping.get(node_id), dict):
            seen.add(node_id)
            node = mapping[node_id]
            path.append(node)
            node_id = plain(node.get("parent"))
        path.reverse()
        return path
    roots = [n for n in mapping.values() if isinstance(n, dict) and plain(n.get("parent")) not in mapping]
    node_or_none: Any = roots[0] if roots else None
    while isinstance(node_or_none, dict):
        node_id = plain(node_or_none.get("id")) or str(len(seen))
        if node_id in seen:
            break
        seen.add(node_id)
        path.append(node_or_none)
        children = node_or_none.get("children")
        last = plain(children[-1]) if isinstance(children, list) and children else None
        node_or_none = mapping.get(last) if last is not None else None
    return path


def _parts(parts: Any) -> Iterator[Any]:
    """The strings of `parts`: plain strings, and the text of audio transcriptions."""
    for part in parts if isinstance(parts, list) else ():
        if isinstance(part, (JStr, str)):
            yield part
        elif isinstance(part, dict) and plain(part.get("content_type")) == "audio_transcription":
            yield part.get("text")


def message_units(message: dict[str, Any], doc: Doc) -> Iterator[Unit]:
    author = message.get("author")
    role = plain(author.get("role")) if isinstance(author, dict) else None
    content = message.get("content")
    if not isinstance(content, dict):
        return
    ctype = plain(content.get("content_type"))
    recipient = plain(message.get("recipient"))
    unit_role, kind = _ROLES.get(role or "", ("system", "system"))
    if role == "assistant" and recipient not in (None, "all"):
        kind = "tool_call"  # an assistant message addressed to a tool (python, web, canmore…)
    values: list[Any] = []
    if ctype in ("text", "multimodal_text"):
        values = list(_parts(content.get("parts")))
    elif ctype == "code":
        if role == "assistant":
            kind = "tool_call"
        values = [content.get("text")]
    elif ctype in ("execution_output", "tether_quote"):
        unit_role, kind = "tool", "tool_result"
        values = [content.get("text")]
    elif ctype == "tether_browsing_display":
        unit_role, kind = "tool", "tool_result"
        values = [content.get("result")]
    elif ctype == "thoughts":
        thoughts = content.get("thoughts")
        for thought in thoughts if isinstance(thoughts, list) else ():
            if isinstance(thought, dict):
                body = thought.get("content")
                value = body if (plain(body) or "").strip() else thought.get("summary")
                unit = doc.unit(value, "assistant", "thinking")
                if unit is not None:
                    yield unit
        return
    elif ctype == "reasoning_recap":
        unit_role, kind = "assistant", "thinking"
        recap = content.get("content")
        values = [recap] if recap is not None else list(_parts(content.get("parts")))
    elif ctype == "user_editable_context":  # custom instructions sent with each conversation
        unit_role, kind = "system", "system"
        values = [content.get("user_profile"), content.get("user_instructions")]
    elif ctype == "model_editable_context":  # memory
        unit_role, kind = "system", "system"
        values = [content.get("model_set_context")]
    elif ctype == "system_error":
        unit_role, kind = "system", "system"
        values = [content.get("text")]
    elif ctype not in _QUIET:
        doc.once(f"content:{ctype}", offset_of(content), f"unknown content type {ctype!r} passed over")
        return
    for value in values:
        unit = doc.unit(value, unit_role, kind)
        if unit is not None:
            yield unit


class ChatGptFormat(JsonDocFormat):
    name = "chatgpt"
    label = "ChatGPT export (conversations.json)"

    def detect(self, path: str | None, head: str) -> int:
        stripped = head.lstrip()
        if not stripped.startswith(("[", "{")):
            return 0
        named = bool(path and re.search(r"(?:^|[/\\])conversations\.json$", path))
        obj = whole(head)
        if obj is not None:
            items = obj if isinstance(obj, list) else [obj]
            if items and all(_is_conversation(c) for c in items):
                return 92 if named else 85
            return 0
        keys = keys_in(head)
        if "mapping" in keys and ({"current_node", "content_type", "author"} & keys):
            return 92 if named else 85
        return 0

    def title_of(self, obj: Any) -> str | None:
        items = obj if isinstance(obj, list) else [obj]
        if len(items) == 1 and isinstance(items[0], dict):
            return plain(items[0].get("title"))
        return None

    def read(self, obj: Any, doc: Doc) -> Iterator[Unit]:
        """One conversation object (an export of several is read by `split`, one at a time)."""
        if not _is_conversation(obj):
            raise refuse("JSON without ChatGPT conversations (no `mapping`)")
        yield from _conversation_units(obj, doc)

    def split(self, text: str, options: FormatOptions) -> Split:
        """A list of conversations is parsed one conversation at a time: an export of hundreds of
        megabytes then holds one conversation's tree at once, and an export cut short (still
        downloading) gives every conversation before the cut."""
        i = _skip(text, 1 if text.startswith(BOM) else 0)
        if not text.startswith("[", i):
            return super().split(text, options)
        doc = Doc(text)
        hidden = options.hide_kinds
        units: list[Unit] = []
        titles: list[str | None] = []
        i = _skip(text, i + 1)
        while i < len(text) and text[i] != "]":
            if titles:
                if text[i] != ",":
                    doc.problems.append(
                        Problem(
                            doc.line_of(i),
                            "not valid JSON (expected ',' between conversations); read up to here",
                        )
                    )
                    break
                i = _skip(text, i + 1)
            try:
                conversation, i = raw_decode_spanned(text, i)
            except TooDeep as exc:
                titles.append(None)
                if exc.end is None:  # too deep for the parser itself: where it ends is unknown
                    doc.problems.append(Problem(doc.line_of(i), f"JSON {exc}; read up to here"))
                    break
                doc.problems.append(
                    Problem(doc.line_of(i), f"conversation {len(titles)}: JSON {exc}; passed over")
                )
                i = _skip(text, exc.end)
                continue
            except SpanError:
                conversation, i = raw_decode(text, i)
                doc.once(
                    "span",
                    0,
                    "strings could not be placed (duplicate keys?); labels point at the start",
                    "warning",
                )
            except ValueError as exc:
                doc.problems.append(_decode_problem(text, exc, doc))
                break
            if not titles and not _is_conversation(conversation):
                raise refuse("JSON without ChatGPT conversations (no `mapping`)")
            titles.append(plain(conversation.get("title")) if isinstance(conversation, dict) else None)
            if not _is_conversation(conversation):
                doc.once(
                    f"conv:{len(titles)}",
                    offset_of(conversation),
                    f"conversation {len(titles)} has no mapping; passed over",
                    "warning",
                )
                continue
            for unit in _conversation_units(conversation, doc):
                if not (hidden and unit.kind in hidden):
                    units.append(unit._replace(index=len(units) + 1))
            i = _skip(text, i)
        else:
            if i >= len(text) and text.strip():
                line = text.rstrip().count("\n") + 1
                doc.problems.append(
                    Problem(line, "the export ends early (still being written?); read up to the cut")
                )
        doc.problems.sort(key=lambda p: p.line)
        return Split(units, doc.problems, None, titles[0] if len(titles) == 1 else None)


def _conversation_units(conversation: dict[str, Any], doc: Doc) -> Iterator[Unit]:
    for node in branch(conversation):
        message = node.get("message")
        if isinstance(message, dict):
            yield from message_units(message, doc)


def _skip(text: str, i: int) -> int:
    """The index of the next character that is not JSON white space."""
    n = len(text)
    while i < n and text[i] in " \t\r\n":
        i += 1
    return i


def _decode_problem(text: str, exc: ValueError, doc: Doc) -> Problem:
    if isinstance(exc, json.JSONDecodeError):
        if "\0" in text[exc.pos : exc.pos + 64]:
            return Problem(exc.lineno, "binary data, not JSON; read up to here")
        if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string"):
            line = text.rstrip().count("\n") + 1
            return Problem(line, "the export ends early (still being written?); read up to the cut")
        return Problem(exc.lineno, f"not valid JSON ({exc.msg}); read up to here")
    return Problem(0, "not valid JSON; read up to here")


CHATGPT = ChatGptFormat()
