"""Code lenses: class · ratio · frozen (verdict) and the route above each turn;
the session plan above a multi-turn document when a budget is set."""

from __future__ import annotations

from lsprotocol import types

from turnlens.core.plan import plan
from turnlens.lsp import labels
from turnlens.lsp.documents import DocState
from turnlens.lsp.server import TurnLensServer


def build(state: DocState) -> list[types.CodeLens]:
    settings = state.settings
    if state.silent or not settings.code_lens:
        return []
    doc = state.doc
    live = [r for r in state.results if not r.unit.ignored]
    lenses: list[types.CodeLens] = []
    if len(live) > 1 and settings.budget > 0:
        session = plan([r.classification for r in live], settings.budget)
        top = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
        title = (
            f"Session plan: {session.verdict} · {session.total_plan_tokens:,} of {settings.budget:,} tokens"
            f" · {len(live)} turns"
        )
        if not session.fits:
            title += f" · {session.excess:,} over"
        lenses.append(
            types.CodeLens(
                range=top,
                command=types.Command(title=title, command="turnlens.plan", arguments=[{"uri": doc.uri}]),
            )
        )
    for r in live:
        start = doc.position_at(r.unit.content_start)
        rng = types.Range(start=start, end=start)
        arg = {"uri": doc.uri, "range": _unit_range(state, r.unit.start, r.unit.end)}
        c = r.classification
        lenses.append(
            types.CodeLens(
                range=rng,
                command=types.Command(
                    title=labels.lens_class_title(c), command="turnlens.classify", arguments=[arg]
                ),
            )
        )
        lenses.append(
            types.CodeLens(
                range=rng,
                command=types.Command(
                    title=labels.lens_route_title(r.route), command="turnlens.classify", arguments=[arg]
                ),
            )
        )
    return lenses


def _unit_range(state: DocState, start: int, end: int) -> dict[str, dict[str, int]]:
    rng = state.doc.range_at(start, end)
    return {
        "start": {"line": rng.start.line, "character": rng.start.character},
        "end": {"line": rng.end.line, "character": rng.end.character},
    }


def refresh(ls: TurnLensServer, state: DocState) -> None:
    if state.settings.code_lens and ls.client_supports("workspace.code_lens.refresh_support"):
        ls.workspace_code_lens_refresh(None)


def register(server: TurnLensServer) -> None:
    server.listeners.append(refresh)

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    def code_lens(ls: TurnLensServer, params: types.CodeLensParams) -> list[types.CodeLens] | None:
        state = ls.documents.get(params.text_document.uri)
        if state is None:
            return None
        ls.ensure_fresh(state)
        return build(state)
