"""Which of a person's prompts the compaction guard keeps word for word, besides frozen turns.

A turn the default pack classes as a decision or a spec is frozen and kept verbatim. On real
prompts typed to agents only about a third of the decisions and specs are answered so
(docs/labels.md, "Kept word for word"): a person's picks and go-aheads, and briefs with
must-haves, often read as plain requests (context) with the frozen classes close behind. So
the guard also keeps a person's prompt whose frozen classes together hold at least
`guard_share()` of its probability — their even share among the classes (two of six: a
third, twice what one class holds by chance) — under the more probable of them with the
unsure mark (`decision?`, `spec?`). Keeping a prompt that was a request costs a few words of
the summary; losing what the person decided costs the session. Such a prompt is listed
before a compaction but never given back after one (`compaction.lost_turns`). The views still
show the prompt's own class (with its `?`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from turnlens.classifier import Classification

GUARDED_ROLE, GUARDED_KIND = "user", "prompt"  # a person's own prompts: they decide and specify
UNSURE = "?"


def frozen_classes() -> list[str]:
    """The classes a compaction keeps word for word (the classes' own data), strictest first."""
    from turnlens.core.classes import task_classes

    return [name for name, tc in task_classes().items() if tc.frozen == "true"]


def guard_share() -> float:
    """The share of a prompt's probability its frozen classes must hold together for the guard
    to keep it in doubt: their even share among all the classes."""
    from turnlens.core.classes import task_classes

    return len(frozen_classes()) / len(task_classes())


def in_doubt(c: Classification, role: str | None, kind: str | None) -> str | None:
    """`decision?` or `spec?` when the guard keeps this unit although its class is not frozen
    (see the module's docstring); None otherwise (frozen already, not a person's prompt, or
    the frozen classes are not that likely)."""
    probs = c.probabilities
    if role != GUARDED_ROLE or kind != GUARDED_KIND or c.frozen == "true" or not probs:
        return None
    frozen = frozen_classes()
    if sum(probs.get(name, 0.0) for name in frozen) < guard_share():
        return None
    best = max(frozen, key=lambda name: (probs.get(name, 0.0), -frozen.index(name)))
    return best + UNSURE


def guarded_class(c: Classification, role: str | None, kind: str | None) -> str | None:
    """The class under which the guard keeps a unit word for word (its own when frozen, else
    `in_doubt`'s), or None when the guard lets it be compacted."""
    if c.frozen == "true":
        return c.task_class
    return in_doubt(c, role, kind)
