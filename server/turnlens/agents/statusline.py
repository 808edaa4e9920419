"""The status line: the last prompt's route, the frozen share, the plan against the window.

One line, e.g. `TurnLens plan·high keyword "ultrathink" │ frozen 12% │ plan 38k/200k FITS`.
Colour (ANSI) unless NO_COLOR is set, TERM is `dumb` or TURNLENS_COLOR is `never`;
the agent draws the line itself, so its standard output is never a terminal.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from turnlens.agents.prompt import shown

if TYPE_CHECKING:
    from turnlens.agents.ledger import Ledger
    from turnlens.agents.payload import Payload

DEFAULT_WINDOW = 200_000
_RESET = "\x1b[0m"
_COLOURS = {"high": "\x1b[35m", "medium": "\x1b[36m", "low": "\x1b[32m", "ok": "\x1b[32m", "bad": "\x1b[31m"}
_DIM = "\x1b[2m"


def colour_wanted() -> bool:
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return os.environ.get("TURNLENS_COLOR", "auto") != "never"


def window_of(payload: Payload) -> int:
    """The context window: TURNLENS_CONTEXT_WINDOW, else what the agent says, else a
    model marked `[1m]` has a million tokens, else DEFAULT_WINDOW."""
    raw = os.environ.get("TURNLENS_CONTEXT_WINDOW", "")
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    if payload.context_window:
        return payload.context_window
    if payload.model_id and "[1m]" in payload.model_id:
        return 1_000_000
    return DEFAULT_WINDOW


def _short(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M".replace(".0M", "M")
    if n >= 1000:
        return f"{n // 1000}k"
    return str(n)


def last_route(ledger: Ledger) -> tuple[str, str | None] | None:
    """(text, effort) of the last prompt's route, worked out once per prompt and remembered."""
    from turnlens.agents.ledger import turn_text
    from turnlens.agents.prompt import route_of

    last = ledger.data.get("last_prompt")
    if not last:
        return None
    cached = ledger.data.get("route")
    if isinstance(cached, list) and len(cached) == 3 and cached[0] == last[3]:
        return cached[1], cached[2]
    from turnlens.agents import state

    # the submit hook routed this prompt already (when it is installed)
    found = state.remembered_route(ledger.session, last[3])
    if found is None:
        text = turn_text(ledger.path, ledger.format, last[1], last[2], last[3], ("prompt",))
        if text is None:
            return None
        route = route_of(text)
        found = shown(route), route.effort
    ledger.data["route"] = [last[3], *found]
    ledger.changed()
    return found


def line(ledger: Ledger, window: int, colour: bool) -> str:
    from turnlens.core.classes import task_classes

    def paint(text: str, key: str | None) -> str:
        code = _COLOURS.get(key or "", _DIM if key == "dim" else "")
        return f"{code}{text}{_RESET}" if colour and code else text

    parts = []
    route = last_route(ledger)
    if route is not None:
        parts.append(paint(route[0], route[1]))
    classes = task_classes()
    session = ledger.totals("session")
    words = sum(row[1] for row in session.values())
    frozen = sum(
        row[1] for name, row in session.items() if name in classes and classes[name].frozen == "true"
    )
    if words:
        parts.append(f"frozen {100 * frozen // words}%")
    context = ledger.totals("context")
    planned = sum(row[2] for row in context.values()) * 13 // 10  # core.plan.tokens, without its imports
    fits = planned <= window
    verdict = paint("FITS" if fits else "OVERFLOW", "ok" if fits else "bad")
    parts.append(f"plan {_short(planned)}/{_short(window)} {verdict}")
    if not ledger.complete:
        parts.append(paint("reading…", "dim"))
    sep = paint(" │ ", "dim")
    return paint("TurnLens", "dim") + " " + sep.join(parts)
