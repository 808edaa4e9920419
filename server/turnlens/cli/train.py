"""`turnlens train`: a model file from labelled rows (yours, plus the shipped corpus).

Deterministic: the same rows give the same weights. Needs numpy (the `train`
extra); running the model it writes does not.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from turnlens.cli.common import EXIT_OK, UsageError, read_path
from turnlens.learn.dataset import Row, parse_corpus

TASKS = {"classes": "classes", "router": "labels"}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "train",
        help="train a model from a labelled JSONL corpus",
        description="Train the learned classifier from labelled rows (JSON Lines: text, label, lang, "
        "genre; see docs/labels.md) and write a model file for --model or the turnlens.models "
        "setting. Bad rows are reported with their line and skipped. Needs numpy: "
        "pip install 'turnlens[train]'.",
    )
    p.add_argument(
        "--corpus", metavar="FILE.jsonl", action="append", default=[], help="your rows (repeatable)"
    )
    p.add_argument(
        "--base",
        choices=("default", "none"),
        default="default",
        help="default: add the corpus shipped with TurnLens (your rows win on the same text); "
        "none: your rows only",
    )
    p.add_argument(
        "--task",
        choices=tuple(TASKS),
        default="classes",
        help="classes: task classes of turns (default); router: the router's labels of prompts",
    )
    p.add_argument("--out", metavar="FILE", required=True, help="where to write the model")
    p.set_defaults(func=run)


def gather(corpora: list[str], base: str, task: str, command: str) -> list[Row]:
    """Rows from the shipped corpus (unless `base` is none) and the user's files; user rows
    replace shipped ones with the same text. Problems go to stderr, one line each."""
    from turnlens.userfiles import read_shipped_corpus

    rows: dict[str, Row] = {}
    if base == "default":
        shipped, _ = parse_corpus(read_shipped_corpus(task), task, "<shipped corpus>")
        for r in shipped:
            rows[" ".join(r.text.split())] = r
    for name in corpora:
        path = Path(name)
        mine, problems = parse_corpus(read_path(path), task, str(path))
        for problem in problems:
            print(f"turnlens {command}: {problem}", file=sys.stderr)
        for r in mine:
            rows[" ".join(r.text.split())] = r
    return list(rows.values())


class _TerminalProgress:
    """One line on a terminal that says what training is doing and for how long (it takes
    half a minute to two minutes); cleared when training ends. Pipes and logs get nothing."""

    def __init__(self) -> None:
        import time

        self._clock = time.monotonic
        self._start = self._clock()

    def __call__(self, stage: str) -> None:
        sys.stderr.write(f"\r\x1b[Kturnlens train: {stage} ({self._clock() - self._start:.0f} s)")
        sys.stderr.flush()

    def done(self) -> None:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()


def run(args: argparse.Namespace) -> int:
    from turnlens.cli.outputs import OutputProblem, check_output, write_output
    from turnlens.learn.train import TrainingError, train

    out = Path(args.out)
    try:  # before reading the corpus and training (a minute): a bad path is said at once
        check_output(out)
    except OutputProblem as exc:
        raise UsageError(f"turnlens train: --out {out}: {exc}") from None
    task = TASKS[args.task]
    if args.base == "none" and not args.corpus:
        raise UsageError("turnlens train: --base none needs at least one --corpus FILE")
    rows = gather(args.corpus, args.base, task, "train")
    if len({r.label for r in rows}) < 2:
        raise UsageError("turnlens train: need valid rows of at least two labels")
    show = _TerminalProgress() if sys.stderr.isatty() else None
    try:
        model = train(rows, task, progress=show)
    except TrainingError as exc:
        raise UsageError(f"turnlens train: {exc}") from None
    finally:
        if show is not None:
            show.done()
    data = model.to_bytes()
    try:
        write_output(out, data)
    except OutputProblem as exc:
        raise UsageError(f"turnlens train: --out {out}: {exc}") from None
    except OSError as exc:
        raise UsageError(f"turnlens train: {out}: {exc.strerror or exc}") from None
    counts = ", ".join(f"{c} {n}" for c, n in model.meta["per_class"].items())
    print(
        f"{out}: {args.task} model from {len(rows)} rows ({counts}); {model.size} features, {len(data):,} bytes"
    )
    return EXIT_OK
