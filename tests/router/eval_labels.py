"""Accuracy and confusion table of the router's `rules` labeler on a labelled corpus.

    python tests/router/eval_labels.py /work/shared/corpus/prompts-dev.jsonl [--misses]

Each line of the corpus is a JSON object with `text` and `label`
(design / analysis / coding / bookkeeping / chat). Our own sets, in data/:
  prompts-train.jsonl     112 prompts the label pack was tuned on (with the shared dev corpus)
  prompts-holdout.jsonl   held out; first measured at 70 %, then seen while tuning round 1
  prompts-holdout2.jsonl  held out; measured at 65 % after round 1, its wording known in round 2
  prompts-holdout3.jsonl  held out; written after round 2 and measured once: the clean figure
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

NO_LABEL = "(none)"


def load(path: Path) -> list[dict[str, Any]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rows.append(json.loads(line))
    return rows


def evaluate(rows: list[dict[str, Any]]) -> dict[str, Any]:
    from turnlens.router.labeler import label_pack, label_text

    labels = list(label_pack().categories)
    columns = [*labels, NO_LABEL]
    confusion = {label: dict.fromkeys(columns, 0) for label in labels}
    misses = []
    for row in rows:
        result = label_text(row["text"])
        got = result.label or NO_LABEL
        confusion[row["label"]][got] += 1
        if got != row["label"]:
            misses.append({"id": row.get("id"), "label": row["label"], "got": got, "why": result.explain()})
    correct = sum(confusion[label][label] for label in labels)
    return {
        "n": len(rows),
        "correct": correct,
        "accuracy": correct / len(rows) if rows else 0.0,
        "columns": columns,
        "confusion": confusion,
        "misses": misses,
    }


def format_table(result: dict[str, Any]) -> str:
    columns = result["columns"]
    lines = [f"accuracy: {result['correct']}/{result['n']} = {result['accuracy']:.1%}"]
    lines.append("label \\ got".ljust(13) + "".join(c[:11].rjust(12) for c in columns))
    for label, row in result["confusion"].items():
        lines.append(label.ljust(13) + "".join(str(row[c]).rjust(12) for c in columns))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--misses", action="store_true", help="list the mislabelled prompts")
    args = parser.parse_args(argv)
    result = evaluate(load(args.corpus))
    print(format_table(result))
    if args.misses:
        for miss in result["misses"]:
            print(f"  {miss['id']}: {miss['label']} → {miss['got']}   [{miss['why']}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
