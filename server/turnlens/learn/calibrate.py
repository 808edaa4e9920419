"""Temperature scaling: one number that makes a model's confidence honest on real text.

A model trained on written rows is surer of itself than it has a right to be on text people
write (docs/labels.md, Results). Dividing its logits by a temperature T > 1 softens every
answer alike: the winner never changes, only how sure it says it is. T is the value that
minimises the negative log-likelihood of the gold labels of a labelled set of real text.
Pure Python: a golden-section search over log T.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

LOW, HIGH = 0.25, 8.0


def nll(rows: Sequence[Sequence[float]], gold: Sequence[int], temperature: float) -> float:
    """Mean negative log-likelihood of the gold classes at `temperature`."""
    total = 0.0
    for logits, g in zip(rows, gold, strict=True):
        scaled = [v / temperature for v in logits]
        top = max(scaled)
        log_z = top + math.log(sum(math.exp(v - top) for v in scaled))
        total += log_z - scaled[g]
    return total / len(rows) if rows else 0.0


def fit_temperature(rows: Sequence[Sequence[float]], gold: Sequence[int], steps: int = 60) -> float:
    """The temperature in [0.25, 8] that minimises `nll` (rounded to 3 decimals)."""
    if not rows:
        return 1.0
    ratio = (math.sqrt(5) - 1) / 2
    a, b = math.log(LOW), math.log(HIGH)
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, fd = nll(rows, gold, math.exp(c)), nll(rows, gold, math.exp(d))
    for _ in range(steps):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - ratio * (b - a)
            fc = nll(rows, gold, math.exp(c))
        else:
            a, c, fc = c, d, fd
            d = a + ratio * (b - a)
            fd = nll(rows, gold, math.exp(d))
    return round(math.exp((a + b) / 2), 3)
