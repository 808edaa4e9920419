"""The `turnlens` editor settings: one model, its JSON Schema, and lenient parsing.

The schema printed by `turnlens schema` is the one source of truth: the VS Code
package's `contributes.configuration` is generated from it and the docs' settings
table too. Parsing never raises: an invalid value falls back to its default and
is reported once.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from turnlens.pipeline.formats import SESSION_GLOBS
from turnlens.pipeline.formats import names as _format_names
from turnlens.pipeline.formats.turns import DEFAULT_SEPARATOR
from turnlens.pipeline.units import KINDS
from turnlens.router.settings import RouterSettings, parse_router_settings, router_settings_schema

FORMAT_NAMES = _format_names()

SEVERITIES = ("error", "warning", "information", "hint", "off")
ANALYZE_MODES = ("onType", "onSave", "manual")
PACKS = ("default", "reference")

# Leaves of the `turnlens` object (router settings come from the router's own schema).
_LEAVES: dict[str, dict[str, Any]] = {
    "enable": {
        "type": "boolean",
        "default": True,
        "markdownDescription": "Analyse prompts and transcripts. Off: TurnLens shows nothing.",
    },
    "analyze": {
        "type": "string",
        "enum": list(ANALYZE_MODES),
        "enumDescriptions": [
            "As you type, after `#turnlens.debounceMs#` of quiet.",
            "When the document is opened or saved.",
            "Only when a command asks (Classify Document, Reload).",
        ],
        "default": "onType",
        "markdownDescription": "When to analyse a document.",
    },
    "debounceMs": {
        "type": "integer",
        "default": 150,
        "minimum": 0,
        "maximum": 10000,
        "markdownDescription": "Quiet time after an edit before the document is analysed, in milliseconds.",
    },
    "exclude": {
        "type": "array",
        "items": {"type": "string"},
        "default": [],
        "markdownDescription": "Glob patterns of files TurnLens leaves alone (e.g. `**/node_modules/**`, `CHANGELOG.md`).",
    },
    "maxDocumentSize": {
        "type": "integer",
        "default": 50_000_000,
        "minimum": 1,
        "markdownDescription": "Documents larger than this many characters get one informational "
        "diagnostic instead of analysis.",
    },
    "turnSeparator": {
        "type": "string",
        "default": DEFAULT_SEPARATOR,
        "markdownDescription": "A regular expression that matches a whole line separating turns. "
        "A document without such a line is one unit.",
    },
    "format": {
        "type": "string",
        "enum": ["auto", *FORMAT_NAMES],
        "default": "auto",
        "markdownDescription": "How to read a document: `auto` detects session files (Claude Code, "
        "Codex, ChatGPT exports, …) by name and content; plain text splits on `#turnlens.turnSeparator#`.",
    },
    "hideKinds": {
        "type": "array",
        "items": {"type": "string", "enum": list(KINDS)},
        "default": [],
        "markdownDescription": "Kinds of session messages to leave out of the views, e.g. "
        '`["thinking", "tool_call"]`. They are still read.',
    },
    "rules.pack": {
        "type": "string",
        "enum": list(PACKS),
        "enumDescriptions": [
            "The SE-029 rules with their false positives fixed (recommended).",
            "The original SE-029 rules, exactly.",
        ],
        "default": "default",
        "markdownDescription": "The built-in rule pack that scores task classes.",
    },
    "rules.file": {
        "type": "string",
        "default": "",
        "markdownDescription": "A rules TOML file that extends the pack (relative paths are resolved "
        "against the workspace folder). Without it, the nearest `.turnlens.toml` above the document is used.",
    },
    "models": {
        "type": "array",
        "items": {"type": "string"},
        "default": [],
        "x-scope": "machine",
        "markdownDescription": "Model files made by `turnlens train` (user settings only: a workspace "
        "cannot choose them; relative paths are resolved against the workspace folder): a `classes` "
        "model decides the task class with the `default` pack, a `labels` model is the router's "
        "embedded labeler. Empty: the models shipped with TurnLens.",
    },
    "budget": {
        "type": "integer",
        "default": 0,
        "minimum": 0,
        "markdownDescription": "Token budget for the session plan lens of multi-turn documents (0: no plan lens).",
    },
    "diagnostics.enable": {
        "type": "boolean",
        "default": True,
        "markdownDescription": "Show one diagnostic per turn with its class, ratio and effort.",
    },
    "diagnostics.severity": {
        "type": "string",
        "enum": list(SEVERITIES),
        "default": "hint",
        "markdownDescription": "Severity of the per-turn diagnostics (`off` hides them).",
    },
    "codeLens.enable": {
        "type": "boolean",
        "default": True,
        "markdownDescription": "Show code lenses above each turn (class, ratio, frozen, route) and the session plan.",
    },
    "inlayHints.enable": {
        "type": "boolean",
        "default": True,
        "markdownDescription": "Show a compact label at the end of each turn's first line.",
    },
    "hover.enable": {
        "type": "boolean",
        "default": True,
        "markdownDescription": "Explain a turn on hover: scores, rules that fired, and why the route is what it is.",
    },
    "codeActions.enable": {
        "type": "boolean",
        "default": True,
        "markdownDescription": "Offer quick actions: route directive, pin or ignore a turn, split a turn.",
    },
    "status.enable": {
        "type": "boolean",
        "default": True,
        "markdownDescription": "Send the active document's class and effort to the editor's status bar.",
    },
}

# Leaves only the editor client reads (how to start the server); part of the same schema.
_CLIENT_LEAVES: dict[str, dict[str, Any]] = {
    "server.command": {
        "type": "array",
        "items": {"type": "string"},
        "default": [],
        "x-scope": "machine",
        "markdownDescription": 'Command that starts the server, e.g. `["/opt/venv/bin/turnlens", "serve"]`. '
        "Empty: run `-m turnlens serve` with `#turnlens.server.python#`.",
    },
    "server.python": {
        "type": "string",
        "default": "",
        "x-scope": "machine",
        "markdownDescription": "Python interpreter that has `turnlens` installed. Empty: the Python "
        "extension's interpreter, else `python3` on `PATH`.",
    },
    "trace.server": {
        "type": "string",
        "enum": ["off", "messages", "verbose"],
        "default": "off",
        "x-scope": "window",
        "markdownDescription": "Trace the LSP messages between the editor and the server in the output channel.",
    },
    "documentSelector": {
        "type": "array",
        "items": {"type": "string"},
        "default": [
            "markdown",
            "plaintext",
            "**/*.prompt",
            "**/*.prompt.md",
            "**/*.chat.md",
            "**/CLAUDE.md",
            "**/AGENTS.md",
            *SESSION_GLOBS,
        ],
        "x-scope": "window",
        "markdownDescription": "Documents TurnLens analyses: language ids, or glob patterns of file paths. "
        "Takes effect after a server restart.",
    },
}


def _nest(flat: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
    """Dotted leaves → nested JSON Schema objects."""
    root: dict[str, Any] = {}
    for dotted, leaf in flat.items():
        node = root
        *parents, last = dotted.split(".")
        for part in parents:
            node = node.setdefault(part, {"type": "object", "properties": {}})["properties"]
        node[last] = leaf
    return root


def settings_schema() -> dict[str, Any]:
    """The JSON Schema of the nested `turnlens` settings object."""
    leaves: dict[str, dict[str, Any]] = {k: {**v} for k, v in _LEAVES.items()}
    for leaf in leaves.values():
        leaf.setdefault("x-scope", "resource")
    router = {f"router.{k}": v for k, v in router_settings_schema().items()}
    client = {k: {**v, "x-client": True} for k, v in _CLIENT_LEAVES.items()}
    for leaf in router.values():
        leaf.setdefault("x-scope", "resource")
    properties = _nest({**leaves, **router, **client})
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "TurnLens settings",
        "description": "Settings of the `turnlens` section (workspace/configuration).",
        "type": "object",
        "properties": properties,
    }


def flat_leaves() -> dict[str, dict[str, Any]]:
    """Every leaf of the schema by dotted key (`router.backend`)."""
    out: dict[str, dict[str, Any]] = {}

    def walk(props: Mapping[str, Any], prefix: str) -> None:
        for name, node in props.items():
            # a namespace has no default of its own; an object-valued setting does
            if node.get("type") == "object" and "properties" in node and "default" not in node:
                walk(node["properties"], f"{prefix}{name}.")
            else:
                out[f"{prefix}{name}"] = node

    walk(settings_schema()["properties"], "")
    return out


def settings_markdown() -> str:
    """The settings table for the docs, generated so it never drifts."""
    rows = ["| Setting | Type | Default | Scope | Description |", "|---|---|---|---|---|"]
    for key, leaf in flat_leaves().items():
        kind = leaf.get("type", "")
        if "enum" in leaf:
            kind = " \\| ".join(f"`{e}`" for e in leaf["enum"])
        default = leaf.get("default")
        shown = json.dumps(default, ensure_ascii=False)
        if len(shown) > 60:
            shown = shown[:57] + "…"
        desc = str(leaf.get("markdownDescription", "")).replace("|", "\\|").replace("\n", " ")
        scope = "client" if leaf.get("x-client") else leaf.get("x-scope", "resource")
        rows.append(f"| `turnlens.{key}` | {kind} | `{shown}` | {scope} | {desc} |")
    return "\n".join(rows) + "\n"


# Settings a workspace cannot set (x-scope machine): which model files are loaded is the user's
# choice, as is the router's back end (lsp/server.py TRUSTED_ROUTER_KEYS). The server takes them
# from initializationOptions only (`userSettings` over `settings`).
TRUSTED_KEYS = ("models",)


def trusted_values(init_options: Mapping[str, Any]) -> dict[str, Any]:
    """The trusted-only settings as initializationOptions give them."""
    out: dict[str, Any] = {}
    settings = init_options.get("settings", init_options)
    for source in (settings, init_options.get("userSettings")):
        if isinstance(source, Mapping):
            for key in TRUSTED_KEYS:
                value = _lookup(source, key)
                if value is not _MISSING:
                    out[key] = value
    return out


def with_trusted(merged: Mapping[str, Any], trusted: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """`merged` (settings with a workspace's answer merged in) with each trusted-only key set to
    its trusted value, or removed; one message per key a workspace tried to change."""
    out = dict(merged)
    notes = []
    for key in TRUSTED_KEYS:
        wanted = _lookup(out, key)
        out.pop(key, None)
        out.pop(f"turnlens.{key}", None)
        if key in trusted:
            out[key] = trusted[key]
        if wanted is not _MISSING and wanted not in (None, [], trusted.get(key, [])):
            notes.append(
                f"turnlens.{key} from workspace settings is ignored: it is read from user settings only"
            )
    return out, notes


@dataclass(frozen=True)
class Settings:
    """The effective settings for one document."""

    enable: bool = True
    analyze: str = "onType"
    debounce_ms: int = 150
    exclude: tuple[str, ...] = ()
    max_document_size: int = 50_000_000
    turn_separator: str = DEFAULT_SEPARATOR
    format: str = "auto"
    hide_kinds: tuple[str, ...] = ()
    rules_pack: str = "default"
    rules_file: str = ""
    models: tuple[str, ...] = ()
    budget: int = 0
    diagnostics: bool = True
    severity: str = "hint"
    code_lens: bool = True
    inlay_hints: bool = True
    hover: bool = True
    code_actions: bool = True
    status: bool = True
    router: RouterSettings = field(default_factory=RouterSettings)


_FIELDS = {
    "enable": "enable",
    "analyze": "analyze",
    "debounceMs": "debounce_ms",
    "exclude": "exclude",
    "maxDocumentSize": "max_document_size",
    "turnSeparator": "turn_separator",
    "format": "format",
    "hideKinds": "hide_kinds",
    "rules.pack": "rules_pack",
    "rules.file": "rules_file",
    "models": "models",
    "budget": "budget",
    "diagnostics.enable": "diagnostics",
    "diagnostics.severity": "severity",
    "codeLens.enable": "code_lens",
    "inlayHints.enable": "inlay_hints",
    "hover.enable": "hover",
    "codeActions.enable": "code_actions",
    "status.enable": "status",
}
_MISSING = object()


def _lookup(raw: Mapping[str, Any], dotted: str) -> Any:
    """A value by dotted key, from nested objects or flat dotted keys (clients send either)."""
    if dotted in raw:
        return raw[dotted]
    node: Any = raw
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return _MISSING
        node = node[part]
    return node


def _valid(leaf: Mapping[str, Any], value: Any) -> bool:
    kind = leaf["type"]
    if kind == "boolean":
        ok = isinstance(value, bool)
    elif kind == "integer":
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif kind == "string":
        ok = isinstance(value, str)
    elif kind == "array":
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        if ok and "enum" in leaf.get("items", {}):
            ok = all(v in leaf["items"]["enum"] for v in value)
    else:
        ok = True
    if ok and "enum" in leaf:
        ok = value in leaf["enum"]
    if ok and "minimum" in leaf:
        ok = value >= leaf["minimum"]
    if ok and "maximum" in leaf:
        ok = value <= leaf["maximum"]
    return ok


def parse_settings(raw: Mapping[str, Any] | None) -> tuple[Settings, list[str]]:
    """Settings from the client's `turnlens` object; invalid values → default + a warning."""
    raw = raw if isinstance(raw, Mapping) else {}
    values: dict[str, Any] = {}
    warnings: list[str] = []
    for key, attr in _FIELDS.items():
        value = _lookup(raw, key)
        if value is _MISSING or value is None:
            continue
        leaf = _LEAVES[key]
        if not _valid(leaf, value):
            warnings.append(f"turnlens.{key}: invalid value {value!r}; using the default {leaf['default']!r}")
            continue
        values[attr] = tuple(value) if isinstance(value, list) else value
    router_raw = _lookup(raw, "router")
    router, router_warnings = parse_router_settings(router_raw if isinstance(router_raw, Mapping) else None)
    warnings.extend(w if w.startswith("turnlens.") else f"turnlens.{w}" for w in router_warnings)
    return Settings(**values, router=router), warnings
