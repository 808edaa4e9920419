"""The additive scoring engine shared by the task classifier and the router's labeler.

Every rule that matches at least one line adds its weight to its category,
once. Patterns are matched line by line, like grep. The fast path searches the
whole text once per rule (with a literal pre-check that skips most rules without
running a regex) and only falls back to a per-line scan when a match crosses a
line break; `score_plain` is the obviously-correct line-by-line version the
tests compare it with.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from turnlens.core.literals import required_literals
from turnlens.core.rules import Rule, RulePack


@dataclass(frozen=True, slots=True)
class Signal:
    """A rule that fired: where (1-based line within the text) and on what."""

    rule: str
    category: str
    weight: int
    line: int
    text: str
    description: str

    def to_json(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "class": self.category,
            "weight": self.weight,
            "line": self.line,
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class Score:
    scores: dict[str, int]
    words: int
    lines: int
    signals: tuple[Signal, ...]


def normalize_newlines(text: str) -> str:
    """CRLF and lone CR become LF, so a document scores the same on every platform."""
    if "\r" in text:
        return text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def fold(text: str) -> str:
    """Case-fold for literal pre-checks; `ı` is the one letter `re` matches as `i` that folds apart."""
    folded = text.casefold()
    return folded.replace("ı", "i") if "ı" in folded else folded


def _end(text: str) -> int:
    """Where matching stops: a final line break does not start another (empty) line."""
    return len(text) - 1 if text.endswith("\n") else len(text)


def _lines(text: str) -> list[str]:
    """The lines grep would see: none for empty text, no empty line after a final break."""
    return text[: _end(text)].split("\n") if text else []


def count_words(text: str) -> int:
    return len(text.split())


def count_lines(text: str) -> int:
    """Lines after trailing newlines are removed; empty text is one line."""
    return text.rstrip("\n").count("\n") + 1


def _compile_pattern(rule: Rule, *, multiline: bool) -> Any:
    """A compiled pattern with a `search(text, pos, endpos)` that returns a match or None."""
    assert rule.pattern is not None
    if rule.engine == "re2":
        import re2

        options = re2.Options()
        options.case_sensitive = not rule.ignore_case
        options.log_errors = False
        return re2.compile(("(?m)" if multiline else "") + rule.pattern, options)
    flags = (re.IGNORECASE if rule.ignore_case else 0) | (re.MULTILINE if multiline else 0)
    return re.compile(rule.pattern, flags)


class _Compiled:
    """A rule made ready for the fast path."""

    __slots__ = ("folded", "line_regex", "literals", "regex", "rule")

    def __init__(self, rule: Rule) -> None:
        self.rule = rule
        self.regex: Any = None
        self.line_regex: Any = None
        self.literals: tuple[str, ...] | None = None
        self.folded = False
        if rule.pattern is not None:
            self.regex = _compile_pattern(rule, multiline=True)
            self.line_regex = _compile_pattern(rule, multiline=False)
            found = required_literals(rule.pattern, rule.ignore_case)
            if found is not None:
                self.literals, self.folded = found

    def bounds_ok(self, words: int, lines: int) -> bool:
        r = self.rule
        return not (
            (r.min_words is not None and words < r.min_words)
            or (r.max_words is not None and words > r.max_words)
            or (r.min_lines is not None and lines < r.min_lines)
            or (r.max_lines is not None and lines > r.max_lines)
        )

    def first_match(self, text: str, folded: str | None) -> tuple[int, int] | None:
        """(start, end) of the first match within one line, or None."""
        regex = self.regex
        if regex is None:
            return (0, 0)
        if not text:
            return None
        if self.literals is not None:
            hay = folded if self.folded else text
            assert hay is not None
            if not any(lit in hay for lit in self.literals):
                return None
        m = regex.search(text, 0, _end(text))
        if m is None:
            return None
        if "\n" not in m.group():
            return m.span()
        return self._first_match_by_line(text)

    def _first_match_by_line(self, text: str) -> tuple[int, int] | None:
        assert self.line_regex is not None
        offset = 0
        for line in _lines(text):
            m = self.line_regex.search(line)
            if m is not None:
                return offset + m.start(), offset + m.end()
            offset += len(line) + 1
        return None


@cache
def _compile(pack: RulePack) -> tuple[tuple[_Compiled, ...], bool]:
    compiled = tuple(_Compiled(rule) for rule in pack.rules)
    return compiled, any(c.folded for c in compiled)


def _signal(rule: Rule, text: str, span: tuple[int, int]) -> Signal:
    start, end = span
    if rule.pattern is None:
        return Signal(rule.id, rule.category, rule.weight, 0, "", rule.description)
    line = text.count("\n", 0, start) + 1
    excerpt = text[start:end]
    if len(excerpt) > 80:
        excerpt = excerpt[:77] + "…"
    return Signal(rule.id, rule.category, rule.weight, line, excerpt, rule.description)


def score(text: str, pack: RulePack, *, explain: bool = False) -> Score:
    """Score `text` against every rule of `pack`.

    Signals are always returned (they say which rules fired); their line
    numbers and excerpts are only worked out when `explain` is set, since
    that costs a pass over the text per fired rule.
    """
    text = normalize_newlines(text)
    words = count_words(text)
    lines = count_lines(text)
    compiled, needs_fold = _compile(pack)
    folded = fold(text) if needs_fold else None
    scores = dict.fromkeys(pack.categories, 0)
    signals: list[Signal] = []
    for c in compiled:
        if not c.bounds_ok(words, lines):
            continue
        span = c.first_match(text, folded)
        if span is None:
            continue
        rule = c.rule
        scores[rule.category] += rule.weight
        if explain:
            signals.append(_signal(rule, text, span))
        else:
            signals.append(Signal(rule.id, rule.category, rule.weight, 0, "", rule.description))
    return Score(scores, words, lines, tuple(signals))


def score_plain(text: str, rules: Sequence[Rule], categories: Sequence[str]) -> dict[str, int]:
    """The reference semantics, line by line with no shortcuts (for tests and benchmarks)."""
    text = normalize_newlines(text)
    words = count_words(text)
    lines_n = count_lines(text)
    lines = _lines(text)
    scores = dict.fromkeys(categories, 0)
    for rule in rules:
        if rule.min_words is not None and words < rule.min_words:
            continue
        if rule.max_words is not None and words > rule.max_words:
            continue
        if rule.min_lines is not None and lines_n < rule.min_lines:
            continue
        if rule.max_lines is not None and lines_n > rule.max_lines:
            continue
        if rule.pattern is not None:
            rx = _compile_pattern(rule, multiline=False)
            if not any(rx.search(line) for line in lines):
                continue
        scores[rule.category] += rule.weight
    return scores
