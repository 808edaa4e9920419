"""A whole session as data for the session map: one entry per unit, the plan, the totals.

Pure: the HTML report (`turnlens stats --html`), the language server's
`turnlens/sessionMap` request and the VS Code webview all draw this one
structure, so they never disagree with `turnlens stats`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from turnlens.core.engine import score
from turnlens.core.plan import applied_ratio, tokens
from turnlens.core.rules import RulePack
from turnlens.pipeline.analyze import Analyzed, UnitResult
from turnlens.pipeline.formats.base import iso_time
from turnlens.pipeline.stats import session_stats
from turnlens.pipeline.units import ASIDE_KINDS

FIRST_LINE_CHARS = 160
VERSION = 1


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            line = line.strip()
            return line if len(line) <= FIRST_LINE_CHARS else line[: FIRST_LINE_CHARS - 1] + "…"
    return ""


def _why(r: UnitResult, pack: RulePack | None) -> list[str]:
    """The reasons behind a unit's labels, in words: the model's confidence, the rules that
    fired (with their lines) and the route's reason. Rules are located with the rules engine
    alone, so a 2,000-message map costs milliseconds, not a model explanation per message."""
    c = r.classification
    signals = c.signals
    if pack is not None and not signals:
        signals = score(r.unit.text, pack, explain=True).signals
    out = [
        f"{s.category} +{s.weight}: {s.rule}" + (f" (line {s.line}: {s.text.strip()[:80]})" if s.line else "")
        for s in signals
    ]
    confidence = getattr(c, "confidence", None)
    if c.pinned:
        out.insert(0, "pinned by a directive")
    elif getattr(c, "engine", "rules") == "model" and confidence is not None:
        out.insert(0, f"model: {c.task_class} at {confidence:.0%}; the rules that fired are its features")
    if not out:
        out.append("no rule fired: short text counts as chitchat, longer text as context")
    if r.route.source != "role":
        out.append(f"route: {r.route.reason}")
    return out


def unit_entry(r: UnitResult, line: int, pack: RulePack | None = None) -> dict[str, Any]:
    """One mark of the map."""
    c, unit, route = r.classification, r.unit, r.route
    ratio = applied_ratio(c)
    routed = route.source != "role"
    entry: dict[str, Any] = {
        "i": unit.index,
        "role": unit.role or "text",
        "kind": unit.kind or "text",
        "class": c.task_class,
        "frozen": c.frozen,
        "ratio": ratio,
        "words": c.words,
        "tokens": tokens(c.words),
        "plan_tokens": tokens(max(1, c.words // ratio)),
        "routed": routed,
        "effort": route.effort if routed else None,
        "phase": route.phase if routed else None,
        "label": route.label if routed else None,
        "source": route.source if routed else None,
        "effort_used": unit.effort_used,
        "aside": unit.kind in ASIDE_KINDS,  # injected text or a command: shown faded, not a prompt
        "time": iso_time(unit.time),
        "line": line,
        "start": unit.start,
        "end": unit.end,
        "first": _first_line(unit.text),
        "why": _why(r, pack),
    }
    confidence = getattr(c, "confidence", None)
    if confidence is not None:
        entry["confidence"] = round(float(confidence), 3)
    return entry


def line_numbers(text: str, offsets: Sequence[int]) -> list[int]:
    """1-based line of each offset (offsets in increasing order), in one pass."""
    out = []
    line = 1
    pos = 0
    for offset in offsets:
        line += text.count("\n", pos, offset)
        pos = offset
        out.append(line)
    return out


def session_map(
    analyzed: Analyzed,
    text: str | None,
    *,
    path: str = "",
    budget: int = 0,
    pack: RulePack | None = None,
) -> dict[str, Any]:
    """The map of one session. `pack` (when given) explains each unit's rules. Without the
    text (a session read line by line), lines come from the units themselves."""
    live = [r for r in analyzed.results if not r.unit.ignored]
    starts = [r.unit.start for r in live]
    lines = [r.unit.line for r in live] if text is None else line_numbers(text, starts)
    units = [unit_entry(r, line, pack) for r, line in zip(live, lines, strict=True)]
    stats = session_stats(analyzed, path)
    planned = stats.plan_tokens
    return {
        "version": VERSION,
        "path": path,
        "title": analyzed.title or "",
        "format": analyzed.format,
        "budget": budget,
        "plan": {
            "tokens": stats.tokens,
            "plan_tokens": planned,
            "saved_tokens": stats.saved_tokens,
            "verdict": None if budget <= 0 else ("FITS" if planned <= budget else "OVERFLOW"),
            "excess": max(0, planned - budget) if budget > 0 else 0,
        },
        "stats": stats.to_json(),
        "problems": [{"line": p.line, "message": p.message} for p in analyzed.problems],
        "units": units,
    }
