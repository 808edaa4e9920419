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
from turnlens.pipeline.formats.base import USAGE_KEYS, SessionInfo, iso_time
from turnlens.pipeline.units import ASIDE_KINDS

EFFORT_ORDER = ("none", "low", "medium", "high", "xhigh", "max")
#: how `tokens` (and every figure built on it) is counted; recorded tokens are said apart
TOKENS_BASIS = "estimate: words × 1.3"


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
    # what the file records (SessionInfo): id, parent, times, models, API token usage
    session_id: str | None = None
    parent_session: str | None = None
    started: float | None = None
    ended: float | None = None
    models: list[str] = field(default_factory=list)
    usage: Counter[str] = field(default_factory=Counter)
    usage_source: str | None = None
    usage_sessions: int = 0  # sessions whose file records usage
    aside: int = 0  # injected text and commands: in the user's messages, not typed as prompts
    sub_agents: list[str] = field(default_factory=list)  # paths of sub-agent sessions read beside it
    sidechain_units: int = 0  # units of sub-agents' conversations inside the session's own file

    def take_info(self, info: SessionInfo | None) -> None:
        """The session's recorded facts, from its reader."""
        if info is None:
            return
        self.session_id, self.parent_session = info.session_id, info.parent_session
        self.started, self.ended = info.started, info.ended
        self.models = list(info.models)
        self.sidechain_units = info.sidechain_units
        if info.usage_source:
            self.usage = Counter(info.usage)
            self.usage_source = info.usage_source
            self.usage_sessions = 1

    @property
    def recorded_tokens(self) -> int | None:
        """Input (cache reads and writes included) and output tokens the files record; None
        when none does."""
        if not self.usage_source:
            return None
        u = self.usage
        return u["input"] + u["cache_read"] + u["cache_write"] + u["output"]

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
        self.aside += other.aside
        self.sidechain_units += other.sidechain_units
        if other.started is not None and (self.started is None or other.started < self.started):
            self.started = other.started
        if other.ended is not None and (self.ended is None or other.ended > self.ended):
            self.ended = other.ended
        self.models += [m for m in other.models if m not in self.models]
        if other.usage_source:
            self.usage.update(other.usage)
            same = self.usage_source in (None, other.usage_source)
            self.usage_source = other.usage_source if same else "mixed"
            self.usage_sessions += other.usage_sessions
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
            "tokens_basis": TOKENS_BASIS,
            "aside": self.aside,
            "session_id": self.session_id,
            "parent_session": self.parent_session,
            "sub_agents": list(self.sub_agents),
            "sidechain_units": self.sidechain_units,
            "started": iso_time(self.started),
            "ended": iso_time(self.ended),
            "models": list(self.models),
            "recorded_tokens": self.recorded_tokens,
            "recorded_usage": (
                {k: self.usage.get(k, 0) for k in USAGE_KEYS} | {"source": self.usage_source}
                if self.usage_source
                else None
            ),
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
        if unit.kind in ASIDE_KINDS:
            out.aside += 1
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

    def finish(self, problems: int = 0, info: SessionInfo | None = None) -> SessionStats:
        self.stats.plan_tokens = tokens(self._plan_words)  # as the SE-029 plan sums its words
        self.stats.problems = problems
        self.stats.take_info(info)
        return self.stats


def session_stats(analyzed: Analyzed, path: str = "") -> SessionStats:
    """The figures of one analysed document; ignored units do not count."""
    builder = StatsBuilder(path, analyzed.format)
    for r in analyzed.results:
        builder.add(r)
    return builder.finish(len(analyzed.problems), analyzed.info)


def link_sub_agents(sessions: list[SessionStats]) -> None:
    """Name, in each session read, the sub-agent sessions read with it (their files say whose
    they are; the parent's file does not)."""
    by_id = {s.session_id: s for s in sessions if s.session_id and not s.parent_session}
    for s in sessions:
        parent = by_id.get(s.parent_session) if s.parent_session else None
        if parent is not None and s.path not in parent.sub_agents:
            parent.sub_agents.append(s.path)


def total(stats: Iterable[SessionStats]) -> SessionStats:
    """All sessions added up."""
    out = SessionStats(path="(total)", format="", sessions=0)
    for s in stats:
        out.add(s)
    return out
