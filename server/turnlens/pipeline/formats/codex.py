"""Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`).

One JSON object per line, `{timestamp, type, payload}` with `type` one of
`session_meta`, `turn_context`, `response_item`, `event_msg`, `compacted`.
`response_item` payloads are the model's history (messages with
`input_text`/`output_text` parts, `function_call`, `function_call_output`,
`reasoning`); `event_msg` payloads are what the interface showed, so a typed
prompt, a reply and a reasoning summary each arrive twice — counted once.
`turn_context` records the model and the reasoning effort a turn actually ran
with: it becomes `effort_used` of that turn's prompts. Older rollouts have no
envelope: a first line `{id, timestamp, instructions}`, then bare response
items and `{"record_type": "state"}` lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from turnlens.pipeline.formats.base import OpenCalls, Problem, SessionInfo
from turnlens.pipeline.formats.claude_code import tool_call_text
from turnlens.pipeline.formats.jsonl import JsonlFormat, Record, first_json_lines, make_unit
from turnlens.pipeline.formats.jsonspan import JStr, decoded_json, plain
from turnlens.pipeline.units import Unit

_ENVELOPES = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted"})
_ITEMS = frozenset(
    {
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "web_search_call",
    }
)
# response items with no readable text (encrypted compaction, images, searches of the tool list…)
_QUIET_ITEMS = frozenset(
    {
        "compaction",
        "compaction_summary",
        "image_generation_call",
        "tool_search_call",
        "tool_search_output",
        "other",
        "ghost_snapshot",
    }
)
# event messages that repeat a response item: event type → the role its text is counted under
_ECHOES = {"user_message": "user", "agent_message": "assistant", "agent_reasoning": "thinking"}
# events that close a turn: a turn_context after them belongs to the next prompt
_TURN_ENDS = frozenset({"task_complete", "turn_complete", "turn_aborted"})
# text Codex puts in a user message that the user did not type
_INJECTED = re.compile(
    r"\A\s*+(?:<environment_context>|<user_instructions>|<INSTRUCTIONS>|# AGENTS\.md instructions"
    r"|<turn_aborted>|<user_shell_command>|<permissions instructions>|<collaboration_mode>)"
)
# text a Codex client wraps around or adds before what the user typed: image wrappers, the IDE
# extension's context (open files, selection), files mentioned with `@`. Kind `injected`.
_WRAPPERS = re.compile(  # used with `match`: anchored, blanks possessive (linear under search too)
    r"\A\s*+(?:</?image\b[^>]*>\s*$|<image name=|# Files mentioned by the user|# Context from my IDE setup"
    r"|<user_action>|<ide_context>)"
)
_REQUEST = re.compile(r"^##? My request for Codex:?[ \t]*\r?\n?", re.MULTILINE)
_ROLLOUT_NAME = re.compile(r"(?:^|/)rollout-[^/]*\.jsonl$")


def _is_record(obj: Any) -> int:
    """2: an enveloped rollout line; 1: a bare (older) response item or session header; 0: neither."""
    if not isinstance(obj, dict):
        return 0
    kind = obj.get("type")
    if kind in _ENVELOPES and isinstance(obj.get("payload"), dict):
        return 2
    if kind == "message" and obj.get("role") in ("user", "assistant", "developer", "system"):
        return 1 if isinstance(obj.get("content"), list) else 0
    if kind in ("function_call", "function_call_output") and "call_id" in obj:
        return 1
    if kind == "reasoning" and "summary" in obj:
        return 1
    if obj.get("record_type") == "state":
        return 1
    return 0


class _Turn:
    """What one reading has seen since the last reply: prompts that may still get a
    turn_context, and texts already counted (a prompt or reply arrives twice)."""

    def __init__(self) -> None:
        self.effort: str | None = None
        self.pending: list[Unit] = []  # units held back until the turn's effort is known
        self._unmatched: dict[tuple[str, str], str] = {}  # text counted → where it came from
        self.calls = OpenCalls()  # calls waiting for their output, by call_id

    def first(self, role: str, text: str, source: str) -> bool:
        """False for the echo of a text already counted from the other source (item or event)."""
        key = (role, text.strip())
        if self._unmatched.get(key, source) != source:
            del self._unmatched[key]
            return False
        if len(self._unmatched) > 256:  # an echo follows its original closely
            self._unmatched.clear()
        self._unmatched[key] = source
        return True

    def end(self) -> None:
        self._unmatched.clear()

    def flush(self) -> Iterator[Unit]:
        yield from self.pending
        self.pending.clear()


class CodexFormat(JsonlFormat):
    name = "codex"
    label = "Codex CLI rollout (JSONL)"

    def detect(self, path: str | None, head: str) -> int:
        lines = first_json_lines(head)
        if not lines:
            return 0
        kinds = [_is_record(obj) for obj in lines]
        named = bool(path and _ROLLOUT_NAME.search(path.replace("\\", "/")))
        if 2 in kinds:
            return 95 if named else 88
        first = lines[0]
        header = isinstance(first, dict) and "id" in first and "timestamp" in first and "type" not in first
        if kinds.count(1) and (header or named):
            return 90 if named else 70
        return 0

    def read(
        self, records: Iterable[Record], problems: list[Problem], info: SessionInfo | None = None
    ) -> Iterator[Unit]:
        turn = _Turn()
        info = info if info is not None else SessionInfo()
        unknown: set[str] = set()
        for r in records:
            obj = r.obj
            if not isinstance(obj, dict):
                problems.append(Problem(r.line, "not a Codex rollout line (expected a JSON object)"))
                continue
            kind = plain(obj.get("type"))
            payload = obj.get("payload")
            info.see_time(obj.get("timestamp"))
            if kind in _ENVELOPES and isinstance(payload, dict):
                _session_facts(kind, payload, info)
                yield from self._enveloped(r, kind, payload, turn, problems, unknown)
            elif kind in _ITEMS:
                yield from self._item(r, obj, turn, problems, unknown)  # an older, bare rollout
            elif kind in _QUIET_ITEMS or obj.get("record_type") is not None:
                continue
            elif kind is None and "id" in obj and "timestamp" in obj:
                continue  # the older rollouts' session header
            else:
                label = kind or "untyped"
                if label not in unknown:
                    unknown.add(label)
                    problems.append(Problem(r.line, f"unknown line type {label!r} passed over", "info"))
        yield from turn.flush()

    def _enveloped(
        self,
        r: Record,
        kind: str,
        payload: dict[str, Any],
        turn: _Turn,
        problems: list[Problem],
        unknown: set[str],
    ) -> Iterator[Unit]:
        if kind == "response_item":
            yield from self._item(r, payload, turn, problems, unknown)
        elif kind == "turn_context":
            effort = plain(payload.get("effort"))
            turn.effort = effort
            # a turn_context written after its turn's prompt (older Codex) still applies to it
            turn.pending = [u._replace(effort_used=effort) if u.kind == "prompt" else u for u in turn.pending]
        elif kind == "compacted":
            yield from turn.flush()
            unit = make_unit(r, payload.get("message"), "system", "summary")
            if unit is not None:
                yield unit
        elif kind == "event_msg":
            etype = plain(payload.get("type"))
            if etype in _ECHOES:
                field = "text" if etype == "agent_reasoning" else "message"
                value = payload.get(field)
                text = plain(value)
                if text and text.strip() and turn.first(_ECHOES[etype], text, "event"):
                    if etype == "user_message":
                        self._prompt(r, value, turn)
                    else:
                        yield from turn.flush()
                        unit = make_unit(
                            r, value, "assistant", "thinking" if etype == "agent_reasoning" else "reply"
                        )
                        if unit is not None:
                            yield unit
            elif etype in _TURN_ENDS:
                yield from turn.flush()
                turn.end()
        # session_meta: the session's header (id, cwd, version, base instructions) is not a turn

    def _prompt(self, r: Record, value: Any, turn: _Turn) -> None:
        text = plain(value) or ""
        units: list[Unit | None]
        if _INJECTED.match(text):
            units = [make_unit(r, value, "system", "system")]
        elif _WRAPPERS.match(text):
            request = _REQUEST.search(text)
            if request is None:
                units = [make_unit(r, value, "system", "injected")]
            else:  # the IDE's context, then what the user typed: two units on the one string
                context, typed = text[: request.start()], text[request.end() :]
                units = [
                    make_unit(r, value, "system", "injected", text=context),
                    make_unit(r, value, "user", "prompt", text=typed, effort_used=turn.effort),
                ]
        else:
            units = [make_unit(r, value, "user", "prompt", effort_used=turn.effort)]
        turn.pending.extend(u for u in units if u is not None)

    def _item(
        self,
        r: Record,
        item: dict[str, Any],
        turn: _Turn,
        problems: list[Problem],
        unknown: set[str],
    ) -> Iterator[Unit]:
        itype = plain(item.get("type"))
        if itype == "message":
            role = plain(item.get("role"))
            content = item.get("content")
            parts = content if isinstance(content, list) else [content]
            for part in parts:
                value = part.get("text") if isinstance(part, dict) else part
                text = (plain(value) or "").strip()
                if not text:
                    continue
                if role == "user":
                    if turn.first("user", text, "item"):
                        self._prompt(r, value, turn)
                elif role == "assistant":
                    if turn.first("assistant", text, "item"):
                        yield from turn.flush()
                        unit = make_unit(r, value, "assistant", "reply")
                        if unit is not None:
                            yield unit
                else:  # developer and system messages: instructions Codex sends
                    unit = make_unit(r, value, "system", "system")
                    if unit is not None:
                        turn.pending.append(unit)
            return
        yield from turn.flush()
        if itype == "reasoning":
            for field in ("summary", "content"):
                pieces = item.get(field)
                for part in pieces if isinstance(pieces, list) else ():
                    value = part.get("text") if isinstance(part, dict) else None
                    text = (plain(value) or "").strip()
                    if text and (field == "content" or turn.first("thinking", text, "item")):
                        unit = make_unit(r, value, "assistant", "thinking")
                        if unit is not None:
                            yield unit
        elif itype in ("function_call", "custom_tool_call"):
            name = item.get("name")
            args = item.get("arguments" if itype == "function_call" else "input")
            unit = make_unit(
                r,
                name,
                "assistant",
                "tool_call",
                text=tool_call_text(plain(name) or "tool", decoded_json(args)),
            )
            turn.calls.opened(plain(item.get("call_id")), unit)
            if unit is not None:
                yield unit
        elif itype == "local_shell_call":
            action = item.get("action")
            command = action.get("command") if isinstance(action, dict) else None
            words = [plain(w) or "" for w in command] if isinstance(command, list) else []
            anchor = command[0] if isinstance(command, list) and command else None
            unit = make_unit(r, anchor, "assistant", "tool_call", text=f"shell: {' '.join(words)}")
            turn.calls.opened(plain(item.get("call_id")), unit)
            if unit is not None:
                yield unit
        elif itype == "web_search_call":
            unit = _web_search(r, item.get("action"))
            if unit is not None:
                yield unit
        elif itype in ("function_call_output", "custom_tool_call_output"):
            yield from turn.calls.answered(plain(item.get("call_id")), _outputs(r, item.get("output")))
        elif itype not in _QUIET_ITEMS and itype is not None and itype not in unknown:
            unknown.add(itype)
            problems.append(Problem(r.line, f"unknown response item {itype!r} passed over", "info"))


def _session_facts(kind: str, payload: dict[str, Any], info: SessionInfo) -> None:
    """What an enveloped line says about the session: its id, the model, the token totals."""
    if kind == "session_meta":
        info.session_id = info.session_id or plain(payload.get("id"))
        info.see_time(payload.get("timestamp"))
        info.see_model(plain(payload.get("model")))
    elif kind == "turn_context":
        info.see_model(plain(payload.get("model")))
    elif kind == "event_msg" and plain(payload.get("type")) == "token_count":
        facts = payload.get("info")
        total = facts.get("total_token_usage") if isinstance(facts, dict) else None
        if isinstance(total, dict):  # a running total: the last one is the session's
            read_in, cached = total.get("input_tokens"), total.get("cached_input_tokens")
            fresh = read_in - cached if isinstance(read_in, int) and isinstance(cached, int) else read_in
            info.set_usage(
                "token_count",
                input=fresh,
                cache_read=cached,
                output=total.get("output_tokens"),
                reasoning=total.get("reasoning_output_tokens"),
            )


def _web_search(r: Record, action: Any) -> Unit | None:
    """A web search, a page opened or a pattern looked for in one, as a tool call."""
    if not isinstance(action, dict):
        return None
    atype = plain(action.get("type")) or "search"
    query, url, pattern = action.get("query"), action.get("url"), action.get("pattern")
    if atype == "open_page":
        return make_unit(r, url, "assistant", "tool_call", text=f"web_open: {plain(url) or ''}")
    if atype == "find_in_page":
        anchor = pattern if plain(pattern) else url
        text = f"web_find: {plain(pattern) or ''} in {plain(url) or ''}"
        return make_unit(r, anchor, "assistant", "tool_call", text=text)
    queries = action.get("queries")
    if not plain(query) and isinstance(queries, list) and queries:
        query = queries[0]
    if not plain(query):
        return None
    return make_unit(r, query, "assistant", "tool_call", text=f"web_search: {plain(query)}")


def _outputs(r: Record, output: Any) -> Iterator[Unit]:
    """A tool's output: a string (older Codex wrapped it as JSON `{output, metadata}`), or parts."""
    if isinstance(output, JStr):
        inner = decoded_json(output)
        text = inner.get("output") if isinstance(inner, dict) else None
        unit = make_unit(r, output, "tool", "tool_result", text=text if isinstance(text, str) else None)
        if unit is not None:
            yield unit
        return
    if isinstance(output, dict):  # {content: …, success: …} as some versions write it
        yield from _outputs(r, output.get("content"))
        return
    values = [
        part.get("text")
        for part in (output if isinstance(output, list) else ())
        if isinstance(part, dict) and (plain(part.get("text")) or "").strip()
    ]
    if values:  # one output is one unit, however many text parts it came in
        text = None if len(values) == 1 else "\n\n".join(plain(v) or "" for v in values)
        unit = make_unit(r, values[0], "tool", "tool_result", text=text)
        if unit is not None:
            yield unit


CODEX = CodexFormat()
