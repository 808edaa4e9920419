"""The SE-029 session plan: how many words each turn may keep under a token budget."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from turnlens.core.classify import Classification


def tokens(words: int) -> int:
    """The SE-029 estimate: about 1.3 tokens a word, in integers."""
    return words * 13 // 10


@dataclass(frozen=True, slots=True)
class TurnPlan:
    turn: int
    task_class: str
    frozen: str
    words_orig: int
    applied_ratio: int
    words_plan: int

    def to_json(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "class": self.task_class,
            "frozen": self.frozen,
            "words_orig": self.words_orig,
            "applied_ratio": self.applied_ratio,
            "words_plan": self.words_plan,
        }


@dataclass(frozen=True, slots=True)
class SessionPlan:
    budget: int
    turns: tuple[TurnPlan, ...]

    @property
    def total_orig_words(self) -> int:
        return sum(t.words_orig for t in self.turns)

    @property
    def total_plan_words(self) -> int:
        return sum(t.words_plan for t in self.turns)

    @property
    def total_plan_tokens(self) -> int:
        return tokens(self.total_plan_words)

    @property
    def fits(self) -> bool:
        return self.total_plan_tokens <= self.budget

    @property
    def verdict(self) -> str:
        return "FITS" if self.fits else "OVERFLOW"

    @property
    def excess(self) -> int:
        return max(0, self.total_plan_tokens - self.budget)

    @property
    def message(self) -> str:
        planned = self.total_plan_tokens
        if self.fits:
            return (
                f"FITS: {planned} planned tokens within a budget of {self.budget} ({len(self.turns)} turns)"
            )
        return f"OVERFLOW: {planned} planned tokens exceed the budget of {self.budget} by {self.excess}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "verdict": self.verdict,
            "n_turns": len(self.turns),
            "total_orig_words": self.total_orig_words,
            "total_plan_words": self.total_plan_words,
            "total_orig_tokens": tokens(self.total_orig_words),
            "total_plan_tokens": self.total_plan_tokens,
            "budget": self.budget,
            "message": self.message,
        }
        if not self.fits:
            out["excess"] = self.excess
        out["plan"] = [t.to_json() for t in self.turns]
        return out


def applied_ratio(c: Classification) -> int:
    return 1 if c.frozen == "true" else c.max_ratio


def plan(classifications: Sequence[Classification], budget: int) -> SessionPlan:
    """Plan a session: frozen turns keep every word, the rest shrink by their class ratio."""
    if budget < 0:
        raise ValueError("the budget must be ≥ 0")
    turns = tuple(
        TurnPlan(
            turn=i,
            task_class=c.task_class,
            frozen=c.frozen,
            words_orig=c.words,
            applied_ratio=applied_ratio(c),
            words_plan=max(1, c.words // applied_ratio(c)),
        )
        for i, c in enumerate(classifications, start=1)
    )
    return SessionPlan(budget=budget, turns=turns)
