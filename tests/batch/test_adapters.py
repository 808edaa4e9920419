"""The documented adapters: Spark `mapInArrow` (import-checked) and DuckDB over the Parquet."""

from __future__ import annotations

import importlib.util
import os
import runpy
from collections import defaultdict
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from tests.batch.conftest import ROOT, read_rows
from turnlens.batch import spark_ddl, units_schema
from turnlens.batch.run import run_batch
from turnlens.cli.check import collect

EXAMPLES = ROOT / "docs" / "examples" / "batch"


def test_spark_schema_string_names_every_unit_column() -> None:
    names = [part.split("`")[1] for part in spark_ddl().split(", ")]
    assert names == units_schema().names
    assert "`max_ratio` INT" in spark_ddl() and "`start` BIGINT" in spark_ddl()


@pytest.mark.skipif(importlib.util.find_spec("pyspark") is None, reason="pyspark is not installed")
def test_the_spark_example_imports() -> None:
    example = runpy.run_path(str(EXAMPLES / "spark_map_in_arrow.py"))
    assert callable(example["label"])


def test_the_duckdb_queries_run_over_the_output(
    archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    duckdb = pytest.importorskip("duckdb", reason="duckdb is a test dependency (pip install duckdb)")
    files = collect([str(archive)])
    for i, f in enumerate(files):  # sessions over three weeks
        stamp = (datetime(2026, 11, 2, 12) + timedelta(days=7 * (i % 3))).timestamp()
        os.utime(f, (stamp, stamp))
    run_batch(files, tmp_path / "labels", partition_size=2048, progress=None)  # as the README names it
    monkeypatch.chdir(tmp_path)
    weeks = duckdb.sql((EXAMPLES / "frozen_per_week.sql").read_text("utf-8")).fetchall()
    sessions = read_rows(tmp_path / "labels", "sessions")
    tokens: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for s in sessions:
        week = s["modified"].date().isoformat()  # every stamp is a Monday: its week's start
        tokens[week][0] += 1
        tokens[week][1] += s["tokens"]
        tokens[week][2] += s["frozen_tokens"]
    assert len(weeks) == 3
    want = [tokens[week] for week in sorted(tokens)]
    assert [w[0].date().isoformat() for w in weeks] == sorted(tokens)
    assert [(w[1], w[2]) for w in weeks] == [(n, t) for n, t, _ in want]
    assert [w[3] for w in weeks] == [round(f / t, 4) if t else None for _, t, f in want]
    by_class = duckdb.sql((EXAMPLES / "tokens_by_class.sql").read_text("utf-8")).fetchall()
    units = read_rows(tmp_path / "labels")
    assert sum(row[1] for row in by_class) == len(units)
    assert sum(row[3] for row in by_class) == sum(u["frozen"] == "true" for u in units)


def test_the_readme_batch_example_runs_as_written(tmp_path: Path) -> None:
    """The README's batch block, line by line in a fresh folder (HOME with no sessions): the
    bundled examples are labelled, a missing archive is one clear line, and the DuckDB query
    answers over what the first line wrote."""
    pytest.importorskip("duckdb", reason="duckdb is a test dependency (pip install duckdb)")
    import re
    import subprocess
    import sys

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```sh\n(.*?)```", readme, re.S) if "turnlens batch" in b)
    lines = [line for line in block.splitlines() if line.strip() and "pip install" not in line]
    assert lines[0].startswith("turnlens batch docs/examples/"), lines
    (tmp_path / "docs").symlink_to(ROOT / "docs")
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    said = []
    for line in lines:
        done = subprocess.run(
            ["bash", "-c", line.replace("python3 ", f"{sys.executable} ", 1)],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        said.append((line, done.returncode, done.stdout, done.stderr))
        assert "Traceback" not in done.stderr, said[-1]
    assert said[0][1] == 0 and "units" in said[0][3]
    home = [s for s in said if "~/.claude" in s[0]]
    assert home and home[0][1] == 2, home  # one clear line: the folder is not there
    assert len(home[0][3].strip().splitlines()) == 1 and "/.claude/projects" in home[0][3], home
    assert said[-1][1] == 0 and "frozen_share" in said[-1][2]
