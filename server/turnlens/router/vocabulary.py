"""The router's vocabulary (`defaults.toml`) and its default settings, without `dataclasses`.

`settings.py` builds the editor-facing `RouterSettings` (a dataclass: `replace`, `fields`,
the schema) on top of this module. A one-shot route (`turnlens route`, the submit hook, the
status line) needs only the defaults, so it reads them from `DEFAULTS` here and never pays for
the dataclass machinery; `tests/router/test_router_settings.py` keeps both equal.
"""

from __future__ import annotations

from _collections_abc import Mapping  # collections.abc's, without the `collections` package

from turnlens.core.data import parse_toml, read_packaged
from turnlens.core.record import Record

TYPE_CHECKING = False  # `typing` (and the `re` it imports) stays off the one-shot path
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Final, Generic, Protocol, TypeVar

    class RouteSettings(Protocol):
        """What resolving a route reads of its settings (`RouterSettings` and `Defaults`)."""

        @property
        def enable(self) -> bool: ...
        @property
        def backend(self) -> str: ...
        @property
        def fallback(self) -> str: ...
        @property
        def min_length(self) -> int: ...
        @property
        def phases(self) -> FrozenMap[str | None]: ...
        @property
        def labels(self) -> FrozenMap[str | None]: ...
        @property
        def keywords(self) -> FrozenMap[str]: ...
        @property
        def sample_max(self) -> int: ...
        @property
        def sample_head(self) -> int: ...
        @property
        def sample_tail(self) -> int: ...
        @property
        def min_confidence(self) -> float: ...
        @property
        def labeler(self) -> str: ...
        @property
        def label_model(self) -> object | None: ...
        @property
        def uses_model(self) -> bool: ...
        def effort_for(self, phase: str | None) -> str | None: ...
        def phase_for(self, label: str | None) -> str | None: ...


if TYPE_CHECKING:
    V = TypeVar("V")

    class _MapBase(Mapping[str, V], Generic[V]):
        __slots__ = ()
else:
    V = object  # at run time `FrozenMap[X]` is `FrozenMap` (no `typing`)

    class _MapBase(Mapping):
        __slots__ = ()

        def __class_getitem__(cls, item: object) -> type:
            return cls


MODEL_BACKENDS: Final = ("openai", "anthropic")
_NO_PHASE = "none"


class RouterDataError(ValueError):
    """The packaged `defaults.toml` is broken (a TurnLens bug, never user input)."""


class FrozenMap(_MapBase[V]):
    """A small immutable, hashable mapping, so settings can be compared and cached."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, V] | None = None) -> None:
        self._items: dict[str, V] = dict(items or {})

    def __getitem__(self, key: str) -> V:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(tuple(self._items.items()))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return dict(self._items) == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenMap({self._items!r})"


class Phase(Record):
    """One phase of `defaults.toml`: its effort, whether keywords raise to it, what it is."""

    _fields = ("name", "effort", "keyword", "description")
    __slots__ = _fields
    name: str
    effort: str
    keyword: bool
    description: str

    def __init__(self, name: str, effort: str, keyword: bool, description: str) -> None:
        for field, value in zip(self._fields, (name, effort, keyword, description), strict=True):
            object.__setattr__(self, field, value)


class Vocabulary(Record):
    """Everything `defaults.toml` says, validated."""

    _fields = ("efforts", "phases", "labels", "keywords", "limits", "evidence")
    __slots__ = _fields
    efforts: tuple[str, ...]
    phases: tuple[Phase, ...]
    labels: FrozenMap[str | None]
    keywords: FrozenMap[str]
    limits: FrozenMap[int]
    # how sure each of the labeler's answers from the guide's evidence is, in percent
    evidence: FrozenMap[int]

    def __init__(
        self,
        efforts: tuple[str, ...],
        phases: tuple[Phase, ...],
        labels: FrozenMap[str | None],
        keywords: FrozenMap[str],
        limits: FrozenMap[int],
        evidence: FrozenMap[int],
    ) -> None:
        values = (efforts, phases, labels, keywords, limits, evidence)
        for field, value in zip(self._fields, values, strict=True):
            object.__setattr__(self, field, value)

    @property
    def phase_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.phases)

    @property
    def keyword_phases(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.phases if p.keyword)

    def phase_rank(self, phase: str) -> int:
        """Lower is higher: plan ranks before reflect (so two keywords pick the higher)."""
        names = self.phase_names
        return names.index(phase) if phase in names else len(names)


def fold(text: str) -> str:
    """Case-fold the way `re.IGNORECASE` matches: `ı` and `İ` are both `i` there."""
    folded = text.casefold()
    if "ı" in folded or "\u0307" in folded:
        folded = folded.replace("i\u0307", "i").replace("ı", "i")
    return folded


def normalize_phrase(phrase: str) -> str:
    """Keyword phrases compare case-insensitively with any run of blanks as one space."""
    return " ".join(fold(phrase).split())


def evidence_floor(labels: int) -> int:
    """The least percentage an answer from the guide's evidence may state among `labels` labels
    and stay the likeliest of them (the rest shared out, none above it): ⌈100 / labels⌉."""
    return -(-100 // labels)


def _data_error(problem: str) -> RouterDataError:
    return RouterDataError(f"<builtin:router/defaults.toml>: {problem}")


def _parse_vocabulary(text: str) -> Vocabulary:
    data = parse_toml(text)
    efforts = data.get("efforts")
    if not isinstance(efforts, list) or not efforts or not all(isinstance(e, str) for e in efforts):
        raise _data_error("efforts must be a non-empty list of names")
    phases: list[Phase] = []
    for raw in data.get("phase", []):
        name, effort = raw.get("name"), raw.get("effort")
        if not isinstance(name, str) or effort not in efforts:
            raise _data_error(f"phase {name!r}: needs a name and an effort from {efforts}")
        phases.append(Phase(name, effort, bool(raw.get("keyword", False)), str(raw.get("description", ""))))
    names = [p.name for p in phases]
    if not phases or len(set(names)) != len(names) or _NO_PHASE in names:
        raise _data_error("phases must be unique, non-empty, and not called 'none'")
    labels: dict[str, str | None] = {}
    for label, phase in data.get("labels", {}).items():
        if phase != _NO_PHASE and phase not in names:
            raise _data_error(f"label {label!r} maps to unknown phase {phase!r}")
        labels[label] = None if phase == _NO_PHASE else phase
    if not labels:
        raise _data_error("[labels] is empty")
    keywords: dict[str, str] = {}
    keyword_phases = {p.name for p in phases if p.keyword}
    for phrase, phase in data.get("keywords", {}).items():
        if phase not in keyword_phases:
            raise _data_error(f"keyword {phrase!r} must raise to a keyword phase, not {phase!r}")
        keywords[normalize_phrase(phrase)] = phase
    limits = data.get("limits", {})
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in limits.values()):
        raise _data_error("[limits] values must be whole numbers")
    # an answer from the guide's evidence must stay the likeliest of the labels
    evidence = data.get("evidence", {})
    least = evidence_floor(len(labels))
    if not all(
        isinstance(v, int) and not isinstance(v, bool) and least <= v < 100 for v in evidence.values()
    ):
        raise _data_error(f"[evidence] values must be whole percentages from {least} to 99")
    return Vocabulary(
        tuple(efforts),
        tuple(phases),
        FrozenMap(labels),
        FrozenMap(keywords),
        FrozenMap(limits),
        FrozenMap(evidence),
    )


_VOCABULARY: list[Vocabulary] = []


def vocabulary() -> Vocabulary:
    """The packaged vocabulary (read once)."""
    if not _VOCABULARY:
        text = read_packaged("turnlens.router", "defaults.toml")
        _VOCABULARY.append(_parse_vocabulary(text))
    return _VOCABULARY[0]


class Defaults(Record):
    """The default router settings, read-only, with the attributes and methods of
    `RouterSettings` that resolving a route uses (`settings.DEFAULT` equals it field by field)."""

    _fields = (
        "enable",
        "backend",
        "endpoint",
        "model",
        "api_key_env",
        "timeout_ms",
        "failure_limit",
        "cooldown_minutes",
        "fallback",
        "min_length",
        "phases",
        "labels",
        "keywords",
        "sample_max",
        "sample_head",
        "sample_tail",
        "roles",
        "min_confidence",
        "labeler",
        "label_model",
    )
    __slots__ = _fields
    enable: bool
    backend: str
    endpoint: str
    model: str
    api_key_env: str
    timeout_ms: int
    failure_limit: int
    cooldown_minutes: float
    fallback: str
    min_length: int
    phases: FrozenMap[str | None]
    labels: FrozenMap[str | None]
    keywords: FrozenMap[str]
    sample_max: int
    sample_head: int
    sample_tail: int
    roles: tuple[str, ...]
    min_confidence: float
    labeler: str
    label_model: object | None

    def __init__(self, vocab: Vocabulary) -> None:
        limits = vocab.limits
        values = (
            True,
            "rules",
            "",
            "",
            "",
            limits["timeout_ms"],
            limits["failure_limit"],
            limits["cooldown_minutes"],
            "rules",
            limits["min_length"],
            FrozenMap[str | None]({p.name: p.effort for p in vocab.phases}),
            vocab.labels,
            vocab.keywords,
            limits["sample_max"],
            limits["sample_head"],
            limits["sample_tail"],
            ("user",),
            limits["min_confidence_pct"] / 100,
            "model",
            None,
        )
        for field, value in zip(self._fields, values, strict=True):
            object.__setattr__(self, field, value)

    @property
    def uses_model(self) -> bool:
        return self.backend in MODEL_BACKENDS

    def effort_for(self, phase: str | None) -> str | None:
        return None if phase is None else self.phases.get(phase)

    def phase_for(self, label: str | None) -> str | None:
        return None if label is None else self.labels.get(label)


DEFAULTS: Final = Defaults(vocabulary())
