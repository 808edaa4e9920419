"""Small immutable records that behave like frozen, slotted dataclasses, without `dataclasses`.

`@dataclass` writes each class's `__init__`, `__eq__`, `__hash__` and `__repr__` as source
and compiles it when the module is imported (about half a millisecond a class), and importing
`dataclasses` brings `inspect` with it (~4 ms): a cost every one-shot command (`turnlens
route`, the agent hooks) pays before doing anything. A `Record` subclass names its fields
in `_fields` (also its `__slots__`) and writes its own `__init__`; equality, hashing, the
repr, immutability and pickling are the ones a frozen dataclass has (fields compared in
order, only with an object of the same class). `MutableRecord` is the same without `frozen`:
its fields can be set, and it has no hash (as a dataclass with `eq` and not `frozen`).
"""

from __future__ import annotations

from typing import Any, ClassVar


class Record:
    """Base of a frozen record: `_fields` names the fields in order and `__slots__` is
    `_fields`; the subclass's `__init__` sets them with `object.__setattr__`."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._values() == other._values()  # type: ignore[attr-defined]
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{self.__class__.__qualname__}({inner})"

    def __setattr__(self, name: str, value: object) -> None:
        from dataclasses import FrozenInstanceError  # only on a mistake

        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __getstate__(self) -> tuple[Any, ...]:
        return self._values()

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        for name, value in zip(self._fields, state, strict=True):
            object.__setattr__(self, name, value)


class MutableRecord(Record):
    """A record whose fields can be set: equality and repr as a `Record`, no hash."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]
    __setattr__ = object.__setattr__  # type: ignore[assignment]  # plain, as any object
    __delattr__ = object.__delattr__  # type: ignore[assignment]
