"""A document's analysis: units → classification + route, re-scoring only what changed.

Pure (no I/O, no pygls): the language server, the CLI, batch runs and the API
all call it. Results are cached by a unit's text and pin, so an edit in one
message of a long session re-scores that message alone; the format re-splits
only the stretch the edit touched where it can.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import chain

from turnlens.classifier import classify, classify_many
from turnlens.core.classify import Classification, classify_rules_many
from turnlens.core.engine import Score
from turnlens.core.rules import RulePack
from turnlens.pipeline.formats import Edit, Format, NotATranscript, Problem, Split, resolve
from turnlens.pipeline.formats.base import SessionInfo
from turnlens.pipeline.formats.jsonl import Line
from turnlens.pipeline.profile import Profile
from turnlens.pipeline.units import Unit
from turnlens.router.resolve import Route, resolve_offline

RouteFn = Callable[[str], Route]

#: the route of a unit the router does not look at (a reply, a tool result…)
NOT_ROUTED = Route(None, None, None, "role", "routes go to user prompts (turnlens.router.roles)")
#: the route of a provisional result whose prompt the labeler has not read yet
PENDING = Route(None, None, None, "pending", "the labeler has not read this prompt yet")


@dataclass(frozen=True, slots=True)
class UnitResult:
    unit: Unit
    classification: Classification
    route: Route
    # the rules' quick answer, until `UnitCache.refine` gives the model's (see `analyze`)
    provisional: bool = False


@dataclass(frozen=True, slots=True)
class Analyzed:
    """Everything a view needs about one document."""

    format: str
    results: tuple[UnitResult, ...]
    problems: tuple[Problem, ...] = ()
    title: str | None = None
    info: SessionInfo | None = None  # times, models, recorded tokens, where the file has them


# text, meta, pin, routed, kind, call (a tool result's call: evidence for its class)
CacheKey = tuple[str, str | None, str | None, bool, str | None, str | None]


class UnitCache:
    """Results by unit text; rebuilt on each analysis so it holds only live units."""

    def __init__(self) -> None:
        self._entries: dict[CacheKey, tuple[Classification, Route]] = {}
        self._split: Split | None = None
        self._format: Format | None = None
        self._key: tuple[str, str, tuple[str, ...]] | None = None
        self.misses = 0
        # quick answers still to refine (by key, in document order), what refines them, and
        # the units of the last analysis in order (to rebuild its results as answers improve)
        self.pending: dict[CacheKey, tuple[Unit, bool]] = {}
        self._refine_with: tuple[Profile, RouteFn] | None = None
        self._order: list[tuple[Unit, CacheKey]] = []
        self._index: tuple[list[tuple[Unit, CacheKey]], dict[int, CacheKey]] | None = None
        # the pack every pending quick answer was made with (None: not one pack): its rule
        # pass is then the model's input too, and `refine` does not run it again
        self._quick_pack: RulePack | None = None

    def clear(self) -> None:
        self._entries = {}
        self._split = None
        self._format = None
        self._key = None
        self.pending = {}
        self._refine_with = None
        self._order = []
        self._index = None
        self._quick_pack = None

    def analyze(
        self,
        text: str,
        profile: Profile,
        route_fn: RouteFn | None = None,
        edit: Edit | None = None,
        path: str | None = None,
        quick_over: int | None = None,
    ) -> Analyzed:
        """Analyse `text`; `edit` says what changed since the previous call (None: unknown).

        With `quick_over`, when the new units hold more characters than that, they get the
        rules' answer alone (tens of MB/s) and a pending route, and are marked
        provisional: `refine` then gives the model's answers a slice at a time, so a view can
        show a long document at once and stay responsive while the model reads it.

        Raises NotATranscript when the profile's format (or auto-detection) refuses the text.
        """
        fmt = self._format_for(text, profile, path)
        options = profile.options
        key = (fmt.name, options.separator, options.hide_kinds)
        if self._split is not None and edit is not None and self._key == key:
            split = fmt.resplit(text, options, self._split, edit)
        else:
            split = fmt.split(text, options)
        self._split, self._key = split, key
        route = route_fn or _offline(profile)
        old = self._entries
        was_pending = self.pending
        fresh: dict[CacheKey, tuple[Classification, Route]] = {}
        order: list[tuple[Unit, CacheKey]] = []
        missing: dict[CacheKey, tuple[Unit, bool]] = {}
        pending: dict[CacheKey, tuple[Unit, bool]] = {}
        pack = profile.pack
        for unit in split.units:
            routed = profile.routes(unit.role, unit.kind)
            ckey = (unit.text, unit.meta, unit.pin, routed, unit.kind, unit.call)
            if ckey not in fresh and ckey not in missing:
                entry = old.get(ckey)
                if entry is None:
                    missing[ckey] = (unit, routed)
                else:
                    fresh[ckey] = entry
                    if ckey in was_pending:  # still the quick answer: refine it later
                        pending[ckey] = (unit, routed)
            order.append((unit, ckey))
        if pending and self._quick_pack is not pack:
            self._quick_pack = None  # quick answers of another pack are still pending
        elif not pending:
            self._quick_pack = pack
        if missing:
            self.misses += len(missing)
            units = list(missing.values())
            texts = [u.text for u, _ in units]
            pins = [u.pin for u, _ in units]
            if quick_over is not None and sum(map(len, texts)) > quick_over:
                answers = classify_rules_many(texts, pack, pins)
                for ckey, (unit, routed), answer in zip(missing, units, answers, strict=True):
                    fresh[ckey] = (answer, PENDING if routed else NOT_ROUTED)
                    pending[ckey] = (unit, routed)
            else:
                # the new units together: classify_many shares the rule pass between alike
                # texts (not explained: where each rule fired is worked out on hover, for one turn)
                answers = classify_many(
                    texts, pack, pins, [u.kind for u, _ in units], calls=[u.call for u, _ in units]
                )
                for ckey, (unit, routed), answer in zip(missing, units, answers, strict=True):
                    fresh[ckey] = (answer, route(unit.route_text) if routed else NOT_ROUTED)
        self._entries = fresh
        self._order = order
        self.pending = pending
        self._refine_with = (profile, route) if pending else None
        return Analyzed(fmt.name, self.results(), tuple(split.problems), split.title, split.info)

    def results(self) -> tuple[UnitResult, ...]:
        """The last analysis's results with the answers as they are now (refined or not)."""
        entries, pending = self._entries, self.pending
        if not pending:
            return tuple([UnitResult(unit, *entries[ckey]) for unit, ckey in self._order])
        return tuple([UnitResult(unit, *entries[ckey], ckey in pending) for unit, ckey in self._order])

    def refine(self, max_chars: int, first: Iterable[CacheKey] = ()) -> list[UnitResult]:
        """Replace quick answers by the model's and the full route, `first` before the rest
        (in document order), until about `max_chars` characters are read (at least one unit);
        the same answers a full analysis gives. Returns the refined results (one per answer:
        a unit repeated in the document is refined once)."""
        pending, with_ = self.pending, self._refine_with
        if not pending or with_ is None:
            return []
        profile, route = with_
        chosen: dict[CacheKey, None] = {}
        read = 0
        for ckey in chain((k for k in first if k in pending), pending):
            if read >= max_chars and chosen:
                break
            if ckey not in chosen:
                chosen[ckey] = None
                read += len(ckey[0])
        batch = list(chosen)
        units = [pending[ckey] for ckey in batch]
        passes = None
        if self._quick_pack is profile.pack:  # the quick answers' rule pass, not run again
            quick = [self._entries[ckey][0] for ckey in batch]
            passes = [Score(c.scores.copy(), c.words, c.lines, c.signals) for c in quick]
        answers = classify_many(
            [u.text for u, _ in units],
            profile.pack,
            [u.pin for u, _ in units],
            [u.kind for u, _ in units],
            passes,
            calls=[u.call for u, _ in units],
        )
        out = []
        for ckey, (unit, routed), answer in zip(batch, units, answers, strict=True):
            entry = self._entries[ckey] = (answer, route(unit.route_text) if routed else NOT_ROUTED)
            del pending[ckey]
            out.append(UnitResult(unit, *entry))
        if not pending:  # all final: what finding a unit's key needed goes too
            self._refine_with = None
            self._index = None
        return out

    def result_of(self, unit: Unit, key: CacheKey) -> UnitResult:
        """One unit's result as it is now (`key`: its `key_of`)."""
        return UnitResult(unit, *self._entries[key], key in self.pending)

    def key_of(self, unit: Unit) -> CacheKey | None:
        """The cache key of one of the last analysis's units (None: not one of them)."""
        index = self._index
        if index is None or index[0] is not self._order:
            index = self._index = (self._order, {id(u): ckey for u, ckey in self._order})
        return index[1].get(id(unit))

    def _format_for(self, text: str, profile: Profile, path: str | None) -> Format:
        """The document's format: detected once, kept while it still claims the text."""
        if profile.format != "auto":
            return resolve(profile.format, path, text)
        cached = self._format
        if cached is not None and cached.name != "turns" and cached.detect(path, text[:4096]) > 0:
            return cached
        self._format = resolve("auto", path, text)
        return self._format


def _offline(profile: Profile) -> RouteFn:
    settings = profile.router

    def route(text: str) -> Route:
        return resolve_offline(text, settings, explain=False)

    return route


def analyze(text: str, profile: Profile | None = None, path: str | None = None) -> Analyzed:
    """One document, once: what the CLI, batch runs and the API call."""
    return UnitCache().analyze(text, profile or Profile(), path=path)


__all__ = [
    "NOT_ROUTED",
    "PENDING",
    "Analyzed",
    "NotATranscript",
    "UnitCache",
    "UnitResult",
    "analyze",
    "analyze_stream",
    "can_stream",
]


def analyze_stream(
    lines: Iterable[Line],
    fmt: Format,
    profile: Profile,
    problems: list[Problem],
    info: SessionInfo | None = None,
) -> Iterator[UnitResult]:
    """Results one unit at a time from lines read as they come: a 50 MB session in bounded
    memory. Only formats with a `stream` method (JSON Lines) can; problems are appended, and
    `info` is filled as the lines go by."""
    stream = getattr(fmt, "stream", None)
    if stream is None:
        raise TypeError(f"the {fmt.name} format cannot be read line by line")
    route = _offline(profile)
    pack = profile.pack
    for unit in stream(lines, profile.options, problems, info):
        routed = profile.routes(unit.role, unit.kind)
        yield UnitResult(
            unit,
            classify(unit.text, pack, pin=unit.pin, kind=unit.kind, call=unit.call),
            route(unit.route_text) if routed else NOT_ROUTED,
        )


def can_stream(fmt: Format) -> bool:
    return hasattr(fmt, "stream")
