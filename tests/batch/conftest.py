"""Fixtures of the batch tests: a folder of sessions in every format, and helpers to read output."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

pa = pytest.importorskip("pyarrow", reason="turnlens batch needs pyarrow (pip install 'turnlens[batch]')")
pq = pytest.importorskip("pyarrow.parquet")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"
FORMAT_FIXTURES = ROOT / "tests" / "formats" / "fixtures"

# a plain ---TURN--- session of our own, with a pinned turn and an ignored one
TURNS = """Let's plan the archive job.
---TURN---
SPEC-7 AC-1: every session keeps its decisions verbatim.
---TURN---
<!-- turnlens: ignore -->
scratch notes nobody should count
---TURN---
<!-- turnlens: class=decision -->
We keep Parquet as the output.
---TURN---
thanks!
"""


def make_archive(root: Path) -> Path:
    """A folder with the bundled examples, the format fixtures (when present) and a few of ours."""
    archive = root / "archive"
    shutil.copytree(EXAMPLES, archive / "examples", ignore=shutil.ignore_patterns("rules", "batch"))
    if FORMAT_FIXTURES.is_dir():
        shutil.copytree(FORMAT_FIXTURES, archive / "formats")
    (archive / "ours").mkdir()
    (archive / "ours" / "plan.txt").write_text(TURNS, "utf-8")
    (archive / "ours" / "empty.md").write_text("", "utf-8")
    return archive


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    return make_archive(tmp_path)


def read_rows(out: Path, table: str = "units") -> list[dict[str, Any]]:
    """Every row of an output table, in a fixed order."""
    files = sorted((out / table).glob("*.parquet"))
    rows: list[dict[str, Any]] = pa.concat_tables([pq.read_table(f) for f in files]).to_pylist()
    key = ("session_id", "unit_index") if table == "units" else ("session_id",)
    return sorted(rows, key=lambda r: tuple(r[k] for k in key))
