"""`turnlens eval`: how well the classifiers do on a labelled corpus.

For turns (task classes) it measures rule packs, the `default` one being decided by
the learned model; for prompts (router labels) the embedded labeler and, beside
it, the label rules alone. Each gets accuracy, per-class precision and recall,
macro-F1, a confusion table, expected calibration error and a per-language split.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from turnlens.cli.common import (
    UsageError,
    add_model_arg,
    apply_models,
    load_models,
    load_rules,
    read_path,
    shown,
)
from turnlens.learn.dataset import CLASS_LABELS, ROUTER_LABELS, Row, parse_corpus
from turnlens.learn.metrics import Outcome, format_summary, summarize


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "eval",
        help="measure the classifiers against a labelled JSONL corpus",
        description="Each corpus line is a JSON object with `text` and `label` (a task class, or a "
        "router label for prompts; see docs/labels.md), optionally `id` and `lang`. Prints accuracy, "
        "per-class precision and recall, macro-F1, a confusion table, calibration (ECE) and a "
        "per-language split for each engine. Bad rows are reported with their line and skipped.",
    )
    p.add_argument("--corpus", metavar="FILE.jsonl", required=True)
    p.add_argument(
        "--rules",
        metavar="NAME|PATH",
        action="append",
        help="task classes: a pack to measure (repeatable; default: reference and default)",
    )
    add_model_arg(p)
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--misses", action="store_true", help="list the misclassified items")
    p.set_defaults(func=run)


def load_corpus(path: Path) -> tuple[list[Row], str]:
    """The valid rows and their task; bad rows are reported on stderr and skipped."""
    where = shown(path)
    rows, problems = parse_corpus(read_path(path), None, where)
    if not rows:
        if len(problems) == 1:
            raise UsageError(f"turnlens eval: {problems[0]}")
        for problem in problems:
            print(f"turnlens eval: {problem}", file=sys.stderr)
        raise UsageError(f"turnlens eval: {where}: no valid labelled rows")
    for problem in problems:
        print(f"turnlens eval: {problem}", file=sys.stderr)
    task = "labels" if rows[0].label in ROUTER_LABELS else "classes"
    return rows, task


def _result(name: str, rows: list[Row], outcomes: list[Outcome], labels: tuple[str, ...]) -> dict[str, Any]:
    summary = summarize(outcomes, labels)
    misses = [
        {"id": r.id, "label": o.label, "got": o.got}
        for r, o in zip(rows, outcomes, strict=True)
        if o.label != o.got
    ]
    return {"pack": name, **summary, "misses": misses}


def evaluate(rows: list[Row], pack: Any) -> dict[str, Any]:
    """Task classes of `rows` by one pack (its model deciding when it has one)."""
    from turnlens.classifier import classify

    outcomes = []
    for r in rows:
        c = classify(r.text, pack)
        outcomes.append(Outcome(r.label, c.task_class, c.confidence, r.lang))
    result = _result(pack.name, rows, outcomes, CLASS_LABELS)
    result["engine"] = "model" if pack.model is not None else "rules"
    return result


def evaluate_labels(rows: list[Row], model: Any, *, use_model: bool) -> dict[str, Any]:
    """Router labels of `rows` by the embedded labeler (or the label rules alone), with the
    phase-level accuracy (what decides the effort)."""
    from turnlens.router.labeler import label_text
    from turnlens.router.settings import DEFAULT

    outcomes = []
    for r in rows:
        got = label_text(r.text, explain=False, model=model, use_model=use_model)
        outcomes.append(Outcome(r.label, got.label or "(none)", got.confidence, r.lang))
    name = "labeler (model)" if use_model else "label rules"
    result = _result(name, rows, outcomes, ROUTER_LABELS)
    result["engine"] = "model" if use_model else "rules"
    same_phase = sum(DEFAULT.phase_for(o.label) == DEFAULT.phase_for(o.got) for o in outcomes)
    result["phase_accuracy"] = same_phase / len(outcomes)
    return result


def _which(results: list[dict[str, Any]], task: str, *, custom: bool) -> str:
    """One line that says which engine is the one editors use, and which is for comparison."""
    parts = []
    for result in results:
        name = str(result["pack"]) + (" (model)" if task == "classes" and result["engine"] == "model" else "")
        if result["engine"] == "model":
            used = "your model" if custom else "what editors, check, classify and route use"
            parts.append(f"{name} is {used}")
        else:
            parts.append(f"{name} is the rules alone, for comparison")
    return "Engines: " + "; ".join(parts) + "."


def run(args: argparse.Namespace) -> int:
    path = Path(args.corpus)
    rows, task = load_corpus(path)
    labels: tuple[str, ...]
    if task == "labels":
        model = load_models(args.model, "eval").get("labels")
        results = [
            evaluate_labels(rows, None, use_model=False),
            evaluate_labels(rows, model, use_model=True),
        ]
        labels = ROUTER_LABELS
    else:
        specs = args.rules or ["reference", "default"]
        packs = [apply_models(load_rules(spec, path), args.model, "eval") for spec in specs]
        results = [evaluate(rows, pack) for pack in packs]
        labels = CLASS_LABELS
    if args.json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
        return 0
    print(_which(results, task, custom=bool(args.model)))
    print()
    for result in results:
        name = result["pack"] + (" (model)" if task == "classes" and result["engine"] == "model" else "")
        print(format_summary(name, result, labels))
        if "phase_accuracy" in result:
            print(f"phase level (what sets the effort): {result['phase_accuracy']:.1%}")
        if args.misses:
            for miss in result["misses"]:
                print(f"  miss {miss['id']}: {miss['label']} → {miss['got']}")
        print()
    return 0
