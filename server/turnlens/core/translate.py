"""Translate Python regular expressions into RE2 syntax with per-line semantics.

The engine runs all the rules of a pack in one pass with an RE2 set (a DFA over
the text). For that, each Python pattern is re-written from its parse tree:
Unicode `\\w`, `\\d`, `\\s` become explicit Unicode classes, no class can match a
line break (rules match within a line, like grep), and a `\\b` at either end of
a pattern becomes a test of the neighbouring character. A translation is
*exact* when RE2 matches a line exactly when Python does; otherwise it is a
superset, and the engine confirms a hit with Python's `re`.

The engine asks for the *wide* form: every character above ASCII counts as a
word character and a digit where a class includes them, and as neither where a
class excludes them. Unicode letter classes cost RE2 about 1,350 instructions
each (a pack's set grew to 130k instructions and took 50 ms to compile); the wide
form is 15× smaller, exact on ASCII text, and a superset on the rest, where the
engine confirms hits with `re` (`Translation.exact_any` says when no class was
widened and the translation stays exact on any text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

try:  # Python ≥ 3.11
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _p  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _p  # type: ignore[no-redef]

_WORD = r"\pL\pN_"
_SPACE = (
    r"\t\x{0b}\x{0c}\r \x{1c}-\x{1f}\x{85}\x{a0}\x{1680}"
    r"\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}"
)
_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT}
_MAX_COUNT = 1000
# a group holding an unbounded repeat, repeated up to this many times or more, marks
# `Translation.counts_runs` (`([\w-]+[ \t]+){0,2}` is mild)
_COUNTED_RUNS = 3


class Untranslatable(Exception):
    pass


@dataclass(frozen=True, slots=True)
class Translation:
    pattern: str
    exact: bool
    # exact on every text, not only on ASCII (the wide form widened no class)
    exact_any: bool = True
    # a bounded count of unbounded runs, as `(\w+ ){0,4}`: a DFA must count, for every
    # place a match may have started, how many runs it has passed, so its states multiply
    # with those of every other pattern of a set (the engine gives it a set of its own)
    counts_runs: bool = False


# Word characters and digits: Unicode classes, or (wide form) ASCII plus, where a
# class includes them, every character above ASCII.
_WORD_ASCII = "0-9A-Za-z_"
_WIDE_ABOVE = r"\x{80}-\x{10ffff}"
_NOT_DIGIT_WIDE = r"\x{0}-\x{9}\x{b}-\x{2f}\x{3a}-\x{10ffff}"


def _char(cp: int) -> str:
    ch = chr(cp)
    if ch.isascii() and ch.isalnum():
        return ch
    return f"\\x{{{cp:x}}}"


def _is_word(cp: int) -> bool:
    ch = chr(cp)
    return ch.isalnum() or ch == "_"


class _Translator:
    def __init__(self, wide: bool = False) -> None:
        self.exact = True
        self.wide = wide
        self.widened = False
        self.unbounded = 0  # unbounded repeats translated so far
        self.counts_runs = False

    def word(self, *, included: bool) -> str:
        """The body of a class of word characters, where a class includes or excludes them."""
        if not self.wide:
            return _WORD
        self.widened = True
        return _WORD_ASCII + _WIDE_ABOVE if included else _WORD_ASCII

    def digit(self, *, included: bool) -> str:
        if not self.wide:
            return r"\p{Nd}"
        self.widened = True
        return "0-9" + _WIDE_ABOVE if included else "0-9"

    def seq(self, items: Any, *, at_start: bool = False, at_end: bool = False) -> str:
        """Translate a sequence; `at_start`/`at_end` say it begins/ends the whole pattern."""
        items = list(items)
        last = len(items) - 1
        out = []
        for i, (op, av) in enumerate(items):
            first_here, last_here = at_start and i == 0, at_end and i == last
            if op is _c.AT and av in (_c.AT_BOUNDARY, _c.AT_NON_BOUNDARY):
                out.append(self._boundary(items, i, av, first_here, last_here))
            elif op is _c.BRANCH:
                alts = (self.seq(b, at_start=first_here, at_end=last_here) for b in av[1])
                out.append("(?:" + "|".join(alts) + ")")
            elif op is _c.SUBPATTERN and not av[1] and not av[2]:
                out.append("(?:" + self.seq(av[3], at_start=first_here, at_end=last_here) + ")")
            else:
                out.append(self.item(op, av))
        return "".join(out)

    def _boundary(self, items: list[Any], i: int, av: Any, first: bool, last: bool) -> str:
        """`\\b` at the very start or end of the pattern, next to word characters, is exact:
        it becomes a test of the neighbouring character (consuming it is harmless there)."""
        if av is _c.AT_BOUNDARY:
            after = _seq_kind(items[i + 1 :], first=True)
            before = _seq_kind(items[:i], first=False)
            if first and after == "w":
                return f"(?:^|[^{self.word(included=False)}\\n])"
            if last and before == "w":
                return f"(?:$|[^{self.word(included=False)}\\n])"
            if before is not None and after is not None and before != after:
                return ""  # a word and a non-word character meet here: always a boundary
        self.exact = False
        return ""

    def item(self, op: Any, av: Any) -> str:
        if op is _c.LITERAL:
            if av == 10:
                raise Untranslatable("a line break cannot match within a line")
            return _char(av)
        if op is _c.NOT_LITERAL:
            return f"[^{_char(av)}\\n]"
        if op is _c.ANY:
            return "."
        if op is _c.IN:
            try:
                return self._class(av)
            except Untranslatable:
                self.exact = False  # any character but a line break: a superset
                return "[^\\n]"
        if op is _c.BRANCH:
            return "(?:" + "|".join(self.seq(b) for b in av[1]) + ")"
        if op is _c.SUBPATTERN:
            _group, add, delete, inner = av
            body = self.seq(inner)
            if delete or (add & ~re.IGNORECASE):
                raise Untranslatable("inline flags other than (?i)")
            return f"(?i:{body})" if add & re.IGNORECASE else f"(?:{body})"
        if op in _REPEATS or op is getattr(_c, "POSSESSIVE_REPEAT", None):
            lo, hi, inner = av
            if op is not _c.MAX_REPEAT and op is not _c.MIN_REPEAT:
                self.exact = False
            if lo > _MAX_COUNT or (hi is not _c.MAXREPEAT and hi > _MAX_COUNT):
                raise Untranslatable("a repeat count above 1000")
            runs = self.unbounded
            body = self.seq(inner)
            if hi is _c.MAXREPEAT:
                self.unbounded += 1
                return f"(?:{body}){{{lo},}}"
            if hi >= _COUNTED_RUNS and self.unbounded > runs:
                self.counts_runs = True
            return f"(?:{body}){{{lo},{hi}}}"
        if op in (_c.ASSERT, _c.ASSERT_NOT):
            # a lookaround narrows matches; leaving it out only widens them
            self.exact = False
            return ""
        if op is getattr(_c, "ATOMIC_GROUP", None):
            self.exact = False
            return f"(?:{self.seq(av)})"
        if op is _c.AT:
            if av in (_c.AT_BEGINNING, _c.AT_BEGINNING_STRING, getattr(_c, "AT_BEGINNING_LINE", None)):
                return "^"
            if av in (_c.AT_END, _c.AT_END_STRING, getattr(_c, "AT_END_LINE", None)):
                return "$"
        raise Untranslatable(f"unsupported construct {op}")

    def _class(self, items: Any) -> str:
        negate = False
        parts = []
        items = list(items)
        if len(items) == 1 and items[0][0] is _c.CATEGORY:
            av = items[0][1]
            if av is _c.CATEGORY_NOT_SPACE:
                return f"[^{_SPACE}\\n]"
            if av is _c.CATEGORY_NOT_WORD:
                return f"[^{self.word(included=False)}\\n]"
            if av is _c.CATEGORY_NOT_DIGIT:
                return f"[^{self.digit(included=False)}\\n]"
        for op, av in items:
            if op is _c.NEGATE:
                negate = True
            elif op is _c.LITERAL:
                if av != 10:
                    parts.append(_char(av))
            elif op is _c.RANGE:
                lo, hi = av
                if lo <= 10 <= hi:
                    if lo < 10:
                        parts.append(f"{_char(lo)}-{_char(9)}")
                    if hi > 10:
                        parts.append(f"{_char(11)}-{_char(hi)}")
                else:
                    parts.append(f"{_char(lo)}-{_char(hi)}")
            elif op is _c.CATEGORY:
                parts.append(self._category(av, negate))
            else:
                raise Untranslatable(f"unsupported class item {op}")
        body = "".join(parts)
        if negate:
            return f"[^{body}\\n]"
        if not body:
            raise Untranslatable("an empty class")
        return f"[{body}]"

    def _category(self, av: Any, negated_class: bool) -> str:
        # in a negated class the category is excluded, so the wide form names less of it
        if av is _c.CATEGORY_DIGIT:
            return self.digit(included=not negated_class)
        if av is _c.CATEGORY_WORD:
            return self.word(included=not negated_class)
        if av is _c.CATEGORY_SPACE:
            return _SPACE
        if av is _c.CATEGORY_NOT_DIGIT and not negated_class:
            if self.wide:
                self.widened = True
                return _NOT_DIGIT_WIDE
            return r"\P{Nd}"
        raise Untranslatable("a negated category inside a class")


def _seq_kind(items: Any, *, first: bool) -> str | None:
    """The kind of character every match of a sequence starts (or ends) with: "w" (a word
    character), "n" (another one), or None when matches differ or the sequence can be empty
    (then the neighbour is outside it)."""
    kinds = _seq_kinds(items, first=first)
    return kinds.pop() if len(kinds) == 1 and kinds <= {"w", "n"} else None


_EMPTY = ""  # among the kinds: the item (or sequence) can match nothing


def _seq_kinds(items: Any, *, first: bool) -> set[str | None]:
    """Every kind a match of the sequence can start (or end) with; an item that can match
    nothing leaves the next one in play (`de(l?| la)` ends with `l`, `a` or, `l` absent, `e`)."""
    seq = list(items) if first else list(items)[::-1]
    kinds: set[str | None] = set()
    for op, av in seq:
        if op is _c.AT:
            if av in (_c.AT_BOUNDARY, _c.AT_NON_BOUNDARY):
                continue  # zero width
            return kinds | {None}
        here = _edge_kinds((op, av), first=first)
        kinds |= here - {_EMPTY}
        if _EMPTY not in here:
            return kinds
    return kinds | {_EMPTY}


def _edge_kinds(item: Any, *, first: bool) -> set[str | None]:
    op, av = item
    if op is _c.LITERAL:
        return {"w" if _is_word(av) else "n"}
    if op is _c.SUBPATTERN:
        return _seq_kinds(av[3], first=first)
    if op is _c.BRANCH:
        return set().union(*(_seq_kinds(b, first=first) for b in av[1]))
    if op is _c.IN:
        return {_class_kind(av)}
    if op in _REPEATS:
        inner = _seq_kinds(av[2], first=first)
        return inner | {_EMPTY} if av[0] == 0 else inner
    return {None}


def _edge_kind(item: Any, *, first: bool) -> str | None:
    """Whether every match of `item` starts (or ends) with a word character ("w"),
    with a non-word character ("n"), or either (None)."""
    return _seq_kind([item], first=first)


def _class_kind(items: Any) -> str | None:
    kinds: set[str] = set()
    for op, av in items:
        if op is _c.NEGATE:
            return None
        if op is _c.LITERAL:
            kinds.add("w" if _is_word(av) else "n")
        elif op is _c.RANGE and av[1] - av[0] < 4096:
            kinds.update("w" if _is_word(cp) else "n" for cp in range(av[0], av[1] + 1))
        elif op is _c.CATEGORY and av in (_c.CATEGORY_DIGIT, _c.CATEGORY_WORD):
            kinds.add("w")
        elif op is _c.CATEGORY and av is _c.CATEGORY_SPACE:
            kinds.add("n")
        else:
            return None
    return kinds.pop() if len(kinds) == 1 else None


def _edge_is_word(item: Any, *, first: bool) -> bool:
    return _edge_kind(item, first=first) == "w"


def translate(pattern: str, ignore_case: bool, *, wide: bool = False) -> Translation | None:
    """RE2 syntax for a Python pattern, or None when it cannot be expressed; `wide` for
    the form the engine's sets use (exact on ASCII text only, see the module notes)."""
    try:
        parsed = _p.parse(pattern, re.IGNORECASE if ignore_case else 0)
    except re.error:
        return None
    flags = parsed.state.flags
    if flags & (re.VERBOSE | re.DOTALL | re.ASCII | re.LOCALE):
        return None
    t = _Translator(wide)
    try:
        body = t.seq(parsed, at_start=True, at_end=True)
    except Untranslatable:
        return None
    prefix = "(?m)" + ("(?i)" if (ignore_case or flags & re.IGNORECASE) else "")
    return Translation(prefix + body, t.exact, t.exact and not t.widened, t.counts_runs)
