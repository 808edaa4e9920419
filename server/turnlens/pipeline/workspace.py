"""What applies to a document: settings + path → rule pack, user models, router, profile.

The one owner of that assembly. The language server asks a `Workspace` for every open
document; the CLI asks `command_line_pack` / `command_line_models` (the same readers, with
a command line's strictness: a file it cannot use stops the command); every run without
editor settings (a command, a batch job, the API) builds its `Profile` with
`profile_for_pack`. Results then come from `pipeline.analyze`.

Everything a workspace names is untrusted. Rules and model files are read with a bound
(`userfiles`), kept by version (mtime and size, failures too, so a bad file is read once,
not on every open), and a file that cannot be used leaves the built-in pack or the shipped
model in charge, with one message through `say`. Which router settings may come from a
workspace at all is decided where settings arrive (`lsp.config`, `TRUSTED_ROUTER_KEYS`); the
workspace keeps one `Router` per distinct configuration, so documents with other settings
never change how another is routed, nor reset its HTTP client or its pause.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from turnlens import userfiles
from turnlens.classifier import classify
from turnlens.core.rules import RulePack, RulePackError, builtin_pack
from turnlens.pipeline.analyze import Analyzed, UnitCache, UnitResult

# what a command line names is resolved in `command_line` (light to import); named here too
from turnlens.pipeline.command_line import WorkspaceError as WorkspaceError
from turnlens.pipeline.command_line import command_line_models as command_line_models
from turnlens.pipeline.command_line import command_line_pack as command_line_pack
from turnlens.pipeline.command_line import shown
from turnlens.pipeline.command_line import with_labels_model as with_labels_model
from turnlens.pipeline.command_line import with_user_model as with_user_model
from turnlens.pipeline.formats import AUTO, Edit, NotATranscript, Problem
from turnlens.pipeline.formats.turns import DEFAULT_SEPARATOR
from turnlens.pipeline.profile import DEFAULT_ROUTE_ROLES, Profile
from turnlens.router.resolve import Route, resolve_offline
from turnlens.router.settings import RouterSettings
from turnlens.userfiles import ModelCache, model_path

if TYPE_CHECKING:
    # made on first use (router_for): importing it brings asyncio and SSL, tens of
    # milliseconds a one-shot command that only resolves a pack never needs
    from turnlens.router.service import Router

log = logging.getLogger("turnlens")

MAX_PACKS_KEPT = 32
MAX_MODELLED_KEPT = 64

#: where a message goes: its text, and whether it is an error (else a warning)
Say = Callable[[str, bool], None]


class DocumentSettings(Protocol):
    """The settings that decide what applies to a document (`lsp.settings.Settings` has them)."""

    @property
    def format(self) -> str: ...
    @property
    def turn_separator(self) -> str: ...
    @property
    def hide_kinds(self) -> tuple[str, ...]: ...
    @property
    def rules_pack(self) -> str: ...
    @property
    def rules_file(self) -> str: ...
    @property
    def models(self) -> tuple[str, ...]: ...
    @property
    def router(self) -> RouterSettings: ...


@dataclass(frozen=True, slots=True)
class Applied:
    """What applies to one document: its pack (user rules and user model in), the user's model
    files by task, and its router settings (with the user's labels model)."""

    pack: RulePack
    models: Mapping[str, Any]
    router: RouterSettings


def profile_for(settings: DocumentSettings, pack: RulePack) -> Profile:
    """The profile a document is read, scored and routed with."""
    return Profile(
        format=settings.format,
        separator=settings.turn_separator,
        pack=pack,
        router=settings.router,
        route_roles=settings.router.roles,
        hide_kinds=settings.hide_kinds,
    )


def pack_named(pack: RulePack | str | None) -> RulePack:
    """A pack given by name (a built-in one) or as an object; None is `default`."""
    if pack is None:
        return builtin_pack("default")
    if isinstance(pack, str):
        return builtin_pack(pack)
    return pack


def profile_for_pack(
    pack: RulePack | str | None = None,
    *,
    format: str = AUTO,
    separator: str = DEFAULT_SEPARATOR,
    router: RouterSettings | None = None,
    route_roles: tuple[str, ...] = DEFAULT_ROUTE_ROLES,
) -> Profile:
    """The profile of a run without editor settings (the API, a command line, a batch job)."""
    return Profile(
        format=format,
        separator=separator,
        pack=pack_named(pack),
        router=router or RouterSettings(),
        route_roles=route_roles,
    )


def _log_say(message: str, error: bool) -> None:
    log.log(logging.ERROR if error else logging.WARNING, message)


class Workspace:
    """Resolves what applies to documents and keeps what it read, by file version."""

    def __init__(self, say: Say | None = None) -> None:
        self._say = say or _log_say
        self._packs: dict[tuple[str, str, int, int], RulePack] = {}
        self._models = ModelCache()
        self._modelled: dict[tuple[int, int], tuple[RulePack, Any, RulePack]] = {}
        self.routers: dict[RouterSettings, Router] = {}

    def say(self, message: str, *, error: bool = False) -> None:
        self._say(message, error)

    # -- what applies ------------------------------------------------------------------
    def resolve(self, settings: DocumentSettings, path: str | None, folder: str | None) -> Applied:
        """The pack, user models and router settings for a document at `path` (None: unsaved)."""
        models = self.user_models(settings.models, folder)
        pack = self.with_user_model(self.rules_pack(settings, path, folder), models)
        return Applied(pack, models, with_labels_model(settings.router, models))

    def rules_pack(self, settings: DocumentSettings, path: str | None, folder: str | None) -> RulePack:
        """The built-in pack, extended by the rules file setting or the nearest .turnlens.toml.

        A file that cannot be used leaves the built-in pack in charge, with one message; the
        outcome is kept per file version (mtime and size), so a bad file is read once, not on
        every didOpen.
        """
        base = builtin_pack(settings.rules_pack)
        file: Path | None = None
        try:
            if settings.rules_file:
                file = Path(settings.rules_file).expanduser()
                if not file.is_absolute() and folder:
                    file = Path(folder) / file
                if not file.exists():
                    self.say(f"turnlens.rules.file: {shown(file)}: no such file; using the {base.name} pack")
                    return base
            elif path:
                file = userfiles.find_project_rules(Path(path).parent)
            if file is None:
                return base
            info = file.stat()
        except (OSError, ValueError, RuntimeError) as exc:  # a name too long, a closed folder, a NUL, ~nobody
            where = shown(file if file is not None else settings.rules_file)
            reason = getattr(exc, "strerror", None) or exc
            self.say(f"turnlens.rules.file: {where}: {reason}; using the {base.name} pack")
            return base
        key = (settings.rules_pack, str(file), info.st_mtime_ns, info.st_size)
        pack = self._packs.get(key)
        if pack is None:
            pack = self._read_rules(file, base)
            if len(self._packs) >= MAX_PACKS_KEPT:
                self._packs.clear()
            self._packs[key] = pack
        return pack

    def _read_rules(self, file: Path, base: RulePack) -> RulePack:
        try:
            pack = userfiles.load_rules_file(file, base=base)
        except RulePackError as exc:
            self.say(f"{shown(str(exc))}; using the {base.name} pack", error=True)
            return base
        except Exception as exc:  # never let a rules file stop analysis
            log.exception("reading rules from %s failed", shown(file))
            self.say(
                f"{shown(file)}: cannot be used ({type(exc).__name__}); using the {base.name} pack",
                error=True,
            )
            return base
        for warning in pack.warnings:
            self.say(f"{shown(warning)} (rule skipped)", error=True)
        return pack

    def user_models(self, paths: Iterable[str], folder: str | None) -> dict[str, Any]:
        """The `turnlens.models` files by task (`classes`, `labels`), read once per version
        (`userfiles.ModelCache`: bounded reads, validation, one version per file kept)."""
        from turnlens.learn.model import ModelError, ModelMissing

        out: dict[str, Any] = {}
        for raw in paths:
            try:
                model = self._models.load(model_path(raw, folder))
            except ModelError as exc:
                missing = isinstance(exc, ModelMissing)
                self.say(f"turnlens.models: {shown(str(exc))}; using the shipped model", error=not missing)
                continue
            out[model.task] = model
        live = {id(m) for m in self._models.models()}  # packs built on models no longer loaded go
        self._modelled = {k: v for k, v in self._modelled.items() if id(v[1]) in live}
        return out

    def with_user_model(self, pack: RulePack, models: Mapping[str, Any]) -> RulePack:
        """The pack with the user's classes model deciding, when one is set (the same object for
        the same pack and model, so an unchanged pack stays unchanged)."""
        model = models.get("classes")
        if model is None or pack.model is None:
            return pack
        key = (id(pack), id(model))
        entry = self._modelled.get(key)
        if entry is None or entry[0] is not pack or entry[1] is not model:
            if len(self._modelled) > MAX_MODELLED_KEPT:
                self._modelled.clear()
            entry = (pack, model, with_user_model(pack, models))
            self._modelled[key] = entry
        return entry[2]

    def forget_files(self) -> None:
        """Read rules and model files again on next use (a reload, a settings change)."""
        self._packs.clear()
        self._models.clear()

    # -- routers ---------------------------------------------------------------------------
    def router_for(self, settings: RouterSettings) -> Router:
        """The router for one configuration, made on first use and shared by equal settings."""
        router = self.routers.get(settings)
        if router is None:
            from turnlens.router.service import Router

            router = self.routers[settings] = Router(settings)
        return router

    def prune_routers(self, used: Iterable[RouterSettings]) -> list[Coroutine[Any, Any, None]]:
        """Drop the routers no document uses any more; the closing of their HTTP clients, to await."""
        keep = set(used)
        closing = []
        for settings in [s for s in self.routers if s not in keep]:
            router = self.routers.pop(settings)
            if router.settings.uses_model:
                closing.append(router.aclose())
        return closing

    def reload_routers(self) -> None:
        for router in self.routers.values():
            router.reload()

    # -- results ----------------------------------------------------------------------------
    def analyze(
        self,
        cache: UnitCache,
        text: str,
        settings: DocumentSettings,
        pack: RulePack,
        path: str | None = None,
        edits: Edit | None = None,
        quick_over: int | None = None,
    ) -> tuple[Analyzed, RulePack]:
        """A document's results through its unit cache, and the pack that made them (with
        `quick_over`, new units beyond that many characters get quick provisional answers:
        see `UnitCache.analyze`).

        A user rule that breaks at run time costs its pack, never the analysis: the built-in
        pack takes over, with one message. Text that the chosen format refuses gives no results
        and, when the user chose that format (not auto-detection), a problem saying why.
        """
        paused = self.router_for(settings.router).paused
        # the routes shown while typing never run the encoder engine (docs/labels.md)
        router_settings = replace(settings.router, labeler="model")

        def route_fn(unit_text: str) -> Route:
            return resolve_offline(unit_text, router_settings, paused=paused, explain=False)

        used = pack
        try:
            try:
                return cache.analyze(
                    text, profile_for(settings, pack), route_fn, edits, path, quick_over
                ), pack
            except NotATranscript:
                raise
            except Exception as exc:
                used = builtin_pack(settings.rules_pack)
                if pack is used:
                    raise
                log.exception("analysis with the rules of %s failed", shown(pack.source))
                self.say(
                    f"{shown(pack.source)}: its rules failed ({type(exc).__name__}); "
                    f"using the {used.name} pack",
                    error=True,
                )
                cache.clear()
                return (
                    cache.analyze(text, profile_for(settings, used), route_fn, None, path, quick_over),
                    used,
                )
        except NotATranscript as exc:
            cache.clear()
            # auto-detection refusing a JSON file is no news; a format the user chose is
            problems = (Problem(1, str(exc)),) if settings.format != "auto" else ()
            if not problems:
                log.info("%s: %s", path or "<unsaved>", exc)
            return Analyzed(settings.format, (), problems), used

    def model_route(
        self, results: tuple[UnitResult, ...], router: RouterSettings, known: Mapping[str, Route]
    ) -> tuple[tuple[UnitResult, ...], str | None]:
        """The turn being written (the last routed unit) routed by the model back end, if one is
        on: the results with its answer in, or the text still to ask the back end about."""
        if router.backend == "rules":  # no back end: nothing to look for in 7,553 results
            return results, None
        live = [r for r in results if not r.unit.ignored and r.route.source != "role"]
        if not live:
            return results, None
        last = live[-1]
        text = last.unit.route_text
        now = self.router_for(router).route_now(text)
        route = now if now is not None else known.get(text)
        if route is None:
            return results, text
        replaced = UnitResult(last.unit, last.classification, route)
        return tuple(replaced if r is last else r for r in results), None

    def explained(
        self, result: UnitResult, pack: RulePack, router: RouterSettings, model_route: Route | None = None
    ) -> UnitResult:
        """A turn's result with where each rule fired (analysis keeps only which fired)."""
        unit = result.unit
        classification = classify(unit.text, pack, explain=True, pin=unit.pin, kind=unit.kind, call=unit.call)
        route = result.route
        if route.source != "role" and route is not model_route:  # a model's answer has no rules
            paused = self.router_for(router).paused
            route = resolve_offline(unit.route_text, replace(router, labeler="model"), paused=paused)
        return UnitResult(unit, classification, route)
