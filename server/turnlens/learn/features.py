"""What the learned classifier sees in a text: n-grams, rule firings and shape.

Pure Python and deterministic, shared by training and inference so that a
model scores exactly the features it was trained on. Four kinds:

- `c` character 3–4-grams of the lower-cased text (digits folded to 0): they
  carry markup (fences, diff hunks, `>>>`), morphology and every script,
  including Chinese where there are no spaces between words;
- `w` word unigrams and `b` word bigrams (the phrasing: "otherwise lgtm"; in Chinese and
  Japanese, each character is a word, so the bigrams are the two-character words);
- `d` dense signals: the rule pack's firings (`r:<rule id>`), what the rules
  alone would answer (`top:<class>`, scores in steps), and the text's shape
  (word and line counts in buckets, how much of it looks like code).

The n-grams of a long text come from its head and tail (where a turn says what
it is) so scoring stays well under a millisecond for any size.

Changing a feature. This module is the one definition; `turnlens.learn.scorer` lists
the implementations that score it. The compiled kernel (`_scorer.c`) computes the
n-grams of `region(text)` from the parameters below (`HEAD`/`TAIL`, `CHAR_SIZES`, `MAX_TOKENS`,
`TAIL_TOKENS`, `CJK_RANGES`) and tokenizes as `TOKEN_PATTERN` does; it also makes the shape
features (`shape`, from `WORD_EDGES` … `WORD_CJK_RANGES` and the line test `CODE_LINE_PATTERN`)
and, from the indices of the rule and vote features (made here), pools and calibrates. So: a
change to a parameter needs nothing else; a change to the *form* of `TOKEN_PATTERN`, of
`CODE_LINE_PATTERN`, of the n-grams or of `shape` makes `turnlens.learn.native` turn the
kernel off (`compatible()`, and a check of the kernel's shape features against `shape` on
sample texts when a scorer is made): the pure-Python scorer then answers, with the same
results, until `_scorer.c` follows. After any change run `pytest tests/learn/test_scorer.py`,
which compares every implementation on the corpus.
"""

from __future__ import annotations

from itertools import pairwise

# the CJK ranges are the core's (`core.cjk`: the go-ahead counts words as these features do);
# named here too, where the kernel's compatibility check reads them
from turnlens.core.cjk import CJK_RANGES as CJK_RANGES
from turnlens.core.cjk import WORD_CJK_RANGES as WORD_CJK_RANGES
from turnlens.core.cjk import text_words
from turnlens.core.prebuilt import compile_re

TYPE_CHECKING = False  # neither `typing` nor `re` on the one-shot path (see core/record.py)
if TYPE_CHECKING:
    import re
    from collections.abc import Iterable, Mapping
    from typing import NamedTuple
else:
    from turnlens.core.record import NamedTuple

HEAD = 1500
TAIL = 500
CHAR_SIZES = (3, 4)
MAX_TOKENS = 400
# a text with more tokens keeps its first MAX_TOKENS - TAIL_TOKENS and its last TAIL_TOKENS
TAIL_TOKENS = 100

_DIGIT = compile_re(r"[1-9]")
_DIGIT_TABLE = str.maketrans("123456789", "000000000")


def token_pattern(cjk: tuple[tuple[int, int], ...]) -> str:
    """A token: one CJK character, a run of other word characters, or a run of punctuation."""
    ranges = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in cjk)
    return rf"[{ranges}]|[^\W{ranges}]+|[^\w\s]+"


TOKEN_PATTERN = token_pattern(CJK_RANGES)
_CJK = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in CJK_RANGES)


_TOKEN: list[re.Pattern[str]] = []


def _token() -> re.Pattern[str]:
    """The compiled token pattern, made on first use: its Unicode classes take milliseconds to
    compile, which a one-shot run answered by the compiled scorer never needs."""
    if not _TOKEN:
        import re

        _TOKEN.append(re.compile(TOKEN_PATTERN))
    return _TOKEN[0]


# used with `match` on one line; every branch is anchored so a search does not retry per char
CODE_LINE_PATTERN = r"^(?:(?:\t| {4,}+).*\S|.*[;{}]\s*$|\s*+[#/]{1,2} ?\w|\s*+[<>$]{1,3} )"
_CODE_LINE = compile_re(CODE_LINE_PATTERN)

# The text's shape (`shape`): buckets of its length in words and lines (a bucket is named by
# the first edge the count is at most, else `>`); the share of code lines among the first
# CODE_ROWS lines that are not blank, for a text of at least CODE_MIN_LINES lines (the first
# share it reaches names it, else CODE_LOW); and the last character that is not white space.
WORD_EDGES = (1, 3, 8, 15, 40, 100, 300)
LINE_EDGES = (1, 3, 10, 30)
CODE_MIN_LINES = 3
CODE_ROWS = 200
CODE_SHARES = ((0.5, "≥50%"), (0.2, "≥20%"))
CODE_LOW = "<20%"
ENDS = ("?", "!")


class Features(NamedTuple):
    """The features of one text, by kind, each kind a tuple of distinct keys (sorted order is
    not needed: scoring sums weights, and explanations sort by contribution)."""

    chars: tuple[str, ...]
    words: tuple[str, ...]
    bigrams: tuple[str, ...]
    dense: tuple[str, ...]

    @property
    def n_grams(self) -> int:
        """How many n-grams the text has: their values are scaled by 1/√n (length-independent)."""
        return len(self.chars) + len(self.words) + len(self.bigrams)


def region(text: str) -> str:
    """The part of the text the n-grams come from, lower-cased and with digits folded."""
    if len(text) > HEAD + TAIL:
        text = text[:HEAD] + "\n" + text[-TAIL:]
    text = text.lower()
    if "\0" in text:
        text = text.replace("\0", " ")
    # the same folding two ways: a table is several times faster on ASCII, the pattern on the rest
    return text.translate(_DIGIT_TABLE) if text.isascii() else _DIGIT.sub("0", text)


def _bucket(value: int, edges: Iterable[int]) -> str:
    for edge in edges:
        if value <= edge:
            return f"≤{edge}"
    return ">"


def shape(text: str, words: int, lines: int) -> list[str]:
    """Coarse facts about the layout of the whole text (language-independent); `words` counts
    CJK text too (`text_words`)."""
    out = [f"s:words{_bucket(words, WORD_EDGES)}", f"s:lines{_bucket(lines, LINE_EDGES)}"]
    if lines >= CODE_MIN_LINES:
        rows = text.split("\n", CODE_ROWS)[:CODE_ROWS]
        filled = list(filter(str.strip, rows))
        if filled:
            code = len(list(filter(_CODE_LINE.match, filled)))
            share = code / len(filled)
            out.append("s:code-lines" + next((name for cut, name in CODE_SHARES if share >= cut), CODE_LOW))
    end = text.rstrip()[-1:]
    if end and end in ENDS:
        out.append(f"s:ends{end}")
    return out


def shape_keys() -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Every name `shape` can give, by group and in bucket order: words, lines, code lines
    (CODE_SHARES, then CODE_LOW), ends (what the compiled scorer is given)."""
    return (
        tuple(f"s:words{_bucket(e, WORD_EDGES)}" for e in (*WORD_EDGES, WORD_EDGES[-1] + 1)),
        tuple(f"s:lines{_bucket(e, LINE_EDGES)}" for e in (*LINE_EDGES, LINE_EDGES[-1] + 1)),
        tuple("s:code-lines" + name for name in (*(n for _, n in CODE_SHARES), CODE_LOW)),
        tuple(f"s:ends{c}" for c in ENDS),
    )


def rule_votes(scores: Mapping[str, int]) -> list[str]:
    """What the rules alone say, as features: each category's score in steps, and the rules'
    winner (with a clear margin or not). Scores are in the pack's category order, so a tie
    goes to the category listed first, as in the rules' own decision."""
    key = tuple(scores.items())
    found = _VOTES.get(key)
    if found is None:  # a transcript repeats a few hundred score vectors: each is worked out once
        if len(_VOTES) >= 4096:
            _VOTES.clear()
        found = _VOTES[key] = _votes(key)
    return list(found)


_VOTES: dict[tuple[tuple[str, int], ...], tuple[str, ...]] = {}


def _votes(scores: tuple[tuple[str, int], ...]) -> tuple[str, ...]:
    out = [f"score:{c}≥{step}" for c, v in scores for step in (1, 3, 5) if v >= step]
    if scores:
        ranked = sorted((v for _, v in scores), reverse=True)
        top = ranked[0]
        if top > 0:
            winner = next(c for c, v in scores if v == top)
            out.append(f"top:{winner}")
            if len(ranked) < 2 or top - ranked[1] >= 3:
                out.append(f"top:{winner}+3")
    return tuple(out)


def extract(
    text: str, fired: Iterable[str], words: int, lines: int, scores: Mapping[str, int] | None = None
) -> Features:
    """The features of `text`; `fired` are the ids of the pack rules that matched it and
    `scores` the pack's additive scores."""
    t = region(text)
    grams: set[str] = set()
    for size in CHAR_SIZES:
        # each n-gram joined from n shifted views of the text: ~20 % faster than slicing
        grams.update(map("".join, zip(*(t[k:] for k in range(size)), strict=False)))
    tokens = _token().findall(t)
    if len(tokens) > MAX_TOKENS:
        tokens = tokens[: MAX_TOKENS - TAIL_TOKENS] + tokens[-TAIL_TOKENS:]
    bigrams = {f"{a} {b}" for a, b in pairwise(tokens)}
    dense = dense_features(text, fired, words, lines, scores)
    return Features(tuple(grams), tuple(set(tokens)), tuple(bigrams), dense)


def dense_features(
    text: str, fired: Iterable[str], words: int, lines: int, scores: Mapping[str, int] | None = None
) -> tuple[str, ...]:
    """The rule, vote and shape features of `text` (distinct, in a fixed order)."""
    dense = [f"r:{rid}" for rid in fired]
    # CJK characters counted where the n-grams come from (the head and tail of a long text)
    seen = text if len(text) <= HEAD + TAIL else text[:HEAD] + text[-TAIL:]
    dense.extend(shape(text, text_words(words, seen), lines))
    if scores is not None:
        dense.extend(rule_votes(scores))
    return tuple(dict.fromkeys(dense))
