"""What a whole session is: units by class and role, frozen share, plan savings, effort mix.

Pure: it reads an analysis, so `turnlens stats`, batch runs and the session map
agree on every figure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from turnlens.core.classes import CLASS_NAMES
from turnlens.core.plan import applied_ratio, tokens
from turnlens.pipeline.analyze import Analyzed, UnitResult

EFFORT_ORDER = ("none", "low", "medium", "high", "xhigh", "max")


@dataclass(slots=True)
class SessionStats:
    """Figures for one session (or, added up, for many)."""

    path: str = ""
    format: str = ""
    sessions: int = 1
    units: int = 0
    words: int = 0
    tokens: int = 0
    frozen_tokens: int = 0
    partial_tokens: int = 0
    plan_tokens: int = 0
    by_class: Counter[str] = field(default_factory=Counter)
    tokens_by_class: Counter[str] = field(default_factory=Counter)
    by_role: Counter[str] = field(default_factory=Counter)
    by_kind: Counter[str] = field(default_factory=Counter)
    prompts: int = 0
    effort_mix: Counter[str] = field(default_factory=Counter)
    effort_pairs: Counter[tuple[str, str]] = field(default_factory=Counter)
    problems: int = 0

    @property
    def frozen_share(self) -> float:
        return self.frozen_tokens / self.tokens if self.tokens else 0.0

    @property
    def saved_tokens(self) -> int:
        return self.tokens - self.plan_tokens

    @property
    def saved_share(self) -> float:
        return self.saved_tokens / self.tokens if self.tokens else 0.0

    @property
    def effort_agreement(self) -> float | None:
        """Share of prompts whose routed effort equals the one the agent used (None: not recorded)."""
        total = sum(self.effort_pairs.values())
        if not total:
            return None
        return sum(n for (routed, used), n in self.effort_pairs.items() if routed == used) / total

    def add(self, other: SessionStats) -> None:
        self.sessions += other.sessions
        for name in ("units", "words", "tokens", "frozen_tokens", "partial_tokens", "plan_tokens"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.prompts += other.prompts
        self.problems += other.problems
        for name in ("by_class", "tokens_by_class", "by_role", "by_kind", "effort_mix", "effort_pairs"):
            getattr(self, name).update(getattr(other, name))

    def to_json(self) -> dict[str, Any]:
        agreement = self.effort_agreement
        return {
            "path": self.path,
            "format": self.format,
            "sessions": self.sessions,
            "units": self.units,
            "words": self.words,
            "tokens": self.tokens,
            "frozen_tokens": self.frozen_tokens,
            "frozen_share": round(self.frozen_share, 4),
            "partial_tokens": self.partial_tokens,
            "plan_tokens": self.plan_tokens,
            "saved_tokens": self.saved_tokens,
            "saved_share": round(self.saved_share, 4),
            "by_class": {c: self.by_class.get(c, 0) for c in CLASS_NAMES},
            "tokens_by_class": {c: self.tokens_by_class.get(c, 0) for c in CLASS_NAMES},
            "by_role": dict(sorted(self.by_role.items())),
            "by_kind": dict(sorted(self.by_kind.items())),
            "prompts": self.prompts,
            "effort_mix": {e: self.effort_mix[e] for e in _efforts(self.effort_mix)},
            "effort_routed_vs_used": [
                {"routed": r, "used": u, "count": n} for (r, u), n in sorted(self.effort_pairs.items())
            ],
            "effort_agreement": None if agreement is None else round(agreement, 4),
            "problems": self.problems,
        }


def _efforts(counter: Iterable[str]) -> list[str]:
    known = [e for e in EFFORT_ORDER if e in counter]
    return known + sorted(e for e in counter if e not in EFFORT_ORDER)


class StatsBuilder:
    """Figures added up one result at a time, so a streamed session is never held whole."""

    def __init__(self, path: str, format: str) -> None:
        self.stats = SessionStats(path=path, format=format)
        self._plan_words = 0

    def add(self, r: UnitResult) -> None:
        c, unit = r.classification, r.unit
        if unit.ignored:
            return
        out = self.stats
        n = tokens(c.words)
        out.units += 1
        out.words += c.words
        out.tokens += n
        out.by_class[c.task_class] += 1
        out.tokens_by_class[c.task_class] += n
        out.by_role[unit.role or "text"] += 1
        out.by_kind[unit.kind or "text"] += 1
        if c.frozen == "true":
            out.frozen_tokens += n
        elif c.frozen == "partial":
            out.partial_tokens += n
        self._plan_words += max(1, c.words // applied_ratio(c))
        if r.route.source != "role":
            out.prompts += 1
            routed = r.route.effort or "none"
            out.effort_mix[routed] += 1
            if unit.effort_used:
                out.effort_pairs[(routed, unit.effort_used)] += 1

    def finish(self, problems: int = 0) -> SessionStats:
        self.stats.plan_tokens = tokens(self._plan_words)  # as the SE-029 plan sums its words
        self.stats.problems = problems
        return self.stats


def session_stats(analyzed: Analyzed, path: str = "") -> SessionStats:
    """The figures of one analysed document; ignored units do not count."""
    builder = StatsBuilder(path, analyzed.format)
    for r in analyzed.results:
        builder.add(r)
    return builder.finish(len(analyzed.problems))


def total(stats: Iterable[SessionStats]) -> SessionStats:
    """All sessions added up."""
    out = SessionStats(path="(total)", format="", sessions=0)
    for s in stats:
        out.add(s)
    return out
