"""The scorer seam: every question to a model goes through `scorer_for(model)`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest

from turnlens.classifier import classify
from turnlens.core.engine import Score, score
from turnlens.core.rules import builtin_pack
from turnlens.learn.model import Model, Prediction, packaged_model
from turnlens.learn.scorer import Explanation, PythonScorer, Scorer, features, scorer_for
from turnlens.learn.train import featurize_rows
from turnlens.router.labeler import label_pack, label_text

TEXTS = [
    "thanks, that fixed it!",
    "Refactor the parser so that it streams tokens instead of reading the whole file.\n\n"
    "```python\ndef parse(f):\n    return f.read()\n```",
    "why does the build fail on windows?",
    "合并这个分支之前请先跑一遍测试。",
]


class Recording:
    """A scorer that answers with the reference and remembers what it was asked."""

    implementation = "recording"

    def __init__(self, model: Model) -> None:
        self.inner = PythonScorer(model)
        self.calls: list[str] = []

    @property
    def model(self) -> Model:
        return self.inner.model

    def predict(self, text: str, rules: Score) -> Prediction:
        self.calls.append("predict")
        return self.inner.predict(text, rules)

    def predict_many(self, texts: Sequence[str], rules: Sequence[Score]) -> list[Prediction]:
        self.calls.append("predict_many")
        return self.inner.predict_many(texts, rules)

    def explain(self, text: str, rules: Score, label: str, each: int = 4, phrases: int = 5) -> Explanation:
        self.calls.append("explain")
        return self.inner.explain(text, rules, label, each, phrases)

    def predict_explained(
        self, text: str, rules: Score, each: int = 4, phrases: int = 5
    ) -> tuple[Prediction, Explanation]:
        self.calls.append("predict_explained")
        return self.inner.predict_explained(text, rules, each, phrases)


@pytest.fixture
def recording(request: pytest.FixtureRequest) -> Iterator[Recording]:
    model = packaged_model(request.param)
    before = model._scorer
    rec = Recording(model)
    model._scorer = rec
    yield rec
    model._scorer = before


def test_the_reference_is_a_scorer_and_is_kept_per_model() -> None:
    model = packaged_model("classes")
    s: Scorer = PythonScorer(model)
    assert s.model is model
    assert scorer_for(model) is scorer_for(model)
    assert scorer_for(model).model is model


@pytest.mark.parametrize("recording", ["classes"], indirect=True)
def test_classify_and_its_explanation_go_through_the_scorer(recording: Recording) -> None:
    pack = builtin_pack("default")
    plain = classify(TEXTS[1], pack)
    explained = classify(TEXTS[1], pack, explain=True)
    assert recording.calls == ["predict", "predict_explained"]
    assert plain.task_class == explained.task_class and plain.confidence == explained.confidence
    assert explained.features and all(c.weight > 0 for c in explained.features)
    assert explained.rule_weights is not None
    assert set(explained.rule_weights) <= {s.rule for s in explained.signals}


@pytest.mark.parametrize("recording", ["labels"], indirect=True)
def test_the_labeler_goes_through_the_scorer(recording: Recording) -> None:
    quiet = label_text(TEXTS[1], explain=False)
    loud = label_text(TEXTS[1], explain=True)
    assert recording.calls == ["predict", "predict_explained"]
    assert quiet.label == loud.label and loud.features


@pytest.mark.parametrize("task", ["classes", "labels"])
def test_training_rows_are_the_features_the_scorer_reads(task: str) -> None:
    from turnlens.learn.dataset import Row

    rows = [Row(id=f"r{i}", text=t, label="x") for i, t in enumerate(TEXTS)]
    pack = builtin_pack("default") if task == "classes" else label_pack()
    assert featurize_rows(rows, task) == [features(t, score(t, pack)) for t in TEXTS]


@pytest.mark.parametrize("task", ["classes", "labels"])
def test_predict_many_and_explain_agree_with_predict(task: str) -> None:
    model = packaged_model(task)
    pack = builtin_pack("default") if task == "classes" else label_pack()
    s = PythonScorer(model)
    rules = [score(t, pack) for t in TEXTS]
    one = [s.predict(t, r) for t, r in zip(TEXTS, rules, strict=True)]
    assert s.predict_many(TEXTS, rules) == one
    for t, r, p in zip(TEXTS, rules, one, strict=True):
        prediction, why = s.predict_explained(t, r, each=3)
        assert prediction == p
        assert why == s.explain(t, r, p.label, each=3)
        assert len([c for c in why.top if c.kind == "d"]) <= 3
    with pytest.raises(ValueError):
        s.predict_many(TEXTS, rules[:1])
