"""The LSP protocol with TurnLens's own document store.

pygls keeps a copy of every open document and re-splits it on each edit; the
server keeps its own (see textdoc.py), so the built-in text sync handlers only
dispatch to the server's features here.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.protocol.json_rpc import JsonRPCResponseMessage

# Answers built as plain JSON values (thousands of lenses on a long transcript):
# sent as they are instead of through the typed per-object conversion.
RAW_RESULTS = frozenset({types.TEXT_DOCUMENT_CODE_LENS})


class TurnLensProtocol(LanguageServerProtocol):
    def get_result_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        if method in RAW_RESULTS:
            return JsonRPCResponseMessage
        return super().get_result_type(method)

    def _user(self, method: str, params: Any) -> Generator[Any, Any, None]:
        handler = self.fm.features.get(method)
        if handler is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(
        self, params: types.DidOpenTextDocumentParams
    ) -> Generator[Any, Any, None]:
        yield from self._user(types.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        yield from self._user(types.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(
        self, params: types.DidCloseTextDocumentParams
    ) -> Generator[Any, Any, None]:
        yield from self._user(types.TEXT_DOCUMENT_DID_CLOSE, params)
