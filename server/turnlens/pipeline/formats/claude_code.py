"""Claude Code session files (`~/.claude/projects/<project>/<session>.jsonl`).

One JSON object per line. `user` and `assistant` lines carry `message.content`,
a string or a list of blocks (`text`, `tool_use`, `tool_result`, `thinking`,
`image`); tool results arrive as `user` lines; `isMeta` marks text the client
injected; `isSidechain` marks a sub-agent's conversation; `summary` lines hold
a title; a `system` line with `subtype: compact_boundary` marks a compaction
and the `user` line after it (`isCompactSummary`) holds the summary.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from turnlens.pipeline.formats.base import Problem
from turnlens.pipeline.formats.jsonl import JsonlFormat, Record, first_json_lines, make_unit
from turnlens.pipeline.formats.jsonspan import JStr, plain
from turnlens.pipeline.units import Unit

# line types that carry no conversation text: passed over without a word
_QUIET = frozenset({"file-history-snapshot", "queue-operation", "progress", "attachment"})


def _is_entry(obj: Any) -> bool:
    if not isinstance(obj, dict):
        return False
    kind = obj.get("type")
    if kind in ("user", "assistant"):
        return isinstance(obj.get("message"), dict) and ("sessionId" in obj or "uuid" in obj)
    return kind == "summary" and "leafUuid" in obj


class ClaudeCodeFormat(JsonlFormat):
    name = "claude-code"
    label = "Claude Code session (JSONL)"

    def detect(self, path: str | None, head: str) -> int:
        lines = first_json_lines(head)
        if not lines:
            return 0
        hits = sum(1 for obj in lines if _is_entry(obj))
        if hits == 0:
            return 0
        return 90 if path and "/.claude/" in path.replace("\\", "/") else 80

    def title_of(self, record: Record) -> str | None:
        obj = record.obj
        if isinstance(obj, dict) and plain(obj.get("type")) == "summary":
            return plain(obj.get("summary"))
        return None

    def read(self, records: Iterable[Record], problems: list[Problem]) -> Iterator[Unit]:
        units: list[Unit] = []  # what one record gives, handed on at once
        unknown: set[str] = set()
        for r in records:
            obj = r.obj
            if not isinstance(obj, dict):
                problems.append(Problem(r.line, "not a Claude Code entry (expected a JSON object)"))
                continue
            kind = plain(obj.get("type"))
            if kind == "user":
                self._user(r, obj, units)
            elif kind == "assistant":
                self._assistant(r, obj, units)
            elif kind == "summary":
                _add(units, make_unit(r, obj.get("summary"), "system", "summary"))
            elif kind == "system":
                _add(units, make_unit(r, obj.get("content"), "system", "system"))
            elif kind not in _QUIET and kind is not None and kind not in unknown:
                unknown.add(kind)
                problems.append(Problem(r.line, f"unknown line type {kind!r} passed over", "info"))
            yield from units
            units.clear()

    def _user(self, r: Record, obj: dict[str, Any], units: list[Unit]) -> None:
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if obj.get("isCompactSummary"):
            role, kind = "system", "summary"
        elif obj.get("isMeta"):
            role, kind = "system", "system"
        else:
            role, kind = "user", "prompt"
        if isinstance(content, JStr):
            _add(units, make_unit(r, content, role, kind))
            return
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict):
                continue
            btype = plain(block.get("type"))
            if btype == "text":
                _add(units, make_unit(r, block.get("text"), role, kind))
            elif btype == "tool_result":
                inner = block.get("content")
                if isinstance(inner, JStr):
                    _add(units, make_unit(r, inner, "tool", "tool_result"))
                elif isinstance(inner, list):
                    for part in inner:
                        if isinstance(part, dict) and plain(part.get("type")) == "text":
                            _add(units, make_unit(r, part.get("text"), "tool", "tool_result"))

    def _assistant(self, r: Record, obj: dict[str, Any], units: list[Unit]) -> None:
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, JStr):
            _add(units, make_unit(r, content, "assistant", "reply"))
            return
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict):
                continue
            btype = plain(block.get("type"))
            if btype == "text":
                _add(units, make_unit(r, block.get("text"), "assistant", "reply"))
            elif btype == "thinking":
                _add(units, make_unit(r, block.get("thinking"), "assistant", "thinking"))
            elif btype == "tool_use":
                name = block.get("name")
                text = tool_call_text(plain(name) or "tool", block.get("input"))
                _add(units, make_unit(r, name, "assistant", "tool_call", text=text))


def tool_call_text(name: str, args: Any) -> str:
    """A tool call as text for scoring: the tool's name, then its arguments."""
    plain = unspan(args)
    if isinstance(plain, dict) and len(plain) == 1 and isinstance(next(iter(plain.values())), str):
        return f"{name}: {next(iter(plain.values()))}"
    if isinstance(plain, str):
        return f"{name}: {plain}"
    return f"{name}: {json.dumps(plain, ensure_ascii=False)}"


def unspan(value: Any) -> Any:
    """A spanned value back to plain JSON values."""
    if isinstance(value, JStr):
        return value.text
    if isinstance(value, dict):
        return {k: unspan(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unspan(v) for v in value]
    return value


def _add(units: list[Unit], unit: Unit | None) -> None:
    if unit is not None:
        units.append(unit)


CLAUDE_CODE = ClaudeCodeFormat()
