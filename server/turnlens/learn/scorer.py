"""The scorer seam: a model's weights as one function, features → scores → explanation.

Everything that asks a learned model something goes through a `Scorer`: `classify`
(and so `check`, `batch`, the server and `turnlens eval`), the router's labeler, and the
explanations (hover, `--explain`). `turnlens train` builds its rows with the same
`features` function the scorers read, so a model is scored on exactly what it was
trained on.

There may be more than one implementation of the same arithmetic (a compiled kernel,
a batch path); each takes the model's weights as they are and must give the answers of
`PythonScorer`, the reference (`tests/learn/test_scorer.py` checks it on the corpus and
the benchmark transcripts). `scorer_for(model)` picks the fastest one available and
falls back to the reference wherever another cannot serve a model.

The feature definitions live in `turnlens.learn.features` alone; see the module
docstring there for how to change one in every implementation.
"""

from __future__ import annotations

from _weakref import ref as weak_ref  # weakref.ref, without importing weakref.py

from turnlens.core.engine import Score, normalize_newlines
from turnlens.learn.features import Features, extract

TYPE_CHECKING = False  # `typing` (and the `re` it imports) stays off the one-shot path
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import NamedTuple, Protocol

    from turnlens.learn.model import Contribution, Model, Prediction
    from turnlens.learn.phrases import Phrase
else:
    from turnlens.core.record import NamedTuple

    Protocol = object  # `Scorer` is a type only; at run time a plain base


class Explanation(NamedTuple):
    """Why a model gave `label`: the strongest pushes toward it (n-grams and signals, `each`
    of each kind), every fired rule's push on this text, in the same logit units, and the
    stretches of the text those n-grams cover (`turnlens.learn.phrases`)."""

    top: tuple[Contribution, ...]
    rule_weights: dict[str, float]
    phrases: tuple[Phrase, ...] = ()


def features(text: str, rules: Score) -> Features:
    """The model's features of `text`, given the rule pass over it (its firings, counts and
    scores are features too). Training, scoring and explaining all start here."""
    return extract(
        normalize_newlines(text), [s.rule for s in rules.signals], rules.words, rules.lines, rules.scores
    )


class Scorer(Protocol):
    """One model's weights as a function of a text and its rule pass."""

    @property
    def model(self) -> Model:
        """The weights this scorer reads (never a copy that could drift)."""
        ...

    @property
    def implementation(self) -> str:
        """Which implementation answers (`python`, `native`): for benchmarks and tests."""
        ...

    def predict(self, text: str, rules: Score) -> Prediction:
        """The class probabilities of `text` and the most probable class."""
        ...

    def predict_many(self, texts: Sequence[str], rules: Sequence[Score]) -> list[Prediction]:
        """`[predict(t, r) for t, r in zip(texts, rules)]`: implementations may batch."""
        ...

    def explain(self, text: str, rules: Score, label: str, each: int = 4, phrases: int = 5) -> Explanation:
        """The features that pushed `text` toward `label`, each fired rule's weight and (up to
        `phrases`) the stretches of the text that pushed it."""
        ...

    def predict_explained(
        self, text: str, rules: Score, each: int = 4, phrases: int = 5
    ) -> tuple[Prediction, Explanation]:
        """`predict`, and `explain` of the class it gives (the features built once)."""
        ...


class ModelRef:
    """What every implementation holds of its model: a weak reference. The model keeps its
    scorer (`scorer_for`); a weak reference back leaves no cycle, so a model dropped from a
    cache frees its scorer (and a kernel's tables) at once."""

    def __init__(self, model: Model) -> None:
        self._ref = weak_ref(model)

    @property
    def model(self) -> Model:
        return self._model

    @property
    def _model(self) -> Model:
        model = self._ref()
        if model is None:  # pragma: no cover - a scorer is reached through its model
            raise ReferenceError("the model of this scorer is gone")
        return model


class ExplainedByFeatures(ModelRef):
    """A scorer that answers on its own (a kernel, an encoder) but explains from the Python
    features of the same weights: the explanation names features, so it is built from them."""

    def predict(self, text: str, rules: Score) -> Prediction:
        raise NotImplementedError

    def explain(self, text: str, rules: Score, label: str, each: int = 4, phrases: int = 5) -> Explanation:
        return explain_features(self._model, features(text, rules), text, rules, label, each, phrases)

    def predict_explained(
        self, text: str, rules: Score, each: int = 4, phrases: int = 5
    ) -> tuple[Prediction, Explanation]:
        prediction = self.predict(text, rules)
        return prediction, self.explain(text, rules, prediction.label, each, phrases)


class PythonScorer(ModelRef):
    """The reference implementation: the model's own pure-Python linear pass."""

    implementation = "python"

    def predict(self, text: str, rules: Score) -> Prediction:
        return self._model.predict(features(text, rules))

    def predict_many(self, texts: Sequence[str], rules: Sequence[Score]) -> list[Prediction]:
        if len(texts) != len(rules):
            raise ValueError("predict_many: one rule pass per text")
        predict = self._model.predict
        return [predict(features(t, r)) for t, r in zip(texts, rules, strict=True)]

    def explain(self, text: str, rules: Score, label: str, each: int = 4, phrases: int = 5) -> Explanation:
        return explain_features(self._model, features(text, rules), text, rules, label, each, phrases)

    def predict_explained(
        self, text: str, rules: Score, each: int = 4, phrases: int = 5
    ) -> tuple[Prediction, Explanation]:
        feats = features(text, rules)
        prediction = self._model.predict(feats)
        return prediction, explain_features(self._model, feats, text, rules, prediction.label, each, phrases)


def explain_features(
    model: Model, feats: Features, text: str, rules: Score, label: str, each: int, phrases: int = 5
) -> Explanation:
    """The explanation of `label` from features already built (shared by every implementation:
    an explanation names features, so it is made from the features themselves)."""
    from turnlens.learn.phrases import phrases as phrases_of

    every = model.contributions(feats, label)
    top = tuple(model.top_contributions(feats, label, each=each))
    pushes = {c.key[2:]: c.weight for c in every if c.kind == "d"}
    found = tuple(phrases_of(text, every, limit=phrases)) if phrases > 0 else ()
    return Explanation(top, {s.rule: pushes[s.rule] for s in rules.signals if s.rule in pushes}, found)


def scorer_for(model: Model) -> Scorer:
    """The scorer for `model`: the compiled one where it is installed and serves the model,
    else the reference (made once per model object and kept on it)."""
    found: Scorer | None = getattr(model, "_scorer", None)
    if found is None:
        from turnlens.learn import native

        found = PythonScorer(model)
        if native.serves(model):
            try:
                found = native.NativeScorer(model)
            except native.KernelMismatch as exc:
                import logging  # only then: `logging` costs a one-shot run ~3 ms to import

                logging.getLogger(__name__).warning("%s: the pure-Python scorer answers", exc)
        model._scorer = found
    return found
