"""Plain text and prompt files: one unit, or turns between separator lines.

A document is one unit unless it contains turn separator lines (by default
`---TURN---`, the SE-029 session format); then each turn between separators is
a unit with `text == document[start:end]`. Re-splitting after an edit looks
only at the stretch of text the edit touched.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache

from turnlens.core.safe_re import PatternError, SafePattern, cost_problem
from turnlens.pipeline.formats.base import Edit, FormatOptions, Split
from turnlens.pipeline.units import Unit, parse_directives

DEFAULT_SEPARATOR = "---TURN---"
MAX_SEPARATOR_LENGTH = 1000


class SeparatorError(ValueError):
    """A turn separator pattern that cannot be used."""


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
    except (re.error, OverflowError, RecursionError):
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
    shown = _show(pattern)
    if len(pattern) > MAX_SEPARATOR_LENGTH:
        raise SeparatorError(f"the turn separator {shown} is longer than {MAX_SEPARATOR_LENGTH} characters")
    wrapped = rf"(?m)^(?:{core})[ \t]*\r?$"
    try:
        rx = SafePattern(wrapped)
    except PatternError as exc:
        raise SeparatorError(f"the turn separator {shown} does not compile (RE2 syntax): {exc}") from None
    if rx.match(""):
        raise SeparatorError(f"the turn separator {shown} matches an empty line")
    if literal_separator(pattern) is None:  # a literal one never runs as a regex
        problem = cost_problem(core, wrapped=wrapped)
        if problem is not None:
            raise SeparatorError(f"the turn separator {shown} is too costly to run: {problem}")
    return rx


def _show(pattern: str) -> str:
    text = ascii(pattern)
    return text if len(text) <= 60 else text[:57] + "…"


def _line_end(text: str, pos: int) -> int:
    """Offset just past the line break at or after `pos` (or the end of text), in a `_lf_view`."""
    nl = text.find("\n", pos)
    return len(text) if nl < 0 else nl + 1


_LONE_CR = re.compile(r"\r(?!\n)")


def _lf_view(text: str) -> str:
    """The text with each lone CR as an LF: same length, same offsets. A lone CR ends a line
    (as in LSP, and as the scorer reads it), so a separator after one is a separator; searching
    this view keeps every other rule (a CR before an LF belongs to the line break) as it is."""
    if "\r" not in text:
        return text
    return _LONE_CR.sub("\n", text)


def _literal_lines(text: str, literal: str, lo: int = 0, hi: int | None = None) -> list[tuple[int, int]]:
    """(start, end) of each line that is exactly `literal` (plus trailing blanks), within [lo, hi)."""
    out = []
    find = text.find
    n = len(literal)
    hi = len(text) if hi is None else hi
    i = find(literal, lo, hi)
    while i >= 0:
        if i == 0 or text[i - 1] == "\n":  # as the regex `^sep[ \t]*\r?$` (a lone CR is LF here)
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
    """(start, end) of every separator line within [lo, hi), without its line break; `text` is
    a `_lf_view` (lone CRs as LFs).

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
    literal = literal_separator(separator)
    if literal is not None:
        chunks = _split_plain(text, literal)
        if chunks is not None:
            return _make_units(text, chunks)
    view = _lf_view(text)
    return _units_between(text, view, separator_lines(view, separator))


def _split_plain(text: str, literal: str) -> list[tuple[int, int, str]] | None:
    """The units' spans and texts when every separator is a bare line `literal` + LF (the
    common case), by one `str.split`: a 5 MB transcript splits ~2× faster than by finding each
    line. None for anything else (CRs, blanks after the separator, a separator on the last
    line, adjacent separators): the general path handles those."""
    token = literal + "\n"
    if "\r" in text:
        return None
    found = text.count(literal)
    if not found or found != text.count("\n" + token) + text.startswith(token):
        return None
    chunks = []
    pos, step = 0, len(token)
    for part in text.split(token):
        chunks.append((pos, pos + len(part), part))
        pos += len(part) + step
    return chunks


def _units_between(text: str, view: str, seps: list[tuple[int, int]]) -> list[Unit]:
    """The units between known separator lines (found once, in `view`)."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for start, end in seps:
        spans.append((pos, start))
        pos = _line_end(view, end)
    spans.append((pos, len(text)))
    return _make_units(text, [(start, end, text[start:end]) for start, end in spans])


def _make_units(text: str, chunks: list[tuple[int, int, str]]) -> list[Unit]:
    has_comment = "<!--" in text
    file_ignored = parse_directives(text).ignore_file if has_comment else False
    units: list[Unit] = []
    append = units.append
    make = Unit._make  # positional: a transcript has thousands of turns
    for start, end, chunk in chunks:
        if not chunk or chunk.isspace():
            continue
        if has_comment and "<!--" in chunk:
            d = parse_directives(chunk)
            pin, ignored = d.pin, d.ignore or file_ignored
        else:
            pin, ignored = None, file_ignored
        append(make((len(units) + 1, start, end, chunk, pin, ignored, None, None, None, 0, None, None, None)))
    return units


class _Memo:
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


def split_incremental(text: str, separator: str, previous: _Memo | None, edit: Edit | None) -> _Memo:
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
        view = _lf_view(text)
        seps = separator_lines(view, separator)  # searched once: the units come from these
        return _Memo(text, separator, seps, _units_between(text, view, seps), file_ignored)
    view = _lf_view(text)
    prefix, suffix = edit
    old_len, new_len = len(previous.text), len(text)
    delta = new_len - old_len
    old_seps = previous.seps
    # separator lines wholly inside the unchanged prefix (their line break too, and the character
    # after it, which says whether a CR there is a line break of its own) stay
    n_pre = bisect_left(old_seps, prefix - 1, key=_end_of)
    keep_pre = old_seps[:n_pre]
    # and those whose preceding line break lies in the unchanged suffix, shifted
    suffix_start = old_len - suffix
    first_suf = bisect_left(old_seps, suffix_start + 1, key=_start_of)
    keep_suf = [(a + delta, b + delta) for a, b in old_seps[first_suf:]]
    lo = keep_pre[-1][1] if keep_pre else 0
    hi = keep_suf[0][0] if keep_suf else new_len
    seps = keep_pre + separator_lines(view, separator, lo, hi) + keep_suf
    # units: reuse those between kept separators, slice the rest
    old_by_start = {u.start: u for u in previous.units}
    reuse_before = keep_pre[-1][0] if keep_pre else -1
    reuse_after = _line_end(view, keep_suf[0][1]) if keep_suf else new_len + 1
    units: list[Unit] = []
    pos = 0
    bounds = [*seps, (new_len, new_len)]
    for sep_start, sep_end in bounds:
        start, end = pos, sep_start
        pos = _line_end(view, sep_end) if sep_start < new_len else new_len
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
    return _Memo(text, separator, seps, units, file_ignored)


class TurnsFormat:
    """Plain text, Markdown and prompt files; `---TURN---` sessions."""

    name = "turns"
    label = "plain text (turns between separator lines)"
    comments = True

    def detect(self, path: str | None, head: str) -> int:
        return 1  # anything is text: the last resort of auto-detection

    def split(self, text: str, options: FormatOptions) -> Split:
        memo = split_incremental(text, options.separator, None, None)
        return Split(memo.units, state=memo)

    def resplit(self, text: str, options: FormatOptions, previous: Split, edit: Edit) -> Split:
        old = previous.state if isinstance(previous.state, _Memo) else None
        memo = split_incremental(text, options.separator, old, edit)
        return Split(memo.units, state=memo)

    def split_marker(self, options: FormatOptions) -> str | None:
        literal = literal_separator(options.separator)
        if literal is None and _strip_anchors(options.separator) == DEFAULT_SEPARATOR:
            return DEFAULT_SEPARATOR
        return literal


TURNS = TurnsFormat()
