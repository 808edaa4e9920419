"""Code lenses: class · ratio · frozen (verdict) and the route above each turn;
the session plan above a multi-turn document when a budget is set.

Answers are plain JSON values (see protocol.RAW_RESULTS): a long transcript
has thousands of lenses and each edit asks for all of them again.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from turnlens.core.plan import plan
from turnlens.lsp import labels
from turnlens.lsp.documents import DocState
from turnlens.lsp.features.ready import settings_pulled
from turnlens.lsp.server import TurnLensServer

Json = dict[str, Any]


def _pos(p: types.Position) -> Json:
    return {"line": p.line, "character": p.character}


def build(state: DocState) -> list[Json]:
    settings = state.settings
    if state.silent or not settings.code_lens:
        return []
    doc = state.doc
    live = [r for r in state.results if not r.unit.ignored]
    lenses: list[Json] = []
    if len(live) > 1 and settings.budget > 0:
        session = plan([r.classification for r in live], settings.budget)
        title = (
            f"Session plan: {session.verdict} · {session.total_plan_tokens:,} of {settings.budget:,} tokens"
            f" · {len(live)} turns"
        )
        if not session.fits:
            title += f" · {session.excess:,} over"
        top = {"line": 0, "character": 0}
        lenses.append(
            {
                "range": {"start": top, "end": top},
                "command": {"title": title, "command": "turnlens.plan", "arguments": [{"uri": doc.uri}]},
            }
        )
    titles: dict[tuple[int, int, str | None, str | None, bool], tuple[str, str]] = {}
    for r in live:
        key = (id(r.classification), id(r.route), r.unit.role, r.unit.kind, r.provisional)
        pair = titles.get(key)
        if pair is None:
            pair = titles[key] = (
                labels.lens_class_title(r.classification, r.provisional),
                labels.lens_route_title(r.route, r),
            )
        start = _pos(doc.position_at(r.unit.content_start))
        at = {"start": start, "end": start}
        arg = {
            "uri": doc.uri,
            "range": {"start": _pos(doc.position_at(r.unit.start)), "end": _pos(doc.position_at(r.unit.end))},
        }
        lenses.append(
            {"range": at, "command": {"title": pair[0], "command": "turnlens.classify", "arguments": [arg]}}
        )
        lenses.append(
            {"range": at, "command": {"title": pair[1], "command": "turnlens.classify", "arguments": [arg]}}
        )
    return lenses


def refresh(ls: TurnLensServer, state: DocState) -> None:
    # also when off: a client that still shows lenses must ask again to drop them
    if ls.client_supports("workspace.code_lens.refresh_support"):
        ls.workspace_code_lens_refresh(None)


def register(server: TurnLensServer) -> None:
    server.listeners.append(refresh)

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    async def code_lens(ls: TurnLensServer, params: types.CodeLensParams) -> list[Json] | None:
        state = ls.documents.get(params.text_document.uri)
        if state is None:
            return None
        # Editors ask for lenses as soon as a file is attached, often while its settings are
        # still being pulled; an empty answer then would stay until the next edit (Neovim
        # re-asks on workspace/codeLens/refresh only for buffers that already have lenses).
        await settings_pulled(ls, state)
        ls.ensure_fresh(state)
        return build(state)
