"""The Parquet tables a batch run writes: one row per unit, one row per session.

The column names and types are a contract (DuckDB queries, Spark jobs and
dashboards read them); `tests/batch/test_schema.py` checks them against
`docs/scale.md`. New columns may be added at the end, never removed or renamed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from turnlens.core.classes import CLASS_NAMES
from turnlens.pipeline.stats import EFFORT_ORDER
from turnlens.pipeline.units import KINDS, ROLES

if TYPE_CHECKING:
    import pyarrow as pa

SCHEMA_VERSION: Final = 1

#: what `label_batch` needs in: (name, arrow type, nullable); extra columns pass through
INPUT_REQUIRED: Final = (
    ("session_id", "string", False),
    ("unit_index", "int32", False),
    ("text", "string", False),
)
#: read when present: the role and kind a format gave, a pinned class, the effort the agent used
INPUT_OPTIONAL: Final = (
    ("role", "string", True),
    ("kind", "string", True),
    ("pin", "string", True),
    ("effort_used", "string", True),
)
#: what the reader adds about where a unit sits (passed through by `label_batch`)
WHERE: Final = (
    ("format", "string", False),
    ("line", "int32", False),
    ("start", "int64", False),
    ("end", "int64", False),
)
#: what `label_batch` adds
LABELS: Final = (
    ("class", "string", False),
    ("max_ratio", "int32", False),
    ("frozen", "string", False),
    ("verdict", "string", False),
    ("words", "int32", False),
    ("lines", "int32", False),
    ("confidence", "float64", True),
    ("route_source", "string", True),
    ("phase", "string", True),
    ("effort", "string", True),
    ("label", "string", True),
)

#: evidence `label_batch` reads and does not write: a tool result's call (the text of the call
#: unit the session reader pairs with it), which helps decide the result's class
EVIDENCE: Final = (("call", "string", True),)

UNIT_COLUMNS: Final = (
    INPUT_REQUIRED[:2] + INPUT_OPTIONAL[:2] + INPUT_REQUIRED[2:] + INPUT_OPTIONAL[2:] + WHERE + LABELS
)

#: the `turnlens stats` figures of one session (as `turnlens stats --format csv`)
SESSION_COLUMNS: Final = (
    ("session_id", "string", False),
    ("format", "string", False),
    ("modified", "timestamp[ms, tz=UTC]", False),
    ("bytes", "int64", False),
    ("units", "int64", False),
    ("words", "int64", False),
    ("tokens", "int64", False),
    ("frozen_tokens", "int64", False),
    ("frozen_share", "float64", False),
    ("partial_tokens", "int64", False),
    ("plan_tokens", "int64", False),
    ("saved_tokens", "int64", False),
    ("saved_share", "float64", False),
    ("prompts", "int64", False),
    ("effort_agreement", "float64", True),
    ("problems", "int64", False),
    *((f"class_{c}", "int64", False) for c in CLASS_NAMES),
    *((f"effort_{e}", "int64", False) for e in EFFORT_ORDER),
    # what the file records about the session (added in schema 1's second round; null where not)
    ("started", "timestamp[ms, tz=UTC]", True),
    ("ended", "timestamp[ms, tz=UTC]", True),
    ("model", "string", True),
    ("parent_session", "string", True),
    ("recorded_input_tokens", "int64", True),
    ("recorded_output_tokens", "int64", True),
    ("recorded_cache_read_tokens", "int64", True),
    ("recorded_cache_write_tokens", "int64", True),
    *((f"role_{r}", "int64", False) for r in ROLES),
    *((f"kind_{k}", "int64", False) for k in KINDS),
)


def require_pyarrow() -> Any:
    """pyarrow, or an ImportError that says which extra brings it."""
    try:
        import pyarrow
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("turnlens batch needs pyarrow: pip install 'turnlens[batch]'") from exc
    return pyarrow


def _type(pa: Any, name: str) -> Any:
    if name.startswith("timestamp"):
        return pa.timestamp("ms", tz="UTC")  # Parquet has no seconds unit
    return getattr(pa, name)()


def arrow_schema(columns: tuple[tuple[str, str, bool], ...]) -> pa.Schema:
    pa = require_pyarrow()
    return pa.schema([pa.field(n, _type(pa, t), nullable=null) for n, t, null in columns])


def units_schema() -> pa.Schema:
    return arrow_schema(UNIT_COLUMNS)


def sessions_schema() -> pa.Schema:
    return arrow_schema(SESSION_COLUMNS)


def input_schema() -> pa.Schema:
    """The rows the reader makes: everything of a unit row before labelling, and the evidence
    `label_batch` reads and leaves out (`EVIDENCE`)."""
    return arrow_schema(UNIT_COLUMNS[: len(UNIT_COLUMNS) - len(LABELS)] + EVIDENCE)


_SPARK = {"string": "STRING", "int32": "INT", "int64": "BIGINT", "float64": "DOUBLE"}


def spark_ddl(columns: tuple[tuple[str, str, bool], ...] = UNIT_COLUMNS) -> str:
    """The columns as a Spark DDL schema string, for `DataFrame.mapInArrow(label_batch, ...)`."""
    return ", ".join(f"`{n}` {_SPARK.get(t, 'TIMESTAMP')}" for n, t, _ in columns)
