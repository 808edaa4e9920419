"""Submit: one line of context for a prompt the router is sure deserves a high effort.

The route comes from the embedded router (directives, keywords, the labeler, with
the engine $TURNLENS_LABELER names: `turnlens.router.labeler_engine`), offline. Only a confident high-effort route adds a line: an explicit choice
(`/route`, `/effort`), a thinking keyword, or the labeler at MIN_CONFIDENCE or
more. A prompt is never blocked or rewritten.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from turnlens.router.resolve import Route

MIN_CONFIDENCE = 0.8
CONFIDENT_SOURCES = ("directive", "explicit", "keyword")


def _warn(line: str) -> None:
    """A hook's stdout is the agent's input: a warning goes to the hook log."""
    from turnlens.agents.state import log

    log("labeler", line)


def labeler(warn: bool = True) -> str:
    """The labeler engine the user chose ($TURNLENS_LABELER): `model`, or `encoder` when its
    package is installed. With `warn`, a value that cannot be honoured is said in the hook log
    (once per prompt: the submit hook and the status line say it; the ledgers stay quiet)."""
    from turnlens.router.labeler_engine import environment_engine

    return environment_engine(_warn if warn else lambda _line: None)


def route_of(prompt: str, engine: str | None = None) -> Route:
    """The prompt's route with the labeler engine the user chose (`labeler()`), or `engine`."""
    from turnlens.router.labeler_engine import route_settings
    from turnlens.router.resolve import resolve_offline

    return resolve_offline(prompt, route_settings(engine or labeler()), explain=False)


def why(route: Route) -> str:
    """The short reason a view shows: `keyword "ultrathink"`, `design 91%`, `/effort`."""
    if route.source == "keyword":
        said = next((s.text for s in route.signals if s.text), None)
        return f'keyword "{said}"' if said else "keyword"
    if route.source in ("classifier", "fallback") and route.label:
        sure = f" {route.confidence:.0%}" if route.confidence is not None else ""
        return f"{route.label}{sure}"
    return {"directive": "/route", "explicit": "/effort"}.get(route.source, route.source)


def shown(route: Route) -> str:
    """The route as the status line shows it: `plan·high keyword "ultrathink"`, `no route (short)`."""
    if route.effort is None:
        return f"no route ({why(route)})"
    return f"{route.phase}·{route.effort} {why(route)}" if route.phase else f"{route.effort} {why(route)}"


def confident_high(route: Route) -> bool:
    if route.effort != "high":
        return False
    if route.source in CONFIDENT_SOURCES:
        return True
    return route.source == "classifier" and (route.confidence or 0.0) >= MIN_CONFIDENCE


def context_line(prompt: str, route: Route | None = None) -> str | None:
    """The line to add for this prompt, or None (most prompts)."""
    route = route or route_of(prompt)
    if not confident_high(route):
        return None
    phase = f"{route.phase} phase, " if route.phase else ""
    return (
        f"TurnLens routes this prompt to high reasoning effort ({phase}{why(route)}): "
        "think it through and weigh the options before acting."
    )
