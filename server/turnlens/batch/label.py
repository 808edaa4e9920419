"""`label_batch`: Arrow rows of units in, the same rows with their labels out.

Pure: no I/O and no state beyond the rule pack and router settings, which are
loaded on first use in each worker process (a Ray worker, a Spark executor, a
process of the local pool) and kept for the next batches. A `Labeler` pickles
as its settings alone, so shipping it to a cluster costs a few bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from turnlens.batch.schema import EVIDENCE, INPUT_REQUIRED, LABELS, arrow_schema, require_pyarrow

if TYPE_CHECKING:
    from turnlens.pipeline.profile import Profile

_LABEL_NAMES = tuple(name for name, _, _ in LABELS)
# read, not written: the label columns are written anew, the evidence is left out
_NOT_KEPT = frozenset(_LABEL_NAMES) | {name for name, _, _ in EVIDENCE}
_LABEL_SCHEMA: Any = None


@dataclass(frozen=True)
class Labeler:
    """Labels batches with one built-in rule pack and the default router settings.

    `route_roles` are the roles whose prompts get a route (as the `router.roles`
    setting); plain text (no role) is always routed. `engine` is the labeler's
    (`router.labeler`: `model`, or `encoder` when `turnlens[encoder]` is installed); with
    `encoder` a person's prompts are classed by the encoder engine too, as the agent hooks
    class them (`turnlens.router.labeler_engine.prompt_scorer`).
    """

    pack: str = "default"
    route_roles: tuple[str, ...] = ("user",)
    engine: str = "model"
    _profile: list[Profile] = field(default_factory=list, init=False, repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        return {"pack": self.pack, "route_roles": self.route_roles, "engine": self.engine}

    def __setstate__(self, state: dict[str, Any]) -> None:
        object.__setattr__(self, "pack", state["pack"])
        object.__setattr__(self, "route_roles", tuple(state["route_roles"]))
        object.__setattr__(self, "engine", state.get("engine", "model"))
        object.__setattr__(self, "_profile", [])

    def profile(self) -> Profile:
        """The pack and router settings, loaded once per process."""
        if not self._profile:
            from turnlens.pipeline.workspace import profile_for_pack
            from turnlens.router.settings import RouterSettings

            router = RouterSettings(labeler=self.engine)
            self._profile.append(profile_for_pack(self.pack, router=router, route_roles=self.route_roles))
        return self._profile[0]

    def __call__(self, batch: Any) -> Any:
        """Label `batch` (a pyarrow RecordBatch or Table); returns the same kind, label columns last."""
        pa = require_pyarrow()
        names = batch.schema.names
        missing = [n for n, _, _ in INPUT_REQUIRED if n not in names]
        if missing:
            raise KeyError(f"label_batch: the batch has no {', '.join(missing)} column")
        columns = _labels(self.profile(), batch, names)
        kept = [(n, batch.column(i)) for i, n in enumerate(names) if n not in _NOT_KEPT]
        fields = [batch.schema.field(n) for n, _ in kept] + list(_label_schema())
        arrays = [c for _, c in kept] + [
            pa.array(col, type=f.type) for col, f in zip(columns, _label_schema(), strict=True)
        ]
        schema = pa.schema(fields, metadata=batch.schema.metadata)
        if isinstance(batch, pa.Table):
            return pa.Table.from_arrays(arrays, schema=schema)
        return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _label_schema() -> Any:
    global _LABEL_SCHEMA
    if _LABEL_SCHEMA is None:
        _LABEL_SCHEMA = arrow_schema(LABELS)
    return _LABEL_SCHEMA


def _column(batch: Any, names: list[str], name: str) -> list[Any]:
    if name in names:
        values: list[Any] = batch.column(names.index(name)).to_pylist()
        return values
    return [None] * batch.num_rows


def _labels(profile: Profile, batch: Any, names: list[str]) -> list[list[Any]]:
    """One list per label column, row by row. Distinct texts are classified together
    (`classify_many` shares the work between texts the rules answer alike) and routed once;
    with the encoder engine, a person's prompts are classed by it, in one batch."""
    from turnlens.classifier import classify_many
    from turnlens.router.labeler_engine import prompt_scorer
    from turnlens.router.resolve import resolve_offline

    pack, router = profile.pack, profile.router
    texts = [t or "" for t in _column(batch, names, "text")]
    roles = _column(batch, names, "role")
    kinds = _column(batch, names, "kind")
    pins = _column(batch, names, "pin")
    calls = _column(batch, names, "call")
    scorer = prompt_scorer(router.labeler) if pack.model is not None else None
    if scorer is not None:
        from turnlens.classifier import model_of

        model = model_of(pack)
        scorer = scorer if model is not None and model.classes == scorer.model.classes else None
    person = [
        scorer is not None and pin is None and role == "user" and kind == "prompt"
        for role, kind, pin in zip(roles, kinds, pins, strict=True)
    ]
    distinct = list(dict.fromkeys(zip(texts, pins, kinds, person, calls, strict=True)))
    classes: dict[tuple[Any, ...], Any] = {}
    for mine in (False, True):
        keys = [d for d in distinct if d[3] is mine]
        if keys:
            answers = classify_many(
                [d[0] for d in keys],
                pack,
                [d[1] for d in keys],
                [d[2] for d in keys],
                scorer=scorer if mine else None,
                calls=[d[4] for d in keys],
            )
            classes.update(zip(keys, answers, strict=True))
    routes: dict[str, tuple[Any, ...]] = {}
    out: list[list[Any]] = [[] for _ in _LABEL_NAMES]
    for text, role, kind, pin, mine, call in zip(texts, roles, kinds, pins, person, calls, strict=True):
        c = classes[(text, pin, kind, mine, call)]
        confidence = getattr(c, "confidence", None)  # the learned classifier gives one
        if profile.routes(role, kind):
            route = routes.get(text)
            if route is None:
                r = resolve_offline(text, router, explain=False)
                route = routes[text] = (r.source, r.phase, r.effort, r.label)
        else:
            route = (None, None, None, None)
        row = (
            c.task_class,
            c.max_ratio,
            c.frozen,
            c.verdict,
            c.words,
            c.lines,
            None if confidence is None else float(confidence),
            *route,
        )
        for column, value in zip(out, row, strict=True):
            column.append(value)
    return out


_DEFAULT = Labeler()


def label_batch(batch: Any) -> Any:
    """Label every unit of `batch` with the default pack: the function to hand to
    `ray.data.Dataset.map_batches(..., batch_format="pyarrow")` or Spark's `mapInArrow`.

    In: rows with `session_id`, `unit_index`, `text` and, when known, `role`, `kind`,
    `pin`, `effort_used` (other columns pass through), and `call`, a tool result's call, read
    as evidence and left out. Out: the same rows, then
    class, max_ratio, frozen, verdict, words, lines, confidence, route_source, phase,
    effort, label (see docs/scale.md for the types).
    """
    return _DEFAULT(batch)
