"""ShareGPT-style conversation datasets (JSON, or JSON Lines with one conversation a line).

The strict form is a list of `{id, conversations: [{from, value}]}` with `from`
one of `human`, `gpt`, `system`. Datasets made from it vary: `user` /
`assistant` / `model` / `chatgpt` / `bard` speakers, `role` / `content` or
`text` instead of `from` / `value`, `conversation` or `items` instead of
`conversations`, function-calling turns (`function_call`, `observation`,
`tool`), and an optional `system` field beside the turns. All are read here;
a speaker word no variant uses is reported once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from turnlens.pipeline.formats.base import Problem, SessionInfo
from turnlens.pipeline.formats.jsondoc import Doc, JsonDocFormat, keys_in, offset_of, refuse, whole
from turnlens.pipeline.formats.jsonl import JsonlFormat, Record, first_json_lines, make_unit
from turnlens.pipeline.formats.jsonspan import plain
from turnlens.pipeline.units import Unit

_LISTS = ("conversations", "conversation", "items")
_SPEAKERS = {
    "human": ("user", "prompt"),
    "user": ("user", "prompt"),
    "prompter": ("user", "prompt"),
    "gpt": ("assistant", "reply"),
    "assistant": ("assistant", "reply"),
    "model": ("assistant", "reply"),
    "chatgpt": ("assistant", "reply"),
    "bard": ("assistant", "reply"),
    "bing": ("assistant", "reply"),
    "claude": ("assistant", "reply"),
    "system": ("system", "system"),
    "function_call": ("assistant", "tool_call"),
    "tool_call": ("assistant", "tool_call"),
    "observation": ("tool", "tool_result"),
    "function_response": ("tool", "tool_result"),
    "tool": ("tool", "tool_result"),
}


def turns_of(obj: Any) -> list[Any] | None:
    """The turn list of one conversation record, whichever key holds it."""
    if not isinstance(obj, dict):
        return None
    for key in _LISTS:
        turns = obj.get(key)
        if isinstance(turns, list) and turns and all(isinstance(t, dict) for t in turns):
            return turns
    return None


def _is_turn(turn: Any) -> bool:
    if not isinstance(turn, dict):
        return False
    speaker = plain(turn.get("from", turn.get("role")))
    return speaker is not None and plain(turn.get("value", turn.get("content", turn.get("text")))) is not None


def is_record(obj: Any) -> bool:
    turns = turns_of(obj)
    return turns is not None and _is_turn(turns[0])


def conversation_units(obj: dict[str, Any], make: Any, report: Any) -> Iterator[Unit]:
    """The units of one conversation: `make(value, role, kind)` places one, `report(word)` says
    an unknown speaker once."""
    system = obj.get("system")
    if plain(system):
        unit = make(system, "system", "system")
        if unit is not None:
            yield unit
    for turn in turns_of(obj) or ():
        speaker = plain(turn.get("from", turn.get("role"))) or ""
        value = turn.get("value", turn.get("content", turn.get("text")))
        role_kind = _SPEAKERS.get(speaker.strip().lower())
        if role_kind is None:
            report(speaker, turn)
            continue
        unit = make(value, *role_kind)
        if unit is not None:
            yield unit


class ShareGptJsonlFormat(JsonlFormat):
    name = "sharegpt-jsonl"
    label = "ShareGPT conversations (JSONL)"

    def detect(self, path: str | None, head: str) -> int:
        lines = first_json_lines(head)
        if lines and sum(map(is_record, lines)) >= max(1, len(lines) // 2):
            return 72
        return 0

    def read(
        self, records: Iterable[Record], problems: list[Problem], info: SessionInfo | None = None
    ) -> Iterator[Unit]:
        said: set[str] = set()
        for r in records:
            if not is_record(r.obj):
                if "record" not in said:
                    said.add("record")
                    problems.append(Problem(r.line, "a line without a conversation passed over", "info"))
                continue

            def make(value: Any, role: str, kind: str, r: Record = r) -> Unit | None:
                return make_unit(r, value, role, kind)

            def report(word: str, turn: Any, r: Record = r) -> None:
                if word not in said:
                    said.add(word)
                    problems.append(Problem(r.line, f"unknown speaker {word!r} passed over", "info"))

            yield from conversation_units(r.obj, make, report)


class ShareGptFormat(JsonDocFormat):
    name = "sharegpt"
    label = "ShareGPT conversations (JSON)"
    lines_format = ShareGptJsonlFormat()

    def detect(self, path: str | None, head: str) -> int:
        if not head.lstrip().startswith(("[", "{")):
            return 0
        obj = whole(head)
        if obj is not None:
            items = obj if isinstance(obj, list) else [obj]
            return 72 if items and all(is_record(i) for i in items[:50]) else 0
        keys = keys_in(head)
        if ({"conversations", "conversation"} & keys) and (
            {"from", "value"} <= keys or {"role", "content"} <= keys
        ):
            return 0 if first_json_lines(head, 2)[1:] else 72  # lines are the JSONL form's
        return 0

    def read(self, obj: Any, doc: Doc) -> Iterator[Unit]:
        items = obj if isinstance(obj, list) else [obj]
        if not items or not is_record(items[0]):
            raise refuse("JSON without ShareGPT conversations (`conversations` of `from`/`value` turns)")

        def make(value: Any, role: str, kind: str) -> Unit | None:
            return doc.unit(value, role, kind)

        def report(word: str, turn: Any) -> None:
            doc.once(f"speaker:{word}", offset_of(turn), f"unknown speaker {word!r} passed over")

        for n, item in enumerate(items, 1):
            if not is_record(item):
                doc.once("record", offset_of(item), f"item {n} holds no conversation; passed over")
                continue
            yield from conversation_units(item, make, report)


SHAREGPT = ShareGptFormat()
SHAREGPT_JSONL = ShareGptFormat.lines_format
