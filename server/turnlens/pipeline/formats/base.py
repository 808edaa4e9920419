"""What a format is: detect a document, split it into units, re-split after an edit."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from turnlens.pipeline.units import Unit

Edit = tuple[int, int]  # (unchanged prefix length, unchanged suffix length)


class NotATranscript(ValueError):
    """The text is not in the format asked for (or in none that auto-detection knows)."""


@dataclass(frozen=True, slots=True)
class Problem:
    """Something a reader passed over: a bad line, an unknown record type, a cut last line."""

    line: int  # 1-based; 0 when the problem has no line
    message: str
    severity: str = "warning"  # "warning" | "info"


@dataclass(frozen=True, slots=True)
class FormatOptions:
    """Per-document options a format may read (only `turns` reads the separator)."""

    separator: str = "---TURN---"
    hide_kinds: tuple[str, ...] = ()


@dataclass(slots=True)
class Split:
    """The units of one document, what was passed over, and what a re-split may reuse."""

    units: list[Unit]
    problems: list[Problem] = field(default_factory=list)
    state: Any = None  # the format's own memo for `resplit`
    title: str | None = None  # a session title where the file records one


class Format(Protocol):
    """One input format. Readers are pure: text in, units out, no I/O."""

    name: str  # e.g. "claude-code"
    label: str  # e.g. "Claude Code session (JSONL)"
    comments: bool  # whether `<!-- turnlens: … -->` comments can be inserted into a unit

    def detect(self, path: str | None, head: str) -> int:
        """How sure this format is that a document is its own: 0 (no) to 100 (certain).

        `head` is the document's first 64 KiB or so; `path` its file name, if any.
        """
        ...

    def split(self, text: str, options: FormatOptions) -> Split:
        """Every unit of `text`, in order, with index counting from 1.

        Raises NotATranscript when the text is clearly not this format.
        """
        ...

    def resplit(self, text: str, options: FormatOptions, previous: Split, edit: Edit) -> Split:
        """As `split`, reusing `previous` outside the edited stretch where the format can."""
        ...

    def split_marker(self, options: FormatOptions) -> str | None:
        """A line that, inserted, splits a unit in two (None: the format has none)."""
        ...


def reindex(units: list[Unit]) -> list[Unit]:
    """Number units 1…n (readers collect first, then number once)."""
    return [u if u.index == i else u._replace(index=i) for i, u in enumerate(units, 1)]
