"""The small public API, re-exported by `turnlens`.

Functions here accept a pack by name or object so callers need not know the
loader; nothing here does I/O beyond reading TurnLens's own packaged data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from turnlens import classifier as _classifier
from turnlens.core import plan as _plan
from turnlens.core.rules import RulePack
from turnlens.pipeline.analyze import Analyzed
from turnlens.pipeline.analyze import analyze as _analyze
from turnlens.pipeline.formats.turns import DEFAULT_SEPARATOR
from turnlens.pipeline.formats.turns import split_units as _split_units
from turnlens.pipeline.units import Unit
from turnlens.pipeline.workspace import pack_named, profile_for_pack

if TYPE_CHECKING:
    from turnlens.router.resolve import Route
    from turnlens.router.settings import RouterSettings


resolve_pack = pack_named


def classify(
    text: str, pack: RulePack | str | None = None, *, explain: bool = False
) -> _classifier.Classification:
    """Classify one prompt or turn (SPEC §2)."""
    return _classifier.classify(text, resolve_pack(pack), explain=explain)


def split_units(text: str, separator: str = DEFAULT_SEPARATOR) -> list[Unit]:
    """The turns of a document with exact character ranges (SPEC §3)."""
    return _split_units(text, separator)


def analyze(
    text: str,
    *,
    format: str = "auto",
    path: str | None = None,
    pack: RulePack | str | None = None,
    settings: RouterSettings | None = None,
) -> Analyzed:
    """Every unit of a document (any supported format) with its class and route."""
    return _analyze(text, profile_for_pack(pack, format=format, router=settings), path=path)


def classify_unit(
    unit: Unit, pack: RulePack | str | None = None, *, explain: bool = False
) -> _classifier.Classification:
    """Classify a unit, honouring its `<!-- turnlens: class=… -->` pin."""
    return _classifier.classify(
        unit.text, resolve_pack(pack), explain=explain, pin=unit.pin, kind=unit.kind, call=unit.call
    )


def plan(
    units: Sequence[Unit | _classifier.Classification] | str,
    budget: int,
    pack: RulePack | str | None = None,
    *,
    separator: str = DEFAULT_SEPARATOR,
) -> _plan.SessionPlan:
    """The session compression plan (SPEC §4) for units, classifications or a whole document."""
    resolved = resolve_pack(pack)
    if isinstance(units, str):
        analyzed = _analyze(units, profile_for_pack(resolved, separator=separator))
        return _plan.plan([r.classification for r in analyzed.results], budget)
    todo = [u for u in units if not isinstance(u, _classifier.Classification)]
    done = iter(
        _classifier.classify_many(
            [u.text for u in todo],
            resolved,
            [u.pin for u in todo],
            [u.kind for u in todo],
            calls=[u.call for u in todo],
        )
    )
    results = [u if isinstance(u, _classifier.Classification) else next(done) for u in units]
    return _plan.plan(results, budget)


def route(text: str, settings: RouterSettings | None = None) -> Route:
    """The reasoning effort a router gives `text`, offline (SPEC §5, `rules` back end)."""
    from turnlens.router.resolve import resolve_offline

    return resolve_offline(text, settings)
