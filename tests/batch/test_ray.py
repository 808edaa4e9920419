"""The `ray` engine and the Ray Data adapter, on a local Ray of 2 CPUs started here."""

from __future__ import annotations

import runpy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.batch.conftest import FORMAT_FIXTURES, ROOT, read_rows
from turnlens.batch.run import run_batch
from turnlens.classifier import classify
from turnlens.cli.check import collect
from turnlens.pipeline.formats import names
from turnlens.router.resolve import resolve_offline

ray = pytest.importorskip("ray", reason="the ray engine needs Ray (pip install 'turnlens[ray]')")


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    ray.init(num_cpus=2, include_dashboard=False, logging_level="error", log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def test_ray_and_local_write_identical_rows(
    local_ray: Any, archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import turnlens.batch.run as batch_run

    monkeypatch.setattr(batch_run, "RAY_WAVE_PER_CPU", 1)  # waves of 2 partitions: several here
    (archive / "ours" / "broken.json").write_text("{ this is not JSON", "utf-8")
    files = collect([str(archive)])
    local = run_batch(
        files, tmp_path / "local", engine="local", workers=2, partition_size=1500, progress=None
    )
    on_ray = run_batch(files, tmp_path / "ray", engine="ray", workers=2, partition_size=1500, progress=None)
    assert on_ray.partitions == local.partitions > 2  # more than one wave of 2 CPUs
    assert (on_ray.units, on_ray.sessions) == (local.units, local.sessions)
    assert sorted(on_ray.skipped) == sorted(local.skipped)
    assert str(archive / "ours" / "broken.json") in {path for path, _ in local.skipped}
    rows = read_rows(tmp_path / "ray")
    assert rows == read_rows(tmp_path / "local")
    if FORMAT_FIXTURES.is_dir():  # a fixture of every format
        assert {r["format"] for r in rows} == set(names())
    assert read_rows(tmp_path / "ray", "sessions") == read_rows(tmp_path / "local", "sessions")
    again = run_batch(files, tmp_path / "ray", engine="ray", workers=2, partition_size=1500, progress=None)
    assert (again.written, again.resumed) == (0, local.partitions)


def test_the_documented_ray_data_example_runs(local_ray: Any, tmp_path: Path) -> None:
    example = runpy.run_path(str(ROOT / "docs" / "examples" / "batch" / "ray_map_batches.py"))
    labelled = example["label"](str(tmp_path / "labelled"))
    rows = sorted(labelled.take_all(), key=lambda r: r["unit_index"])
    want = [classify(r["text"]).task_class for r in example["ROWS"]]
    assert [r["class"] for r in rows] == want and want[2] == "decision"
    efforts = [resolve_offline(r["text"], explain=False).effort for r in example["ROWS"]]
    assert [r["effort"] for r in rows] == [efforts[0], None, efforts[2]]  # a reply is not routed
    assert efforts[0] == "high"
    assert [r["class"] for r in read_rows(tmp_path, "labelled")] == want
