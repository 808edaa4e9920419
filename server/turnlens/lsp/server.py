"""The TurnLens language server: LSP state (documents, settings, background tasks) and the
adapter between it and the pipeline; what applies to a document is the `Workspace`'s to
resolve, and the features (in `features/`) turn results into LSP messages."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from turnlens import __version__
from turnlens.core.engine import take_switched_off
from turnlens.core.rules import RulePack, builtin_pack
from turnlens.lsp.config import SettingsSources
from turnlens.lsp.documents import DocState, folder_of, is_excluded
from turnlens.lsp.protocol import TurnLensProtocol
from turnlens.lsp.settings import Settings
from turnlens.lsp.textdoc import Document
from turnlens.pipeline.analyze import UnitResult
from turnlens.pipeline.profile import Profile
from turnlens.pipeline.workspace import Workspace, profile_for
from turnlens.router import Router
from turnlens.router.settings import RouterSettings

log = logging.getLogger("turnlens")

Listener = Callable[["TurnLensServer", DocState], None]
TRIM_AFTER_UNITS = 500
TRIM_TEXT_CHARS = 1_000_000
TRIM_EVERY_S = 0.5


def release_memory() -> None:
    """Hand memory freed by a big analysis back to the system (glibc keeps it otherwise)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to do
        pass


class TurnLensServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "turnlens",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=TurnLensProtocol,
        )
        self.documents: dict[str, DocState] = {}
        # settings a client pushed with didChangeConfiguration (kept for documents opened later)
        self.pushed_settings: Mapping[str, Any] | None = None
        self.sources = SettingsSources(lambda message: self.say_once(message))
        # what applies to each document (packs, rules files, models, routers); `self.workspace`
        # is pygls's record of the editor's folders
        self.resolver = Workspace(
            lambda message, error: self.say_once(
                message, types.MessageType.Error if error else types.MessageType.Warning
            )
        )
        self.listeners: list[Listener] = []
        self._said: set[str] = set()
        self._trimmed = 0.0
        self._tasks: set[asyncio.Task[Any]] = set()

    # -- client facts ------------------------------------------------------------
    @property
    def encoding(self) -> str:
        try:
            enc = self.workspace.position_encoding or types.PositionEncodingKind.Utf16
        except RuntimeError:
            enc = types.PositionEncodingKind.Utf16
        return str(getattr(enc, "value", enc))

    def client_supports(self, path: str) -> bool:
        caps = self.client_capabilities if self.protocol.client_capabilities else None
        return bool(caps and get_capability(caps, path, False))

    @property
    def client_capabilities(self) -> types.ClientCapabilities:
        return self.protocol.client_capabilities

    # -- messages ------------------------------------------------------------------
    def say_once(self, message: str, level: types.MessageType = types.MessageType.Warning) -> None:
        """Log a problem to the client once per session (invalid settings, bad rules)."""
        if message in self._said:
            return
        self._said.add(message)
        log.warning(message, extra={"to_client": False})
        self.window_log_message(types.LogMessageParams(type=level, message=f"TurnLens: {message}"))

    def send_json(self, body: str) -> None:
        """Send a message that is already JSON text (hot paths skip per-object conversion)."""
        writer = self.protocol.writer
        if writer is None:
            return
        data = body.encode("utf-8")
        header = (
            f"Content-Length: {len(data)}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"
        )
        res = writer.write(header.encode("ascii") + data)
        if asyncio.iscoroutine(res):
            self.spawn(res)

    def spawn(self, coro: Any) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background task failed", exc_info=task.exception())

    # -- settings --------------------------------------------------------------------
    @property
    def init_options(self) -> dict[str, Any]:
        return self.sources.init_options

    def set_init_options(self, options: Any) -> None:
        self.sources.set_init_options(options)
        self.router_for(self.base_settings().router)

    def base_settings(self) -> Settings:
        return self.sources.base()

    def router_for(self, settings: RouterSettings) -> Router:
        return self.resolver.router_for(settings)

    def prune_routers(self) -> None:
        """Close the routers no open document uses any more (their HTTP clients too)."""
        for closing in self.resolver.prune_routers(s.settings.router for s in self.documents.values()):
            self.spawn(closing)

    async def pull_settings(self, state: DocState) -> None:
        raw: Any = self.pushed_settings
        if self.client_supports("workspace.configuration"):
            try:
                answer = await self.workspace_configuration_async(
                    types.ConfigurationParams(
                        items=[types.ConfigurationItem(section="turnlens", scope_uri=state.doc.uri)]
                    )
                )
                if answer and isinstance(answer[0], Mapping):
                    raw = answer[0]
            except Exception as exc:  # a client that errors: fall back, keep working
                self.say_once(f"workspace/configuration failed ({exc}); using initializationOptions")
        self.apply_settings(state, self.sources.effective(raw))

    def apply_settings(self, state: DocState, settings: Settings) -> None:
        settings = self.sources.usable(settings)
        applied = self.resolver.resolve(settings, state.path, state.folder)
        settings = replace(settings, router=applied.router)
        changed = settings != state.settings or state.pack is None
        state.settings = settings
        state.user_models = dict(applied.models)
        state.pack = applied.pack
        state.excluded = is_excluded(state.path, state.folder, settings.exclude)
        state.settings_ready = True
        if changed:
            state.cache.clear()
            state.payloads = {}
            state.analyzed_version = None
        self.router_for(settings.router)
        self.prune_routers()

    def pack_for(self, state: DocState) -> RulePack:
        """The document's rules (its rules file or .turnlens.toml over the built-in pack)."""
        return self.resolver.rules_pack(state.settings, state.path, state.folder)

    def refresh_pack(self, state: DocState) -> bool:
        """Read the document's rules file again if it changed since (its mtime or size differs, or
        it appeared or went); True when the pack changed, and the cached results with it."""
        if not state.settings_ready:
            return False
        pack = self.resolver.with_user_model(self.pack_for(state), state.user_models)
        if pack is state.pack:
            return False
        state.pack = pack
        state.cache.clear()
        state.payloads = {}
        state.preview = None
        return True

    def rules_files_changed(self) -> None:
        """A watched rules file was created, changed or deleted: documents under it follow now."""
        for state in list(self.documents.values()):
            if self.refresh_pack(state) and (
                state.settings.analyze != "manual" or state.analyzed_version is not None
            ):
                self.analyze(state)

    # -- documents -----------------------------------------------------------------------
    def open_document(self, item: types.TextDocumentItem) -> DocState:
        doc = Document(item.uri, item.text, item.version, item.language_id, self.encoding)
        path = to_fs_path(item.uri) if item.uri.startswith("file:") else None
        try:
            folders = [to_fs_path(f.uri) for f in self.workspace.folders.values()]
        except RuntimeError:
            folders = []
        state = DocState(doc=doc, path=path, folder=folder_of(path, folders))
        state.settings = self.base_settings()
        self.documents[item.uri] = state
        return state

    # -- analysis ----------------------------------------------------------------------------
    def analyze(self, state: DocState) -> None:
        """Analyse the current text and tell every view; nothing awaits in between,
        so what is published always belongs to the latest version."""
        if state.timer is not None:
            state.timer.cancel()
            state.timer = None
        settings = state.settings
        text = state.doc.text
        state.too_large = len(text) > settings.max_document_size
        if not settings.enable or state.excluded or state.too_large:
            state.results = ()
        else:
            self.refresh_pack(state)
            misses = state.cache.misses
            edits = state.doc.take_edits()
            pack = self.pack_of(state)
            analyzed, state.pack = self.resolver.analyze(state.cache, text, settings, pack, state.path, edits)
            for message in take_switched_off():
                self.say_once(message, types.MessageType.Error)
            state.format_name = analyzed.format
            state.title = analyzed.title
            state.info = analyzed.info
            state.problems = analyzed.problems
            state.results, ask = self.resolver.model_route(
                analyzed.results, settings.router, state.model_routes
            )
            if ask is not None:
                self._ask_model(state, ask)
            if state.cache.misses - misses > TRIM_AFTER_UNITS:
                release_memory()
        state.analyzed_version = state.doc.version
        state.analyzed_text = text
        for listener in self.listeners:
            try:
                listener(self, state)
            except Exception:
                log.exception("a view failed to update for %s", state.doc.uri)
        if len(text) >= TRIM_TEXT_CHARS:
            now = time.monotonic()
            if now - self._trimmed >= TRIM_EVERY_S:
                # an edit of a long document frees its old text, units and published JSON:
                # hand those pages back now and then, or the heap only ever grows
                self._trimmed = now
                release_memory()

    def _ask_model(self, state: DocState, text: str) -> None:
        if state.model_pending == text:
            return
        state.model_pending = text

        async def ask() -> None:
            try:
                route = await self.router_for(state.settings.router).route(text, key=state.doc.uri)
            finally:
                if state.model_pending == text:
                    state.model_pending = None
            if route is None or self.documents.get(state.doc.uri) is not state:
                return  # superseded by a newer edit, or closed: drop the late answer
            state.remember_model_route(text, route)
            if state.fresh and any(r.unit.route_text == text for r in state.results):
                self.analyze(state)

        self.spawn(ask())

    def current_results(self, state: DocState) -> tuple[UnitResult, ...]:
        """Results for the text as it is now. In onSave / manual mode the last analysis can be of
        older text, whose offsets would put an edit in the wrong place: the current text is then
        analysed here, for the caller only (nothing is published, the cache is left alone)."""
        results = self.ensure_fresh(state)
        if state.fresh or not state.settings_ready or state.silent:
            return results
        text = state.doc.text
        if state.preview is not None and state.preview[0] == state.doc.version and state.preview[1] is text:
            return state.preview[2]
        from turnlens.pipeline.analyze import analyze

        try:
            current = analyze(text, self.profile_of(state), state.path).results
        except Exception:  # NotATranscript, or a broken user rule: no positions to offer
            log.debug("no current analysis of %s for positions", state.doc.uri, exc_info=True)
            current = ()
        state.preview = (state.doc.version, text, current)
        return current

    def named_document(self, arg: Mapping[str, Any], name: str) -> DocState:
        """The open document a command or custom request names by `uri`; InvalidParams when
        the argument is not a string or the document is not open."""
        uri = arg.get("uri")
        if not isinstance(uri, str):
            raise JsonRpcInvalidParams(f"{name}: `uri` must be a string")
        state = self.documents.get(uri)
        if state is None:
            raise JsonRpcInvalidParams(f"{name}: {uri} is not open")
        return state

    def explained(self, state: DocState, result: UnitResult) -> UnitResult:
        """A turn's result with where each rule fired (analysis keeps only which fired)."""
        known = state.model_routes.get(result.unit.route_text)
        return self.resolver.explained(result, self.pack_of(state), state.settings.router, known)

    def pack_of(self, state: DocState) -> RulePack:
        """The document's pack as resolved, or the built-in one until its settings arrive."""
        return state.pack or builtin_pack(state.settings.rules_pack)

    def profile_of(self, state: DocState) -> Profile:
        """What applies to this document: its format, pack and router settings."""
        return profile_for(state.settings, self.pack_of(state))

    def ensure_fresh(self, state: DocState) -> tuple[UnitResult, ...]:
        """Results for the current text: analysed now if stale and analysis is on-type."""
        if not state.fresh and state.settings.analyze == "onType" and state.settings_ready:
            self.analyze(state)
        return state.results

    def reanalyze_all(self) -> None:
        for state in list(self.documents.values()):
            if state.settings.analyze != "manual" or state.analyzed_version is not None:
                self.analyze(state)


def build_server() -> TurnLensServer:
    from turnlens.lsp import features

    server = TurnLensServer()
    features.register_all(server)
    return server
