"""The output schema: documented in docs/scale.md, and what the files really hold."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.batch.conftest import ROOT, pq
from turnlens.batch import sessions_schema, units_schema
from turnlens.batch.run import run_batch
from turnlens.cli.check import collect


def documented(heading: str) -> list[tuple[str, str, bool]]:
    """(column, type, nullable) rows of the table under `heading` in docs/scale.md."""
    text = (ROOT / "docs" / "scale.md").read_text("utf-8")
    section = text.split(heading, 1)[1].split("\n#", 1)[0]
    rows = []
    for line in section.splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows.append((cells[0].strip("`"), cells[1], {"yes": True, "no": False}[cells[2]]))
    return rows


def described(schema: object) -> list[tuple[str, str, bool]]:
    return [(f.name, str(f.type), f.nullable) for f in schema]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("heading", "schema"),
    [("### `units/*.parquet`", units_schema), ("### `sessions/*.parquet`", sessions_schema)],
)
def test_the_documented_schema_is_the_code_s(heading: str, schema: object) -> None:
    rows = documented(heading)
    assert len(rows) > 10
    assert rows == described(schema())  # type: ignore[operator]


def test_written_files_have_the_documented_schema(archive: Path, tmp_path: Path) -> None:
    run_batch(collect([str(archive)]), tmp_path / "out", partition_size=2048, progress=None)
    unit_files = list((tmp_path / "out" / "units").glob("*.parquet"))
    session_files = list((tmp_path / "out" / "sessions").glob("*.parquet"))
    assert unit_files and session_files
    for f in unit_files:
        assert described(pq.read_schema(f)) == documented("### `units/*.parquet`")
    for f in session_files:
        assert described(pq.read_schema(f)) == documented("### `sessions/*.parquet`")
