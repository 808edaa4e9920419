"""Per-session figures from labelled unit rows: the numbers `turnlens stats` prints.

Built from the rows (not from a second analysis) so both engines, and anyone
who re-labels the Parquet elsewhere, get the same figures from the same rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from turnlens.batch.read import Session
from turnlens.batch.schema import SESSION_COLUMNS, require_pyarrow, sessions_schema
from turnlens.core.plan import tokens
from turnlens.pipeline.stats import EFFORT_ORDER, SessionStats
from turnlens.pipeline.units import ASIDE_KINDS, KINDS, ROLES

STATS_COLUMNS = (
    "session_id",
    "role",
    "kind",
    "effort_used",
    "class",
    "max_ratio",
    "frozen",
    "words",
    "route_source",
    "effort",
)


def session_stats(units: Any, sessions: Iterable[Session]) -> list[SessionStats]:
    """The figures of each readable session in `sessions`, from its labelled rows in `units`."""
    by_id: dict[str, SessionStats] = {}
    plan_words: dict[str, int] = {}
    ordered: list[SessionStats] = []
    for s in sessions:
        if s.error is not None:
            continue
        stats = SessionStats(path=s.session_id, format=s.format, problems=len(s.problems))
        stats.take_info(s.info)
        by_id[s.session_id] = stats
        plan_words[s.session_id] = 0
        ordered.append(stats)
    cols = [units.column(name).to_pylist() for name in STATS_COLUMNS]
    for sid, role, kind, used, cls, ratio, frozen, words, source, effort in zip(*cols, strict=True):
        out = by_id.get(sid)
        if out is None:
            continue
        n = tokens(words)
        out.units += 1
        out.words += words
        out.tokens += n
        out.by_class[cls] += 1
        out.tokens_by_class[cls] += n
        out.by_role[role or "text"] += 1
        out.by_kind[kind or "text"] += 1
        if kind in ASIDE_KINDS:
            out.aside += 1
        if frozen == "true":
            out.frozen_tokens += n
        elif frozen == "partial":
            out.partial_tokens += n
        plan_words[sid] += max(1, words // (1 if frozen == "true" else ratio))
        if source is not None:
            out.prompts += 1
            routed = effort or "none"
            out.effort_mix[routed] += 1
            if used:
                out.effort_pairs[(routed, used)] += 1
    for sid, stats in by_id.items():
        stats.plan_tokens = tokens(plan_words[sid])
    return ordered


def _recorded(stats: SessionStats) -> dict[str, int | None]:
    """The API's token counts the file records (all null when it records none)."""
    have = stats.usage_source is not None
    u = stats.usage
    return {
        "recorded_input_tokens": u["input"] if have else None,
        "recorded_output_tokens": u["output"] if have else None,
        "recorded_cache_read_tokens": u["cache_read"] if have else None,
        "recorded_cache_write_tokens": u["cache_write"] if have else None,
    }


def sessions_table(units: Any, sessions: list[Session]) -> Any:
    """One row per readable session (schema `sessions_schema()`)."""
    pa = require_pyarrow()
    meta = {s.session_id: s for s in sessions}
    rows: dict[str, list[Any]] = {name: [] for name, _, _ in SESSION_COLUMNS}
    for stats in session_stats(units, sessions):
        data = stats.to_json()
        s = meta[stats.path]
        values: dict[str, Any] = {
            "session_id": stats.path,
            "format": stats.format,
            "modified": int(s.mtime) * 1000,  # whole seconds, in the ms Parquet keeps
            "bytes": s.size,
            **{f"class_{c}": n for c, n in data["by_class"].items()},
            **{f"effort_{e}": stats.effort_mix.get(e, 0) for e in EFFORT_ORDER},
            "started": None if stats.started is None else int(stats.started * 1000),
            "ended": None if stats.ended is None else int(stats.ended * 1000),
            "model": ", ".join(stats.models) or None,
            "parent_session": stats.parent_session,
            **_recorded(stats),
            **{f"role_{r}": stats.by_role.get(r, 0) for r in ROLES},
            **{f"kind_{k}": stats.by_kind.get(k, 0) for k in KINDS},
        }
        for name in rows:
            rows[name].append(values[name] if name in values else data[name])
    return pa.Table.from_pydict(rows, schema=sessions_schema())
