"""`turnlens batch --engine local`: Parquet out, the stats figures, bad files, resuming."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.batch.conftest import FORMAT_FIXTURES, pq, read_rows
from turnlens.batch.run import run_batch
from turnlens.cli import main
from turnlens.cli.check import collect
from turnlens.pipeline.formats import names


def _batch(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["batch", *map(str, args)])
    return code, capsys.readouterr().err


def test_writes_a_row_per_unit_and_the_stats_figures_per_session(
    archive: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, err = _batch(capsys, archive, "--out", out, "--jobs", "2", "--partition-size", "2k")
    assert code == 0, err
    assert "units/s" in err and "partitions" in err
    units = read_rows(out)
    # what `turnlens check` finds, unit by unit
    capsys.readouterr()
    assert main(["check", str(archive), "--format", "json", "--jobs", "1"]) == 0
    checked = json.loads(capsys.readouterr().out)
    assert [(u["session_id"], u["unit_index"], u["class"], u["line"]) for u in units] == sorted(
        (c["path"], c["turn"], c["class"], c["line"]) for c in checked
    )
    formats = {u["format"] for u in units}
    assert {"claude-code", "turns"} <= formats
    if FORMAT_FIXTURES.is_dir():  # every format has a fixture there
        assert formats == set(names())
    # ignored turns are left out; pins are kept
    plan = [u for u in units if u["session_id"].endswith("plan.txt")]
    assert [u["unit_index"] for u in plan] == [1, 2, 4, 5]
    assert plan[2]["pin"] == "decision" and plan[2]["class"] == "decision"
    # the session table has the `turnlens stats` figures
    sessions = read_rows(out, "sessions")
    assert main(["stats", str(archive), "--format", "json"]) == 0
    stats = {s["path"]: s for s in json.loads(capsys.readouterr().out)["sessions"]}
    assert [s["session_id"] for s in sessions] == sorted(stats)
    for row in sessions:
        want = stats[row["session_id"]]
        for name in ("format", "units", "words", "tokens", "frozen_tokens", "frozen_share", "plan_tokens"):
            assert row[name] == want[name], (row["session_id"], name)
        for name in ("saved_share", "prompts", "effort_agreement", "problems"):
            assert row[name] == want[name], (row["session_id"], name)
        assert {c: row[f"class_{c}"] for c in want["by_class"]} == want["by_class"]
        assert {e: row[f"effort_{e}"] for e in want["effort_mix"]} == want["effort_mix"]
    assert any(s["units"] == 0 for s in sessions)  # an empty file is a session of nothing


def test_a_corrupt_file_is_reported_and_skipped(
    archive: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (archive / "ours" / "broken.jsonl").write_bytes(b"\x00\x01\x02 not a session\xff\xfe")
    (archive / "ours" / "export.json").write_text('{"not": "a transcript"}', "utf-8")
    out = tmp_path / "out"
    code, err = _batch(capsys, archive, "--out", out, "--jobs", "1", "-q")
    assert code == 0
    assert f"{archive / 'ours' / 'broken.jsonl'}: binary file; skipped" in err
    assert f"{archive / 'ours' / 'export.json'}: not a transcript" in err
    assert "2 files skipped" in err
    ids = {r["session_id"] for r in read_rows(out, "sessions")}
    assert str(archive / "ours" / "plan.txt") in ids
    assert not any(i.endswith(("broken.jsonl", "export.json")) for i in ids)
    manifest = json.loads((out / "_manifest.json").read_text("utf-8"))
    skipped = [s["path"] for p in manifest["partitions"].values() for s in p["skipped"]]
    assert sorted(skipped) == sorted(str(archive / "ours" / n) for n in ("broken.jsonl", "export.json"))


def test_a_rerun_skips_what_is_written_and_redoes_what_changed(
    archive: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    files = collect([str(archive)])
    first = run_batch(files, out, partition_size=1, progress=None)
    assert first.written == first.partitions == len(files)
    before = {f.name: f.stat().st_mtime_ns for f in (out / "units").iterdir()}
    again = run_batch(files, out, partition_size=1, progress=None)
    assert (again.written, again.resumed, again.units) == (0, first.partitions, first.units)
    assert {f.name: f.stat().st_mtime_ns for f in (out / "units").iterdir()} == before
    # one session grows: only its partition is written again, and its old rows are gone
    plan = archive / "ours" / "plan.txt"
    plan.write_text(plan.read_text("utf-8") + "---TURN---\nLGTM, merge it.\n", "utf-8")
    os.utime(plan, (1_700_000_000, 1_700_000_000))
    third = run_batch(collect([str(archive)]), out, partition_size=1, progress=None)
    assert (third.written, third.resumed) == (1, first.partitions - 1)
    rows = read_rows(out)
    assert len(rows) == first.units + 1
    assert len({(r["session_id"], r["unit_index"]) for r in rows}) == len(rows)
    assert len(list((out / "units").iterdir())) == len(files)


def test_an_interrupted_run_resumes_without_duplicates(
    archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import turnlens.batch.run as batch_run

    files = collect([str(archive)])
    clean = tmp_path / "clean"
    run_batch(files, clean, partition_size=1, progress=None)
    out = tmp_path / "out"
    published: list[Path] = []
    real = batch_run._publish

    def crash_after_units_of_the_third(tmp: Path, final: Path) -> None:
        real(tmp, final)
        published.append(final)
        if len(published) == 5:  # units of partition 3 published, its session table not yet
            raise KeyboardInterrupt

    monkeypatch.setattr(batch_run, "_publish", crash_after_units_of_the_third)
    with pytest.raises(KeyboardInterrupt):
        run_batch(files, out, partition_size=1, progress=None)
    monkeypatch.setattr(batch_run, "_publish", real)
    assert published[-1].parent.name == "units"
    assert len(list((out / "sessions").iterdir())) == 2
    resumed = run_batch(files, out, partition_size=1, progress=None)
    assert resumed.resumed == 2 and resumed.written == len(files) - 2
    assert read_rows(out) == read_rows(clean)
    assert read_rows(out, "sessions") == read_rows(clean, "sessions")
    assert not (out / "_tmp").exists()


def test_bad_flags_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], archive: Path) -> None:
    assert _batch(capsys, archive, "--out", tmp_path / "o", "--partition-size", "lots")[0] == 2
    assert _batch(capsys, tmp_path / "nothing-*.jsonl", "--out", tmp_path / "o")[0] == 2
    assert _batch(capsys, archive, "--out", tmp_path / "o", "--rules", "mine")[0] == 2


def test_globs_are_expanded(archive: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    code, err = _batch(capsys, f"{archive}/**/*.md", "--out", out, "-q")
    assert code == 0, err
    ids = {r["session_id"] for r in read_rows(out, "sessions")}
    assert ids and all(i.endswith(".md") for i in ids)
    assert pq.read_schema(next((out / "units").glob("*.parquet"))).names[0] == "session_id"


def test_a_file_failing_part_way_leaves_no_rows(
    archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import turnlens.batch.read as batch_read
    import turnlens.batch.run as batch_run

    real = batch_read.read_units
    victim = archive / "examples" / "claude-session.jsonl"

    def failing(path: Path, session: Any, options: Any) -> Iterator[Any]:
        for i, unit in enumerate(real(path, session, options)):
            if path == victim and i == 5:
                session.error = "disk went away"
                return
            yield unit

    monkeypatch.setattr(batch_read, "read_units", failing)
    monkeypatch.setattr(batch_run, "LABEL_ROWS", 2)  # rows of the file are written before it fails
    report = run_batch(collect([str(archive)]), tmp_path / "out", partition_size=1 << 20, progress=None)
    assert report.partitions == 1
    assert report.skipped == [(str(victim), "disk went away")]
    rows = read_rows(tmp_path / "out")
    assert rows and not any(r["session_id"] == str(victim) for r in rows)
    assert str(victim) not in {s["session_id"] for s in read_rows(tmp_path / "out", "sessions")}


def test_odd_files_are_skipped_and_odd_names_kept(
    archive: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = archive / "ours" / "pipe.md"
    os.mkfifo(fifo)  # a reader of a FIFO would wait for ever
    odd = archive / "ours" / os.fsdecode(b"caf\xe9-notes.md")  # a file name that is not UTF-8
    odd.write_text("APPROVED — ship it\n---TURN---\nthanks!\n", "utf-8")
    out = tmp_path / "out"
    code, err = _batch(capsys, archive, "--out", out, "-q")
    assert code == 0
    assert f"{fifo}: not a regular file; skipped" in err
    shown = str(odd).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    rows = [r for r in read_rows(out) if r["session_id"] == shown]
    assert [r["class"] for r in rows] == ["decision", "chitchat"]
