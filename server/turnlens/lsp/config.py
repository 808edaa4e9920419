"""Where a document's settings come from, and which of them a workspace may set.

The client gives settings three ways: `initializationOptions` (filled by editors from
user-level settings), a `didChangeConfiguration` push, and `workspace/configuration`
answers per document (which include the workspace's own `.vscode/settings.json`). Router
keys that decide whether prompts leave the machine, and which model files are loaded
(`lsp.settings.TRUSTED_KEYS`), are taken from the first only: a cloned repository cannot
switch on a model back end, point it elsewhere, or choose the model that labels its text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from turnlens.lsp.documents import glob_problem
from turnlens.lsp.settings import Settings, parse_settings, trusted_values, with_trusted
from turnlens.pipeline.formats.turns import DEFAULT_SEPARATOR, SeparatorError, compile_separator

# Router keys that decide whether prompts leave the machine: taken only from
# initializationOptions (which editors fill from user-level settings), never
# from workspace settings or files in a cloned repository.
TRUSTED_ROUTER_KEYS = ("backend", "endpoint", "model", "apiKeyEnv")
MAX_GLOBS = 200  # turnlens.exclude entries (workspace settings) compiled per document

Say = Callable[[str], None]


def _clip(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "…"


def deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


class SettingsSources:
    """The settings the client gave at start (trusted) and what later answers may change."""

    def __init__(self, say: Say) -> None:
        self.say = say
        self.init_options: dict[str, Any] = {}
        self.trusted_router: dict[str, Any] = {}
        self.trusted_settings: dict[str, Any] = {}  # lsp.settings.TRUSTED_KEYS (model files)

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
        self.trusted_settings = trusted_values(opts)

    def base_raw(self) -> dict[str, Any]:
        opts = self.init_options
        raw = opts.get("settings", opts)
        return dict(raw) if isinstance(raw, Mapping) else {}

    def base(self) -> Settings:
        return self._parsed(self.base_raw())

    def effective(self, raw: Mapping[str, Any] | None) -> Settings:
        """Settings from a configuration answer, with the back end kept to trusted values."""
        merged = self.base_raw()
        if isinstance(raw, Mapping):
            merged = deep_merge(merged, raw)
        router = dict(merged.get("router") or {}) if isinstance(merged.get("router"), Mapping) else {}
        for key in TRUSTED_ROUTER_KEYS:
            wanted = router.get(key)
            trusted = self.trusted_router.get(key)
            if wanted not in (None, "", trusted) and key == "backend":
                self.say(
                    f"turnlens.router.{key} from workspace settings is ignored: model back ends are "
                    "chosen in user settings only"
                )
            if trusted is None:
                router.pop(key, None)
            else:
                router[key] = trusted
        merged["router"] = router
        merged, notes = with_trusted(merged, self.trusted_settings)
        for note in notes:
            self.say(note)
        return self._parsed(merged)

    def _parsed(self, raw: Mapping[str, Any]) -> Settings:
        settings, warnings = parse_settings(raw)
        for w in warnings:
            self.say(w)
        return settings

    def usable(self, settings: Settings) -> Settings:
        """The settings with what cannot be used replaced, each problem said once: a separator
        that does not compile, exclude globs past the limit or that cannot be matched safely."""
        try:
            compile_separator(settings.turn_separator)
        except SeparatorError as exc:
            self.say(f"turnlens.turnSeparator: {exc}; using {DEFAULT_SEPARATOR!r}")
            settings = replace(settings, turn_separator=DEFAULT_SEPARATOR)
        if len(settings.exclude) > MAX_GLOBS:
            self.say(
                f"turnlens.exclude: {len(settings.exclude):,} globs; only the first {MAX_GLOBS} are used"
            )
            settings = replace(settings, exclude=settings.exclude[:MAX_GLOBS])
        bad_globs = {g: why for g in settings.exclude if (why := glob_problem(g)) is not None}
        for glob, why in bad_globs.items():
            self.say(f"turnlens.exclude: the glob {_clip(ascii(glob))} is ignored: {why}")
        if bad_globs:
            settings = replace(settings, exclude=tuple(g for g in settings.exclude if g not in bad_globs))
        return settings
