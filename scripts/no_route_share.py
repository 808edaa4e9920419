"""How many prompts that ask for work get no route (issue target: fewer than 5 %).

    python scripts/no_route_share.py PROMPTS.jsonl [--model PATH]

Each prompt labelled anything but `chat` is routed as `turnlens route` routes it (the embedded
labeler, default router settings, `router.minConfidence` included); the script prints the
share with no route and, for each of them, why and what the labeler said.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from turnlens.learn.dataset import parse_corpus
from turnlens.router.resolve import resolve_offline
from turnlens.router.settings import DEFAULT


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--model", type=Path, help="a labels model made by `turnlens train`")
    args = parser.parse_args()
    settings = DEFAULT
    if args.model is not None:
        from dataclasses import replace

        from turnlens.userfiles import load_model_file

        settings = replace(DEFAULT, label_model=load_model_file(args.model))
    rows, problems = parse_corpus(args.corpus.read_text(encoding="utf-8"), "labels", str(args.corpus))
    for p in problems:
        print(p)
    work = [r for r in rows if r.label != "chat"]
    missed = []
    for r in work:
        route = resolve_offline(r.text, settings, explain=False)
        if not route.routed:
            missed.append((r, route))
    share = len(missed) / len(work) if work else 0.0
    print(f"non-chat prompts with no route: {len(missed)} of {len(work)} ({share:.1%})")
    print("why:", dict(Counter(route.source for _, route in missed)))
    for r, route in missed:
        said = f"{route.label} {route.confidence:.2f}" if route.confidence is not None else route.label
        print(f"  {r.id} [{r.label}, {r.lang}] labeler: {said}; {route.reason}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
