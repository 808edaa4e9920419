"""Train the optional encoder engine of the router's labeler on the shipped prompts corpus.

    python scripts/train_encoder.py OUT_DIR [--task labels|classes] [--l2 X] [--scale S]
    (needs `pip install 'turnlens[encoder]'`)

Writes `labels-encoder.tlm` and `labels-encoder.vec` (turnlens.learn.encoder) into OUT_DIR;
each prompt is read as the router's labeler reads it (its sample, a `/route` word removed).
`--task classes` trains the same design on the shipped turns corpus instead (the files
`classes-encoder.*`, for measuring: `realtext_eval.py dev-turns --crossfit --encoder OUT_DIR`).
Calibrate the result on the dev prompts afterwards (docs/labels.md):
`python scripts/realtext_eval.py dev-prompts --encoder OUT_DIR --fit-temperature --offsets
--penalty 0.1 --write OUT_DIR`.
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Sequence
from pathlib import Path

from turnlens.learn import encoder
from turnlens.learn.dataset import Row, parse_corpus, shipped_files
from turnlens.router.labeler import strip_directive
from turnlens.router.sample import sample

log = logging.getLogger("train_encoder")


def sample_text(text: str) -> str:
    """What the router's labeler reads of a prompt (its sample, a `/route` word removed)."""
    return strip_directive(sample(text))


def shipped_rows(task: str = "labels") -> list[Row]:
    """The shipped corpus of `task`; prompts as the labeler reads them, turns as they are."""
    rows: list[Row] = []
    for path in shipped_files(task):
        rows += parse_corpus(path.read_text(encoding="utf-8"), task, str(path))[0]
    if task != "labels":
        return rows
    return [Row(r.id, sample_text(r.text), r.label, r.lang, r.genre) for r in rows]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("out", type=Path, help="the folder to write the two files into")
    parser.add_argument("--task", choices=sorted(encoder.FILES), default="labels")
    parser.add_argument("--l2", type=float, default=encoder.L2, help="the regression's L2 penalty")
    parser.add_argument("--scale", type=float, default=encoder.VECTOR_SCALE, help="the vector's scale")
    parser.add_argument("--max-features", type=int, default=encoder.MAX_FEATURES)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    rows = shipped_rows(args.task)
    vectors = encoder.Encoder().encode([r.text for r in rows])
    model, projection = encoder.train(
        rows, vectors, l2=args.l2, scale=args.scale, task=args.task, max_features=args.max_features
    )
    args.out.mkdir(parents=True, exist_ok=True)
    ngrams, vec = encoder.FILES[args.task]
    (args.out / ngrams).write_bytes(model.to_bytes())
    (args.out / vec).write_bytes(projection.to_bytes())
    log.info("%s: %d rows", args.out, len(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
