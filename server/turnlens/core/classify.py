"""classify(): scores → the winning task class, with its ratio, frozen flag and verdict."""

from __future__ import annotations

from typing import Any, NamedTuple

from turnlens.core.classes import Frozen, task_class
from turnlens.core.engine import Score, Signal, score
from turnlens.core.rules import RulePack, builtin_pack


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
        }
        if self.pinned:
            out["pinned"] = True
        if explain:
            out["signals"] = [s.to_json() for s in self.signals]
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
        pinned=pin is not None,
    )


def classify(
    text: str,
    pack: RulePack | None = None,
    *,
    explain: bool = False,
    pin: str | None = None,
) -> Classification:
    """Classify one prompt or turn. `pin` forces the class (an inline override)."""
    pack = pack or builtin_pack("default")
    return from_score(score(text, pack, explain=explain), pack, pin=pin)
