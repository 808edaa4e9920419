"""The TurnLens language server: LSP state (documents, settings, background tasks) and the
adapter between it and the pipeline; what applies to a document is the `Workspace`'s to
resolve, and the features (in `features/`) turn results into LSP messages."""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from collections.abc import Callable, Iterator, Mapping
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
from turnlens.lsp.handshake import Handshake
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
# a listener's work in bounded steps (it yields between them), for the publish once a long
# document's labels are final: requests are answered between the steps
Stager = Callable[["TurnLensServer", DocState], Iterator[None]]
# told of the final answers a refinement slice gave (a view prepares what it will publish)
Preparer = Callable[["TurnLensServer", DocState, list[UnitResult]], None]
TRIM_AFTER_UNITS = 500
TRIM_TEXT_CHARS = 1_000_000
TRIM_EVERY_S = 0.5
# New text over this many characters gets the rules' quick answers first (published at once),
# then the model's in slices of about REFINE_SLICE_S between requests: a 5 MB session shows its
# labels in a fraction of a second and a request never waits long behind the model.
QUICK_OVER_CHARS = 200_000
REFINE_SLICE_S = 0.01
REFINE_YIELDS = 4
REFINE_FIRST_CHARS = 0  # one unit: the first slice may load the models
REFINE_MIN_CHARS = 2_000
REFINE_MAX_CHARS = 1_000_000


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
        self.stagers: dict[Listener, Stager] = {}
        self.preparers: list[Preparer] = []
        self._said: set[str] = set()
        self._trimmed = 0.0
        self._tasks: set[asyncio.Task[Any]] = set()

    def start_io(self, stdin: Any = None, stdout: Any = None, handshake: Handshake | None = None) -> None:
        """Serve over stdin/stdout, the event loop reading stdin (see `transport`), after what
        the process read and answered before the server was built (`handshake`)."""
        from pygls import IS_WASM

        if IS_WASM:
            super().start_io(stdin, stdout)
            return
        from turnlens.lsp.transport import serve_stdio

        serve_stdio(self, stdin, stdout, handshake)

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
        so what is published always belongs to the latest version.

        Many new characters at once (opening a long session, a paste) get the rules' quick
        answers first; the model then refines them in slices between requests (`_refine`)."""
        if state.timer is not None:
            state.timer.cancel()
            state.timer = None
        settings = state.settings
        text = state.doc.text
        state.too_large = len(text) > settings.max_document_size
        if not settings.enable or state.excluded or state.too_large:
            state.results = ()
            state.cache.pending = {}
        else:
            self.refresh_pack(state)
            misses = state.cache.misses
            edits = state.doc.take_edits()
            pack = self.pack_of(state)
            analyzed, state.pack = self.resolver.analyze(
                state.cache, text, settings, pack, state.path, edits, QUICK_OVER_CHARS
            )
            for message in take_switched_off():
                self.say_once(message, types.MessageType.Error)
            state.format_name = analyzed.format
            state.title = analyzed.title
            state.info = analyzed.info
            state.problems = analyzed.problems
            results = analyzed.results
            if state.cache.pending:
                # the turn being written (the status bar shows it) is refined first
                live = [r for r in results if not r.unit.ignored and r.route.source != "role"]
                key = state.cache.key_of(live[-1].unit) if live else None
                state.refine_first = (key,) if key is not None else ()
            self._set_results(state, results)
            if state.cache.misses - misses > TRIM_AFTER_UNITS:
                release_memory()
        state.analyzed_version = state.doc.version
        state.analyzed_text = text
        self._tell_views(state)
        if len(text) >= TRIM_TEXT_CHARS:
            now = time.monotonic()
            if now - self._trimmed >= TRIM_EVERY_S:
                # an edit of a long document frees its old text, units and published JSON:
                # hand those pages back now and then, or the heap only ever grows
                self._trimmed = now
                release_memory()
        if state.cache.pending and (state.refining is None or state.refining.done()):
            state.refining = self.spawn(self._refine(state))

    def _set_results(self, state: DocState, results: tuple[UnitResult, ...]) -> None:
        """The results views read, with the model back end's route for the turn being written."""
        state.results, ask = self.resolver.model_route(results, state.settings.router, state.model_routes)
        state.refined_since = False
        if ask is not None:
            self._ask_model(state, ask)

    def _tell_views(self, state: DocState) -> None:
        for listener in self.listeners:
            try:
                listener(self, state)
            except Exception:
                log.exception("a view failed to update for %s", state.doc.uri)

    async def _tell_views_in_steps(self, state: DocState) -> bool:
        """`_tell_views`, a turn of the loop before each view and between a stager's steps;
        False when the document changed meanwhile (what is left is not told)."""
        results = state.results
        for listener in self.listeners:
            await asyncio.sleep(0)
            if not self._still(state, results):
                return False
            steps = self.stagers.get(listener)
            try:
                if steps is None:
                    listener(self, state)
                    continue
                for _ in steps(self, state):
                    await asyncio.sleep(0)
                    if not self._still(state, results):
                        return False
            except Exception:
                log.exception("a view failed to update for %s", state.doc.uri)
        return True

    def _still(self, state: DocState, results: tuple[UnitResult, ...]) -> bool:
        """Whether `state` is open, its analysis current and its results still `results`."""
        return self.documents.get(state.doc.uri) is state and state.fresh and state.results is results

    async def _refine(self, state: DocState) -> None:
        """Give the model's answers for a document's quick ones, a bounded slice at a time,
        yielding to the event loop between slices so that requests and edits are answered
        meanwhile; publish once all are final. An edit stops it (the edit's analysis starts
        it again, keeping what was refined: answers are cached by text)."""
        budget = REFINE_FIRST_CHARS
        refined = 0
        while True:
            # a message takes a few turns of the loop (read, parse, a handler's task, the
            # answer): let them all pass before the next slice
            for _ in range(REFINE_YIELDS):
                await asyncio.sleep(0)
            if self.documents.get(state.doc.uri) is not state or not state.fresh:
                return
            cache = state.cache
            if cache.pending:
                started = time.perf_counter()
                try:
                    done = cache.refine(budget, (*state.refine_first, *state.refine_visible))
                except Exception:  # a user rule or model that breaks only now: analyse in full
                    log.exception("refining the labels of %s failed", state.doc.uri)
                    cache.clear()
                    self.analyze(state)
                    return
                refined += len(done)
                state.refined_since = True
                for prepare in self.preparers:  # the final publish then only joins what is ready
                    prepare(self, state, done)
                took = time.perf_counter() - started
                # aim each slice at REFINE_SLICE_S whatever the machine's speed or load
                scaled = budget * REFINE_SLICE_S / max(took, 1e-4)
                budget = int(min(REFINE_MAX_CHARS, max(REFINE_MIN_CHARS, (budget + scaled) / 2)))
                continue
            state.refine_first = state.refine_visible = ()
            if not refined and not any(r.provisional for r in state.results):
                return  # nothing the views showed has changed
            # all final: the results in one turn of the loop, the views told over the next few
            self._set_results(state, cache.results())
            if not await self._tell_views_in_steps(state):
                return  # an edit meanwhile: its analysis published, and refines what is new
            await asyncio.sleep(0)
            # the quick answers, their diagnostics and the publish's JSON are garbage now
            release_memory()
            if not state.cache.pending:
                return
            refined = 0  # an analysis meanwhile brought new quick answers: refine those too

    def refined(self, state: DocState, result: UnitResult) -> UnitResult:
        """`result` with its final answer: a provisional one is refined now (one unit), so a
        hover agrees with the lens and the diagnostic published once the model has read all.
        (`result` may come from results built before the last slices: its unit is the same.)"""
        cache = state.cache
        key = cache.key_of(result.unit) if state.fresh and cache.pending else None
        if key is None:
            return result
        if key in cache.pending:
            for prepare in self.preparers:
                prepare(self, state, cache.refine(0, (key,)))
            state.refined_since = True
        now = cache.result_of(result.unit, key)
        if now.route.source != "role" and result.route.source != "pending":
            now = UnitResult(now.unit, now.classification, result.route)  # a model back end's
        return now

    def settle_views(self, state: DocState) -> None:
        """Let a request see what the model has refined so far (results are rebuilt lazily)."""
        if state.refined_since and state.fresh:
            self._set_results(state, state.cache.results())

    def settle(self, state: DocState) -> None:
        """Refine every provisional answer now (for a command that reports on the whole
        document), and publish the final labels."""
        if not state.cache.pending or not state.fresh:
            return
        state.cache.refine(sys.maxsize)
        self._set_results(state, state.cache.results())
        self._tell_views(state)

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

    def ensure_fresh(self, state: DocState, *, settle: bool = True) -> tuple[UnitResult, ...]:
        """Results for the current text: analysed now if stale and analysis is on-type; with
        what the model has refined so far unless `settle` is False (the caller looks at one
        unit and asks `refined` for it: a long document's results are not rebuilt for that)."""
        if not state.fresh and state.settings.analyze == "onType" and state.settings_ready:
            self.analyze(state)
        if settle:
            self.settle_views(state)
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
