"""`core.record.NamedTuple` makes what `typing.NamedTuple` makes from the same class statement:
fields, defaults, properties, repr, equality, hash, `_replace`, `_asdict`, `_make`, pickling,
pattern matching and the same errors for wrong arguments."""

from __future__ import annotations

import copy
import pickle
import typing

import pytest

from turnlens.core import record

if typing.TYPE_CHECKING:  # as the modules that use it: type checkers see typing's
    from typing import NamedTuple as OurBase
else:
    OurBase = record.NamedTuple


class Ours(OurBase):
    number: int
    text: str
    pin: str | None = None
    kind: str | None = None

    @property
    def label(self) -> str:
        return f"{self.number}:{self.text}"


class Theirs(typing.NamedTuple):
    number: int
    text: str
    pin: str | None = None
    kind: str | None = None

    @property
    def label(self) -> str:
        return f"{self.number}:{self.text}"


CALLS: list[tuple[tuple[object, ...], dict[str, object]]] = [
    ((1, "a"), {}),
    ((1, "a", "p"), {}),
    ((1, "a", "p", "k"), {}),
    ((1,), {"text": "a", "kind": "k"}),
    ((), {"number": 2, "text": "b", "pin": None}),
]


@pytest.mark.parametrize(("args", "kwargs"), CALLS)
def test_the_same_values_fields_and_methods(args: tuple[object, ...], kwargs: dict[str, object]) -> None:
    ours, theirs = Ours(*args, **kwargs), Theirs(*args, **kwargs)  # type: ignore[arg-type]
    assert tuple(ours) == tuple(theirs)
    assert ours == theirs  # type: ignore[comparison-overlap]  # tuples compare by value, as named tuples of two classes do
    assert hash(ours) == hash(theirs)
    assert repr(ours) == repr(theirs).replace("Theirs", "Ours")
    assert ours._asdict() == theirs._asdict()
    assert ours._replace(pin="z") == theirs._replace(pin="z")  # type: ignore[comparison-overlap]
    assert Ours._make(list(theirs)) == ours
    assert ours.label == theirs.label
    assert (ours.number, ours.text, ours.pin, ours.kind) == tuple(theirs)
    assert isinstance(ours, tuple)
    assert pickle.loads(pickle.dumps(ours)) == ours
    assert type(pickle.loads(pickle.dumps(ours))) is Ours
    assert copy.copy(ours) == ours and copy.deepcopy(ours) == ours


def test_class_attributes_as_typing_gives_them() -> None:
    assert Ours._fields == Theirs._fields
    assert Ours._field_defaults == Theirs._field_defaults
    assert Ours.__match_args__ == Theirs.__match_args__
    match Ours(3, "c"):
        case Ours(number, text, pin, kind):
            assert (number, text, pin, kind) == (3, "c", None, None)
        case _:
            pytest.fail("positional pattern did not match")


def test_fields_cannot_be_set() -> None:
    ours = Ours(1, "a")
    with pytest.raises(AttributeError):
        ours.number = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        ours.other = 2  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((), {}),  # missing required
        ((1,), {}),
        ((1, "a", "p", "k", "extra"), {}),  # too many
        ((1, "a"), {"number": 2}),  # twice
        ((1, "a"), {"colour": "red"}),  # unknown
    ],
)
def test_wrong_arguments_raise_type_error_as_typing_does(
    args: tuple[object, ...], kwargs: dict[str, object]
) -> None:
    with pytest.raises(TypeError):
        Theirs(*args, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Ours(*args, **kwargs)  # type: ignore[arg-type]


def test_replace_and_make_reject_what_typing_rejects() -> None:
    with pytest.raises(ValueError):
        Ours(1, "a")._replace(colour="red")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Ours._make([1])


def test_a_default_before_a_required_field_is_refused() -> None:
    with pytest.raises(TypeError):

        class Bad(OurBase):
            a: int = 0
            b: int  # type: ignore[misc]


def test_a_class_without_readable_annotations_is_refused() -> None:
    # what a module without the __future__ import gives on an interpreter that evaluates
    # annotations lazily: no `__annotations__` in the class body
    with pytest.raises(TypeError, match="__future__"):
        record._NamedTupleMeta("Lazy", (record.NamedTuple,), {"__annotate__": lambda fmt: {}})
