"""Inlay hints: a compact label at the end of each turn's first line."""

from __future__ import annotations

from lsprotocol import types

from turnlens.lsp import labels
from turnlens.lsp.documents import DocState
from turnlens.lsp.features.ready import settings_pulled
from turnlens.lsp.server import TurnLensServer
from turnlens.pipeline.analyze import CacheKey

# at most this many units of the visible range go first (a huge range is the whole document)
REFINE_FIRST_UNITS = 200


def build(state: DocState, visible: types.Range | None = None) -> list[types.InlayHint]:
    if state.silent or not state.settings.inlay_hints:
        return []
    doc = state.doc
    hints = []
    for r in state.results:
        if r.unit.ignored:
            continue
        line = doc.line_of(r.unit.content_start)
        if visible is not None and not (visible.start.line <= line <= visible.end.line):
            continue
        c = r.classification
        tooltip = f"{labels.class_text(c)} ({c.verdict}) · {labels.route_text(r.route)}"
        hints.append(
            types.InlayHint(
                position=doc.line_end_position(line),
                label=labels.inlay_label(r),
                padding_left=True,
                tooltip=tooltip,
            )
        )
    return hints


def visible_keys(state: DocState, visible: types.Range) -> tuple[CacheKey, ...]:
    """The cache keys of the provisional units that start in the range an editor shows."""
    doc = state.doc
    units = [
        r.unit
        for r in state.results
        if r.provisional and visible.start.line <= doc.line_of(r.unit.content_start) <= visible.end.line
    ]
    keys = (state.cache.key_of(u) for u in units[:REFINE_FIRST_UNITS])
    return tuple(k for k in keys if k is not None)


def refresh(ls: TurnLensServer, state: DocState) -> None:
    """Ask the client to fetch hints again only when the ones it holds are out of date.

    Not when it never asked, nor for the analysis a hint request itself runs: a needless
    refresh makes Neovim drop the hints it shows and draw the new ones only at its next
    redraw, so a freshly opened file showed none until a key was pressed. Also when hints
    are switched off: a client that still shows them must ask again to drop them."""
    if state.answering_hints or state.hints_given is None or state.hints_given is state.results:
        return
    if ls.client_supports("workspace.inlay_hint.refresh_support"):
        ls.workspace_inlay_hint_refresh(None)


def register(server: TurnLensServer) -> None:
    server.listeners.append(refresh)

    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT)
    async def inlay_hint(ls: TurnLensServer, params: types.InlayHintParams) -> list[types.InlayHint] | None:
        state = ls.documents.get(params.text_document.uri)
        if state is None:
            return None
        await settings_pulled(ls, state)
        state.answering_hints = True
        try:
            ls.ensure_fresh(state)
        finally:
            state.answering_hints = False
        state.hints_given = state.results
        if state.cache.pending:  # what the editor shows gets the model's answers first
            state.refine_visible = visible_keys(state, params.range)
        return build(state, params.range)
