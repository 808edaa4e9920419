"""Document sync: open, change (debounced), save, close."""

from __future__ import annotations

import asyncio
import logging

from lsprotocol import types

from turnlens.lsp.documents import DocState
from turnlens.lsp.server import TurnLensServer

log = logging.getLogger("turnlens")


def schedule(ls: TurnLensServer, state: DocState) -> None:
    """Analyse after the debounce; a newer edit restarts the wait."""
    if state.timer is not None:
        state.timer.cancel()
    delay = state.settings.debounce_ms / 1000
    loop = asyncio.get_running_loop()
    if delay <= 0:
        state.timer = loop.call_soon(_fire, ls, state)  # type: ignore[assignment]
    else:
        state.timer = loop.call_later(delay, _fire, ls, state)


def _fire(ls: TurnLensServer, state: DocState) -> None:
    state.timer = None
    if ls.documents.get(state.doc.uri) is state:
        ls.analyze(state)


def register(server: TurnLensServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: TurnLensServer, params: types.DidOpenTextDocumentParams) -> None:
        state = ls.open_document(params.text_document)
        await ls.pull_settings(state)
        if ls.documents.get(state.doc.uri) is state and state.settings.analyze != "manual":
            ls.analyze(state)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: TurnLensServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        state = ls.documents.get(uri)
        if state is None:
            log.warning("didChange for a document that is not open: %s", uri)
            return
        version = params.text_document.version
        if version is not None and state.doc.version is not None and version <= state.doc.version:
            log.warning(
                "ignoring out-of-order change to %s (version %s after %s)", uri, version, state.doc.version
            )
            return
        state.doc.apply(params.content_changes, version)
        if state.settings.analyze == "onType" and state.settings_ready:
            schedule(ls, state)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: TurnLensServer, params: types.DidSaveTextDocumentParams) -> None:
        state = ls.documents.get(params.text_document.uri)
        if state is not None and state.settings.analyze != "manual":
            ls.analyze(state)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: TurnLensServer, params: types.DidCloseTextDocumentParams) -> None:
        state = ls.documents.pop(params.text_document.uri, None)
        if state is None:
            return
        if state.timer is not None:
            state.timer.cancel()
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
        )
