r"""Patterns that come from users (rules files, settings) run on RE2: linear time, no backtracking.

A pattern like `(a+)+$` takes exponential time in Python's `re` on the wrong
text; a cloned repository's settings must not be able to hang an editor. Linear
is not cheap, though: RE2's constant grows with the pattern (`(?:[\s\S]{1,1000})+z`
is linear but spends over a second on 100 KB), so `cost_problem` checks a user
pattern's size, nesting and counted repetitions, then times it on a fixed trial
text, before TurnLens runs it.
"""

from __future__ import annotations

import re
import time
from functools import cache
from typing import Any

# The limits of a user pattern (docs/security.md states them).
MAX_PROGRAM_SIZE = 5000  # RE2 instructions; TurnLens's own largest rule has about 2,200
MAX_GROUP_DEPTH = 50  # nested groups
MAX_REPEAT_PRODUCT = 1000  # counted repetitions multiplied through their nesting
TRIAL_BUDGET_S = 0.02  # for the whole trial text (16 KB): about 1.3 s per MB at worst
TRIAL_RUNS = 3


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
            pattern.encode("utf-8")
        except UnicodeEncodeError:
            raise PatternError("not valid Unicode (a lone surrogate)") from None
        try:
            self._rx: Any = re2.compile(pattern, options)
        except re2.error as exc:
            raise PatternError(_reason(exc)) from None
        self.pattern = pattern

    @property
    def program_size(self) -> int:
        """RE2's instruction count: what a search costs per byte grows with it."""
        return int(self._rx.programsize)

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


def group_depth(pattern: str) -> int:
    """How deep groups nest (a scan, not a parse: a parser would recurse as deep)."""
    depth = deepest = 0
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            if pattern.startswith("]", i + 1) or pattern.startswith("^]", i + 1):
                i += 2 if pattern[i + 1] == "]" else 3
                continue
        elif ch == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == ")":
            depth = max(0, depth - 1)
        i += 1
    return deepest


def repeat_product(pattern: str) -> int:
    """The largest product of counted repetition bounds along one nesting path
    (`(?:a{1,100}){1,100}` → 10,000); 0 when Python's parser cannot read the pattern."""
    try:
        from re import _constants as _c  # type: ignore[attr-defined]
        from re import _parser as _p  # type: ignore[attr-defined]
    except ImportError:  # pragma: no cover
        return 0
    try:
        parsed = _p.parse(pattern)
    except (re.error, OverflowError, RecursionError, ValueError):
        return 0
    worst = 1
    stack: list[tuple[Any, int]] = [(parsed, 1)]
    while stack:
        items, factor = stack.pop()
        for op, av in items:
            if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)):
                lo, hi, inner = av
                bound = lo if hi is _c.MAXREPEAT else hi
                inner_factor = factor * max(1, bound)
                worst = max(worst, inner_factor)
                stack.append((inner, inner_factor))
            elif op is _c.SUBPATTERN:
                stack.append((av[3], factor))
            elif op is _c.BRANCH:
                stack.extend((branch, factor) for branch in av[1])
            elif op in (_c.ASSERT, _c.ASSERT_NOT):
                stack.append((av[1], factor))
            elif op is getattr(_c, "ATOMIC_GROUP", None):
                stack.append((av, factor))
    return worst


@cache
def _trial_text() -> str:
    """16 KB that exercises a pattern: prose with punctuation, non-ASCII and line breaks,
    a run of one letter, and blank space (fixed, so the check is deterministic)."""
    phrase = (
        "the quick brown fox jumps over a lazy dog; Approve MERGE spec-12 AC-3 def f(x): return "
        "x + 1 # heading - bullet * item `code` «été» naïve 東京 😀 Ωmega status: ok, thanks!"
    )
    words = phrase.split(" ")
    lines = []
    for i in range(160):
        lines.append(" ".join(words[(i * 7 + k) % len(words)] for k in range(9)))
    prose = "\n".join(lines)
    return prose[:8192] + "\n" + "a" * 4096 + "\n" + " \t\n" * 1365


def trial_seconds(rx: Any, limit: float) -> float:
    """Time `rx` finding every match in the trial text, stopping once `limit` is spent."""
    text = _trial_text()
    started = time.perf_counter()
    pos = 0
    found = 0
    while pos <= len(text) and found < 4096:
        m = rx.search(text, pos)
        if m is None:
            break
        found += 1
        pos = max(m.end(), pos + 1)
        if time.perf_counter() - started > limit:
            break
    return time.perf_counter() - started


def cost_problem(pattern: str, *, ignore_case: bool = False, wrapped: str | None = None) -> str | None:
    """Why a user pattern is too costly to run, or None when it is fine.

    `wrapped` is the pattern as TurnLens will compile it (with anchors or flags around
    `pattern`), when that differs.
    """
    depth = group_depth(pattern)
    if depth > MAX_GROUP_DEPTH:
        return f"groups nest {depth} deep (at most {MAX_GROUP_DEPTH})"
    product = repeat_product(pattern)
    if product > MAX_REPEAT_PRODUCT:
        return f"counted repetitions multiply to {product:,} (at most {MAX_REPEAT_PRODUCT:,})"
    try:
        rx = SafePattern(wrapped or pattern, ignore_case=ignore_case)
    except PatternError as exc:
        return str(exc)
    size = rx.program_size
    if size > MAX_PROGRAM_SIZE:
        return f"the compiled pattern has {size:,} instructions (at most {MAX_PROGRAM_SIZE:,})"
    # up to three runs, the best counts: a busy machine slows one run, not the pattern's own cost
    if all(trial_seconds(rx, TRIAL_BUDGET_S) > TRIAL_BUDGET_S for _ in range(TRIAL_RUNS)):
        return f"too slow: over {TRIAL_BUDGET_S * 1000:.0f} ms on a {round(len(_trial_text().encode()) / 1024)} KB trial text"
    return None
