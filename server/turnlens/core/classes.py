"""The six task classes: how far each may be compressed and whether it is frozen.

The table is data (`packs/classes.toml`) so the docs, the JSON and the editor
views all read the same numbers.
"""

from __future__ import annotations

from turnlens.core.data import parse_toml, read_packaged

TYPE_CHECKING = False  # `typing` stays off the one-shot path (see core/record.py)
if TYPE_CHECKING:
    from types import MappingProxyType
    from typing import Literal, NamedTuple

    Frozen = Literal["true", "partial", "false"]
else:
    from turnlens.core.record import NamedTuple

    MappingProxyType = type(type.__dict__)  # types.MappingProxyType, without `types`
_FROZEN = ("true", "partial", "false")
_VERDICTS = ("SKIP", "COMPRESS_LIMITED", "COMPRESS")


class TaskClass(NamedTuple):
    name: str
    max_ratio: int
    frozen: Frozen
    verdict: str
    description: str


_TABLE: MappingProxyType[str, TaskClass] | None = None


def _load() -> MappingProxyType[str, TaskClass]:
    global _TABLE
    if _TABLE is None:
        _TABLE = _read()
    return _TABLE


def _read() -> MappingProxyType[str, TaskClass]:
    source = "<builtin:classes.toml>"
    text = read_packaged("turnlens.core.packs", "classes.toml")
    table: dict[str, TaskClass] = {}
    for raw in parse_toml(text)["class"]:
        name = raw["name"]
        ratio, frozen, verdict = raw["max_ratio"], raw["frozen"], raw["verdict"]
        if not isinstance(ratio, int) or ratio < 1:
            raise ValueError(f"{source}: class {name!r}: max_ratio must be a whole number ≥ 1")
        if frozen not in _FROZEN or verdict not in _VERDICTS:
            raise ValueError(f"{source}: class {name!r}: bad frozen or verdict value")
        table[name] = TaskClass(name, ratio, frozen, verdict, raw.get("description", ""))
    return MappingProxyType(table)


def task_classes() -> MappingProxyType[str, TaskClass]:
    """All classes by name, in tie-break order (strictest first)."""
    return _load()


def task_class(name: str) -> TaskClass:
    return _load()[name]


CLASS_NAMES: tuple[str, ...] = tuple(_load())
