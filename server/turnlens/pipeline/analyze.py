"""A document's analysis: units → classification + route, re-scoring only what changed.

Pure (no I/O, no pygls): the language server, the CLI, batch runs and the API
all call it. Results are cached by a unit's text and pin, so an edit in one
message of a long session re-scores that message alone; the format re-splits
only the stretch the edit touched where it can.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from turnlens.classifier import classify, classify_many
from turnlens.core.classify import Classification
from turnlens.pipeline.formats import Edit, Format, NotATranscript, Problem, Split, resolve
from turnlens.pipeline.formats.base import SessionInfo
from turnlens.pipeline.formats.jsonl import Line
from turnlens.pipeline.profile import Profile
from turnlens.pipeline.units import Unit
from turnlens.router.resolve import Route, resolve_offline

RouteFn = Callable[[str], Route]

#: the route of a unit the router does not look at (a reply, a tool result…)
NOT_ROUTED = Route(None, None, None, "role", "routes go to user prompts (turnlens.router.roles)")


@dataclass(frozen=True, slots=True)
class UnitResult:
    unit: Unit
    classification: Classification
    route: Route


@dataclass(frozen=True, slots=True)
class Analyzed:
    """Everything a view needs about one document."""

    format: str
    results: tuple[UnitResult, ...]
    problems: tuple[Problem, ...] = ()
    title: str | None = None
    info: SessionInfo | None = None  # times, models, recorded tokens, where the file has them


CacheKey = tuple[str, str | None, str | None, bool, str | None]  # text, meta, pin, routed, kind


class UnitCache:
    """Results by unit text; rebuilt on each analysis so it holds only live units."""

    def __init__(self) -> None:
        self._entries: dict[CacheKey, tuple[Classification, Route]] = {}
        self._split: Split | None = None
        self._format: Format | None = None
        self._key: tuple[str, str, tuple[str, ...]] | None = None
        self.misses = 0

    def clear(self) -> None:
        self._entries = {}
        self._split = None
        self._format = None
        self._key = None

    def analyze(
        self,
        text: str,
        profile: Profile,
        route_fn: RouteFn | None = None,
        edit: Edit | None = None,
        path: str | None = None,
    ) -> Analyzed:
        """Analyse `text`; `edit` says what changed since the previous call (None: unknown).

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
        fresh: dict[CacheKey, tuple[Classification, Route]] = {}
        order: list[tuple[Unit, CacheKey]] = []
        missing: dict[CacheKey, tuple[Unit, bool]] = {}
        pack = profile.pack
        for unit in split.units:
            routed = profile.routes(unit.role, unit.kind)
            ckey = (unit.text, unit.meta, unit.pin, routed, unit.kind)
            if ckey not in fresh and ckey not in missing:
                entry = old.get(ckey)
                if entry is None:
                    missing[ckey] = (unit, routed)
                else:
                    fresh[ckey] = entry
            order.append((unit, ckey))
        if missing:
            self.misses += len(missing)
            # the new units together: classify_many shares the rule pass between alike texts
            # (not explained: where each rule fired is worked out on hover, for one turn)
            units = list(missing.values())
            answers = classify_many(
                [u.text for u, _ in units], pack, [u.pin for u, _ in units], [u.kind for u, _ in units]
            )
            for ckey, (unit, routed), answer in zip(missing, units, answers, strict=True):
                fresh[ckey] = (answer, route(unit.route_text) if routed else NOT_ROUTED)
        results = [UnitResult(unit, *fresh[ckey]) for unit, ckey in order]
        self._entries = fresh
        return Analyzed(fmt.name, tuple(results), tuple(split.problems), split.title, split.info)

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
            classify(unit.text, pack, pin=unit.pin, kind=unit.kind),
            route(unit.route_text) if routed else NOT_ROUTED,
        )


def can_stream(fmt: Format) -> bool:
    return hasattr(fmt, "stream")
