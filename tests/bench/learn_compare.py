"""Model comparison and learning curve for the learned classifier (prints Markdown tables).

    python -m tests.bench.learn_compare [--task classes|labels] [--curve] [--designs a,b,…]
                                        [--heldout FILE.jsonl]

Every design sees the same stratified 5 folds of the shipped corpus (seed 13):
  fasttext    fastText-style supervised vectors over word 1–2-grams, char 3–4-grams, rule
              firings, the rules' answer and shape: averaged 48-dim embeddings, softmax on top,
              Adam for 6 epochs (seed 13) — what ships (turnlens.learn.train, design fasttext)
  lr          logistic regression (L2, L-BFGS) over the same features
  lr-ngrams   the same without the rule and shape features (what the rules add)
  nb          multinomial naive Bayes over the same features
  rules       the rule pack alone (`default` for turns, the label pack for prompts)
Needs numpy (the `train` extra). Figures go to stdout; docs/labels.md quotes them.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from turnlens.core.classify import decide
from turnlens.core.engine import score
from turnlens.learn import train as T
from turnlens.learn.dataset import TASK_LABELS, Row, parse_corpus
from turnlens.learn.features import Features
from turnlens.learn.infer import feature_pack
from turnlens.learn.metrics import Outcome, summarize
from turnlens.userfiles import read_shipped_corpus

Predictor = Callable[[int], tuple[str, float]]


def _no_shape(f: Features) -> Features:
    return Features(f.chars, f.words, f.bigrams, ())


def fit_lr(
    feats: Sequence[Features], labels: Sequence[str], task: str, langs: Sequence[str]
) -> Callable[[Features], tuple[str, float]]:
    model = T.fit(feats, labels, task, T.Settings(design="lr"), langs=langs)

    def predict(f: Features) -> tuple[str, float]:
        p = model.predict(f)
        return p.label, p.confidence

    return predict


def fit_nb(
    feats: Sequence[Features], labels: Sequence[str], task: str, langs: Sequence[str]
) -> Callable[[Features], tuple[str, float]]:
    classes = TASK_LABELS[task]
    vocab = T.build_vocab(feats, T.TASK_SETTINGS[task], langs)
    index = {(k, key): i for i, (k, key) in enumerate((k, key) for k in "cwbd" for key in vocab[k])}
    counts = np.ones((len(classes), len(index)))  # Laplace smoothing
    prior = np.zeros(len(classes))
    for f, label in zip(feats, labels, strict=True):
        c = classes.index(label)
        prior[c] += 1
        idx = [index[kk] for kk in T._keys(f) if kk in index]
        counts[c, idx] += 1
    logp = np.log(counts / counts.sum(axis=1, keepdims=True))
    logprior = np.log(prior / prior.sum())

    def predict(f: Features) -> tuple[str, float]:
        idx = [index[kk] for kk in T._keys(f) if kk in index]
        return classes[int(np.argmax(logprior + logp[:, idx].sum(axis=1)))], 1.0

    return predict


def fit_fasttext(
    feats: Sequence[Features], labels: Sequence[str], task: str, langs: Sequence[str]
) -> Callable[[Features], tuple[str, float]]:
    # as `turnlens train` fits the shipped models: one vocabulary over all languages (a
    # per-language pick of the n-grams measured the same: 87.9 % / 92.2 % against 87.5 % / 92.3 %)
    model = T.fit(feats, labels, task, T.TASK_SETTINGS[task])

    def predict(f: Features) -> tuple[str, float]:
        p = model.predict(f)
        return p.label, p.confidence

    return predict


DESIGNS: dict[str, Any] = {
    "lr": (fit_lr, None),
    "fasttext-ngrams": (fit_fasttext, _no_shape),
    "lr-ngrams": (fit_lr, _no_shape),
    "nb": (fit_nb, None),
    "fasttext": (fit_fasttext, None),
}


def load(task: str) -> list[Row]:
    rows, problems = parse_corpus(read_shipped_corpus(task), task, "<shipped corpus>")
    assert not problems, problems[:3]
    return rows


def cross_validate(
    rows: list[Row], feats: list[Features], task: str, design: str, subset: float = 1.0
) -> dict[str, Any]:
    """CV figures of one design; `subset` trains on that share of each training fold."""
    labels = [r.label for r in rows]
    folds = T.folds(rows, 5)
    outcomes: list[Outcome | None] = [None] * len(rows)
    fold_acc = []
    started = time.perf_counter()
    for test in folds:
        held = set(test)
        train_idx = [i for i in range(len(rows)) if i not in held]
        if subset < 1.0:
            keep = T.folds([rows[i] for i in train_idx], 64)  # stratified, deterministic
            n = max(1, round(64 * subset))
            train_idx = sorted(train_idx[j] for f in keep[:n] for j in f)
        if design == "rules":
            pack = feature_pack(T.PACK_OF_TASK[task])

            def predict_text(i: int, pack: Any = pack) -> tuple[str, float]:
                got = decide(score(rows[i].text, pack), pack)
                return got or "(none)", 1.0

            predict: Predictor = predict_text
        else:
            fit, view = DESIGNS[design]
            view = view or (lambda f: f)
            model = fit(
                [view(feats[i]) for i in train_idx],
                [labels[i] for i in train_idx],
                task,
                [rows[i].lang for i in train_idx],
            )
            predict = lambda i, model=model, view=view: model(view(feats[i]))  # noqa: E731
        correct = 0
        for i in test:
            got, confidence = predict(i)
            outcomes[i] = Outcome(labels[i], got, confidence, rows[i].lang)
            correct += got == labels[i]
        fold_acc.append(correct / len(test))
    done = [o for o in outcomes if o is not None]
    summary = summarize(done, TASK_LABELS[task])
    summary["fold_sd"] = statistics.pstdev(fold_acc)
    summary["seconds"] = time.perf_counter() - started
    summary["outcomes"] = done
    return summary


def heldout(
    rows: list[Row], feats: list[Features], task: str, design: str, held: list[Row]
) -> dict[str, Any]:
    """Figures of one design trained on every row of the corpus, on a held-out set."""
    labels = [r.label for r in rows]
    held_feats = T.featurize_rows(held, task)
    if design == "rules":
        pack = feature_pack(T.PACK_OF_TASK[task])
        answers = [(decide(score(r.text, pack), pack) or "(none)", 1.0) for r in held]
    else:
        fit, view = DESIGNS[design]
        view = view or (lambda f: f)
        model = fit([view(f) for f in feats], labels, task, [r.lang for r in rows])
        answers = [model(view(f)) for f in held_feats]
    outcomes = [Outcome(r.label, got, conf, r.lang) for r, (got, conf) in zip(held, answers, strict=True)]
    return summarize(outcomes, TASK_LABELS[task])


def confidence_table(outcomes: Sequence[Outcome], task: str) -> None:
    """How right the answers under each confidence level are (to set the `?` mark and, for
    prompts, router.minConfidence), and how many answers (non-chat prompts) each would drop."""
    print("\n| confidence under | share of answers | their accuracy | non-chat dropped |")
    print("|---:|---:|---:|---:|")
    for cut in (0.3, 0.35, 0.4, 0.45, 0.5, 0.6):
        under = [o for o in outcomes if o.confidence < cut]
        acc = sum(o.label == o.got for o in under) / len(under) if under else 0.0
        work = [o for o in outcomes if o.label != "chat"] if task == "labels" else list(outcomes)
        dropped = sum(o.confidence < cut for o in work) / len(work)
        print(f"| {cut:.2f} | {len(under) / len(outcomes):.1%} | {acc:.1%} | {dropped:.1%} |")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--task", choices=("classes", "labels"), default="classes")
    parser.add_argument("--designs", default="rules,fasttext,fasttext-ngrams,lr,lr-ngrams,nb")
    parser.add_argument(
        "--curve", action="store_true", help="also print the learning curve of the shipped design"
    )
    parser.add_argument(
        "--heldout",
        metavar="FILE.jsonl",
        help="also train each design on the whole corpus and measure it on this held-out set "
        "(measure a held-out set once, at the end: never tune on it)",
    )
    args = parser.parse_args()
    rows = load(args.task)
    feats = T.featurize_rows(rows, args.task)
    print(f"{args.task}: {len(rows)} rows, 5-fold stratified CV (seed 13)\n")
    print("| design | accuracy | ± (folds) | macro-F1 | English | not English | min recall | CV time |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    lr_outcomes: list[Outcome] = []
    for design in args.designs.split(","):
        s = cross_validate(rows, feats, args.task, design)
        if design == "fasttext":
            lr_outcomes = s["outcomes"]
        low = min(s["per_class"].items(), key=lambda kv: kv[1]["recall"])
        print(
            f"| {design} | {s['accuracy']:.1%} | {s['fold_sd']:.1%} | {s['macro_f1']:.3f} | "
            f"{s['english']:.1%} | {s['not_english']:.1%} | {low[0]} {low[1]['recall']:.0%} | "
            f"{s['seconds']:.0f} s |",
            flush=True,
        )
    if lr_outcomes:
        lr = summarize(lr_outcomes, TASK_LABELS[args.task])
        print(
            f"\nfasttext: ECE {lr['ece']:.3f}; per class recall: "
            + ", ".join(f"{c} {m['recall']:.0%}" for c, m in lr["per_class"].items())
        )
        confidence_table(lr_outcomes, args.task)
    if args.heldout:
        from pathlib import Path

        held, problems = parse_corpus(Path(args.heldout).read_text(encoding="utf-8"), args.task, args.heldout)
        assert not problems, problems[:3]
        print(
            f"\nheld-out set {args.heldout} ({len(held)} rows), each design trained on all {len(rows)} rows:\n"
        )
        print("| design | accuracy | macro-F1 | English | not English | min recall |")
        print("|---|---:|---:|---:|---:|---:|")
        for design in args.designs.split(","):
            h = heldout(rows, feats, args.task, design, held)
            low = min(h["per_class"].items(), key=lambda kv: kv[1]["recall"])
            print(
                f"| {design} | {h['accuracy']:.1%} | {h['macro_f1']:.3f} | {h['english']:.1%} | "
                f"{h['not_english']:.1%} | {low[0]} {low[1]['recall']:.0%} |",
                flush=True,
            )
    if args.curve:
        print("\n| training rows per fold | accuracy (fasttext) |")
        print("|---:|---:|")
        for share in (0.125, 0.25, 0.5):
            s = cross_validate(rows, feats, args.task, "fasttext", share)
            print(f"| {round(len(rows) * 0.8 * share)} | {s['accuracy']:.1%} |", flush=True)
        if lr_outcomes:
            print(
                f"| {round(len(rows) * 0.8)} | {summarize(lr_outcomes, TASK_LABELS[args.task])['accuracy']:.1%} |"
            )


if __name__ == "__main__":
    main()
