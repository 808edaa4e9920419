"""A document's analysis: units → classification + route, re-scoring only what changed.

Pure (no I/O, no pygls): the language server and the CLI both call it. The
cache is keyed by a unit's text and pin, so an edit in one turn of a long
transcript re-scores that turn alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from turnlens.core.classify import Classification, classify
from turnlens.core.rules import RulePack
from turnlens.core.units import Unit, split_units
from turnlens.router.resolve import Route

RouteFn = Callable[[str], Route]


@dataclass(frozen=True, slots=True)
class UnitResult:
    unit: Unit
    classification: Classification
    route: Route


CacheKey = tuple[str, str | None]


class UnitCache:
    """Results by unit text; rebuilt on each analysis so it holds only live units."""

    def __init__(self) -> None:
        self._entries: dict[CacheKey, tuple[Classification, Route]] = {}
        self.hits = 0
        self.misses = 0

    def clear(self) -> None:
        self._entries = {}

    def get(self, unit: Unit) -> tuple[Classification, Route] | None:
        return self._entries.get((unit.text, unit.pin))

    def put_route(self, unit_text: str, pin: str | None, route: Route) -> bool:
        """Replace a unit's route (a late model answer); False when the unit is gone."""
        key = (unit_text, pin)
        entry = self._entries.get(key)
        if entry is None:
            return False
        self._entries[key] = (entry[0], route)
        return True

    def analyze(self, text: str, separator: str, pack: RulePack, route_fn: RouteFn) -> tuple[UnitResult, ...]:
        old = self._entries
        fresh: dict[CacheKey, tuple[Classification, Route]] = {}
        results = []
        for unit in split_units(text, separator):
            key = (unit.text, unit.pin)
            entry = fresh.get(key) or old.get(key)
            if entry is None:
                self.misses += 1
                entry = (classify(unit.text, pack, explain=True, pin=unit.pin), route_fn(unit.text))
            else:
                self.hits += 1
            fresh[key] = entry
            results.append(UnitResult(unit, entry[0], entry[1]))
        self._entries = fresh
        return tuple(results)
