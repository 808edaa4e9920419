"""A model file's weights are checked before use: finite, of at most MAX_WEIGHT in size.
The float32 check reads their bytes; it must say exactly what a check value by value says."""

from __future__ import annotations

import math
import random
from array import array

import pytest

from turnlens.learn import model as M


def by_value(values: array[float]) -> bool:
    return all(math.isfinite(v) and abs(v) <= M.MAX_WEIGHT for v in values)


EDGES = [
    0.0,
    -0.0,
    1e-45,  # the smallest subnormal
    -3.5,
    M.MAX_WEIGHT,
    -M.MAX_WEIGHT,
    float(array("f", [M.MAX_WEIGHT * (1 + 2**-23)])[0]),  # the next float32 above
    -float(array("f", [M.MAX_WEIGHT * (1 + 2**-23)])[0]),
    M.MAX_WEIGHT * 0.75,  # the same top byte, below the limit
    M.MAX_WEIGHT * 1.5,
    3e38,
    math.inf,
    -math.inf,
    math.nan,
]


@pytest.mark.parametrize("edge", EDGES)
def test_float32_check_agrees_with_a_value_by_value_check(edge: float) -> None:
    rng = random.Random(7)
    values = array("f", [rng.uniform(-50, 50) for _ in range(999)])
    for where in (0, 500, 998):
        copy = array("f", values)
        copy[where] = edge
        assert M._bounded(copy) is by_value(copy), (edge, where)


def test_random_magnitudes_agree() -> None:
    rng = random.Random(11)
    for _ in range(300):
        values = array(
            "f", [rng.choice(EDGES) if rng.random() < 0.01 else rng.gauss(0, 10) for _ in range(50)]
        )
        assert M._bounded(values) is by_value(values)
    assert M._bounded(array("f")) is True


def test_the_packaged_models_pass() -> None:
    for task in M.PACKAGED:
        model = M.packaged_model(task)
        assert all(M._bounded(column) for column in model.weights)


def test_kind_temperatures_survive_a_round_trip() -> None:
    model = M.packaged_model("classes")
    again = M.Model.from_bytes(model.to_bytes())
    assert again.kind_temperatures == model.kind_temperatures
    assert set(model.kind_temperatures) == {"reply", "thinking", "prompt", M.CONVERSATION}
