"""The input formats and auto-detection: every reader of a document's units lives here.

A new format is one module with a `Format` object, listed in `_REGISTRY`.
"""

from __future__ import annotations

from turnlens.core.prebuilt import IGNORECASE, MULTILINE, compile_re

TYPE_CHECKING = False  # neither `typing` nor `re` on the one-shot path (see core/record.py)
if TYPE_CHECKING:
    from typing import Any

    from turnlens.pipeline.formats.base import (
        Edit,
        Format,
        FormatOptions,
        NotATranscript,
        Problem,
        Split,
    )

# re-exported from `base` on first use: a one-shot `classify --input` that `plainly_one_text`
# answers never imports it (dataclasses and all)
_FROM_BASE = frozenset({"Edit", "Format", "FormatOptions", "NotATranscript", "Problem", "Split"})


def __getattr__(name: str) -> Any:
    if name in _FROM_BASE:
        from turnlens.pipeline.formats import base

        return getattr(base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AUTO",
    "SESSION_GLOBS",
    "Edit",
    "Format",
    "FormatOptions",
    "NotATranscript",
    "Problem",
    "Split",
    "detect",
    "get_format",
    "names",
    "plainly_one_text",
    "readable_name",
]

AUTO = "auto"

# name → "module:attribute"; modules are imported on first use
_REGISTRY: dict[str, str] = {
    "turns": "turnlens.pipeline.formats.turns:TURNS",
    "claude-code": "turnlens.pipeline.formats.claude_code:CLAUDE_CODE",
    # session files and exports that are JSON (one document) or JSON Lines
    "codex": "turnlens.pipeline.formats.codex:CODEX",
    "gemini": "turnlens.pipeline.formats.gemini:GEMINI",
    "gemini-jsonl": "turnlens.pipeline.formats.gemini:GEMINI_JSONL",
    "chatgpt": "turnlens.pipeline.formats.chatgpt:CHATGPT",
    "openai": "turnlens.pipeline.formats.openai:OPENAI",
    "openai-jsonl": "turnlens.pipeline.formats.openai:OPENAI_JSONL",
    "anthropic": "turnlens.pipeline.formats.anthropic:ANTHROPIC",
    "claude-ai": "turnlens.pipeline.formats.claude_ai:CLAUDE_AI",
    "gemini-logs": "turnlens.pipeline.formats.gemini_logs:GEMINI_LOGS",
    "copilot-cli": "turnlens.pipeline.formats.copilot_cli:COPILOT_CLI",
    "sharegpt": "turnlens.pipeline.formats.sharegpt:SHAREGPT",
    "sharegpt-jsonl": "turnlens.pipeline.formats.sharegpt:SHAREGPT_JSONL",
    # Markdown-based text formats
    "aider": "turnlens.pipeline.formats.aider:AIDER",
    "markdown-chat": "turnlens.pipeline.formats.markdown_chat:MARKDOWN_CHAT",
    "prompt-file": "turnlens.pipeline.formats.prompt_file:PROMPT_FILE",
}

DETECT_HEAD = 64 * 1024

# What a folder walk (check, stats, batch, export-pins) reads: files by their ending, and
# session files by the names agents give them; the formats decide the rest by content.
FILE_SUFFIXES = (".md", ".txt", ".jsonl", ".json")
FILE_NAMES = (".aider.chat.history.md", "conversations.json")


# Session files an editor should hand to TurnLens beyond Markdown and plain text (the server
# stays silent on JSON that no format claims).
SESSION_GLOBS = ("**/*.jsonl", "**/conversations.json", "**/.gemini/**/*.json")  # logs.json too


def readable_name(name: str) -> bool:
    """Whether a folder walk should read a file of this name."""
    return name.endswith(FILE_SUFFIXES) or ".prompt" in name or name in FILE_NAMES


def names() -> tuple[str, ...]:
    """Every format name, for `--from` and the settings schema."""
    return tuple(_REGISTRY)


_LOADED: dict[str, Format] = {}


def get_format(name: str) -> Format:
    """The format called `name`; KeyError names the known ones."""
    loaded = _LOADED.get(name)
    if loaded is not None:
        return loaded
    where = _REGISTRY.get(name)
    if where is None:
        raise KeyError(f"unknown format {name!r} (known: {AUTO}, {', '.join(_REGISTRY)})")
    import importlib

    module, _, attr = where.partition(":")
    fmt: Format = getattr(importlib.import_module(module), attr)
    _LOADED[name] = fmt
    return fmt


def _looks_structured(path: str | None, head: str) -> bool:
    lower = (path or "").lower()
    if lower.endswith((".json", ".jsonl", ".ndjson")):
        return True
    if lower.endswith((".md", ".txt", ".markdown")):
        return False
    return head.lstrip()[:1] in ("{", "[")


def detect(path: str | None, text: str) -> Format:
    """The format that claims `text` most surely; plain turns when none does.

    A JSON document that no transcript format claims raises NotATranscript
    rather than being scored as prose.
    """
    head = text[:DETECT_HEAD].removeprefix("\ufeff")  # a byte-order mark says nothing of the format
    best: Format | None = None
    best_score = 0
    for name in _REGISTRY:
        fmt = get_format(name)
        score = fmt.detect(path, head)
        if score > best_score:
            best, best_score = fmt, score
    if best is None or best.name == "turns":
        if _looks_structured(path, head):
            from turnlens.pipeline.formats.base import NotATranscript

            raise NotATranscript(
                "not a transcript: JSON that matches no known session format "
                f"(known: {', '.join(n for n in _REGISTRY if n != 'turns')})"
            )
        return get_format("turns")
    return best


# The role words of a Markdown chat's markers (`## User`, `**Assistant:**`, `_**User**_`);
# markdown_chat builds its markers from these.
CHAT_ROLE = (
    r"(?P<word>user|human|me|you|prompt|system|assistant|ai|claude|chatgpt|gpt[-\w.]*|gemini"
    r"|copilot|model|bot|agent|response|cursor)"
)
# What every one of those markers starts its line with: without such a line a Markdown chat's
# `detect` answers 0 (markdown_chat matches `_HEADING`, `_SPECSTORY`, `_LABEL` at line starts).
_MAYBE_MARKER = compile_re(
    rf"^(?:[ ]{{0,3}}#{{1,6}}[ \t]+(?:\*\*|__)?|\*\*|__|_\*\*){CHAT_ROLE}", IGNORECASE | MULTILINE
)


def plainly_one_text(path: str | None, head: str) -> bool:
    """True when no format but `turns` and `prompt-file` (both: the text is one prompt) could
    claim `head`, decided without importing a format module; False says only "ask `detect`".

    Each clause is a condition without which a format's `detect` answers 0: the JSON and
    JSON Lines formats need a `{` (or a leading `[`), Aider its header or file name,
    Markdown chats a line that starts as a role marker does (tests/formats/test_detect.py checks
    the promise against `detect` on generated text)."""
    lower = (path or "").lower()
    if lower.endswith((".json", ".jsonl", ".ndjson")):
        return False
    if "{" in head or head.lstrip()[:1] == "[":
        return False
    if lower.endswith("aider.chat.history.md") or "# aider chat started at" in head:
        return False
    if "#" not in head and "**" not in head and "__" not in head:
        return True
    return _MAYBE_MARKER.search(head) is None  # `# ` comments and **bold** words are no marker


def resolve(name: str, path: str | None, text: str) -> Format:
    """`name` as given, or the detected format for `auto`."""
    return detect(path, text) if name == AUTO else get_format(name)
