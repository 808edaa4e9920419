"""The words and phrases of a text that pushed the model's answer, as a person can check them.

The model's features are n-grams (`‹ her›`, `"ship it"`): exact, but meaningless to read. Here
each n-gram that pushed the answer is found in the text, its weight is spread over the
characters it covers, and runs of pushed characters grown to whole words become phrases, each
with the line it is on and the summed weight of the n-grams inside it. The raw features stay
available (`--explain=raw`); this is what views show by default.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from turnlens.learn.features import HEAD, TAIL, _token, region
from turnlens.learn.model import Contribution

MAX_PLACES = 3  # occurrences of one n-gram that count (a repeated word is one reason, not ten)
MAX_PHRASE = 48  # characters of a phrase shown
STRONGEST = 12  # n-grams placed: the strongest pushes, so that phrases stay few and short


class Phrase(NamedTuple):
    """A stretch of the text that pushed the answer: where it is and how hard it pushed."""

    text: str
    start: int
    end: int
    line: int  # 1-based, in the text
    weight: float

    def to_json(self) -> dict[str, object]:
        return {"text": self.text, "line": self.line, "weight": round(self.weight, 3)}


def _windows(text: str) -> list[tuple[int, str]]:
    """The parts of `text` the n-grams come from (head and tail of a long text), folded as the
    features fold them, each with its offset; folding that changes a length is left unfolded."""
    parts = [(0, text)] if len(text) <= HEAD + TAIL else [(0, text[:HEAD]), (len(text) - TAIL, text[-TAIL:])]
    out: list[tuple[int, str]] = []
    for start, part in parts:
        folded = region(part)
        out.append((start, folded if len(folded) == len(part) else part))
    return out


def _token_places(folded: str) -> tuple[dict[str, list[tuple[int, int]]], dict[str, list[tuple[int, int]]]]:
    """Where each word token and each pair of adjacent tokens sits in the folded text."""
    words: dict[str, list[tuple[int, int]]] = {}
    pairs: dict[str, list[tuple[int, int]]] = {}
    previous: tuple[str, int] | None = None
    for m in _token().finditer(folded):
        words.setdefault(m.group(), []).append(m.span())
        if previous is not None:
            pairs.setdefault(f"{previous[0]} {m.group()}", []).append((previous[1], m.end()))
        previous = (m.group(), m.start())
    return words, pairs


def _char_places(folded: str, key: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    at = folded.find(key)
    while at >= 0 and len(out) < MAX_PLACES:
        out.append((at, at + len(key)))
        at = folded.find(key, at + 1)
    return out


def phrases(text: str, contributions: Iterable[Contribution], limit: int = 5) -> list[Phrase]:
    """The strongest stretches of `text` pushed by the positive n-gram `contributions`."""
    grams = sorted((c for c in contributions if c.kind != "d" and c.weight > 0), key=lambda c: -c.weight)
    grams = grams[:STRONGEST]
    if not grams or not text:
        return []
    mass = [0.0] * len(text)
    spans: list[tuple[int, int, float]] = []  # every placed n-gram, in text offsets
    for offset, folded in _windows(text):
        words, pairs = _token_places(folded)
        for c in grams:
            if c.kind == "c":
                places = _char_places(folded, c.key)
            else:
                places = (words if c.kind == "w" else pairs).get(c.key, [])[:MAX_PLACES]
            for start, end in places:
                spans.append((offset + start, offset + end, c.weight))
                share = c.weight / (end - start)
                for i in range(offset + start, offset + end):
                    mass[i] += share
    runs: list[list[int]] = []
    i = 0
    n = len(text)
    while i < n:
        if mass[i] <= 0 or text[i].isspace():
            i += 1
            continue
        start = i
        while i < n and mass[i] > 0 and text[i] != "\n":
            i += 1
        end = i
        while start > 0 and text[start - 1].isalnum() and text[start].isalnum():
            start -= 1  # a phrase starts and ends on whole words
        while end < n and text[end].isalnum() and text[end - 1].isalnum():
            end += 1
        if runs and start <= runs[-1][1]:  # touching the previous run: one phrase ("SPEC-7")
            runs[-1][1] = max(runs[-1][1], end)
        else:
            runs.append([start, end])
        i = max(i, end)
    found: dict[str, Phrase] = {}  # by text: a phrase said twice is one reason, on its first line
    for start, end in runs:
        shown = text[start:end].strip()
        if any(ch.isalnum() for ch in shown):  # punctuation alone is no reason a person can use
            # each n-gram counts for the share of it inside the phrase (one may cross a line end)
            weight = sum(
                w * (min(e, end) - max(s, start)) / (e - s) for s, e, w in spans if s < end and e > start
            )
            key = _clip(shown)
            seen = found.get(key.lower())
            if seen is None:
                found[key.lower()] = Phrase(key, start, end, text.count("\n", 0, start) + 1, weight)
            else:
                found[key.lower()] = seen._replace(weight=seen.weight + weight)
    return sorted(found.values(), key=lambda p: (-p.weight, p.start))[:limit]


def _clip(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= MAX_PHRASE else flat[: MAX_PHRASE - 1] + "…"
