"""`core.record.Record` behaves as a frozen, slotted dataclass of the same fields: equality
(same class only, fields in order), hash, repr, no assignment, copies and pickles."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from turnlens.core.record import Record


class Pair(Record):
    _fields = ("left", "right")
    __slots__ = _fields
    left: object
    right: object

    def __init__(self, left: object, right: object = None) -> None:
        object.__setattr__(self, "left", left)
        object.__setattr__(self, "right", right)


@dataclasses.dataclass(frozen=True, slots=True)
class DataPair:
    left: object
    right: object = None


class OtherPair(Pair):
    __slots__ = ()


@pytest.mark.parametrize(("a", "b"), [(1, 2), ("x", None), ((1, 2), "y"), (1.5, (None,))])
def test_a_record_is_what_a_frozen_dataclass_would_be(a: object, b: object) -> None:
    r, d = Pair(a, b), DataPair(a, b)
    assert r == Pair(a, b)
    assert not r != Pair(a, b)  # noqa: SIM202 (both operators)
    assert hash(r) == hash(Pair(a, b)) == hash(d)  # both hash the tuple of their fields
    assert repr(r) == repr(d).replace("DataPair", "Pair")
    assert r != Pair(b, a) or a == b
    assert r != (a, b) and r != d and r != OtherPair(a, b)  # another class is never equal
    assert pickle.loads(pickle.dumps(r)) == r
    assert copy.deepcopy(r) == r and copy.copy(r) == r
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.left = 3  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del r.left  # type: ignore[misc]
    with pytest.raises(AttributeError):
        r.other = 1  # type: ignore[attr-defined]


def test_an_unhashable_field_makes_an_unhashable_record_as_in_a_dataclass() -> None:
    with pytest.raises(TypeError):
        hash(DataPair({}, 1))
    with pytest.raises(TypeError):
        hash(Pair({}, 1))
