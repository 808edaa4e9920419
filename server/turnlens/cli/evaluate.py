"""`turnlens eval`: accuracy and confusion table of rule packs on a labelled corpus."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from turnlens.cli.common import UsageError, load_rules, read_path, shown


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "eval",
        help="measure rule packs against a labelled JSONL corpus",
        description="Each corpus line is a JSON object with `text` and `label` (a task class). "
        "Prints accuracy and a confusion table for each pack, side by side.",
    )
    p.add_argument("--corpus", metavar="FILE.jsonl", required=True)
    p.add_argument(
        "--rules",
        metavar="NAME|PATH",
        action="append",
        help="a pack to measure (repeatable; default: reference and default)",
    )
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--misses", action="store_true", help="list the misclassified items")
    p.set_defaults(func=run)


def load_corpus(path: Path) -> list[dict[str, Any]]:
    """JSON Lines: records end at LF (or CRLF) only. `str.splitlines` would also cut at U+2028,
    U+0085 and other characters a JSON string may hold raw."""
    items = []
    where = shown(path)
    for n, line in enumerate(read_path(path).split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UsageError(f"turnlens eval: {where}:{n}: not JSON: {exc.msg}") from None
        except RecursionError:
            raise UsageError(f"turnlens eval: {where}:{n}: not JSON: nested too deep") from None
        if not isinstance(item, dict) or "text" not in item or "label" not in item:
            raise UsageError(f"turnlens eval: {where}:{n}: needs `text` and `label`")
        if not isinstance(item["text"], str) or not isinstance(item["label"], str):
            raise UsageError(f"turnlens eval: {where}:{n}: `text` and `label` must be strings")
        items.append(item)
    return items


def evaluate(items: list[dict[str, Any]], pack: Any) -> dict[str, Any]:
    from turnlens.core.classes import CLASS_NAMES
    from turnlens.core.classify import classify

    confusion = {a: dict.fromkeys(CLASS_NAMES, 0) for a in CLASS_NAMES}
    misses = []
    for item in items:
        got = classify(item["text"], pack).task_class
        confusion.setdefault(item["label"], dict.fromkeys(CLASS_NAMES, 0))[got] += 1
        if got != item["label"]:
            misses.append({"id": item.get("id"), "label": item["label"], "got": got})
    correct = sum(confusion[c][c] for c in confusion if c in confusion[c])
    return {
        "pack": pack.name,
        "n": len(items),
        "correct": correct,
        "accuracy": correct / len(items) if items else 0.0,
        "confusion": confusion,
        "misses": misses,
    }


def format_table(result: dict[str, Any]) -> str:
    from turnlens.core.classes import CLASS_NAMES

    head = "label \\ got".ljust(12) + "".join(c[:8].rjust(9) for c in CLASS_NAMES)
    rows = [head]
    for label, row in result["confusion"].items():
        rows.append(label.ljust(12) + "".join(str(row[c]).rjust(9) for c in CLASS_NAMES))
    acc = f"{result['pack']}: {result['correct']}/{result['n']} = {result['accuracy']:.1%}"
    return acc + "\n" + "\n".join(rows)


def run(args: argparse.Namespace) -> int:
    path = Path(args.corpus)
    items = load_corpus(path)
    specs = args.rules or ["reference", "default"]
    results = [evaluate(items, load_rules(spec, path)) for spec in specs]
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for result in results:
        print(format_table(result))
        if args.misses:
            for miss in result["misses"]:
                print(f"  miss {miss['id']}: {miss['label']} → {miss['got']}")
        print()
    return 0
