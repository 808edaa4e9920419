"""A document's analysis: units → classification + route, re-scoring only what changed.

Pure (no I/O, no pygls): the language server and the CLI both call it. The
cache is keyed by a unit's text and pin, so an edit in one turn of a long
transcript re-scores that turn alone; given where an edit fell, only the
stretch of text around it is split into turns again.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass

from turnlens.core.classify import Classification, classify
from turnlens.core.rules import RulePack
from turnlens.core.units import Unit, compile_separator, parse_directives, separator_lines, split_units
from turnlens.router.resolve import Route

RouteFn = Callable[[str], Route]
Edit = tuple[int, int]  # (unchanged prefix length, unchanged suffix length)


@dataclass(frozen=True, slots=True)
class UnitResult:
    unit: Unit
    classification: Classification
    route: Route


CacheKey = tuple[str, str | None]


def _line_end(text: str, pos: int) -> int:
    nl = text.find("\n", pos)
    return len(text) if nl < 0 else nl + 1


class _Split:
    """The last split of a document: its text, separator lines and units."""

    def __init__(
        self, text: str, separator: str, seps: list[tuple[int, int]], units: list[Unit], file_ignored: bool
    ):
        self.text = text
        self.separator = separator
        self.seps = seps
        self.units = units
        self.file_ignored = file_ignored
        self.has_comment = file_ignored or "<!--" in text


def _start_of(span: tuple[int, int]) -> int:
    return span[0]


def _end_of(span: tuple[int, int]) -> int:
    return span[1]


def _file_ignored(text: str) -> bool:
    return "<!--" in text and parse_directives(text).ignore_file


def _make_unit(text: str, index: int, start: int, end: int, file_ignored: bool) -> Unit | None:
    chunk = text[start:end]
    if not chunk or chunk.isspace():
        return None
    if "<!--" in chunk:
        d = parse_directives(chunk)
        return Unit(index, start, end, chunk, d.pin, d.ignore or file_ignored)
    return Unit(index, start, end, chunk, None, file_ignored)


def split_incremental(text: str, separator: str, previous: _Split | None, edit: Edit | None) -> _Split:
    """Units of `text`, reusing `previous` outside the edited stretch.

    The result is exactly what `split_units(text, separator)` gives; the tests
    check that on random edit sequences.
    """
    if previous is not None and edit is not None and not previous.has_comment:
        # no comment anywhere before: only the edited stretch can have brought one
        lo = max(0, edit[0] - 3)
        hi = len(text) - max(0, edit[1] - 3)
        file_ignored = "<!--" in text[lo:hi] and _file_ignored(text)
    else:
        file_ignored = _file_ignored(text)
    if (
        previous is None
        or edit is None
        or previous.separator != separator
        or previous.file_ignored != file_ignored
        or edit[0] > len(previous.text)
        or edit[1] > len(previous.text) - edit[0]
    ):
        compile_separator(separator)
        seps = separator_lines(text, separator)
        return _Split(text, separator, seps, split_units(text, separator), file_ignored)
    prefix, suffix = edit
    old_len, new_len = len(previous.text), len(text)
    delta = new_len - old_len
    old_seps = previous.seps
    # separator lines wholly inside the unchanged prefix (their line break too) stay
    n_pre = bisect_left(old_seps, prefix, key=_end_of)
    keep_pre = old_seps[:n_pre]
    # and those whose preceding line break lies in the unchanged suffix, shifted
    suffix_start = old_len - suffix
    first_suf = bisect_left(old_seps, suffix_start + 1, key=_start_of)
    keep_suf = [(a + delta, b + delta) for a, b in old_seps[first_suf:]]
    lo = keep_pre[-1][1] if keep_pre else 0
    hi = keep_suf[0][0] if keep_suf else new_len
    seps = keep_pre + separator_lines(text, separator, lo, hi) + keep_suf
    # units: reuse those between kept separators, slice the rest
    old_by_start = {u.start: u for u in previous.units}
    reuse_before = keep_pre[-1][0] if keep_pre else -1
    reuse_after = _line_end(text, keep_suf[0][1]) if keep_suf else new_len + 1
    units: list[Unit] = []
    pos = 0
    bounds = [*seps, (new_len, new_len)]
    for sep_start, sep_end in bounds:
        start, end = pos, sep_start
        pos = _line_end(text, sep_end) if sep_start < new_len else new_len
        index = len(units) + 1
        unit: Unit | None
        if end <= reuse_before:
            old = old_by_start.get(start)
            unit = (
                old
                if old is not None and old.end == end
                else _make_unit(text, index, start, end, file_ignored)
            )
        elif start >= reuse_after:
            old = old_by_start.get(start - delta)
            if old is not None and old.end + delta == end:
                unit = Unit(index, start, end, old.text, old.pin, old.ignored)
            else:
                unit = _make_unit(text, index, start, end, file_ignored)
        else:
            unit = _make_unit(text, index, start, end, file_ignored)
        if unit is None:
            continue
        if unit.index != index:
            unit = Unit(index, unit.start, unit.end, unit.text, unit.pin, unit.ignored)
        units.append(unit)
    return _Split(text, separator, seps, units, file_ignored)


class UnitCache:
    """Results by unit text; rebuilt on each analysis so it holds only live units."""

    def __init__(self) -> None:
        self._entries: dict[CacheKey, tuple[Classification, Route]] = {}
        self._split: _Split | None = None
        self.misses = 0

    def clear(self) -> None:
        self._entries = {}
        self._split = None

    def analyze(
        self,
        text: str,
        separator: str,
        pack: RulePack,
        route_fn: RouteFn,
        edit: Edit | None = None,
    ) -> tuple[UnitResult, ...]:
        """Analyse `text`; `edit` says what changed since the previous call (None: unknown)."""
        split = split_incremental(text, separator, self._split, edit)
        self._split = split
        old = self._entries
        fresh: dict[CacheKey, tuple[Classification, Route]] = {}
        results = []
        for unit in split.units:
            key = (unit.text, unit.pin)
            entry = fresh.get(key) or old.get(key)
            if entry is None:
                self.misses += 1
                # not explained: where each rule fired is worked out on hover, for one turn
                entry = (classify(unit.text, pack, pin=unit.pin), route_fn(unit.text))
            fresh[key] = entry
            results.append(UnitResult(unit, entry[0], entry[1]))
        self._entries = fresh
        return tuple(results)
