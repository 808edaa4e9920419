"""Prompt files: a reusable prompt or standing instructions, often under YAML frontmatter.

Known by name: `*.prompt.md` and `.github/prompts/*.md` (VS Code / Copilot),
`.claude/commands/*.md` and `.claude/agents/*.md` (Claude Code), `AGENTS.md`,
`CLAUDE.md`, `CLAUDE.local.md`, `GEMINI.md`, `.github/copilot-instructions.md`
and `*.instructions.md`. The whole file is one user prompt. Its frontmatter
(`description:`, `mode:`, `allowed-tools:`, `model:` …) describes the prompt
rather than being part of it, so the unit's text is the body after it and
scoring never sees a `status:` key or a `---` rule there; the frontmatter rides
along as the unit's `meta`, so an `effort:` key still reaches the router.
"""

from __future__ import annotations

import re

from turnlens.pipeline.formats.base import Edit, FormatOptions, Split
from turnlens.pipeline.formats.mdtext import directives_in, file_ignored, trimmed
from turnlens.pipeline.units import Unit

_NAMES = frozenset({"agents.md", "claude.md", "claude.local.md", "gemini.md", "copilot-instructions.md"})
_SUFFIXES = (".prompt.md", ".instructions.md", ".chatmode.md")
_FOLDERS = ("/.github/prompts/", "/.claude/commands/", "/.claude/agents/")
_OPEN = re.compile(r"\ufeff?---[ \t]*\r?\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)


def is_prompt_file(path: str | None) -> bool:
    """Whether the file name marks a prompt file (the content alone never does)."""
    if not path:
        return False
    norm = "/" + path.replace("\\", "/").lstrip("/")
    base = norm.rsplit("/", 1)[-1].lower()
    if base in _NAMES or base.endswith(_SUFFIXES):
        return True
    return base.endswith(".md") and any(folder in norm for folder in _FOLDERS)


def frontmatter_end(text: str) -> int:
    """Offset just past a leading YAML frontmatter block (its closing line break too); 0: none."""
    m = _OPEN.match(text)
    if m is None:
        return 0
    close = _CLOSE.search(text, m.end())
    if close is None:
        return 0
    nl = text.find("\n", close.end())
    return len(text) if nl < 0 else nl + 1


def split_prompt(text: str) -> list[Unit]:
    """The one unit of a prompt file (none when only frontmatter or white space is there)."""
    body_at = frontmatter_end(text)
    start, end = trimmed(text, body_at, len(text))
    if start == end:
        return []
    body = text[start:end]
    d = directives_in(body)
    meta = text[:start] if body_at else None
    return [Unit(1, start, end, body, d.pin, d.ignore or file_ignored(text), "user", "prompt", meta=meta)]


class PromptFileFormat:
    """A prompt file: one user prompt, frontmatter kept out of scoring."""

    name = "prompt-file"
    label = "prompt file (Markdown with optional YAML frontmatter)"
    comments = True

    def detect(self, path: str | None, head: str) -> int:
        return 90 if is_prompt_file(path) else 0

    def split(self, text: str, options: FormatOptions) -> Split:
        units = split_prompt(text)
        if "prompt" in options.hide_kinds:
            units = []
        return Split(units)

    def resplit(self, text: str, options: FormatOptions, previous: Split, edit: Edit) -> Split:
        return self.split(text, options)  # a single unit: nothing to reuse

    def split_marker(self, options: FormatOptions) -> str | None:
        return None  # a prompt file is one prompt


PROMPT_FILE = PromptFileFormat()
