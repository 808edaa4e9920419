"""split_units(): a document → its turns, each with its exact character range.

A document is one unit unless it contains turn separator lines; then each turn
between separators is a unit. Inline comments steer a unit:
`<!-- turnlens: class=decision -->` pins its class, `<!-- turnlens: ignore -->`
silences it, `<!-- turnlens: ignore-file -->` silences the whole document.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from turnlens.core.classes import CLASS_NAMES
from turnlens.core.safe_re import PatternError, SafePattern

DEFAULT_SEPARATOR = "---TURN---"
_DIRECTIVE = re.compile(r"<!--[ \t]*turnlens:[ \t]*(.*?)[ \t]*-->", re.IGNORECASE)
_BLANK_PREFIX = re.compile(r"[ \t\r\n\f\v]*")


class SeparatorError(ValueError):
    """A turn separator pattern that cannot be used."""


class Unit(NamedTuple):
    """One turn: `text == document[start:end]`; `index` counts from 1.

    A named tuple rather than a dataclass: transcripts have thousands of turns
    and a tuple is several times cheaper to make.
    """

    index: int  # type: ignore[assignment]  # shadows tuple.index, which nothing here uses
    start: int
    end: int
    text: str
    pin: str | None = None
    ignored: bool = False

    @property
    def content_start(self) -> int:
        """Offset of the first non-blank character (where views anchor)."""
        m = _BLANK_PREFIX.match(self.text)
        return self.start + (m.end() if m else 0)


@dataclass(frozen=True, slots=True)
class Directives:
    pin: str | None = None
    ignore: bool = False
    ignore_file: bool = False
    problems: tuple[str, ...] = ()


_NO_DIRECTIVES = Directives()


def parse_directives(text: str) -> Directives:
    """Read `<!-- turnlens: … -->` comments; unknown words are reported, not fatal."""
    if "<!--" not in text:
        return Directives()
    pin: str | None = None
    ignore = ignore_file = False
    problems: list[str] = []
    for m in _DIRECTIVE.finditer(text):
        for word in m.group(1).replace(",", " ").split():
            key, _, value = word.partition("=")
            key = key.lower()
            if key == "ignore" and not value:
                ignore = True
            elif key == "ignore-file" and not value:
                ignore_file = True
            elif key == "class" and value.lower() in CLASS_NAMES:
                pin = value.lower()
            else:
                problems.append(f"unknown turnlens directive {word!r}")
    return Directives(pin, ignore, ignore_file, tuple(problems))


def _strip_anchors(pattern: str) -> str:
    core = pattern[1:] if pattern.startswith("^") else pattern
    if core.endswith("$") and not core.endswith("\\$"):
        core = core[:-1]
    return core


@lru_cache(maxsize=64)
def literal_separator(pattern: str) -> str | None:
    """The separator as plain text when the pattern has no regex syntax (the common case)."""
    core = _strip_anchors(pattern)
    try:
        if (
            core
            and re.fullmatch(core, core)
            and re.escape(core).replace("\\-", "-") == core.replace("\\-", "-")
        ):
            return core
    except re.error:
        return None
    return None


@lru_cache(maxsize=64)
def compile_separator(pattern: str) -> SafePattern:
    """A separator is a regex that matches a whole line (its `^`/`$` are optional).

    It comes from settings a repository can carry, so it runs on RE2 (linear time).
    """
    core = _strip_anchors(pattern)
    if not core:
        raise SeparatorError("the turn separator pattern is empty")
    try:
        rx = SafePattern(rf"(?m)^(?:{core})[ \t]*\r?$")
    except PatternError as exc:
        raise SeparatorError(f"the turn separator {pattern!r} does not compile (RE2 syntax): {exc}") from None
    if rx.match(""):
        raise SeparatorError(f"the turn separator {pattern!r} matches an empty line")
    return rx


def _line_end(text: str, pos: int) -> int:
    """Offset just past the line break at or after `pos` (or the end of text)."""
    nl = text.find("\n", pos)
    return len(text) if nl < 0 else nl + 1


def _literal_lines(text: str, literal: str, lo: int = 0, hi: int | None = None) -> list[tuple[int, int]]:
    """(start, end) of each line that is exactly `literal` (plus trailing blanks), within [lo, hi)."""
    out = []
    find = text.find
    n = len(literal)
    hi = len(text) if hi is None else hi
    i = find(literal, lo, hi)
    while i >= 0:
        if i == 0 or text[i - 1] == "\n":  # as the regex `^sep[ \t]*\r?$`: only LF ends a line
            j = i + n
            while j < len(text) and text[j] in " \t":
                j += 1
            if j < len(text) and text[j] == "\r":
                j += 1
            if j == len(text) or text[j] == "\n":
                out.append((i, j))
        i = find(literal, i + n, hi)
    return out


def separator_lines(text: str, separator: str, lo: int = 0, hi: int | None = None) -> list[tuple[int, int]]:
    """(start, end) of every separator line within [lo, hi), without its line break.

    `lo` and `hi` must sit at line boundaries; the language server re-splits
    only the stretch an edit touched.
    """
    hi = len(text) if hi is None else hi
    literal = literal_separator(separator)
    if literal is not None:
        return _literal_lines(text, literal, lo, hi)
    return [m.span() for m in compile_separator(separator).finditer(text, lo, hi)]


def split_units(text: str, separator: str = DEFAULT_SEPARATOR) -> list[Unit]:
    """The non-empty units of a document, in order, with exact offsets."""
    compile_separator(separator)  # validates, raising SeparatorError
    spans: list[tuple[int, int]] = []
    pos = 0
    for start, end in separator_lines(text, separator):
        spans.append((pos, start))
        pos = _line_end(text, end)
    spans.append((pos, len(text)))
    has_comment = "<!--" in text
    file_ignored = parse_directives(text).ignore_file if has_comment else False
    units: list[Unit] = []
    for start, end in spans:
        chunk = text[start:end]
        if not chunk or chunk.isspace():
            continue
        d = parse_directives(chunk) if has_comment and "<!--" in chunk else _NO_DIRECTIVES
        units.append(
            Unit(
                index=len(units) + 1,
                start=start,
                end=end,
                text=chunk,
                pin=d.pin,
                ignored=d.ignore or file_ignored,
            )
        )
    return units
