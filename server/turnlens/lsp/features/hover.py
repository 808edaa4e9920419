"""Hover anywhere in a turn: scores, the rules that fired, and why the route is what it is."""

from __future__ import annotations

from lsprotocol import types

from turnlens.lsp import labels
from turnlens.lsp.server import TurnLensServer


def wants_markdown(ls: TurnLensServer) -> bool:
    """Markdown unless the client's hover formats put plain text first (the order is its
    preference: Vim + ALE, and Emacs without a Markdown mode, would show Markdown raw). A
    client that names no format gets Markdown, as the protocol's own examples assume."""
    try:
        formats = ls.client_capabilities.text_document.hover.content_format  # type: ignore[union-attr]
    except AttributeError:
        return True
    for kind in formats or ():
        if kind in (types.MarkupKind.Markdown, types.MarkupKind.PlainText):
            return bool(kind == types.MarkupKind.Markdown)
    return True


def register(server: TurnLensServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: TurnLensServer, params: types.HoverParams) -> types.Hover | None:
        state = ls.documents.get(params.text_document.uri)
        if state is None or not state.settings.hover:
            return None
        results = ls.ensure_fresh(state, settle=False)
        if state.silent or not results:
            return None
        doc = state.doc
        offset = doc.offset_at(params.position)
        result = state.unit_at(offset)
        if result is None or result.unit.ignored:
            return None
        # a provisional answer is refined now: the hover shows what the lens will
        result = ls.explained(state, ls.refined(state, result))
        unit = result.unit
        # rules' lines are the document's where the text keeps the span's lines (a slice, or an
        # Aider prompt read without its `#### ` markers); a message decoded from JSON counts its own
        written = doc.text[unit.start : unit.end]
        same_lines = written == unit.text or written.count("\n") == unit.text.count("\n") > 0
        first_line = doc.position_at(unit.start).line + 1 if same_lines else 0
        n_units = sum(1 for r in results if not r.unit.ignored)
        # the router read the unit's metadata too (a prompt file's frontmatter, just above it)
        route_line = first_line - unit.meta.count("\n") if first_line and unit.meta else None
        markdown = wants_markdown(ls)
        return types.Hover(
            contents=types.MarkupContent(
                kind=types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText,
                value=labels.hover_text(result, first_line, n_units, route_line, markdown=markdown),
            ),
            range=doc.range_at(result.unit.content_start, result.unit.end),
        )
