"""Figures of a classifier on labelled rows: accuracy, precision/recall, macro-F1,
a confusion table, expected calibration error, and the split by language.

Pure Python, so `turnlens eval` needs nothing that training needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Outcome:
    """One row's gold label, the answer, the answer's confidence and the row's language."""

    label: str
    got: str
    confidence: float = 1.0
    lang: str = ""


def _safe(a: float, b: float) -> float:
    return a / b if b else 0.0


def calibration_error(outcomes: Sequence[Outcome], bins: int = 10) -> float:
    """Expected calibration error: the gap between confidence and accuracy, averaged over
    equal-width confidence bins weighted by how many answers fall in each."""
    if not outcomes:
        return 0.0
    groups: list[list[Outcome]] = [[] for _ in range(bins)]
    for o in outcomes:
        groups[min(bins - 1, int(o.confidence * bins))].append(o)
    total = 0.0
    for group in groups:
        if group:
            acc = sum(o.label == o.got for o in group) / len(group)
            conf = sum(o.confidence for o in group) / len(group)
            total += len(group) * abs(acc - conf)
    return total / len(outcomes)


def summarize(outcomes: Sequence[Outcome], labels: Sequence[str]) -> dict[str, Any]:
    """Every figure `turnlens eval` prints, as JSON-ready data."""
    n = len(outcomes)
    correct = sum(o.label == o.got for o in outcomes)
    names = list(labels) + sorted({o.got for o in outcomes} - set(labels))
    confusion = {a: dict.fromkeys(names, 0) for a in labels}
    for o in outcomes:
        confusion.setdefault(o.label, dict.fromkeys(names, 0))[o.got] += 1
    per_class: dict[str, dict[str, float]] = {}
    f1s = []
    for c in labels:
        tp = confusion.get(c, {}).get(c, 0)
        predicted = sum(row.get(c, 0) for row in confusion.values())
        actual = sum(confusion.get(c, {}).values())
        p, r = _safe(tp, predicted), _safe(tp, actual)
        f1 = _safe(2 * p * r, p + r)
        per_class[c] = {"precision": p, "recall": r, "f1": f1, "support": actual}
        if actual:
            f1s.append(f1)
    langs: dict[str, dict[str, float]] = {}
    for lang in sorted({o.lang or "?" for o in outcomes}):
        group = [o for o in outcomes if (o.lang or "?") == lang]
        langs[lang] = {"n": len(group), "accuracy": _safe(sum(o.label == o.got for o in group), len(group))}
    english = [o for o in outcomes if o.lang == "en"]
    other = [o for o in outcomes if o.lang and o.lang != "en"]
    return {
        "n": n,
        "correct": correct,
        "accuracy": _safe(correct, n),
        "macro_f1": _safe(sum(f1s), len(f1s)),
        "ece": calibration_error(outcomes),
        "per_class": per_class,
        "confusion": confusion,
        "languages": langs,
        "english": _safe(sum(o.label == o.got for o in english), len(english)),
        "not_english": _safe(sum(o.label == o.got for o in other), len(other)),
        "n_english": len(english),
        "n_not_english": len(other),
    }


def format_summary(name: str, s: dict[str, Any], labels: Sequence[str]) -> str:
    """The figures as a block of text (the `turnlens eval` output for one engine)."""
    out = [
        f"{name}: {s['correct']}/{s['n']} = {s['accuracy']:.1%} · macro-F1 {s['macro_f1']:.3f} · "
        f"ECE {s['ece']:.3f}",
        "",
        f"{'class':<12}{'precision':>10}{'recall':>8}{'F1':>7}{'n':>6}",
    ]
    for c in labels:
        m = s["per_class"][c]
        out.append(f"{c:<12}{m['precision']:>10.1%}{m['recall']:>8.1%}{m['f1']:>7.3f}{int(m['support']):>6}")
    names = list(next(iter(s["confusion"].values())).keys()) if s["confusion"] else list(labels)
    out.append("")
    out.append("label \\ got".ljust(12) + "".join(c[:8].rjust(9) for c in names))
    for label, row in s["confusion"].items():
        out.append(label.ljust(12) + "".join(str(row.get(c, 0)).rjust(9) for c in names))
    out.append("")
    parts = [f"{lang} {v['accuracy']:.1%} ({int(v['n'])})" for lang, v in s["languages"].items()]
    out.append("by language: " + " · ".join(parts))
    if s["n_english"] and s["n_not_english"]:
        out.append(
            f"English {s['english']:.1%} ({s['n_english']}) · not English {s['not_english']:.1%} "
            f"({s['n_not_english']})"
        )
    return "\n".join(out)
