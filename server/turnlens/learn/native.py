"""The compiled n-gram scorer (`_scorer.c`), when it is installed and fits the features.

The extension is optional: a wheel for the platform carries it, and `pip install` from
source builds it when a C compiler is at hand. Wherever it is missing, or the feature
definitions in `turnlens.learn.features` have moved past what the kernel implements,
`turnlens.learn.scorer.scorer_for` answers with the pure-Python scorer instead: the same
answers, slower. TURNLENS_PURE_PYTHON=1 in the environment chooses the pure-Python one.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from turnlens.core.engine import Score, normalize_newlines
from turnlens.learn import features as F
from turnlens.learn.scorer import Explanation, ModelRef, explain_features, features

if TYPE_CHECKING:
    from turnlens.learn.model import Model, Prediction

# The token shape the kernel implements, over the CJK ranges it is given: if
# `features.TOKEN_PATTERN` is no longer this, the kernel does not serve (see features.py).
_KERNEL_TOKEN = r"[{r}]|[^\W{r}]+|[^\w\s]+"


def kernel_type() -> Any | None:
    """The compiled `Kernel` class, or None (not built here, or turned off)."""
    if os.environ.get("TURNLENS_PURE_PYTHON", "") not in ("", "0"):
        return None
    try:
        from turnlens.learn import _scorer  # type: ignore[attr-defined]
    except ImportError:
        return None
    return _scorer.Kernel


def compatible() -> bool:
    """Whether today's feature definitions are the ones the kernel computes."""
    ranges = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in F.CJK_RANGES)
    return (
        _KERNEL_TOKEN.format(r=ranges) == F.TOKEN_PATTERN
        and all(isinstance(n, int) and 0 < n <= 64 for n in F.CHAR_SIZES)
        and 0 <= F.TAIL_TOKENS <= F.MAX_TOKENS
        and len(F.CJK_RANGES) <= 16
    )


def serves(model: Model) -> bool:
    """Whether the kernel can score `model`: built, compatible, and a mean-pooled model (a
    square-root pooled one also needs the count of n-grams outside the vocabulary)."""
    return model.pooling == "mean" and kernel_type() is not None and compatible()


class NativeScorer(ModelRef):
    """The n-grams summed in C; rule and shape features, pooling and softmax as the model does."""

    implementation = "native"

    def __init__(self, model: Model) -> None:
        kernel = kernel_type()
        if kernel is None or not serves(model):
            raise RuntimeError("the compiled scorer cannot serve this model")
        super().__init__(model)
        keys = model._keys
        self._kernel = kernel(
            chars=list(keys.get("c", [])),
            words=list(keys.get("w", [])),
            bigrams=list(keys.get("b", [])),
            weights=b"".join(column.tobytes() for column in model.weights),
            n_classes=len(model.classes),
            char_sizes=tuple(F.CHAR_SIZES),
            max_tokens=F.MAX_TOKENS,
            tail_tokens=F.TAIL_TOKENS,
            cjk=tuple(F.CJK_RANGES),
        )

    def predict(self, text: str, rules: Score) -> Prediction:
        model = self._model
        text = normalize_newlines(text)
        sums, present = self._kernel.grams(F.region(text))
        dense = F.dense_features(
            text, [s.rule for s in rules.signals], rules.words, rules.lines, rules.scores
        )
        # mean pooling reads only the n-grams present in the vocabulary (`present`)
        return model.prediction(model.combine(sums, present, present, model.dense_indices(dense)))

    def predict_many(self, texts: Sequence[str], rules: Sequence[Score]) -> list[Prediction]:
        if len(texts) != len(rules):
            raise ValueError("predict_many: one rule pass per text")
        seen: dict[str, Prediction] = {}
        out = []
        for text, r in zip(texts, rules, strict=True):
            # the same text has the same rule pass (one pack), so the same answer
            p = seen.get(text)
            if p is None:
                p = seen[text] = self.predict(text, r)
            out.append(p)
        return out

    def explain(self, text: str, rules: Score, label: str, each: int = 4, phrases: int = 5) -> Explanation:
        return explain_features(self._model, features(text, rules), text, rules, label, each, phrases)

    def predict_explained(
        self, text: str, rules: Score, each: int = 4, phrases: int = 5
    ) -> tuple[Prediction, Explanation]:
        prediction = self.predict(text, rules)
        return prediction, self.explain(text, rules, prediction.label, each, phrases)
