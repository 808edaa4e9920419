"""The additive scoring engine shared by the task classifier and the router's labeler.

Every rule that matches at least one line adds its weight to its category,
once. Patterns are matched line by line, like grep. The fast path searches the
whole text once per rule (with a literal pre-check that skips most rules without
running a regex) and only falls back to a per-line scan when a match crosses a
line break; `score_plain` is the obviously-correct line-by-line version the
tests compare it with.
"""

from __future__ import annotations

import time

# functools.partial, without functools.py (and the `collections` it imports)
from _functools import partial  # type: ignore[import-not-found]
from _weakref import ref  # weakref.ref, without importing weakref.py and its sets

from turnlens.core.literals import cache_key, fold, required_literals
from turnlens.core.prebuilt import IGNORECASE, MULTILINE, compile_re
from turnlens.core.rules import Rule, RulePack

TYPE_CHECKING = False  # neither `typing` nor `re` on the one-shot path (see core/record.py)
if TYPE_CHECKING:
    import weakref
    from collections.abc import Sequence
    from typing import Any, NamedTuple
else:
    from turnlens.core.record import NamedTuple

# `\A`, `\Z` and lookaround see past a line break when the whole text is searched at
# once, so patterns using them are always run line by line (the defined semantics).
_SEES_PAST_LINE = compile_re(r"\\[AZz]|\(\?<?[=!]")


# Result types are named tuples, not dataclasses: `dataclasses` (with `inspect`) and the code
# it generates per class cost a one-shot `turnlens classify` more than its scoring does.


class Signal(NamedTuple):
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


class Score(NamedTuple):
    scores: dict[str, int]
    words: int
    lines: int
    signals: tuple[Signal, ...]


def normalize_newlines(text: str) -> str:
    """CRLF and lone CR become LF, so a document scores the same on every platform."""
    if "\r" in text:
        return text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _end(text: str) -> int:
    """Where matching stops: a final line break does not start another (empty) line."""
    return len(text) - 1 if text.endswith("\n") else len(text)


def _lines(text: str) -> list[str]:
    """The lines grep would see: none for empty text, no empty line after a final break."""
    return text[: _end(text)].split("\n") if text else []


_WORDS_CHUNK = 1 << 20
_SPACE = compile_re(r"\s")


# str.split() separates words at these ASCII characters, and outside ASCII at _WIDE_SPACE
_ASCII_SPACE = b" \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f"
_SPACE_OR_WORD = bytes(32 if i in _ASCII_SPACE else 120 for i in range(256))
_WIDE_SPACE = compile_re("[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
_WORDS_BY_BYTES = 4096  # below this, building the words is as cheap as the byte pass


def words_in(data: bytes) -> int:
    """`len(text.split())` from the text's UTF-8 bytes, when the text has no whitespace outside
    ASCII: each byte becomes a space or an `x` (a byte of a multi-byte character is part of a
    word), and a word starts at each `x` after a space. No word strings are made."""
    marks = data.translate(_SPACE_OR_WORD)
    return marks.count(b" x") + (marks[:1] == b"x")


def count_words(text: str) -> int:
    """Whitespace-separated tokens (like `wc -w`), in bounded memory for huge texts."""
    if len(text) >= _WORDS_BY_BYTES and len(text) <= _WORDS_CHUNK:
        if text.isascii():
            return words_in(text.encode("ascii"))
        if _WIDE_SPACE.search(text) is None:
            try:
                return words_in(text.encode("utf-8"))
            except UnicodeEncodeError:  # a lone surrogate
                pass
    if len(text) <= _WORDS_CHUNK:
        return len(text.split())
    total, pos, size = 0, 0, len(text)
    while pos < size:
        cut = pos + _WORDS_CHUNK
        if cut < size:
            m = _SPACE.search(text, cut)
            cut = m.start() if m else size
        total += len(text[pos:cut].split())
        pos = cut
    return total


def count_lines(text: str) -> int:
    """Lines after trailing newlines are removed; empty text is one line."""
    return text.rstrip("\n").count("\n") + 1


class _Folded:
    """The case-folded text, made on first use (most texts never need it)."""

    __slots__ = ("_folded", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._folded: str | None = None

    @property
    def text(self) -> str:
        if self._folded is None:
            self._folded = fold(self._text)
        return self._folded


def _compile_pattern(rule: Rule, *, multiline: bool) -> Any:
    """A compiled pattern with a `search(text, pos, endpos)` that returns a match or None."""
    assert rule.pattern is not None
    if rule.engine == "re2":
        from turnlens.core.safe_re import SafePattern

        return SafePattern(("(?m)" if multiline else "") + rule.pattern, ignore_case=rule.ignore_case)
    flags = (IGNORECASE if rule.ignore_case else 0) | (MULTILINE if multiline else 0)
    return compile_re(rule.pattern, flags)  # the shipped packs' patterns come compiled


class _Compiled:
    """A rule made ready for the fast path."""

    __slots__ = ("by_line", "folded", "line_regex", "literals", "off", "regex", "rule")

    def __init__(self, rule: Rule) -> None:
        self.rule = rule
        self.off = False  # a user rule switched off for running over its time budget
        self.regex: Any = None
        self.line_regex: Any = None
        self.literals: tuple[str, ...] | None = None
        self.folded = False
        self.by_line = False
        if rule.pattern is not None:
            self.by_line = _SEES_PAST_LINE.search(rule.pattern) is not None
            found = required_literals(rule.pattern, rule.ignore_case)
            if found is not None:
                self.literals, self.folded = found

    # Patterns compile on first use: a one-shot `turnlens classify` meets only the
    # few rules whose literals occur in its text.
    def whole(self) -> Any:
        if self.regex is None:
            self.regex = _compile_pattern(self.rule, multiline=True)
        return self.regex

    def per_line(self) -> Any:
        if self.line_regex is None:
            self.line_regex = _compile_pattern(self.rule, multiline=False)
        return self.line_regex

    def bounds_ok(self, words: int, lines: int) -> bool:
        r = self.rule
        return not (
            (r.min_words is not None and words < r.min_words)
            or (r.max_words is not None and words > r.max_words)
            or (r.min_lines is not None and lines < r.min_lines)
            or (r.max_lines is not None and lines > r.max_lines)
        )

    def first_match(self, text: str, folded: _Folded | None = None) -> tuple[int, int] | None:
        """(start, end) of the first match within one line, or None."""
        if self.rule.pattern is None:
            return (0, 0)
        if not text:
            return None
        if self.literals is not None:
            hay = (folded or _Folded(text)).text if self.folded else text
            if not any(lit in hay for lit in self.literals):
                return None
        return self.first_match_from(text, 0)

    def first_match_from(self, text: str, pos: int) -> tuple[int, int] | None:
        """Like `first_match` for the lines that start at or after `pos` (a line start), no pre-check."""
        if self.by_line:
            return self._first_match_by_line(text, pos)
        m = self.whole().search(text, pos, _end(text))
        if m is None:
            return None
        if "\n" not in m.group():
            start, end = m.span()
            return int(start), int(end)
        return self._first_match_by_line(text, pos)

    def _first_match_by_line(self, text: str, pos: int = 0) -> tuple[int, int] | None:
        line_regex = self.per_line()
        offset = pos
        for line in _lines(text[pos:] if pos else text):
            m = line_regex.search(line)
            if m is not None:
                return offset + m.start(), offset + m.end()
            offset += len(line) + 1
        return None


SET_AFTER_BYTES = 8_000
SET_FOR_TEXT_BYTES = 8_000


class _SetRule:
    """A rule in the pack's RE2 set, with its own RE2 pattern to find candidate lines.

    `exact`: a set hit is a match on ASCII text; `exact_any`: on any text (the wide
    translation widened no class); otherwise `find` confirms the hit with `re`.
    """

    __slots__ = ("alone", "bounded", "compiled", "exact", "exact_any", "pattern", "rx2")

    def __init__(
        self, compiled: _Compiled, pattern: str, exact: bool, exact_any: bool, counts_runs: bool = False
    ) -> None:
        self.compiled = compiled
        self.pattern = pattern
        self.exact = exact
        self.exact_any = exact_any
        self.alone = counts_runs  # in an RE2 set of its own (see `_build_set`)
        self.bounded = _has_bounds(compiled.rule)
        self.rx2: Any = None

    def find(self, data: bytes, text: str) -> tuple[int, int] | None:
        """The first real match as str offsets, or None.

        RE2 finds the next line that may match (its translation is exact or wider and
        never crosses a line break) and Python's `re` checks that line alone, until one
        holds or RE2 finds no more: only the per-line pattern is ever compiled with `re`.
        """
        if self.rx2 is None:
            self.rx2 = _re2_compile(self.pattern)
        line_regex = self.compiled.per_line()
        search, size = self.rx2.search, len(data)
        pos = 0
        while True:
            m = search(data, pos)
            if m is None:
                return None
            hit = m.start()
            start = data.rfind(b"\n", 0, hit) + 1
            stop = data.find(b"\n", hit)
            stop = size if stop < 0 else stop
            found = line_regex.search(data[start:stop].decode("utf-8"))
            if found is not None:
                base = start if size == len(text) else len(data[:start].decode("utf-8"))
                return base + found.start(), base + found.end()
            if stop >= size:
                return None
            pos = stop + 1


class _PackMatcher:
    """All rules of a pack, ready for one pass: an RE2 set over the translatable
    patterns, Python `re` (with literal pre-checks) for the rest.

    Everything a scoring call needs is precomputed here, since this runs once
    per turn of every transcript. Rules are named by their position in the pack.
    """

    def __init__(self, pack: RulePack) -> None:
        self.rules = tuple(_Compiled(rule) for rule in pack.rules)
        self.zero = dict.fromkeys(pack.categories, 0)
        # a ready signal per rule for the common, unexplained case
        self.bare = tuple(
            Signal(c.rule.id, c.rule.category, c.rule.weight, 0, "", c.rule.description) for c in self.rules
        )
        self.bounded_only = tuple((i, c) for i, c in enumerate(self.rules) if c.rule.pattern is None)
        self.patterned = tuple((i, c) for i, c in enumerate(self.rules) if c.rule.pattern is not None)
        # Until the set is built every patterned rule runs on the Python path.
        self.in_set: tuple[_SetRule, ...] = ()
        self.set_index: tuple[int, ...] = ()  # pack position of each rule in the set
        self.outside: tuple[tuple[int, _Compiled], ...] = self.patterned
        self.by_index: dict[int, _SetRule] = {}
        self.set: Any = None
        # scores and signals by the rules that fired: transcripts repeat a few combinations
        self.memo: dict[tuple[int, ...], tuple[dict[str, int], tuple[Signal, ...]]] = {}
        self._seen = 0
        self._built = False
        self._group = SET_PATTERNS  # patterns per RE2 set (COLD_SET_PATTERNS until REGROUP_BYTES)
        # bumped when the sets are regrouped: what callers keyed by set-local hits is stale
        self.generation = 0

    def account(self, size: int) -> None:
        """`size` more bytes to read: build the sets once they pay, regroup small ones later."""
        if not self._built:
            self._maybe_build(size)
        elif self._group != SET_PATTERNS:
            self._regroup(size)

    def _maybe_build(self, size: int) -> None:
        """Build the RE2 sets once they pay: with the shipped translations, compiling them and
        warming their DFAs costs about what scoring 10 KB on the Python path does."""
        self._seen += size
        if self._built or (self._seen < SET_AFTER_BYTES and size < SET_FOR_TEXT_BYTES):
            return
        self._built = True
        in_set: list[tuple[int, _SetRule]] = []
        outside: list[tuple[int, _Compiled]] = []
        for i, c in self.patterned:
            rule = c.rule
            assert rule.pattern is not None
            t = set_translation(rule.pattern, rule.ignore_case) if rule.engine == "re" else None
            if t is None:
                outside.append((i, c))
            else:
                in_set.append((i, _SetRule(c, *t)))
        if not in_set:
            return
        # a matcher that has seen little (a one-shot run) starts with small sets, whose DFAs
        # build faster on a cold text; it regroups once it has read REGROUP_BYTES
        self._group = COLD_SET_PATTERNS if self._seen < REGROUP_BYTES else SET_PATTERNS
        rset, refused = _build_set([r.pattern for _, r in in_set], [r.alone for _, r in in_set], self._group)
        if refused:  # rare: RE2 would not take a pattern; it stays on `re`
            outside.extend((in_set[k][0], in_set[k][1].compiled) for k in refused)
            outside.sort(key=_first)
            in_set = [r for k, r in enumerate(in_set) if k not in set(refused)]
            rset, _ = _build_set([r.pattern for _, r in in_set], [r.alone for _, r in in_set], self._group)
        self.set = rset
        self.in_set = tuple(r for _, r in in_set)
        self.set_index = tuple(i for i, _ in in_set)
        self.outside = tuple(outside)
        self.by_index = dict(in_set)

    def _regroup(self, size: int) -> None:
        """Count what the small sets have read; past REGROUP_BYTES, the same patterns in sets
        of SET_PATTERNS (fewer calls per text: what a long-running process wants)."""
        self._seen += size
        if self._seen < REGROUP_BYTES:
            return
        self._group = SET_PATTERNS
        rset, refused = _build_set(
            [r.pattern for r in self.in_set], [r.alone for r in self.in_set], SET_PATTERNS
        )
        if not refused:  # each pattern built alone before, so none is refused now
            self.set = rset
            self.generation += 1

    def fired(
        self, text: str, words: int, lines: int, spans: dict[int, tuple[int, int]] | None = None
    ) -> list[int]:
        """The pack positions of the rules that match `text`, in pack order; where a check
        located a match on the way, its span goes into `spans` (by position) for the explanation."""
        hits = [i for i, c in self.bounded_only if c.bounds_ok(words, lines)]
        self.account(len(text))
        data = _set_input(text) if self.set is not None else None
        if data is None:  # the Python path: every pattern is checked with `re`
            for i, r in self.by_index.items():
                c = r.compiled
                if (not r.bounded or c.bounds_ok(words, lines)) and c.first_match(text) is not None:
                    hits.append(i)
        else:
            in_set, set_index = self.in_set, self.set_index
            ascii_text = len(data) == len(text)
            for k in self.set.match(data):
                r = in_set[k]
                if r.bounded and not r.compiled.bounds_ok(words, lines):
                    continue
                if r.exact_any or (r.exact and ascii_text):
                    hits.append(set_index[k])
                    continue
                found = r.find(data, text)
                if found is not None:
                    hits.append(set_index[k])
                    if spans is not None:
                        spans[set_index[k]] = found
        folded: _Folded | None = None
        for i, c in self.outside:
            if c.off or not c.bounds_ok(words, lines):
                continue
            if folded is None:
                folded = _Folded(text)
            if c.rule.engine == "re2":
                started = time.perf_counter()
                found = c.first_match(text, folded)
                _check_budget(c, time.perf_counter() - started)
            else:
                found = c.first_match(text, folded)
            if found is not None:
                hits.append(i)
        hits.sort()  # pack order, whichever path found them: explanations must not vary
        return hits

    def tally(self, hits: list[int]) -> tuple[dict[str, int], tuple[Signal, ...]]:
        """Scores and bare signals of the rules that fired (shared: callers copy the scores)."""
        key = tuple(hits)
        entry = self.memo.get(key)
        if entry is None:
            scores = self.zero.copy()
            for i in key:
                rule = self.rules[i].rule
                scores[rule.category] += rule.weight
            entry = (scores, tuple(self.bare[i] for i in key))
            if len(self.memo) >= MEMO_SIZE:
                self.memo.clear()
            self.memo[key] = entry
        return entry

    def span(self, i: int, text: str, data: bytes | None) -> tuple[int, int] | None:
        """Where a fired rule first matches, as str offsets (for explanations)."""
        r = self.by_index.get(i)
        if r is None or data is None or self.set is None:
            return self.rules[i].first_match(text)
        return r.find(data, text)


MEMO_SIZE = 4096


def _first(item: tuple[int, _Compiled]) -> int:
    return item[0]


# A user rule (from a rules file) that spends longer than this on one turn is switched off
# for as long as its pack is in use; the load-time cost check (core/safe_re.py) lets few through.
USER_RULE_BUDGET_S = 0.25
_SWITCHED_OFF: list[str] = []


def _check_budget(c: _Compiled, spent: float) -> None:
    if spent > USER_RULE_BUDGET_S:
        c.off = True
        rule = c.rule
        _SWITCHED_OFF.append(
            f"{rule.source}: rule '{rule.id}' took {spent * 1000:,.0f} ms on one turn (budget "
            f"{USER_RULE_BUDGET_S * 1000:.0f} ms); switched off until its file changes or a reload"
        )


def take_switched_off() -> list[str]:
    """Messages about user rules switched off since the last call (the caller reports them)."""
    out = _SWITCHED_OFF[:]
    del _SWITCHED_OFF[:]
    return out


def _re2_compile(pattern: str) -> Any:
    import re2

    options = re2.Options()
    options.max_mem = RULE_MAX_MEM
    options.log_errors = False
    return re2.compile(pattern, options)


def _has_bounds(rule: Rule) -> bool:
    return any(v is not None for v in (rule.min_words, rule.max_words, rule.min_lines, rule.max_lines))


def prefer_memory() -> None:
    """Settings for a long-running process (the language server): smaller RE2 budgets, where
    memory held for ever matters more than the last bit of throughput on huge inputs, and
    sets of SET_PATTERNS from the start. Such a process reads past REGROUP_BYTES anyway, and
    regrouping small sets then is one step of ~30 ms (compiling the label pack's sets again)
    in the middle of a refinement, which a request would wait behind."""
    global SET_MAX_MEM, RULE_MAX_MEM, COLD_SET_PATTERNS
    COLD_SET_PATTERNS = SET_PATTERNS
    # 4 MB a set: the label pack's five sets (the language server's labeler) keep ~3 MB
    # less of DFA states than with 8 MB over a 5 MB transcript, at the same speed (2 MB is
    # the edge: at 1 MB the sets thrash and the labeler is twice as slow)
    SET_MAX_MEM, RULE_MAX_MEM = 4 << 20, 8 << 20
    _MATCHERS.clear()


# Patterns in one RE2 set. A set's DFA states are combinations of its patterns' states:
# two sets of 28 build their DFAs on a cold text about twice as fast as one set of all 56
# of the default pack, while a pass over a turn still costs only two calls (sets of 16:
# faster when cold, but four calls a turn cost 2x more on a transcript).
SET_PATTERNS = 28
# A matcher built before it has read REGROUP_BYTES (a one-shot `turnlens classify` of up to a
# megabyte) uses sets of COLD_SET_PATTERNS: their DFAs build on a cold text ~2x faster than two
# sets of 28 (50 KB: ~4 ms against ~9), worth the extra calls until the process reads more.
COLD_SET_PATTERNS = 7
REGROUP_BYTES = 1_000_000
SET_MAX_MEM = 32 << 20
RULE_MAX_MEM = 64 << 20  # a cap: a big pattern needs room for its DFA, or RE2 falls back to slow NFA


class _RuleSets:
    """The translated patterns of a pack as a few RE2 sets of bounded size.

    One big set's DFA grows with the product of its patterns; sets of a bounded
    program size take a few passes over the text but far less memory and time.
    """

    def __init__(self, sets: list[tuple[Any, list[int]]]) -> None:
        # the compiled RE2::Set under google-re2's Python wrapper (which only re-checks types)
        self.sets = [(getattr(rset, "_set", rset), indices) for rset, indices in sets]

    def match(self, data: bytes) -> list[int]:
        found: list[int] = []
        for rset, indices in self.sets:
            hits = rset.Match(data)
            if hits:
                found.extend(indices[i] for i in hits)
        return found


def _options() -> Any:
    import re2

    options = re2.Options()
    options.max_mem = SET_MAX_MEM
    options.log_errors = False
    return options


def _compile_set(patterns: list[str]) -> Any:
    import re2

    rset = re2.Set.SearchSet(_options())
    try:
        for p in patterns:
            rset.Add(p)
        rset.Compile()
    except re2.error:
        return None
    return rset


def _build_set(
    patterns: list[str], alone: Sequence[bool] = (), per_set: int = SET_PATTERNS
) -> tuple[_RuleSets, list[int]]:
    """Sets of `per_set` patterns over `patterns`, and the indices of patterns RE2 would not
    take (they stay on `re`).

    A pattern marked `alone` (a bounded count of unbounded runs, `Translation.counts_runs`)
    gets a set of its own: in a set with others, the DFA's states are the products of its
    counts and their states, the cache fills and RE2 rebuilds it over and over (the label
    pack's sets of 28 ran at ~4 MB/s under an 8 MB budget, ~100 MB/s with two such
    patterns on their own)."""
    shared = [i for i in range(len(patterns)) if not (alone and alone[i])]
    groups = [shared[i : i + per_set] for i in range(0, len(shared), per_set)]
    groups += [[i] for i in range(len(patterns)) if alone and alone[i]]
    refused: list[int] = []
    sets: list[tuple[Any, list[int]]] = []
    for group in groups:
        rset = _compile_set([patterns[i] for i in group])
        if rset is not None:
            sets.append((rset, group))
            continue
        for i in group:  # a set that will not build: each pattern on its own
            single = _compile_set([patterns[i]])
            if single is None:
                refused.append(i)
            else:
                sets.append((single, [i]))
    return _RuleSets(sets), sorted(refused)


# RE2 pattern (wide form), exact on ASCII, exact on any text, counts runs (a set of its own)
SetTranslation = tuple[str, bool, bool, bool]
_KNOWN_SETS: dict[str, SetTranslation | None] | None = None


def _known_translations() -> dict[str, SetTranslation | None]:
    """The wide translations of TurnLens's own packs, made ahead (packs/translations.json):
    translating a pack's patterns costs more than scoring a 20 KB text."""
    global _KNOWN_SETS
    if _KNOWN_SETS is None:
        from turnlens.core.data import bundled, read_packaged

        _KNOWN_SETS = bundled("translations")  # the one-shot bundle, as below without `json`
        if _KNOWN_SETS is not None:
            return _KNOWN_SETS
        import json

        try:
            raw = json.loads(read_packaged("turnlens.core.packs", "translations.json"))
            _KNOWN_SETS = {
                k: (str(v[0]), bool(v[1]), bool(v[2]), bool(v[3])) if v else None
                for k, v in raw["patterns"].items()
            }
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            _KNOWN_SETS = {}
    return _KNOWN_SETS


def set_translation(pattern: str, ignore_case: bool) -> SetTranslation | None:
    """The RE2 form of a Python pattern for the engine's sets (see translate.py), or None."""
    key = cache_key(pattern, ignore_case)
    known = _known_translations()
    if key in known:
        return known[key]
    from turnlens.core.translate import translate

    t = translate(pattern, ignore_case, wide=True)
    return None if t is None else (t.pattern, t.exact, t.exact_any, t.counts_runs)


def _set_input(text: str) -> bytes | None:
    """UTF-8 for the RE2 set; None sends the text down the Python path instead
    (lone surrogates, and `ı` and `İ`, which Python's case-insensitive `i` matches and RE2's
    does not: the only letters where the two engines' case folding differs)."""
    if not text.isascii() and ("ı" in text or "İ" in text):
        return None
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return None


_MATCHERS: dict[int, tuple[weakref.ref[RulePack], _PackMatcher]] = {}


def _matcher(pack: RulePack) -> _PackMatcher:
    """The compiled matcher of a pack, by identity (hashing a pack walks every rule).

    The cache holds the pack weakly: a pack nobody uses any more (one made for a version of a
    user's model file that has since changed) goes, with its model and its matcher."""
    key = id(pack)
    entry = _MATCHERS.get(key)
    if entry is None or entry[0]() is not pack:
        if len(_MATCHERS) > 64:
            _MATCHERS.clear()
        entry = (ref(pack, partial(_forget, key)), _PackMatcher(pack))
        _MATCHERS[key] = entry
    return entry[1]


def _forget(key: int, ref: weakref.ref[RulePack]) -> None:
    """A cached pack was collected: its matcher goes too (unless the key holds another by now)."""
    entry = _MATCHERS.get(key)
    if entry is not None and entry[0] is ref:
        del _MATCHERS[key]


def _signal(rule: Rule, text: str, span: tuple[int, int], words: int, lines: int) -> Signal:
    start, end = span
    if rule.pattern is None:
        size = (
            f"{words} words" if rule.min_words is not None or rule.max_words is not None else f"{lines} lines"
        )
        return Signal(rule.id, rule.category, rule.weight, 0, size, rule.description)
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
    if "\r" in text:
        text = normalize_newlines(text)
    words = count_words(text)
    lines = text.count("\n") + 1
    if text.endswith("\n"):
        lines -= len(text) - len(text.rstrip("\n"))
    matcher = _matcher(pack)
    if not explain:
        scores, signals = matcher.tally(matcher.fired(text, words, lines))
        return Score(scores.copy(), words, lines, signals)
    spans: dict[int, tuple[int, int]] = {}
    hits = matcher.fired(text, words, lines, spans)
    data = _set_input(text) if matcher.set is not None else None
    scores = matcher.zero.copy()
    for i in hits:
        rule = matcher.rules[i].rule
        scores[rule.category] += rule.weight
    explained = tuple(
        _signal(
            matcher.rules[i].rule,
            text,
            spans.get(i) or matcher.span(i, text, data) or (0, 0),
            words,
            lines,
        )
        for i in hits
    )
    return Score(scores, words, lines, explained)


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
