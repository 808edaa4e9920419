"""Calibration on real text: a temperature, and optionally one offset per class.

A model trained on written rows is surer of itself than it has a right to be on text people
write (docs/labels.md, Results). Dividing its logits by a temperature T > 1 softens every
answer alike: the winner never changes, only how sure it says it is. T is the value that
minimises the negative log-likelihood of the gold labels of a labelled set of real text
(`fit_temperature`, a golden-section search over log T).

The corpus holds about as many rows of each class; real threads are mostly context, real
prompts mostly coding. `fit_calibration` also fits one offset per class (the log of how much
more common the class is in real text than the model assumes), with the temperature, by the
same likelihood and a small penalty that keeps the offsets near zero. Pure Python.
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


def fit_calibration(
    rows: Sequence[Sequence[float]], gold: Sequence[int], *, penalty: float = 0.1, steps: int = 800
) -> tuple[float, list[float]]:
    """A temperature and per-class offsets (mean zero) minimising the mean negative
    log-likelihood of softmax(logits / T + offset) plus `penalty` · Σ offset²."""
    if not rows:
        return 1.0, []
    k = len(rows[0])
    log_t = math.log(fit_temperature(rows, gold))
    offsets = [0.0] * k
    rate = 0.1
    m = [0.0] * (k + 1)
    v = [0.0] * (k + 1)
    n = len(rows)
    for step in range(1, steps + 1):
        t = math.exp(log_t)
        g_b = [0.0] * k
        g_t = 0.0
        for logits, y in zip(rows, gold, strict=True):
            s = [z / t + b for z, b in zip(logits, offsets, strict=True)]
            top = max(s)
            e = [math.exp(x - top) for x in s]
            total = sum(e)
            for c in range(k):
                d = e[c] / total - (1.0 if c == y else 0.0)
                g_b[c] += d
                g_t -= d * logits[c] / t
        grads = [g / n + 2 * penalty * b for g, b in zip(g_b, offsets, strict=True)] + [g_t / n]
        for j, g in enumerate(grads):
            m[j] = 0.9 * m[j] + 0.1 * g
            v[j] = 0.999 * v[j] + 0.001 * g * g
            delta = rate * (m[j] / (1 - 0.9**step)) / (math.sqrt(v[j] / (1 - 0.999**step)) + 1e-8)
            if j < k:
                offsets[j] -= delta
            else:
                log_t = min(math.log(HIGH), max(math.log(LOW), log_t - delta))
        mean = sum(offsets) / k
        offsets = [b - mean for b in offsets]
        rate = 0.1 if step < steps // 2 else 0.02
    return round(math.exp(log_t), 3), [round(b, 4) for b in offsets]
