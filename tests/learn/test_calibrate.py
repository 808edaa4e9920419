"""Temperature scaling: fitted on labelled logits, stored in the model file, answer unchanged."""

from __future__ import annotations

import random

from turnlens.learn.calibrate import fit_temperature, nll
from turnlens.learn.infer import feature_pack, featurize
from turnlens.learn.model import Model, packaged_model


def _set(margin: float, right: float, n: int = 400) -> tuple[list[list[float]], list[int]]:
    """Three-class logits whose winner leads by `margin` and is right a `right` share of the time."""
    rng = random.Random(7)
    rows, gold = [], []
    for i in range(n):
        win = rng.randrange(3)
        rows.append([margin if k == win else 0.0 for k in range(3)])
        gold.append(win if i < right * n else (win + 1) % 3)
    return rows, gold


def test_an_overconfident_model_gets_a_temperature_above_one() -> None:
    rows, gold = _set(margin=8.0, right=0.7)
    t = fit_temperature(rows, gold)
    assert t > 2.0
    assert nll(rows, gold, t) < nll(rows, gold, 1.0)


def test_an_underconfident_model_gets_a_temperature_below_one() -> None:
    rows, gold = _set(margin=0.5, right=0.95)
    assert fit_temperature(rows, gold) < 1.0


def test_the_temperature_is_stored_and_changes_confidence_not_the_answer() -> None:
    shipped = packaged_model("classes")
    warm = Model.from_bytes(shipped.to_bytes())
    warm.temperature = 2.5
    again = Model.from_bytes(warm.to_bytes())
    assert again.temperature == 2.5
    pack = feature_pack("default")
    for text in ("Approved, merge it.", "nit: rename this", "thanks!", "```\nx = 1\n```"):
        features = featurize(text, pack)[0]
        a, b = shipped.predict(features), again.predict(features)
        assert a.label == b.label
        if shipped.temperature < 2.5:
            assert b.confidence <= a.confidence + 1e-9
