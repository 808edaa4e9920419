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


def test_offsets_recover_a_class_that_is_more_common_than_the_model_assumes() -> None:
    """Logits that favour no class while class 0 is right four times in five: the fitted
    offset of class 0 rises, and the answers on such rows turn to it."""
    from turnlens.learn.calibrate import fit_calibration

    rng = random.Random(3)
    rows, gold = [], []
    for _ in range(300):
        rows.append([rng.gauss(0, 0.3) for _ in range(3)])
        gold.append(0 if rng.random() < 0.8 else rng.randrange(1, 3))
    t, offsets = fit_calibration(rows, gold)
    assert abs(sum(offsets)) < 1e-3 and offsets[0] > 0.5 > max(offsets[1:])
    assert 0.25 <= t <= 8.0
    # a heavier penalty keeps the offsets closer to zero
    _, held = fit_calibration(rows, gold, penalty=1.0)
    assert 0 < held[0] < offsets[0]


def test_offsets_are_stored_and_move_the_answer() -> None:
    shipped = packaged_model("labels")
    moved = Model.from_bytes(shipped.to_bytes())
    moved.offsets = [0.0, 0.0, 0.0, 0.0, 30.0]  # chat made overwhelmingly likely
    again = Model.from_bytes(moved.to_bytes())
    assert again.offsets == moved.offsets
    features = featurize("add a --dry-run flag to the sync command", feature_pack("labels"))[0]
    assert again.predict(features).label == "chat"
