"""Patterns that come from users (rules files, settings) run on RE2: linear time, no backtracking.

A pattern like `(a+)+$` takes exponential time in Python's `re` on the wrong
text; a cloned repository's settings must not be able to hang an editor.
"""

from __future__ import annotations

from typing import Any


class PatternError(ValueError):
    """A user pattern RE2 does not accept."""


def _encodable(text: str) -> str:
    """RE2 reads UTF-8: a lone surrogate (a stray `\\ud800` escape) becomes `?`, offsets kept."""
    return text.encode("utf-8", "replace").decode("utf-8")


def _reason(exc: Exception) -> str:
    """RE2's complaint without the echoed pattern (`missing ): (?m)^…` → `missing )`)."""
    raw = exc.args[0] if exc.args else str(exc)
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    return text.split(": ", 1)[0]


class SafePattern:
    """An RE2 pattern with the `search` / `finditer` / `match` calls TurnLens uses."""

    __slots__ = ("_rx", "pattern")

    def __init__(self, pattern: str, *, ignore_case: bool = False, max_mem: int = 8 << 20) -> None:
        import re2

        options = re2.Options()
        options.case_sensitive = not ignore_case
        options.log_errors = False
        options.max_mem = max_mem
        try:
            self._rx: Any = re2.compile(pattern, options)
        except re2.error as exc:
            raise PatternError(_reason(exc)) from None
        self.pattern = pattern

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> Any:
        try:
            return self._rx.search(text, pos, endpos)
        except UnicodeEncodeError:
            return self._rx.search(_encodable(text), pos, endpos)

    def match(self, text: str, pos: int = 0, endpos: int | None = None) -> Any:
        try:
            return self._rx.match(text, pos, endpos)
        except UnicodeEncodeError:
            return self._rx.match(_encodable(text), pos, endpos)

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None) -> Any:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = _encodable(text)
        return self._rx.finditer(text, pos, endpos)
