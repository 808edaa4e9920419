"""The LSP protocol, with TurnLens's own document store and a few hardenings of pygls.

- Text sync: pygls keeps a copy of every open document and re-splits it on each
  edit; the server keeps its own (see textdoc.py), so didOpen/didChange/didClose
  only dispatch to the server's features here.
- Notifications: pygls files the future of every async or generator-run
  notification handler under a fresh id and never removes it (about 2 KB per
  edit, for ever); here each is dropped when it completes.
- Requests whose params cannot be read get an InvalidParams error response
  instead of no response at all.
- Code lens answers are plain JSON values (see RAW_RESULTS).
- An `initialize` the process answered before pygls was imported (handshake.py) is handled
  as ever, but its answer is compared with the one sent instead of being sent twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import os
import uuid
from collections.abc import Generator
from concurrent.futures import Future
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcMethodNotFound
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.protocol.json_rpc import JsonRPCProtocol, JsonRPCResponseMessage

log = logging.getLogger("turnlens")

# Answers built as plain JSON values (thousands of lenses on a long transcript):
# sent as they are instead of through the typed per-object conversion.
RAW_RESULTS = frozenset({types.TEXT_DOCUMENT_CODE_LENS})


class _GuardedWriter:
    """The transport's writer, but a write that fails because the client closed our output
    ends the process: with nobody to talk to, living on would only log a traceback per message
    (and the client may keep stdin open, so no end of input would ever stop us)."""

    def __init__(self, writer: Any) -> None:
        self._writer = writer

    def close(self) -> Any:
        return self._writer.close()

    def write(self, data: bytes) -> Any:
        try:
            return self._writer.write(data)
        except (BrokenPipeError, ConnectionResetError, ValueError) as exc:
            # ValueError: "write to closed file" once the stream object itself is closed
            _output_lost(exc)
            return None


def _output_lost(exc: BaseException) -> None:
    log.error("the client closed the server's output (%s); exiting", type(exc).__name__)
    for handler in logging.getLogger().handlers:
        with contextlib.suppress(Exception):
            handler.flush()
    os._exit(1)


class TurnLensProtocol(LanguageServerProtocol):
    # the response already sent to the first `initialize` (handshake.py), until it is handled
    early_answer: dict[str, Any] | None = None

    def set_writer(self, writer: Any, include_headers: bool = True) -> None:  # type: ignore[override]
        super().set_writer(_GuardedWriter(writer), include_headers)

    def get_result_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        if method in RAW_RESULTS:
            return JsonRPCResponseMessage
        return super().get_result_type(method)

    # -- the early initialize answer ---------------------------------------------------
    def _send_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:
        early = self.early_answer
        if early is None or type(msg_id) is not type(early["id"]) or msg_id != early["id"]:
            super()._send_response(msg_id, result, error)
            return
        self.early_answer = None
        if error is not None:
            log.error("initialize was answered at start, but the server's answer is an error: %s", error)
            return
        response_type = self._result_types.pop(msg_id, JsonRPCResponseMessage)
        response = response_type(id=msg_id, result=result, jsonrpc=JsonRPCProtocol.VERSION)
        own = json.loads(json.dumps(response, default=self._serialize_message))
        if own != early:
            log.error("initialize was answered at start otherwise than the server answers it: %s", own)

    # -- hardening --------------------------------------------------------------------
    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if "jsonrpc" in data and "id" in data and "method" in data:
                error = JsonRpcInvalidParams(f"cannot read the params of {data['method']!r}")
                self._send_response(data["id"], error=error.to_response_error())
            raise exc

    def _handle_notification(self, method_name: str, params: Any) -> None:
        if method_name == types.CANCEL_REQUEST:
            super()._handle_notification(method_name, params)
            return
        try:
            handler = self._get_handler(method_name)
        except JsonRpcMethodNotFound:
            log.debug("ignoring notification for unknown method %r", method_name)
            return
        msg_id = str(uuid.uuid4())

        def done(future: Future[Any]) -> None:
            self._request_futures.pop(msg_id, None)
            self._check_handler_result(future)

        try:
            self._execute_handler(msg_id=msg_id, handler=handler, args=(params,), callback=done)
        except Exception:
            log.exception("notification %r failed", method_name)

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Generator[Any, Any, None]:
        """pygls's shutdown, over a copy of the pending handlers: cancelling a notification's
        handler (e.g. `initialized` still pulling settings, when the client sent everything at
        once) runs its callback at once, and that forgets it while pygls's loop walks them."""
        if (user_handler := self.fm.features.get(types.SHUTDOWN)) is not None:
            yield user_handler, args, None
        current_id = self.msg_id
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current_id and not future.done():
                future.cancel()
        self._shutdown = True

    # -- text sync ----------------------------------------------------------------------
    def _user(self, method: str, params: Any) -> None:
        """Run the server's handler for `method` directly (an async one as a tracked task)."""
        handler = self.fm.features.get(method)
        if handler is None:
            return
        result = handler(params)
        if inspect.isawaitable(result):
            task = asyncio.ensure_future(result)
            self._sync_tasks.add(task)
            task.add_done_callback(self._sync_done)

    @property
    def _sync_tasks(self) -> set[asyncio.Future[Any]]:
        tasks: set[asyncio.Future[Any]] | None = getattr(self, "_turnlens_tasks", None)
        if tasks is None:
            tasks = set()
            self._turnlens_tasks = tasks
        return tasks

    def _sync_done(self, task: asyncio.Future[Any]) -> None:
        self._sync_tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("document handler failed", exc_info=task.exception())

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        self._user(types.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        self._user(types.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        self._user(types.TEXT_DOCUMENT_DID_CLOSE, params)
