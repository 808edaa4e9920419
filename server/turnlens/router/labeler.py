"""The embedded `rules` labeler: the core scoring engine with the label pack.

Offline, deterministic and explainable: every label comes with the rules that
fired and the text they fired on, so a user can see why a prompt got its effort.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from turnlens.core.classify import decide
from turnlens.core.engine import Signal, score
from turnlens.core.rules import RulePack, packaged_pack

LABELS_PACKAGE = "turnlens.router.packs"
LABELS_FILE = "labels.toml"
# A leading `/route <word>` is an instruction to the router, not part of the request.
_DIRECTIVE = re.compile(r"\A[ \t\r\n]*/route[ \t]+\S+[ \t]*")


@dataclass(frozen=True, slots=True)
class Labeling:
    """What the labeler said: a label (None when no rule fired), the scores, the evidence."""

    label: str | None
    scores: dict[str, int]
    signals: tuple[Signal, ...]

    def explain(self) -> str:
        """`design 6 (design.tradeoffs "trade-offs", design.verb "propose")`, for reasons."""
        if self.label is None:
            return "no label rule fired"
        fired = [s for s in self.signals if s.category == self.label]
        parts = [f'{s.rule} "{s.text}"' if s.text else s.rule for s in fired]
        return f"{self.label} {self.scores[self.label]} ({', '.join(parts)})"


def label_pack() -> RulePack:
    """The packaged label pack (parsed and validated once)."""
    return packaged_pack(LABELS_PACKAGE, LABELS_FILE)


def strip_directive(text: str) -> str:
    return _DIRECTIVE.sub("", text, count=1)


def label_text(text: str, pack: RulePack | None = None, *, explain: bool = True) -> Labeling:
    """Label a prompt (or its sample). Ties go to the label listed first (more effort)."""
    pack = pack or label_pack()
    result = score(strip_directive(text), pack, explain=explain)
    return Labeling(decide(result, pack), result.scores, result.signals)
