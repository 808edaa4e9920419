"""`core.record.Record` behaves as a frozen, slotted dataclass of the same fields: equality
(same class only, fields in order), hash, repr, no assignment, copies and pickles."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from turnlens.core.record import MutableRecord, Record
from turnlens.pipeline.formats.base import SessionInfo, Split


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


class Box(MutableRecord):
    _fields = ("left", "right")
    __slots__ = _fields
    left: object
    right: object

    def __init__(self, left: object, right: object = None) -> None:
        self.left = left
        self.right = right


@dataclasses.dataclass(slots=True)
class DataBox:
    left: object
    right: object = None


def test_a_mutable_record_is_what_a_plain_slotted_dataclass_would_be() -> None:
    r, d = Box(1, [2]), DataBox(1, [2])
    assert r == Box(1, [2]) and r != Box(1) and r != d and r != Pair(1, [2])
    assert repr(r) == repr(d).replace("DataBox", "Box")
    with pytest.raises(TypeError):
        hash(d)
    with pytest.raises(TypeError):
        hash(r)
    r.left = d.left = 5
    assert r.left == 5 and r == Box(5, [2]) and repr(r) == repr(d).replace("DataBox", "Box")
    del r.right
    with pytest.raises(AttributeError):
        r.right  # noqa: B018
    r.right = [3]
    assert pickle.loads(pickle.dumps(r)) == r and copy.deepcopy(r) == r and copy.copy(r) == r
    with pytest.raises(AttributeError):
        r.other = 1  # type: ignore[attr-defined]


def test_the_mutable_records_own_their_defaults() -> None:
    """A list or counter default is a new one per record (a dataclass's default_factory)."""
    for a, b in ((SessionInfo(), SessionInfo()), (Split([]), Split([]))):
        assert a == b and a is not b
        for name in a._fields:
            value = getattr(a, name)
            if isinstance(value, list | dict):
                assert value is not getattr(b, name)
