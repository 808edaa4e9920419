"""The `turnlens/status` notification that the editor shows in its status bar."""

from __future__ import annotations

from typing import Any

from turnlens.lsp.documents import DocState
from turnlens.lsp.server import TurnLensServer


def payload(ls: TurnLensServer, state: DocState) -> dict[str, Any]:
    live = [r for r in state.results if not r.unit.ignored]
    routed = [r for r in live if r.route.source != "role"] or live  # a session: its last prompt
    last = routed[-1] if routed and not state.silent else None
    return {
        "uri": state.doc.uri,
        "version": state.doc.version,
        "class": last.classification.task_class if last else None,
        "effort": last.route.effort if last else None,
        "phase": last.route.phase if last else None,
        "source": last.route.source if last else None,
        "paused": ls.router_for(state.settings.router).paused,
        "units": len(live),
    }


def publish(ls: TurnLensServer, state: DocState) -> None:
    if state.settings.status:
        ls.protocol.notify("turnlens/status", payload(ls, state))


def register(server: TurnLensServer) -> None:
    server.listeners.append(publish)
