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

from _operator import itemgetter  # operator.itemgetter, without importing operator.py

TYPE_CHECKING = False  # `typing` itself (and the `re` it imports) stays off the one-shot path
if TYPE_CHECKING:
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


class _TupleBase(tuple):  # type: ignore[type-arg]
    """What every `NamedTuple` class below shares (as `collections.namedtuple` gives)."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _field_defaults: ClassVar[dict[str, Any]] = {}

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        fields = cls._fields
        if kwargs or len(args) != len(fields):
            args = _filled(cls, args, kwargs)
        return tuple.__new__(cls, args)

    @classmethod
    def _make(cls, iterable: Any) -> Any:
        values = tuple(iterable)
        if len(values) != len(cls._fields):
            raise TypeError(f"Expected {len(cls._fields)} arguments, got {len(values)}")
        return tuple.__new__(cls, values)

    def _replace(self, **changes: Any) -> Any:
        values = [changes.pop(name, value) for name, value in zip(self._fields, self, strict=True)]
        if changes:
            raise ValueError(f"Got unexpected field names: {list(changes)!r}")
        return tuple.__new__(self.__class__, values)

    def _asdict(self) -> dict[str, Any]:
        return dict(zip(self._fields, self, strict=True))

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={value!r}" for name, value in zip(self._fields, self, strict=True))
        return f"{self.__class__.__name__}({inner})"

    def __getnewargs__(self) -> tuple[Any, ...]:
        return tuple(self)


def _filled(cls: type[_TupleBase], args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """The values of every field from positional and keyword arguments and the defaults."""
    fields = cls._fields
    if len(args) > len(fields):
        raise TypeError(f"{cls.__name__}() takes {len(fields)} arguments but {len(args)} were given")
    values = list(args)
    for name in fields[len(args) :]:
        if name in kwargs:
            values.append(kwargs.pop(name))
        elif name in cls._field_defaults:
            values.append(cls._field_defaults[name])
        else:
            raise TypeError(f"{cls.__name__}() missing required argument: {name!r}")
    if kwargs:
        name = next(iter(kwargs))
        if name in fields:
            raise TypeError(f"{cls.__name__}() got multiple values for argument {name!r}")
        raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {name!r}")
    return tuple(values)


class _NamedTupleMeta(type):
    def __new__(mcls, name: str, bases: tuple[type, ...], ns: dict[str, Any]) -> Any:
        if not bases:  # `NamedTuple` itself
            return super().__new__(mcls, name, bases, ns)
        if "__annotations__" not in ns:
            # Python 3.14 evaluates annotations lazily unless the module has the __future__
            # import; without it the fields would silently be none
            raise TypeError(f"{name}: a NamedTuple here needs `from __future__ import annotations`")
        fields = tuple(ns["__annotations__"])
        body = {key: value for key, value in ns.items() if key not in fields}
        defaults = {key: ns[key] for key in fields if key in ns}
        if any(key not in defaults for key in fields[len(fields) - len(defaults) :]):
            raise TypeError(f"{name}: a field without a default follows one with a default")
        body.update(__slots__=(), _fields=fields, _field_defaults=defaults, __match_args__=fields)
        for i, key in enumerate(fields):
            body[key] = property(itemgetter(i), doc=f"Alias for field number {i}")
        return type(name, (_TupleBase,), body)


class NamedTuple(metaclass=_NamedTupleMeta):
    """`typing.NamedTuple` for the modules a one-shot command imports: the same class
    statement (fields as annotations, defaults, methods) makes a tuple subclass with the
    same fields, properties, `_replace`, `_asdict`, `_make`, repr, equality and pickling,
    without importing `typing` (which brings `re`, `enum`, `collections` and `functools`:
    ~7 ms of every `turnlens classify`) and without compiling a `__new__` per class.
    Modules import `typing.NamedTuple` under TYPE_CHECKING, so type checkers see that one."""
