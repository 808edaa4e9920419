"""Training a model from labelled rows (needs numpy: `pip install 'turnlens[train]'`).

Two designs, both ending as one weight per feature and class (so scoring and
explanations are the same pure-Python linear pass):

- `fasttext` (shipped; it won the comparison in docs/labels.md): fastText-style
  supervised vectors — each feature has a 48-dimensional embedding, a text is the
  mean of its features' embeddings, a softmax layer on top; trained with Adam for
  6 epochs from a seeded start. The embedding times the output layer is each
  feature's weight per class, so the file holds a linear model with mean pooling.
- `lr`: multinomial logistic regression with an L2 penalty, full-batch L-BFGS,
  classes weighted to count the same.

Both are deterministic: the same rows and seed give the same weights.
"""

from __future__ import annotations

import hashlib
from array import array
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from turnlens.learn.dataset import TASK_LABELS, Row
from turnlens.learn.features import Features
from turnlens.learn.model import KINDS, Model

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

# hears what training is doing now (`turnlens train` shows it on a terminal)
Progress = Callable[[str], None]

PACK_OF_TASK = {"classes": "default", "labels": "labels"}


class TrainingError(RuntimeError):
    """Training cannot run (numpy missing, too few rows)."""


def need_numpy() -> Any:
    try:
        import numpy
    except ImportError:  # pragma: no cover - the test extra has numpy
        raise TrainingError(
            "training needs numpy: pip install 'turnlens[train]' (running a model does not)"
        ) from None
    return numpy


@dataclass(frozen=True)
class Settings:
    l2: float = 1e-4
    min_df: int = 2
    max_features: int = 20_000
    iterations: int = 300
    balanced: bool = True
    per_language: bool = True
    language_weight: bool = False
    design: str = "fasttext"
    dim: int = 48
    epochs: int = 6
    learning_rate: float = 0.01
    batch: int = 32
    seed: int = 13
    # fasttext: the model is the mean of this many fits (seeds `seed`, `seed` + 1, …). One fit is
    # one draw: on the real dev turns, the seed alone moves accuracy by up to four points, and
    # the mean of three fits answers at or above the mean of their draws
    fits: int = 1
    # fasttext: a rule or shape feature counts as this many n-grams in the mean, so that one
    # rule firing is not diluted by the hundreds of n-grams of a long text
    dense_weight: float = 5.0


DEFAULT_SETTINGS = Settings()
# per task, by cross-validation: prompts gain from a larger vocabulary (+0.7 points at 30,000
# features), turns hardly (+0.2), and the classes model is the one a one-shot
# `turnlens classify` loads, where each 10,000 features cost ~1.5 ms
# Both models are the mean of three fits: on the real dev turns three seeds answered 59.2,
# 60.1 and 56.0 % (cross-fitted) and their mean model 59.9 % (docs/labels.md, fourth pass); on
# the eleven real router sets three seeds of the labels model routed 56.8, 56.8 and 57.6 % of
# the prompts right and their mean model 57.5 % (twenty-second pass)
TASK_SETTINGS = {"classes": Settings(fits=3), "labels": Settings(max_features=30_000, fits=3)}


def featurize_rows(rows: Sequence[Row], task: str) -> list[Features]:
    """Each row's features, by the same `scorer.features` that scores and explains a text."""
    from turnlens.core.engine import score
    from turnlens.learn.infer import feature_pack
    from turnlens.learn.scorer import features

    pack = feature_pack(PACK_OF_TASK[task])
    return [features(r.text, score(r.text, pack)) for r in rows]


def _keys(f: Features) -> list[tuple[str, str]]:
    return [
        *(("c", k) for k in f.chars),
        *(("w", k) for k in f.words),
        *(("b", k) for k in f.bigrams),
        *(("d", k) for k in f.dense),
    ]


def build_vocab(
    feats: Sequence[Features], settings: Settings, langs: Sequence[str] | None = None
) -> dict[str, list[str]]:
    """N-grams seen in at least `min_df` texts, the most frequent first, capped at
    `max_features`; dense keys seen in any text. With `langs` (one per text) the n-grams are
    ranked within each language and taken in turn, so that a language with fewer rows keeps
    its own words instead of being crowded out by the largest one."""
    df: Counter[tuple[str, str]] = Counter()
    by_lang: dict[str, Counter[tuple[str, str]]] = {}
    for i, f in enumerate(feats):
        keys = _keys(f)
        df.update(keys)
        if langs is not None:
            by_lang.setdefault(langs[i] or "?", Counter()).update(k for k in keys if k[0] != "d")
    kept = {kk for kk, n in df.items() if kk[0] != "d" and n >= settings.min_df}
    if by_lang:
        ranked = [
            sorted((kk for kk in counts if kk in kept), key=lambda kk, c=counts: (-c[kk], kk))  # type: ignore[misc]
            for _, counts in sorted(by_lang.items())
        ]
        chosen: dict[tuple[str, str], None] = {}
        depth = 0
        while len(chosen) < settings.max_features and any(depth < len(r) for r in ranked):
            for r in ranked:
                if depth < len(r):
                    chosen.setdefault(r[depth], None)
            depth += 1
        grams = list(chosen)[: settings.max_features]
    else:
        grams = sorted(kept, key=lambda kk: (-df[kk], kk))[: settings.max_features]
    dense = sorted(key for (kind, key) in df if kind == "d")
    out: dict[str, list[str]] = {kind: [] for kind in KINDS}
    for kind, key in sorted(grams):
        out[kind].append(key)
    out["d"] = dense
    return out


class _Matrix:
    """A sparse design matrix (rows × features) in CSR form, with the ops L-BFGS needs."""

    def __init__(self, feats: Sequence[Features], vocab: dict[str, list[str]]) -> None:
        np = need_numpy()
        index: dict[tuple[str, str], int] = {}
        for kind in KINDS:
            for key in vocab[kind]:
                index[(kind, key)] = len(index)
        self.n_features = len(index)
        cols: list[int] = []
        vals: list[float] = []
        ptr = [0]
        for f in feats:
            scale = 1.0 / f.n_grams**0.5 if f.n_grams else 0.0
            for kind, keys, value in (
                ("c", f.chars, scale),
                ("w", f.words, scale),
                ("b", f.bigrams, scale),
                ("d", f.dense, 1.0),
            ):
                for key in keys:
                    j = index.get((kind, key))
                    if j is not None:
                        cols.append(j)
                        vals.append(value)
            ptr.append(len(cols))
        self.indices = np.asarray(cols, dtype=np.int64)
        self.data = np.asarray(vals, dtype=np.float64)
        self.indptr = np.asarray(ptr, dtype=np.int64)
        self.n_rows = len(feats)
        lengths = np.diff(self.indptr)
        self.row_of = np.repeat(np.arange(self.n_rows), lengths)
        self.nonempty = lengths > 0
        # the same entries ordered by feature, for Xᵀ·G
        self.by_col = np.argsort(self.indices, kind="stable")
        col_sorted = self.indices[self.by_col]
        self.col_starts = np.searchsorted(col_sorted, np.arange(self.n_features))
        self.col_has = np.bincount(self.indices, minlength=self.n_features) > 0

    def dot(self, w: NDArray[np.float64]) -> Any:
        np = need_numpy()
        out = np.zeros((self.n_rows, w.shape[1]))
        if self.data.size:
            prod = self.data[:, None] * w[self.indices]
            sums = np.add.reduceat(prod, self.indptr[:-1][self.nonempty], axis=0)
            out[self.nonempty] = sums
        return out

    def tdot(self, g: NDArray[np.float64]) -> Any:
        np = need_numpy()
        out = np.zeros((self.n_features, g.shape[1]))
        if self.data.size:
            order = self.by_col
            prod = self.data[order, None] * g[self.row_of[order]]
            starts = self.col_starts[self.col_has]
            out[self.col_has] = np.add.reduceat(prod, starts, axis=0)
        return out


def _lbfgs(
    fun: Callable[[NDArray[np.float64]], tuple[float, NDArray[np.float64]]],
    x0: NDArray[np.float64],
    iterations: int,
    memory: int = 10,
    tol: float = 1e-7,
) -> NDArray[np.float64]:
    """Minimise `fun` (value, gradient) with limited-memory BFGS and a backtracking line search."""
    x = x0
    fx, g = fun(x)
    history: list[tuple[Any, Any, float]] = []
    for _ in range(iterations):
        q = g.copy()
        alphas = []
        for s, y, rho in reversed(history):
            a = rho * float(s @ q)
            q -= a * y
            alphas.append(a)
        if history:
            s, y, _rho = history[-1]
            q *= float(s @ y) / float(y @ y)
        else:
            q /= max(1.0, float((g @ g) ** 0.5))
        for (s, y, rho), a in zip(history, reversed(alphas), strict=True):
            b = rho * float(y @ q)
            q += s * (a - b)
        d = -q
        slope = float(g @ d)
        if slope >= 0:  # not a descent direction: restart from the gradient
            history.clear()
            d = -g / max(1.0, float((g @ g) ** 0.5))
            slope = float(g @ d)
        step = 1.0
        while True:
            xn = x + step * d
            fn, gn = fun(xn)
            if fn <= fx + 1e-4 * step * slope or step < 1e-12:
                break
            step *= 0.5
        s, y = xn - x, gn - g
        sy = float(s @ y)
        if sy > 1e-12:
            history.append((s, y, 1.0 / sy))
            if len(history) > memory:
                history.pop(0)
        done = abs(fx - fn) <= tol * max(1.0, abs(fx))
        x, fx, g = xn, fn, gn
        if done:
            break
    return x


def fit(
    feats: Sequence[Features],
    labels: Sequence[str],
    task: str,
    settings: Settings = DEFAULT_SETTINGS,
    meta: dict[str, Any] | None = None,
    langs: Sequence[str] | None = None,
    progress: Progress | None = None,
) -> Model:
    """A model for `task` from featurized rows (`langs`: each row's language, for the vocabulary)."""
    np = need_numpy()
    classes = TASK_LABELS[task]
    if len(feats) < 2:
        raise TrainingError("need at least two labelled rows to train")
    vocab = build_vocab(feats, settings, langs if settings.per_language else None)
    if settings.design == "fasttext":
        return _fit_fasttext(feats, labels, task, vocab, settings, meta, progress)
    x = _Matrix(feats, vocab)
    k = len(classes)
    y = np.asarray([classes.index(label) for label in labels])
    onehot = np.zeros((len(y), k))
    onehot[np.arange(len(y)), y] = 1.0
    counts = np.bincount(y, minlength=k).astype(np.float64)
    if settings.balanced:
        per_class = np.where(counts > 0, len(y) / (k * np.maximum(counts, 1)), 0.0)
        sample_w = per_class[y]
    else:
        sample_w = np.ones(len(y))
    if settings.language_weight and langs is not None:
        # English rows and the rest weigh the same in total: English must not drown the others
        english = np.asarray([lang == "en" for lang in langs])
        n_en = int(english.sum())
        n_other = len(langs) - n_en
        if n_en and n_other:
            sample_w = sample_w * np.where(english, len(langs) / (2 * n_en), len(langs) / (2 * n_other))
    sample_w = sample_w / sample_w.sum()
    d = x.n_features
    l2 = settings.l2

    def fun(theta: Any) -> tuple[float, Any]:
        w = theta[: d * k].reshape(d, k)
        b = theta[d * k :]
        z = x.dot(w) + b
        z -= z.max(axis=1, keepdims=True)
        expz = np.exp(z)
        total = expz.sum(axis=1, keepdims=True)
        logp = z - np.log(total)
        loss = -float((sample_w * (logp * onehot).sum(axis=1)).sum()) + 0.5 * l2 * float((w * w).sum())
        grad_z = (expz / total - onehot) * sample_w[:, None]
        gw = x.tdot(grad_z) + l2 * w
        gb = grad_z.sum(axis=0)
        return loss, np.concatenate([gw.ravel(), gb])

    theta = _lbfgs(fun, np.zeros(d * k + k), settings.iterations)
    w = theta[: d * k].reshape(d, k).astype(np.float32)
    b = theta[d * k :]
    columns = [array("f", w[:, j].tobytes()) for j in range(k)]
    info = {
        "rows": len(y),
        "per_class": {c: int(n) for c, n in zip(classes, counts, strict=True)},
        "l2": l2,
        "min_df": settings.min_df,
        **(meta or {}),
    }
    return Model(
        task=task,
        classes=classes,
        pack=PACK_OF_TASK[task],
        keys=vocab,
        weights=columns,
        bias=[round(float(v), 6) for v in b],
        meta=info,
    )


def _fit_fasttext(
    feats: Sequence[Features],
    labels: Sequence[str],
    task: str,
    vocab: dict[str, list[str]],
    settings: Settings,
    meta: dict[str, Any] | None,
    progress: Progress | None = None,
) -> Model:
    """fastText-style supervised vectors, collapsed into one weight per feature and class."""
    np = need_numpy()
    classes = TASK_LABELS[task]
    index: dict[tuple[str, str], int] = {}
    for kind in KINDS:
        for key in vocab[kind]:
            index[(kind, key)] = len(index)
    docs = [np.asarray([index[kk] for kk in _keys(f) if kk in index], dtype=np.int64) for f in feats]
    is_dense = np.zeros(len(index), dtype=bool)
    is_dense[[i for (kind, _), i in index.items() if kind == "d"]] = True
    rw = settings.dense_weight
    # each document's features with their share of the mean (dense ones count `rw` times)
    shares = []
    for d in docs:
        w = np.where(is_dense[d], rw, 1.0)
        shares.append(w / w.sum() if len(d) else w)
    y = np.asarray([classes.index(label) for label in labels])
    dim, k = settings.dim, len(classes)
    fits = [
        _fasttext_fit(
            docs, shares, y, len(index), k, settings, settings.seed + n, (n, settings.fits), progress
        )
        for n in range(settings.fits)
    ]
    # the mean of the fits' collapsed weights: one model of the same size, answering as their average
    weights = (sum(w for w, _ in fits) / len(fits)).astype(np.float32)
    bias = sum(b for _, b in fits) / len(fits)
    counts = np.bincount(y, minlength=k)
    info = {
        "rows": len(y),
        "per_class": {c: int(n) for c, n in zip(classes, counts, strict=True)},
        "design": "fasttext",
        "dim": dim,
        "epochs": settings.epochs,
        "seed": settings.seed,
        **({"fits": settings.fits} if settings.fits > 1 else {}),
        "dense_weight": rw,
        "min_df": settings.min_df,
        **(meta or {}),
    }
    return Model(
        task=task,
        classes=classes,
        pack=PACK_OF_TASK[task],
        keys=vocab,
        weights=[array("f", weights[:, j].tobytes()) for j in range(k)],
        bias=[round(float(v), 6) for v in bias],
        meta=info,
        pooling="mean",
        dense_weight=rw,
    )


def _fasttext_fit(
    docs: Sequence[Any],
    shares: Sequence[Any],
    y: Any,
    n_features: int,
    k: int,
    settings: Settings,
    seed: int,
    which: tuple[int, int],
    progress: Progress | None,
) -> tuple[Any, Any]:
    """One fit with `seed`: the collapsed weights (features × classes, float64) and the bias."""
    np = need_numpy()
    rng = np.random.default_rng(seed)
    dim = settings.dim
    emb = rng.normal(0.0, 0.1, (n_features, dim))
    out = np.zeros((dim, k))
    bias = np.zeros(k)
    params = [emb, out, bias]
    m1 = [np.zeros_like(p) for p in params]
    m2 = [np.zeros_like(p) for p in params]
    b1, b2, step = 0.9, 0.999, 0
    for epoch in range(settings.epochs):
        if progress is not None:
            done, total = which[0] * settings.epochs + epoch + 1, which[1] * settings.epochs
            progress(f"fitting: pass {done} of {total} over {len(docs):,} rows")
        order = rng.permutation(len(docs))
        for start in range(0, len(order), settings.batch):
            batch = order[start : start + settings.batch]
            hs = np.stack([shares[i] @ emb[docs[i]] if len(docs[i]) else np.zeros(dim) for i in batch])
            z = hs @ out + bias
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            p[np.arange(len(batch)), y[batch]] -= 1.0
            p /= len(batch)
            g_h = p @ out.T
            g_emb = np.zeros_like(emb)
            for row, i in enumerate(batch):
                if len(docs[i]):
                    np.add.at(g_emb, docs[i], np.outer(shares[i], g_h[row]))
            grads = (g_emb, hs.T @ p, p.sum(axis=0))
            step += 1
            for j, g in enumerate(grads):
                m1[j] = b1 * m1[j] + (1 - b1) * g
                m2[j] = b2 * m2[j] + (1 - b2) * g * g
                params[j] -= (
                    settings.learning_rate
                    * (m1[j] / (1 - b1**step))
                    / (np.sqrt(m2[j] / (1 - b2**step)) + 1e-8)
                )
    return emb @ out, bias


def corpus_digest(rows: Sequence[Row]) -> str:
    """A checksum of the training rows (text and label), stored in the model's header."""
    h = hashlib.sha256()
    for r in rows:
        h.update(r.label.encode())
        h.update(b"\0")
        h.update(r.text.encode("utf-8", "surrogatepass"))
        h.update(b"\1")
    return h.hexdigest()[:16]


def train(
    rows: Sequence[Row], task: str, settings: Settings | None = None, progress: Progress | None = None
) -> Model:
    """Featurize and fit, recording what the model was trained on; `progress` hears each stage."""
    settings = settings or TASK_SETTINGS[task]
    if progress is not None:
        progress(f"reading the features of {len(rows):,} rows")
    feats = featurize_rows(rows, task)
    meta = {"corpus": corpus_digest(rows)}
    return fit(feats, [r.label for r in rows], task, settings, meta=meta, progress=progress)


def folds(rows: Sequence[Row], k: int = 5, seed: int = 13) -> list[list[int]]:
    """Stratified folds: indices of each label shuffled with `seed`, dealt round-robin."""
    import random

    rng = random.Random(seed)
    by_label: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        by_label.setdefault(r.label, []).append(i)
    out: list[list[int]] = [[] for _ in range(k)]
    turn = 0
    for label in sorted(by_label):
        idx = by_label[label]
        rng.shuffle(idx)
        for i in idx:
            out[turn % k].append(i)
            turn += 1
    return [sorted(f) for f in out]
