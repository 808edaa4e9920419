"""The compiled scorer (`_scorer.c`), when it is installed and fits the features.

The extension is optional: a wheel for the platform carries it, and `pip install` from
source builds it when a C compiler is at hand. Wherever it is missing, or the feature
definitions in `turnlens.learn.features` have moved past what the kernel implements,
`turnlens.learn.scorer.scorer_for` answers with the pure-Python scorer instead: the same
answers, slower. TURNLENS_PURE_PYTHON=1 in the environment chooses the pure-Python one.

The kernel answers a whole prediction in one call: n-grams, shape features, pooling and the
calibrated softmax. What stays here is what a transcript repeats (the rule and vote features'
indices, looked up once per rule and per score vector) and a region that is not ASCII
(lower-casing all of Unicode is Python's own).
"""

from __future__ import annotations

import os

from turnlens.core.engine import Score, normalize_newlines
from turnlens.learn import features as F
from turnlens.learn.model import Model, Prediction
from turnlens.learn.scorer import ExplainedByFeatures

TYPE_CHECKING = False  # `typing` (and the `re` it imports) stays off the one-shot path
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

# The token shape the kernel implements, over the CJK ranges it is given, and its test of a
# code line: if `features.TOKEN_PATTERN` or `features.CODE_LINE_PATTERN` is no longer this,
# the kernel does not serve (see features.py).
_KERNEL_TOKEN = r"[{r}]|[^\W{r}]+|[^\w\s]+"
_KERNEL_CODE_LINE = r"^(?:(?:\t| {4,}+).*\S|.*[;{}]\s*$|\s*+[#/]{1,2} ?\w|\s*+[<>$]{1,3} )"
_MAX_EDGES = 16


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
        and F.CODE_LINE_PATTERN == _KERNEL_CODE_LINE
        and all(len(edges) <= _MAX_EDGES for edges in (F.WORD_EDGES, F.LINE_EDGES, F.CODE_SHARES, F.ENDS))
        and all(len(c) == 1 for c in F.ENDS)
        and len(F.WORD_CJK_RANGES) <= 16
        and F.HEAD >= 0
        and F.TAIL >= 0
    )


def serves(model: Model) -> bool:
    """Whether the kernel can score `model`: built, compatible, and a mean-pooled model (a
    square-root pooled one also needs the count of n-grams outside the vocabulary)."""
    return model.pooling == "mean" and kernel_type() is not None and compatible()


def _key_lists(model: Model) -> dict[str, Any]:
    """The kernel's vocabulary as three lists of keys (a model made in memory, by training)."""
    keys = model._keys
    return {
        "chars": list(keys.get("c", [])),
        "words": list(keys.get("w", [])),
        "bigrams": list(keys.get("b", [])),
    }


class KernelMismatch(RuntimeError):
    """The kernel's shape features or region differ from `features` on a sample text: the
    Python definition has moved on (`scorer_for` then answers with the pure-Python scorer)."""


# Texts that reach every branch of the shape features and of the region: questions and
# exclamations, code lines of each kind, CJK and Hangul, more than CODE_ROWS lines, a text
# longer than HEAD + TAIL with capitals, digits and NUL
_SAMPLES = (
    "Why does the build fail?",
    "  \n\tif x:\n    return 1;\n// note\n## Heading\n#x\n$ ls -la\n>>> 1\n<<<< no\nplain } \nend!  ",
    "合并这个分支之前请先跑一遍测试！\n한국어 문장입니다\n\n第三行",
    "x = 1;\n" * 240,
    "Line 12 of THE Text\x00, with CAPS.\n\n" * 90 + "Done?",
)


class NativeScorer(ExplainedByFeatures):
    """The whole linear pass in C; the rule and vote features' indices made here."""

    implementation = "native"

    def __init__(self, model: Model) -> None:
        kernel = kernel_type()
        if kernel is None or not serves(model):
            raise RuntimeError("the compiled scorer cannot serve this model")
        super().__init__(model)
        dense = model._dense_vocab
        words, lines, code, ends = F.shape_keys()
        self._rule_index = {key[2:]: i for key, i in dense.items() if key.startswith("r:")}

        def indices(names: Sequence[str]) -> tuple[int, ...]:
            return tuple(dense.get(name, -1) for name in names)

        blob = model._key_blob
        if blob is not None:  # a loaded file's keys, read whole by the kernel (no str per key)
            vocabulary: dict[str, Any] = {"chars": None, "words": None, "bigrams": None}
            vocabulary.update(vocabulary=blob.text, counts=tuple(blob.counts[k] for k in "cwb"))
        else:
            vocabulary = _key_lists(model)
        options: dict[str, Any] = dict(
            weights=b"".join(column.tobytes() for column in model.weights),
            n_classes=len(model.classes),
            char_sizes=tuple(F.CHAR_SIZES),
            max_tokens=F.MAX_TOKENS,
            tail_tokens=F.TAIL_TOKENS,
            cjk=tuple(F.CJK_RANGES),
            bias=tuple(model.bias),
            temperature=model.temperature,
            offsets=tuple(model.offsets),
            dense_weight=model.dense_weight,
            head=F.HEAD,
            tail=F.TAIL,
            shape={
                "word_edges": F.WORD_EDGES,
                "word_index": indices(words),
                "line_edges": F.LINE_EDGES,
                "line_index": indices(lines),
                "code_min_lines": F.CODE_MIN_LINES,
                "code_rows": F.CODE_ROWS,
                "code_cuts": tuple(cut for cut, _ in F.CODE_SHARES),
                "code_index": indices(code),
                "ends": "".join(F.ENDS),
                "ends_index": indices(ends),
                "word_cjk": tuple(F.WORD_CJK_RANGES),
            },
            # a fired rule's feature index by rule id (a signal's first field)
            rule_index=self._rule_index,
            classes=tuple(model.classes),
            prediction=Prediction,
        )
        try:
            self._kernel = kernel(**vocabulary, **options)
        except TypeError:
            if blob is None:
                raise
            # a kernel built before it read the blob (a stale build in a checkout): the lists
            self._kernel = kernel(**_key_lists(model), **options)
        # the vote features' indices by score vector (a transcript repeats a few hundred)
        self._votes: dict[tuple[tuple[str, int], ...], tuple[int, ...]] = {}
        self._check()

    def _check(self) -> None:
        """The kernel's shape features and region are those of `features` on the samples."""
        model = self._model
        for text in _SAMPLES:
            words, lines = len(text.split()), text.count("\n") + 1
            region = None if text.isascii() else F.region(text)
            want = model.dense_indices(F.dense_features(text, (), words, lines, None))
            if self._kernel.dense(text, region, words, lines, (), ()) != want or (
                region is None and self._kernel.region(text) != F.region(text)
            ):
                raise KernelMismatch("the compiled scorer's shape features differ from features.shape")

    def _vote_indices(self, scores: dict[str, int]) -> tuple[int, ...]:
        key = tuple(scores.items())
        found = self._votes.get(key)
        if found is None:
            if len(self._votes) >= 4096:
                self._votes.clear()
            dense = self._model._dense_vocab
            found = self._votes[key] = tuple(dense.get(k, -1) for k in F.rule_votes(scores))
        return found

    def predict(self, text: str, rules: Score) -> Prediction:
        if "\r" in text:
            text = normalize_newlines(text)
        prediction: Prediction = self._kernel.predict(
            text,
            None if text.isascii() else F.region(text),
            rules.words,
            rules.lines,
            rules.signals,
            self._vote_indices(rules.scores),
        )
        return prediction

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
