"""One entry point per agent event; whatever goes wrong, the agent sees a no-op.

`serve` reads the payload, answers within a deadline (a SIGALRM timer, so even
a stalled read of stdin ends) and writes the answer. Bad input, a missing,
special or huge session file, an error or the deadline: nothing is written, the
exit code is 0 and one line goes to the hook log in the user's state folder.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from typing import IO, Any

from turnlens.agents import state
from turnlens.agents.payload import BadPayload, Payload, parse, read_stdin

try:  # the C module under `signal`: the same calls, without building its enums (~0.5 ms a call)
    import _signal as signal  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - another interpreter
    import signal

EVENTS = ("PreCompact", "PostCompact", "SessionStart", "UserPromptSubmit")
AGENTS = {"claude-code": "claude-code", "codex": "codex"}  # agent → the reader of its session files
DEADLINES = {"UserPromptSubmit": 5.0, "statusline": 5.0}
DEFAULT_DEADLINE = 50.0  # compaction hooks (installed with a 60 s time-out); a cold 20 MB read fits
STATUS_READ_SECONDS = 1.0  # the status line reads a new session file a slice at a time
PENDING_SECONDS = 15 * 60  # what PostCompact found stays usable by SessionStart this long


class NoOp(Exception):
    """Answer nothing; the message goes to the hook log."""


class _Timeout(BaseException):
    """The internal deadline passed (a BaseException: library code must not swallow it)."""


def _deadline(name: str) -> float:
    raw = os.environ.get("TURNLENS_HOOK_DEADLINE", "")
    try:
        value = float(raw) if raw else DEADLINES.get(name, DEFAULT_DEADLINE)
    except ValueError:
        value = DEADLINES.get(name, DEFAULT_DEADLINE)
    return max(0.05, min(value, 600.0))


def _on_alarm(signum: int, frame: Any) -> None:
    raise _Timeout


def serve(name: str, answer: Callable[[Payload, float], str | None], out: IO[str] | None = None) -> int:
    """Read stdin, answer, write; always 0. `name` is the event (or `statusline`) for the log."""
    seconds = _deadline(name)
    ends = time.monotonic() + seconds
    alarm = hasattr(signal, "setitimer")
    if alarm:
        signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds + 0.05)
    text: str | None = None
    try:
        payload = parse(read_stdin())
        text = answer(payload, ends)
    except _Timeout:
        state.log(name, f"no-op: no answer within the {seconds:g} s deadline")
    except (NoOp, BadPayload) as exc:
        state.log(name, f"no-op: {exc}")
    except Exception as exc:  # a hook never breaks the agent
        state.log(name, f"no-op: {type(exc).__name__}: {exc}")
    finally:
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
    if text:
        stream = out or sys.stdout
        try:
            stream.write(text if text.endswith("\n") else text + "\n")
            stream.flush()
        except (OSError, ValueError):
            pass  # the agent stopped listening
    return 0


def _context(event: str, text: str) -> str:
    """The documented JSON that adds `text` to the model's context."""
    out = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
    return json.dumps(out, ensure_ascii=False)


def _ledger(payload: Payload, agent: str, until: float, save_later: bool = False) -> Any:
    from turnlens.agents.ledger import Ledger, Unreadable

    if not payload.transcript_path:
        raise NoOp("the payload names no transcript_path")
    from turnlens.agents.prompt import labeler

    ledger = Ledger(payload.transcript_path, AGENTS[agent], labeler(warn=False))
    ledger.save_later = save_later
    try:
        ledger.update(until)
    except Unreadable as exc:
        raise NoOp(f"session file not read: {exc}") from None
    return ledger


def _window(explicit: int | None) -> int:
    from turnlens.agents.statusline import DEFAULT_WINDOW

    if explicit:
        return explicit
    raw = os.environ.get("TURNLENS_CONTEXT_WINDOW", "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else DEFAULT_WINDOW


def answer_for(event: str, agent: str, window: int | None = None) -> Callable[[Payload, float], str | None]:
    """The function that answers `event` for `agent`."""

    def check(payload: Payload) -> None:
        if payload.event is not None and payload.event != event:
            raise NoOp(f"payload is for {payload.event!r}, this hook answers {event}")

    def prompt_submit(payload: Payload, ends: float) -> str | None:
        from turnlens.agents.hashes import text_digest as digest  # not the ledger: not read here
        from turnlens.agents.prompt import context_line, labeler, route_of, shown

        check(payload)
        if payload.prompt is None:
            raise NoOp("the payload has no prompt")
        engine = labeler()
        route = route_of(payload.prompt, engine)
        if payload.transcript_path:  # for the status line, which then need not route it again
            known = None
            if engine != "model":  # nor load the engine to class it (it is loaded here already)
                from turnlens.agents.ledger import prompt_class

                known = prompt_class(payload.prompt, engine)
            state.remember_route(
                state.session_key(payload.transcript_path),
                digest(payload.prompt),
                shown(route),
                route.effort,
                known,
            )
        line = context_line(payload.prompt, route)
        if payload.transcript_path:  # a long session not read yet is read now, in the background
            from turnlens.agents.warm import start

            start(payload.transcript_path, AGENTS[agent], engine)
        return _context(event, line) if line else None

    def pre_compact(payload: Payload, ends: float) -> str | None:
        from turnlens.agents.compaction import instructions

        check(payload)
        ledger = _ledger(payload, agent, ends)
        if not ledger.complete:
            raise NoOp("session file not read to the end before the deadline (read on next call)")
        if agent != "claude-code":
            return None  # Codex's PreCompact takes no instructions; the read warms the ledger
        # Claude Code adds a successful PreCompact hook's plain output to the compaction's instructions
        text = instructions(ledger, _window(window))
        if text is None:
            raise NoOp("no turn read from the session file")
        return text

    def post_compact(payload: Payload, ends: float) -> str | None:
        check(payload)
        ledger = _ledger(payload, agent, ends)
        if payload.compact_summary is None:
            return None  # nothing to compare yet: SessionStart (source compact) reads the summary itself
        result = _compare(ledger, payload.compact_summary)
        from turnlens.agents.compaction import log_entry
        from turnlens.agents.ledger import digest

        ledger.data["pending"] = {
            "time": time.time(),
            "summary": digest(payload.compact_summary),
            "lost": [[*_row(x.turn)] for x in result.lost],
        }
        ledger.save()
        entry = log_entry(result, event, (payload.session_id or "")[:100])
        entry["restored"] = []  # given back by SessionStart (source compact): PostCompact adds no context
        state.record_restore(entry)
        return None

    def session_start(payload: Payload, ends: float) -> str | None:
        check(payload)
        if payload.source != "compact":
            return None
        from turnlens.agents.compaction import log_entry, lost_turns, restore_context

        ledger = _ledger(payload, agent, ends)
        if not ledger.complete:
            raise NoOp("session file not read to the end before the deadline")
        from turnlens.agents.ledger import FrozenTurn, digest

        summary = _summary_text(ledger)
        pending = ledger.data.get("pending")
        fresh = isinstance(pending, dict) and time.time() - float(pending.get("time", 0)) <= PENDING_SECONDS
        if fresh and (summary is None or digest(summary) != pending.get("summary")):
            # PostCompact saw a summary the session file does not hold yet: use what it found
            rows = [FrozenTurn.from_row(r) for r in pending.get("lost", [])]
            result = lost_turns(ledger, rows, "")
        elif summary is not None:
            result = _compare(ledger, summary)
        else:
            raise NoOp("no compaction summary in the session file yet, and none from PostCompact")
        ledger.data.pop("pending", None)
        ledger.save()
        state.record_restore(log_entry(result, f"{event}:compact", (payload.session_id or "")[:100]))
        text = restore_context(result)
        return _context(event, text) if text else None

    table = {
        "UserPromptSubmit": prompt_submit,
        "PreCompact": pre_compact,
        "PostCompact": post_compact,
        "SessionStart": session_start,
    }
    return table[event]


def _row(t: Any) -> list[Any]:
    return [t.index, t.line, t.offset, t.role, t.kind, t.task_class, t.words, t.digest, t.quote]


def _summary_text(ledger: Any) -> str | None:
    from turnlens.agents.ledger import turn_text

    last = ledger.last_summary()
    if last is None:
        return None
    return turn_text(ledger.path, ledger.format, last[1], last[2], "", ("summary",))


def _compare(ledger: Any, summary: str) -> Any:
    """The frozen turns before the latest summary (all of them when the session file does not
    hold this summary yet) checked against it."""
    from turnlens.agents.compaction import lost_turns
    from turnlens.agents.ledger import digest

    last = ledger.last_summary()
    turns = ledger.frozen_turns()
    held = _summary_text(ledger) if last is not None else None
    if last is not None and held is not None and digest(held) == digest(summary):
        turns = [t for t in turns if t.index < last[0]]
    return lost_turns(ledger, turns, summary)


def statusline_answer(
    window: int | None = None, colour: bool | None = None
) -> Callable[[Payload, float], str]:
    def status(payload: Payload, ends: float) -> str:
        from turnlens.agents.statusline import colour_wanted, line, window_of

        agent = "claude-code"
        raw = os.environ.get("TURNLENS_STATUS_READ_SECONDS", "")
        try:
            slice_ = float(raw) if raw else STATUS_READ_SECONDS
        except ValueError:
            slice_ = STATUS_READ_SECONDS
        # the lines read and the new prompt's route are saved together, once
        ledger = _ledger(payload, agent, min(ends, time.monotonic() + slice_), save_later=True)
        try:
            return line(ledger, window or window_of(payload), colour_wanted() if colour is None else colour)
        finally:
            ledger.flush()

    return status
