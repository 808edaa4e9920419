"""The rules' answer: scores → the winning task class, its ratio, frozen flag and verdict.

This is the bottom of the decision: `Classification` (what every view shows) and the
additive rule decision of SE-029, with a pin forcing the class. It knows nothing of the
learned model: `turnlens.classifier` puts pins, user rules, the model and these rules
together, and is what callers use.
"""

from __future__ import annotations

from _bisect import bisect_left  # bisect.bisect_left, without bisect.py

from turnlens.core.classes import task_class
from turnlens.core.engine import (
    Score,
    Signal,
    _matcher,
    _PackMatcher,
    _set_input,
    count_words,
    normalize_newlines,
    score,
    words_in,
)
from turnlens.core.rules import RulePack

TYPE_CHECKING = False  # `typing` stays off the one-shot path (see core/record.py)
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence
    from typing import Any, NamedTuple

    from turnlens.core.classes import Frozen
    from turnlens.learn.model import Contribution
    from turnlens.learn.phrases import Phrase
else:
    from turnlens.core.record import NamedTuple

# Below this probability a view marks the class as unsure (`context?`). Chosen on the
# cross-validated predictions of the shipped corpus: answers under it are right about half
# the time (docs/labels.md, Results).
UNSURE_BELOW = 0.5


class Classification(NamedTuple):
    """The answer for one prompt or turn (a named tuple: cheap to make by the thousand)."""

    task_class: str
    max_ratio: int
    frozen: Frozen
    verdict: str
    words: int
    lines: int
    scores: dict[str, int]
    signals: tuple[Signal, ...] = ()
    pinned: bool = False
    confidence: float = 1.0
    engine: str = "rules"
    probabilities: dict[str, float] | None = None
    # the features that pushed the answer (model engine, when explained), strongest first
    features: tuple[Contribution, ...] = ()
    # each fired rule's weight in the model for the answer (model engine, when explained)
    rule_weights: dict[str, float] | None = None
    # which user rules decided (engine "rules" over the model)
    overridden_by: tuple[str, ...] = ()
    # the stretches of the text that pushed the answer (model engine, when explained)
    phrases: tuple[Phrase, ...] = ()

    def runner_up(self) -> tuple[str, float] | None:
        """The class the model ranked second, with its probability (model engine only)."""
        if not self.probabilities or len(self.probabilities) < 2:
            return None
        ranked = sorted(self.probabilities.items(), key=lambda kv: -kv[1])
        return ranked[1]

    @property
    def unsure(self) -> bool:
        return self.engine == "model" and self.confidence < UNSURE_BELOW

    def shown_class(self) -> str:
        """The class as views show it: `context?` when the model is unsure."""
        return self.task_class + ("?" if self.unsure else "")

    def to_json(self, *, explain: bool = False) -> dict[str, Any]:
        """The SE-029 JSON (field names and types fixed), then TurnLens extras."""
        out: dict[str, Any] = {
            "class": self.task_class,
            "max_ratio": self.max_ratio,
            "frozen": self.frozen,
            "words": self.words,
            "lines": self.lines,
            "scores": dict(self.scores),
            "verdict": self.verdict,
            "confidence": round(self.confidence, 4),
            "engine": self.engine,
        }
        if self.pinned:
            out["pinned"] = True
        if self.overridden_by:
            out["user_rules"] = list(self.overridden_by)
        if explain:
            signals = []
            for s in self.signals:
                item = s.to_json()
                if self.rule_weights is not None and s.rule in self.rule_weights:
                    item["model_weight"] = round(self.rule_weights[s.rule], 3)
                signals.append(item)
            out["signals"] = signals
            if self.probabilities is not None:
                out["probabilities"] = {k: round(v, 4) for k, v in self.probabilities.items()}
            if self.features:
                out["features"] = [c.to_json() for c in self.features]
            if self.phrases:
                out["phrases"] = [p.to_json() for p in self.phrases]
        return out


def pick(scores: dict[str, int], categories: tuple[str, ...]) -> tuple[str | None, int]:
    """The highest-scoring category; ties go to the one listed first (the stricter)."""
    if not categories:
        return None, 0
    top = max(scores.values())
    # dicts keep insertion order and engine scores are built in category order
    for name in categories:
        if scores[name] == top:
            return name, top
    return None, 0  # pragma: no cover - top is one of the values


def decide(result: Score, pack: RulePack) -> str | None:
    """Winner of a score, with the pack's fallback when nothing scored above zero."""
    name, top = pick(result.scores, pack.categories)
    if top > 0:
        return name
    fb = pack.fallback
    if fb is None:
        return None
    return fb.short if result.words <= fb.max_short_words else fb.long


def from_score(result: Score, pack: RulePack, *, pin: str | None = None) -> Classification:
    name = pin if pin is not None else decide(result, pack)
    if name is None:  # a class pack always has a fallback; guard for custom packs
        name = pack.categories[-1]
    return of_class(name, result, pinned=pin is not None)


def of_class(name: str, result: Score, **answer: Any) -> Classification:
    """A class and the score it came with; `answer` carries how it was decided (pinned,
    overridden_by, or the model's confidence, probabilities and features)."""
    tc = task_class(name)
    return Classification(
        task_class=tc.name,
        max_ratio=tc.max_ratio,
        frozen=tc.frozen,
        verdict=tc.verdict,
        words=result.words,
        lines=result.lines,
        scores=result.scores,
        signals=result.signals,
        **answer,
    )


def classify_rules(
    text: str, pack: RulePack, *, explain: bool = False, pin: str | None = None
) -> Classification:
    """The rules' answer for one text (what `classify` gives for a pack without a model)."""
    return from_score(score(text, pack, explain=explain), pack, pin=pin)


class _Batch:
    """What `classify_many` keeps per pack: the word and line counts at which any rule's
    bounds (or the fallback) change, and answers by what decides them."""

    __slots__ = ("answers", "generation", "line_cuts", "matcher", "passes", "word_cuts")

    def __init__(self, pack: RulePack, matcher: _PackMatcher) -> None:
        self.matcher = matcher  # answers are keyed by the hits of this matcher's sets
        self.generation = matcher.generation  # ... as they were grouped then
        words: set[int] = set()
        lines: set[int] = set()
        for rule in pack.rules:
            # bisect_left of n counts the cuts below n: `min` bounds cut below, `max` above
            words.update(v for v in (rule.min_words,) if v is not None)
            words.update(v + 1 for v in (rule.max_words,) if v is not None)
            lines.update(v for v in (rule.min_lines,) if v is not None)
            lines.update(v + 1 for v in (rule.max_lines,) if v is not None)
        if pack.fallback is not None:
            words.add(pack.fallback.max_short_words + 1)
        self.word_cuts = sorted(words)
        self.line_cuts = sorted(lines)
        self.answers: dict[tuple[Any, ...], Classification | None] = {}
        # the rule pass by the same keys (scores and signals), for `score_many`
        self.passes: dict[tuple[Any, ...], tuple[dict[str, int], tuple[Signal, ...]]] = {}


_BATCHES: dict[int, tuple[RulePack, _Batch]] = {}


def _batch(pack: RulePack, matcher: _PackMatcher) -> _Batch:
    entry = _BATCHES.get(id(pack))
    if (
        entry is None
        or entry[0] is not pack
        or entry[1].matcher is not matcher
        or entry[1].generation != matcher.generation
    ):
        if len(_BATCHES) > 16:
            _BATCHES.clear()
        entry = (pack, _Batch(pack, matcher))
        _BATCHES[id(pack)] = entry
    return entry[1]


def classify_rules_many(
    texts: Iterable[str], pack: RulePack, pins: Sequence[str | None] | None = None
) -> list[Classification]:
    """`[classify_rules(t, pack, pin=p) for t, p in zip(texts, pins)]`, the same answers, for the
    turns of a transcript (a pack without a model: `turnlens.classifier.classify_many` decides).

    Which rules fire on a text is decided by what the RE2 sets report and by which side
    of each rule's word and line bounds its counts fall. Texts that agree on those get
    the same answer but for their counts, so everything after the set pass is done once
    per combination (a transcript repeats a few hundred). Hits the set cannot vouch for
    (translations exact on ASCII text only, on a non-ASCII text) are confirmed by `re` first.
    """
    texts = list(texts)
    if pins is not None and len(pins) != len(texts):
        raise ValueError("classify_many: one pin (or None) per text")
    matcher = _matcher(pack)
    matcher.account(sum(map(len, texts)))
    if matcher.set is None or matcher.outside:
        return [classify_rules(t, pack, pin=pins[i] if pins else None) for i, t in enumerate(texts)]
    out = _classify_batch(texts, pack, matcher, _batch(pack, matcher))
    if pins:
        for i, pin in enumerate(pins):
            if pin is not None:
                out[i] = classify_rules(texts[i], pack, pin=pin)
    return out


def _batch_keys(
    texts: list[str], matcher: _PackMatcher, batch: _Batch
) -> Iterator[tuple[str, int, int, tuple[Any, ...] | None]]:
    """Each text (newlines normalised) with its word and line counts and what decides its
    rules' answer: the bounds its counts fall between and the set hits `re` confirms (None,
    with counts 0: the text must be scored on its own)."""
    # per set: the compiled set and, by its local index, the rules `re` must confirm, on ASCII
    # text and on any text
    sets = [
        (
            rset.Match,
            {k: matcher.in_set[g] for k, g in enumerate(indices) if not matcher.in_set[g].exact},
            {k: matcher.in_set[g] for k, g in enumerate(indices) if not matcher.in_set[g].exact_any},
        )
        for rset, indices in matcher.set.sets
    ]
    cut = bisect_left
    word_cuts, line_cuts = batch.word_cuts, batch.line_cuts
    for text in texts:
        if "\r" in text:
            text = normalize_newlines(text)
        if len(text) > 1 << 20:
            yield text, 0, 0, None  # long: counted and confirmed on its own
            continue
        if text.isascii():
            data = text.encode("ascii")
            words = words_in(data)
            confirm = 1
        else:
            utf8 = _set_input(text)
            if utf8 is None:  # what the set cannot read (`ı`, `İ`, lone surrogates)
                yield text, 0, 0, None
                continue
            data = utf8
            words = count_words(text)
            confirm = 2
        lines = text.count("\n") + 1
        if text.endswith("\n"):
            lines -= len(text) - len(text.rstrip("\n"))
        key: list[Any] = [cut(word_cuts, words + 1), cut(line_cuts, lines + 1)]
        for entry in sets:
            hits = entry[0](data)
            if not hits:
                key.append(None)
                continue
            unsure = entry[confirm]
            if unsure:
                # a hit `re` does not confirm is no hit: keep only the confirmed ones
                hits = [k for k in hits if k not in unsure or unsure[k].find(data, text) is not None]
            key.append(tuple(hits))
        yield text, words, lines, tuple(key)


def _classify_batch(
    texts: list[str], pack: RulePack, matcher: _PackMatcher, batch: _Batch
) -> list[Classification]:
    answers = batch.answers
    out: list[Classification] = []
    append = out.append
    new = tuple.__new__  # a known answer with this text's counts, without the keyword __new__
    for text, words, lines, key in _batch_keys(texts, matcher, batch):
        if key is None:
            append(classify_rules(text, pack))
            continue
        answer = answers.get(key)
        if answer is None:
            answer = classify_rules(text, pack)
            if len(answers) >= 4096:
                answers.clear()
            answers[key] = answer
            append(answer)
        else:
            # by position: task_class, max_ratio, frozen, verdict, words, lines, scores, the rest
            a = answer
            append(new(Classification, (a[0], a[1], a[2], a[3], words, lines, a[6].copy(), *a[7:])))
    return out


def score_many(texts: Iterable[str], pack: RulePack) -> list[Score]:
    """`[score(t, pack) for t in texts]`, the same rule passes (unexplained), for the turns of a
    transcript: texts whose set hits and bound buckets agree share one pass but for their
    counts (as `classify_rules_many` shares answers). What a learned model reads beside the text."""
    texts = list(texts)
    matcher = _matcher(pack)
    matcher.account(sum(map(len, texts)))
    if matcher.set is None or matcher.outside:
        return [score(t, pack) for t in texts]
    passes = _batch(pack, matcher).passes
    out: list[Score] = []
    for text, words, lines, key in _batch_keys(texts, matcher, _batch(pack, matcher)):
        if key is None:
            out.append(score(text, pack))
            continue
        known = passes.get(key)
        if known is None:
            r = score(text, pack)
            known = (r.scores, r.signals)
            if len(passes) >= 4096:
                passes.clear()
            passes[key] = known
        out.append(Score(known[0].copy(), words, lines, known[1]))
    return out
