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
        }
        for name in rows:
            rows[name].append(values[name] if name in values else data[name])
    return pa.Table.from_pydict(rows, schema=sessions_schema())
