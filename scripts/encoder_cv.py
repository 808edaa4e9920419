"""Choose the encoder engine's regularisation and vector scale by cross-validation on the
written prompts corpus alone (no real text is read).

    python scripts/encoder_cv.py [--l2 1e-5,1e-4,1e-3] [--scale 1,3] [--vectors FILE]

Each prompt is read as the router's labeler reads it (`train_encoder.sample_text`); the
encoder's vectors are computed once (and kept in FILE when given, keyed by the corpus); the
folds are the learner's (5 stratified folds, seed 13). Prints accuracy and macro-F1 per
setting. Needs `pip install 'turnlens[encoder]'`.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from train_encoder import shipped_rows

from turnlens.learn import encoder
from turnlens.learn.dataset import TASK_LABELS
from turnlens.learn.metrics import Outcome, summarize
from turnlens.learn.scorer import features
from turnlens.learn.train import corpus_digest, folds

log = logging.getLogger("encoder_cv")


def _floats(text: str) -> list[float]:
    return [float(x) for x in text.split(",") if x]


def vectors_for(rows: Sequence[object], texts: list[str], keep: Path | None) -> list[list[float]]:
    """The encoder's vectors of `texts`, from `keep` when it holds this corpus's."""
    digest = corpus_digest(rows)  # type: ignore[arg-type]
    if keep is not None and keep.exists():
        data = json.loads(keep.read_text(encoding="utf-8"))
        if data.get("corpus") == digest:
            return list(data["vectors"])
    vectors = encoder.Encoder().encode(texts)
    if keep is not None:
        keep.write_text(json.dumps({"corpus": digest, "vectors": vectors}), encoding="utf-8")
    return vectors


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--l2", type=_floats, default=[1e-5, 1e-4, 1e-3])
    parser.add_argument("--scale", type=_floats, default=[1.0, 3.0])
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--vectors", type=Path, help="keep the encoder's vectors in this file")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    from turnlens.core.engine import score
    from turnlens.learn.infer import feature_pack
    from turnlens.learn.train import PACK_OF_TASK

    rows = shipped_rows()
    vectors = vectors_for(rows, [r.text for r in rows], args.vectors)
    classes = TASK_LABELS["labels"]
    pack = feature_pack(PACK_OF_TASK["labels"])
    parts = folds(rows, args.folds)
    for l2 in args.l2:
        for scale in args.scale:
            outcomes: list[Outcome] = []
            started = time.process_time()
            for held in parts:
                held_set = set(held)
                train = [i for i in range(len(rows)) if i not in held_set]
                model, projection = encoder.train(
                    [rows[i] for i in train], [vectors[i] for i in train], l2=l2, scale=scale
                )
                for i in held:
                    base = model.logits(features(rows[i].text, score(rows[i].text, pack)))
                    extra = projection.logits(vectors[i])
                    z = [a + b for a, b in zip(base, extra, strict=True)]
                    got = classes[max(range(len(z)), key=z.__getitem__)]
                    outcomes.append(Outcome(rows[i].label, got, lang=rows[i].lang))
            figures = summarize(outcomes, classes)
            log.info(
                "l2 %g scale %g: accuracy %.2f %%, macro-F1 %.3f (%d rows, %.0f s CPU)",
                l2,
                scale,
                100 * figures["accuracy"],
                figures["macro_f1"],
                len(outcomes),
                time.process_time() - started,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
