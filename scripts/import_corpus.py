"""Bring labelled corpus files into the shipped corpus (server/turnlens/learn/corpus/).

    python scripts/import_corpus.py SRC.jsonl [SRC.jsonl …]

Each source file keeps its name. Rows are checked as `turnlens train` checks them (bad rows
are reported with their line and left out), then de-duplicated across all files: the same
text (case and spacing aside) is kept once, and a text given two different labels is dropped
and reported, since a model cannot learn both.
"""

from __future__ import annotations

import sys
from pathlib import Path

from turnlens.learn.dataset import Row, dump_rows, parse_corpus, task_of

DEST = Path(__file__).resolve().parents[1] / "server" / "turnlens" / "learn" / "corpus"


def key(row: Row) -> str:
    """Rows of the two tasks never clash: "thanks" is chitchat as a turn and chat as a prompt."""
    return f"{task_of(row.label)}\0" + " ".join(row.text.casefold().split())


def main(argv: list[str]) -> int:
    loaded = []
    for name in argv:
        path = Path(name)
        rows, problems = parse_corpus(path.read_text(encoding="utf-8"), None, str(path))
        for p in problems:
            print(p, file=sys.stderr)
        loaded.append((path.name, rows))
    labels: dict[str, set[str]] = {}
    for _, rows in loaded:
        for r in rows:
            labels.setdefault(key(r), set()).add(r.label)
    seen: set[str] = set()
    for filename, rows in loaded:
        kept = []
        for r in rows:
            k = key(r)
            if len(labels[k]) > 1:
                print(f"{filename}: {r.id}: labelled {sorted(labels[k])} elsewhere; dropped", file=sys.stderr)
                continue
            if k in seen:
                continue
            seen.add(k)
            kept.append(r)
        DEST.mkdir(parents=True, exist_ok=True)
        (DEST / filename).write_text(dump_rows(kept), encoding="utf-8")
        print(f"{filename}: {len(kept)} rows ({len(rows) - len(kept)} left out)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
