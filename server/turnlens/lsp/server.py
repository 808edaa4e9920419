"""The TurnLens language server: state, settings, analysis; features live in `features/`."""

from __future__ import annotations

import asyncio
import gc
import linecache
import logging
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from turnlens import __version__
from turnlens.classifier import classify
from turnlens.core.engine import prefer_memory, take_switched_off
from turnlens.core.rules import RulePack, RulePackError, builtin_pack, with_model
from turnlens.lsp.documents import DocState, glob_problem, is_excluded
from turnlens.lsp.protocol import TurnLensProtocol
from turnlens.lsp.settings import Settings, parse_settings
from turnlens.lsp.textdoc import Document
from turnlens.pipeline.analyze import Analyzed, UnitResult
from turnlens.pipeline.formats import NotATranscript, Problem
from turnlens.pipeline.formats.turns import DEFAULT_SEPARATOR, SeparatorError, compile_separator
from turnlens.pipeline.profile import Profile
from turnlens.router import Router
from turnlens.router.resolve import Route, resolve_offline
from turnlens.router.settings import RouterSettings

log = logging.getLogger("turnlens")

# Router keys that decide whether prompts leave the machine: taken only from
# initializationOptions (which editors fill from user-level settings), never
# from workspace settings or files in a cloned repository.
TRUSTED_ROUTER_KEYS = ("backend", "endpoint", "model", "apiKeyEnv")

Listener = Callable[["TurnLensServer", DocState], None]
TRIM_AFTER_UNITS = 500
TRIM_TEXT_CHARS = 1_000_000
TRIM_EVERY_S = 0.5
MAX_PACKS_KEPT = 32
MAX_GLOBS = 200  # turnlens.exclude entries (workspace settings) compiled per document


def _clip(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "…"


def _shown(path: object) -> str:
    """A path or message as it can be shown: bytes of a non-UTF-8 file name become U+FFFD."""
    return str(path).encode("utf-8", "surrogateescape").decode("utf-8", "replace")


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
        self.init_options: dict[str, Any] = {}
        # settings a client pushed with didChangeConfiguration (kept for documents opened later)
        self.pushed_settings: Mapping[str, Any] | None = None
        self.trusted_router: dict[str, Any] = {}
        # one router per distinct router configuration: documents with other settings
        # never change how this one is routed, nor reset its HTTP client or its pause
        self.routers: dict[RouterSettings, Router] = {}
        self.listeners: list[Listener] = []
        self._packs: dict[tuple[str, str, int, int], RulePack] = {}
        self._models: dict[tuple[str, float], Any] = {}
        self._modelled: dict[tuple[int, int], tuple[RulePack, Any, RulePack]] = {}
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
    def set_init_options(self, options: Any) -> None:
        opts = options if isinstance(options, Mapping) else {}
        self.init_options = dict(opts)
        settings = opts.get("settings", opts)
        router = settings.get("router") if isinstance(settings, Mapping) else None
        user = opts.get("userSettings")
        user_router = user.get("router") if isinstance(user, Mapping) else None
        trusted: dict[str, Any] = {}
        for source in (router, user_router):
            if isinstance(source, Mapping):
                trusted.update({k: source[k] for k in TRUSTED_ROUTER_KEYS if k in source})
        self.trusted_router = trusted
        self.router_for(self.base_settings().router)

    def base_settings_raw(self) -> dict[str, Any]:
        opts = self.init_options
        raw = opts.get("settings", opts)
        return dict(raw) if isinstance(raw, Mapping) else {}

    def base_settings(self) -> Settings:
        settings, warnings = parse_settings(self.base_settings_raw())
        for w in warnings:
            self.say_once(w)
        return settings

    def effective(self, raw: Mapping[str, Any] | None) -> Settings:
        """Settings from a configuration answer, with the back end kept to trusted values."""
        merged = self.base_settings_raw()
        if isinstance(raw, Mapping):
            merged = _deep_merge(merged, raw)
        router = dict(merged.get("router") or {}) if isinstance(merged.get("router"), Mapping) else {}
        for key in TRUSTED_ROUTER_KEYS:
            wanted = router.get(key)
            trusted = self.trusted_router.get(key)
            if wanted not in (None, "", trusted) and key == "backend":
                self.say_once(
                    f"turnlens.router.{key} from workspace settings is ignored: model back ends are "
                    "chosen in user settings only"
                )
            if trusted is None:
                router.pop(key, None)
            else:
                router[key] = trusted
        merged["router"] = router
        settings, warnings = parse_settings(merged)
        for w in warnings:
            self.say_once(w)
        return settings

    def router_for(self, settings: RouterSettings) -> Router:
        """The router for one configuration, made on first use and shared by equal settings."""
        router = self.routers.get(settings)
        if router is None:
            router = self.routers[settings] = Router(settings)
        return router

    def prune_routers(self) -> None:
        """Close the routers no open document uses any more (their HTTP clients too)."""
        used = {state.settings.router for state in self.documents.values()}
        for settings in [s for s in self.routers if s not in used]:
            router = self.routers.pop(settings)
            if router.settings.uses_model:
                self.spawn(router.aclose())

    def reload_routers(self) -> None:
        for router in self.routers.values():
            router.reload()

    def any_paused(self) -> bool:
        return any(router.paused for router in self.routers.values())

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
        self.apply_settings(state, self.effective(raw))

    def apply_settings(self, state: DocState, settings: Settings) -> None:
        try:
            compile_separator(settings.turn_separator)
        except SeparatorError as exc:
            self.say_once(f"turnlens.turnSeparator: {exc}; using {DEFAULT_SEPARATOR!r}")
            settings = replace(settings, turn_separator=DEFAULT_SEPARATOR)
        if len(settings.exclude) > MAX_GLOBS:
            self.say_once(
                f"turnlens.exclude: {len(settings.exclude):,} globs; only the first {MAX_GLOBS} are used"
            )
            settings = replace(settings, exclude=settings.exclude[:MAX_GLOBS])
        bad_globs = {g: why for g in settings.exclude if (why := glob_problem(g)) is not None}
        for glob, why in bad_globs.items():
            self.say_once(f"turnlens.exclude: the glob {_clip(ascii(glob))} is ignored: {why}")
        if bad_globs:
            settings = replace(settings, exclude=tuple(g for g in settings.exclude if g not in bad_globs))
        models = self.models_for(state, settings.models)
        state.user_models = models
        if "labels" in models:
            settings = replace(settings, router=replace(settings.router, label_model=models["labels"]))
        changed = settings != state.settings or state.pack is None
        state.settings = settings
        state.pack = self.with_user_model(state, self.pack_for(state))
        state.excluded = is_excluded(state.path, state.folder, settings.exclude)
        state.settings_ready = True
        if changed:
            state.cache.clear()
            state.payloads = {}
            state.analyzed_version = None
        self.router_for(settings.router)
        self.prune_routers()

    def pack_for(self, state: DocState) -> RulePack:
        """The built-in pack, extended by the rules file setting or the nearest .turnlens.toml.

        A file that cannot be used leaves the built-in pack in charge, with one message; the
        outcome is kept per file version (mtime and size), so a bad file is read once, not on
        every didOpen.
        """
        from turnlens.userfiles import find_project_rules, load_rules_file

        settings = state.settings
        base = builtin_pack(settings.rules_pack)
        path: Path | None = None
        try:
            if settings.rules_file:
                path = Path(settings.rules_file).expanduser()
                if not path.is_absolute() and state.folder:
                    path = Path(state.folder) / path
                if not path.exists():
                    self.say_once(
                        f"turnlens.rules.file: {_shown(path)}: no such file; using the {base.name} pack"
                    )
                    return base
            elif state.path:
                path = find_project_rules(Path(state.path).parent)
            if path is None:
                return base
            info = path.stat()
        except (OSError, ValueError, RuntimeError) as exc:  # a name too long, a closed folder, a NUL, ~nobody
            where = _shown(path if path is not None else settings.rules_file)
            reason = getattr(exc, "strerror", None) or exc
            self.say_once(f"turnlens.rules.file: {where}: {reason}; using the {base.name} pack")
            return base
        key = (settings.rules_pack, str(path), info.st_mtime_ns, info.st_size)
        pack = self._packs.get(key)
        if pack is None:
            try:
                pack = load_rules_file(path, base=base)
            except RulePackError as exc:
                self.say_once(f"{_shown(str(exc))}; using the {base.name} pack", types.MessageType.Error)
                pack = base
            except Exception as exc:  # never let a rules file stop analysis
                log.exception("reading rules from %s failed", _shown(path))
                self.say_once(
                    f"{_shown(path)}: cannot be used ({type(exc).__name__}); using the {base.name} pack",
                    types.MessageType.Error,
                )
                pack = base
            for warning in pack.warnings:
                self.say_once(f"{_shown(warning)} (rule skipped)", types.MessageType.Error)
            if len(self._packs) >= MAX_PACKS_KEPT:
                self._packs.clear()
            self._packs[key] = pack
        return pack

    def with_user_model(self, state: DocState, pack: RulePack) -> RulePack:
        """The pack with the `turnlens.models` classes model deciding, when one is set (the same
        object for the same pack and model, so an unchanged pack stays unchanged)."""
        model = state.user_models.get("classes")
        if model is None or pack.model is None:
            return pack
        key = (id(pack), id(model))
        entry = self._modelled.get(key)
        if entry is None or entry[0] is not pack or entry[1] is not model:
            if len(self._modelled) > 64:
                self._modelled.clear()
            entry = (pack, model, with_model(pack, model))
            self._modelled[key] = entry
        return entry[2]

    def refresh_pack(self, state: DocState) -> bool:
        """Read the document's rules file again if it changed since (its mtime or size differs, or
        it appeared or went); True when the pack changed, and the cached results with it."""
        if not state.settings_ready:
            return False
        pack = self.with_user_model(state, self.pack_for(state))
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

    def models_for(self, state: DocState, paths: tuple[str, ...]) -> dict[str, Any]:
        """The `turnlens.models` files by task (`classes`, `labels`), read once per change."""
        from turnlens.learn.model import ModelError
        from turnlens.userfiles import load_model_file

        out: dict[str, Any] = {}
        for raw in paths:
            path = Path(raw).expanduser()
            if not path.is_absolute() and state.folder:
                path = Path(state.folder) / path
            try:
                key = (str(path), path.stat().st_mtime)
            except OSError:
                self.say_once(f"turnlens.models: {path}: no such file; using the shipped model")
                continue
            model = self._models.get(key)
            if model is None:
                try:
                    model = load_model_file(path)
                except ModelError as exc:
                    self.say_once(f"turnlens.models: {exc}; using the shipped model", types.MessageType.Error)
                    continue
                self._models[key] = model
            out[model.task] = model
        return out

    def clear_packs(self) -> None:
        self._packs.clear()
        self._models.clear()

    # -- documents -----------------------------------------------------------------------
    def open_document(self, item: types.TextDocumentItem) -> DocState:
        doc = Document(item.uri, item.text, item.version, item.language_id, self.encoding)
        path = to_fs_path(item.uri) if item.uri.startswith("file:") else None
        state = DocState(doc=doc, path=path, folder=self._folder_of(path))
        state.settings = self.base_settings()
        self.documents[item.uri] = state
        return state

    def _folder_of(self, path: str | None) -> str | None:
        if not path:
            return None
        try:
            folders = self.workspace.folders.values()
        except RuntimeError:
            return None
        best = None
        for folder in folders:
            fpath = to_fs_path(folder.uri)
            if fpath and path.startswith(fpath) and (best is None or len(fpath) > len(best)):
                best = fpath
        return best

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
            profile = self.profile_of(state)
            paused = self.router_for(settings.router).paused
            router_settings = settings.router

            def route_fn(unit_text: str) -> Route:
                return resolve_offline(unit_text, router_settings, paused=paused, explain=False)

            misses = state.cache.misses
            edits = state.doc.take_edits()
            try:
                analyzed = self._analyze_with_fallback(state, text, profile, route_fn, edits)
            except NotATranscript as exc:
                state.cache.clear()
                # auto-detection refusing a JSON file is no news; a format the user chose is
                shown = (Problem(1, str(exc)),) if settings.format != "auto" else ()
                if not shown:
                    log.info("%s: %s", state.doc.uri, exc)
                analyzed = Analyzed(settings.format, (), shown)
            for message in take_switched_off():
                self.say_once(message, types.MessageType.Error)
            state.format_name = analyzed.format
            state.title = analyzed.title
            state.problems = analyzed.problems
            state.results = self._with_model_route(state, analyzed.results)
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

    def _analyze_with_fallback(
        self, state: DocState, text: str, profile: Profile, route_fn: Callable[[str], Route], edits: Any
    ) -> Analyzed:
        """The analysis; a user rule that breaks at run time costs its pack, never the analysis:
        the built-in pack takes over, with one message."""
        try:
            return state.cache.analyze(text, profile, route_fn, edits, state.path)
        except NotATranscript:
            raise
        except Exception as exc:
            builtin = builtin_pack(state.settings.rules_pack)
            if profile.pack is builtin:
                raise
            log.exception("analysis with the rules of %s failed", _shown(profile.pack.source))
            self.say_once(
                f"{_shown(profile.pack.source)}: its rules failed ({type(exc).__name__}); "
                f"using the {builtin.name} pack",
                types.MessageType.Error,
            )
            state.pack = builtin
            state.cache.clear()
            return state.cache.analyze(text, self.profile_of(state), route_fn, None, state.path)

    def _with_model_route(self, state: DocState, results: tuple[UnitResult, ...]) -> tuple[UnitResult, ...]:
        """The turn being written (the last unit) is routed by the model back end, if one is on."""
        live = [r for r in results if not r.unit.ignored]
        live = [r for r in live if r.route.source != "role"]
        if not live or state.settings.router.backend == "rules":
            return results
        last = live[-1]
        text = last.unit.route_text
        now = self.router_for(state.settings.router).route_now(text)
        route = now if now is not None else state.model_routes.get(text)
        if route is None:
            self._ask_model(state, text)
            return results
        replaced = UnitResult(last.unit, last.classification, route)
        return tuple(replaced if r is last else r for r in results)

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
        unit = result.unit
        pack = state.pack or builtin_pack(state.settings.rules_pack)
        classification = classify(unit.text, pack, explain=True, pin=unit.pin)
        route = result.route
        routed = route.source != "role"
        if routed and route is not state.model_routes.get(unit.route_text):  # a model's answer has no rules
            paused = self.router_for(state.settings.router).paused
            route = resolve_offline(unit.route_text, state.settings.router, paused=paused)
        return UnitResult(unit, classification, route)

    def profile_of(self, state: DocState) -> Profile:
        """What applies to this document: its format, pack and router settings."""
        settings = state.settings
        return Profile(
            format=settings.format,
            separator=settings.turn_separator,
            pack=state.pack or builtin_pack(settings.rules_pack),
            router=settings.router,
            route_roles=settings.router.roles,
            hide_kinds=settings.hide_kinds,
        )

    def ensure_fresh(self, state: DocState) -> tuple[UnitResult, ...]:
        """Results for the current text: analysed now if stale and analysis is on-type."""
        if not state.fresh and state.settings.analyze == "onType" and state.settings_ready:
            self.analyze(state)
        return state.results

    def reanalyze_all(self) -> None:
        for state in list(self.documents.values()):
            if state.settings.analyze != "manual" or state.analyzed_version is not None:
                self.analyze(state)


def _deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def build_server() -> TurnLensServer:
    from turnlens.lsp import features

    server = TurnLensServer()
    features.register_all(server)
    return server


class ClientLogHandler(logging.Handler):
    """Sends TurnLens's own log records to the client as window/logMessage, where editors
    show them as information (stderr is read as errors by some clients, e.g. Neovim 0.7)."""

    LEVELS = (
        (logging.ERROR, types.MessageType.Error),
        (logging.WARNING, types.MessageType.Warning),
        (logging.INFO, types.MessageType.Info),
        (logging.NOTSET, types.MessageType.Log),
    )

    def __init__(self, server: TurnLensServer, level: int) -> None:
        super().__init__(level)
        self.server = server
        self.loop: asyncio.AbstractEventLoop | None = None
        self._sending = False

    def emit(self, record: logging.LogRecord) -> None:
        # a record logged while sending one (e.g. "the client closed the server's output")
        # goes to stderr only: sending it would fail the same way, and recurse
        if (
            self._sending
            or getattr(record, "to_client", True) is False
            or self.server.protocol.writer is None
        ):
            return
        self._sending = True
        try:
            self._send(record)
        finally:
            self._sending = False

    def _send(self, record: logging.LogRecord) -> None:
        kind = next(t for lvl, t in self.LEVELS if record.levelno >= lvl)
        params = types.LogMessageParams(type=kind, message=f"TurnLens: {self.format(record)}")
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        try:
            if loop is not None:
                self.loop = loop
                self.server.window_log_message(params)
            elif self.loop is not None and not self.loop.is_closed():
                self.loop.call_soon_threadsafe(self.server.window_log_message, params)
        except Exception:  # logging must never take the server down
            self.handleError(record)


def run_server(
    host: str | None, port: int | None, log_level: str = "WARNING", log_file: str | None = None
) -> int:
    """Logs go to stderr at `log_level` (warnings by default), to the client at INFO and up
    (or lower, when asked), and to `log_file` at `log_level`."""
    level = logging.getLevelName(log_level)
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setLevel(level)
    handlers: list[logging.Handler] = [stderr]
    if log_file:
        to_file = logging.FileHandler(log_file, encoding="utf-8")
        to_file.setLevel(level)
        handlers.append(to_file)
    logging.basicConfig(
        level=min(level, logging.INFO), handlers=handlers, format="%(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("pygls").setLevel(max(logging.WARNING, level))
    # Transcripts make many small long-lived objects; collect less often so an edit is not
    # followed by a full collection of all of them. What start-up made (protocol types,
    # modules) lives as long as the process: frozen, the collector never walks it again.
    gc.set_threshold(20_000, 20, 20)
    prefer_memory()
    server = build_server()
    # attrs files the source of each method it generates for lsprotocol's ~560 classes in
    # `linecache` (for tracebacks into them): ~3.5 MB the server never reads
    for name in [n for n in linecache.cache if n.startswith("<attrs generated")]:
        del linecache.cache[name]
    gc.freeze()
    gc.enable()
    to_client = ClientLogHandler(server, min(level, logging.INFO))
    to_client.setFormatter(logging.Formatter("%(message)s"))
    log.addHandler(to_client)
    if host is not None and port is not None:
        if port == 0:
            _announce_port(server, host)
        server.start_tcp(host, port)
    else:
        server.start_io()
    # LSP: 0 after a shutdown request, 1 when the client left (exit or EOF) without one
    return 0 if getattr(server.protocol, "_shutdown", False) else 1


def _announce_port(server: TurnLensServer, host: str) -> None:
    """With `--tcp HOST:0` the system picks the port: print it (stderr) once it is bound."""
    import threading
    import time

    def wait() -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            listener = getattr(server, "_server", None)
            sockets = getattr(listener, "sockets", None) if listener is not None else None
            if sockets:
                bound = sockets[0].getsockname()
                sys.stderr.write(f"turnlens serve: listening on {host}:{bound[1]}\n")
                sys.stderr.flush()
                return
            time.sleep(0.02)

    threading.Thread(target=wait, name="turnlens-port", daemon=True).start()
