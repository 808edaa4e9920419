"""label_batch: the pure function engines map over Arrow batches."""

from __future__ import annotations

import pickle

import pytest

from turnlens.batch import Labeler, label_batch, units_schema
from turnlens.batch.schema import LABELS
from turnlens.classifier import classify
from turnlens.router.resolve import resolve_offline

pa = pytest.importorskip("pyarrow")

ROWS = {
    "session_id": ["s1", "s1", "s1", "s2"],
    "unit_index": [1, 2, 3, 1],
    "role": ["user", "assistant", "user", None],
    "kind": ["prompt", "reply", "prompt", None],
    "text": ["ultrathink: how do we shard this?", "APPROVED — ship it", "hmm", "```python\nx = 1\n```"],
    "extra": ["a", "b", "c", "d"],
}


def test_labels_each_row_as_classify_and_the_router_do() -> None:
    out = label_batch(pa.RecordBatch.from_pydict(ROWS))
    assert isinstance(out, pa.RecordBatch)
    assert out.schema.names == [*ROWS, *(n for n, _, _ in LABELS)]
    rows = out.to_pylist()
    for row in rows:
        c = classify(row["text"], kind=row["kind"])  # a unit's kind is evidence, as in the views
        assert (
            row["class"],
            row["max_ratio"],
            row["frozen"],
            row["verdict"],
            row["words"],
            row["lines"],
        ) == (
            c.task_class,
            c.max_ratio,
            c.frozen,
            c.verdict,
            c.words,
            c.lines,
        )
        assert row["confidence"] == getattr(c, "confidence", None)
    # user prompts and plain text are routed; an assistant reply is not
    first = resolve_offline(ROWS["text"][0], explain=False)
    assert (rows[0]["route_source"], rows[0]["phase"], rows[0]["effort"]) == (
        first.source,
        first.phase,
        first.effort,
    )
    assert rows[0]["effort"] == "high"
    # an agent's reply is never a decision (the person decides) and is not routed
    assert rows[1]["class"] != "decision" and rows[1]["route_source"] is None and rows[1]["effort"] is None
    assert rows[2]["route_source"] == "short"
    assert rows[3]["class"] == "code" and rows[3]["route_source"] is not None
    assert [r["extra"] for r in rows] == ROWS["extra"]


def test_a_table_in_gives_a_table_out_and_labels_are_replaced_not_doubled() -> None:
    once = label_batch(pa.Table.from_pydict(ROWS))
    assert isinstance(once, pa.Table)
    twice = label_batch(once)
    assert twice.schema.names == once.schema.names
    assert twice.equals(once)


def test_pin_and_effort_used_columns_are_read() -> None:
    rows = dict(ROWS, pin=[None, None, "spec", None])
    out = label_batch(pa.Table.from_pydict(rows)).to_pylist()
    assert out[2]["class"] == "spec" and out[2]["frozen"] == "true"


def test_reader_rows_fit_the_documented_schema() -> None:
    from turnlens.batch import input_schema

    empty = input_schema().empty_table()
    assert label_batch(empty).schema.equals(units_schema())


def test_missing_column_is_named() -> None:
    with pytest.raises(KeyError, match="text"):
        label_batch(pa.table({"session_id": ["s"], "unit_index": [1]}))


def test_labeler_pickles_small_and_loads_lazily_once() -> None:
    labeler = Labeler(pack="reference")
    labeler(pa.table({k: v[:1] for k, v in ROWS.items()}))  # loaded here
    data = pickle.dumps(labeler)
    assert len(data) < 300  # its settings, not the loaded pack
    copy = pickle.loads(data)
    assert copy == labeler and not copy._profile
    out = copy(pa.table(ROWS))
    assert len(copy._profile) == 1
    profile = copy.profile()
    copy(pa.table(ROWS))
    assert copy.profile() is profile
    assert out.column("class").to_pylist()[1] == classify(ROWS["text"][1], profile.pack).task_class


def test_a_results_call_is_read_as_evidence_and_not_written() -> None:
    doc = (
        "# Release policy\n\nEvery release MUST be tagged.\nThe changelog SHALL list breaking changes first."
    )
    rows = {
        "session_id": ["s", "s", "s"],
        "unit_index": [2, 4, 6],
        "role": ["tool"] * 3,
        "kind": ["tool_result"] * 3,
        "text": [doc] * 3,
        "call": ["Bash: cat docs/RELEASE.md", "WebFetch: https://example.com/policy", None],
    }
    out = label_batch(pa.table(rows))
    assert out.schema.names == [*(n for n in rows if n != "call"), *(n for n, _, _ in LABELS)]
    got = [r["class"] for r in out.to_pylist()]
    want = [classify(doc, kind="tool_result", call=c).task_class for c in rows["call"]]
    assert got == want and got[:2] == ["code", "context"]
