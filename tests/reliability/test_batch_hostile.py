"""`turnlens batch` against hostile inputs and output folders: a Ray that stays on this machine,
lone surrogates, deep JSON, output folders it does not own, symlink loops."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.formats.common import FIXTURES

pytest.importorskip("pyarrow", reason="turnlens batch needs pyarrow")

SESSION = FIXTURES / "claude-code" / "3a7c9e10-5b2d-4f61-8e0a-1c2d3e4f5a6b.jsonl"


def _record(text: str) -> str:
    return json.dumps({"type": "user", "message": {"role": "user", "content": text}, "sessionId": "s"})


def batch(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "turnlens", "batch", "-q", *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
        env=env,
    )


def one_line(done: subprocess.CompletedProcess[str], prefix: str = "turnlens batch:") -> str:
    """The single stderr line of a refused run (exit 2)."""
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert len(lines) == 1 and lines[0].startswith(prefix), done.stderr
    return lines[0]


# --- a local Ray listens on loopback only -----------------------------------------------------


def _listening_inodes() -> dict[str, str]:
    """Socket inode → local address of every listening TCP socket on the machine."""
    out: dict[str, str] = {}
    for name in ("tcp", "tcp6"):
        try:
            rows = Path(f"/proc/net/{name}").read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if fields[3] == "0A":  # LISTEN
                out[fields[9]] = fields[1]
    return out


def _tree(root: int) -> set[int]:
    """`root` and every process descending from it."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    tree = {root}
    grew = True
    while grew:
        more = {pid for pid, ppid in parents.items() if ppid in tree} - tree
        tree |= more
        grew = bool(more)
    return tree


def _listening_addresses(pids: set[int]) -> set[str]:
    listening = _listening_inodes()
    found = set()
    for pid in pids:
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                inode = target[8:-1]
                if inode in listening:
                    found.add(listening[inode])
    return found


def _is_loopback(hex_address: str) -> bool:
    ip = hex_address.split(":")[0]
    if len(ip) == 8:  # IPv4, little-endian: 127.x.x.x ends in 7F
        return ip.upper().endswith("7F")
    # IPv6: ::1, or ::ffff:127.x.x.x
    return ip.upper() in ("00000000000000000000000001000000",) or (
        ip.upper().startswith("0000000000000000FFFF0000") and ip.upper().endswith("7F")
    )


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads listening sockets from /proc")
def test_a_local_ray_started_by_batch_listens_on_loopback_only(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray", reason="the ray engine needs Ray")
    from turnlens.batch.run import run_batch

    assert not ray.is_initialized()
    seen: set[str] = set()
    import turnlens.batch.run as run_module

    finish = run_module._finish_ray

    def spy(*args: Any, **kwargs: Any) -> None:
        seen.update(_listening_addresses(_tree(os.getpid())))  # while Ray is up
        finish(*args, **kwargs)

    run_module._finish_ray = spy  # type: ignore[assignment]
    try:
        report = run_batch([SESSION], tmp_path / "out", engine="ray", workers=1, progress=None)
    finally:
        run_module._finish_ray = finish  # type: ignore[assignment]
    assert report.units > 0 and not ray.is_initialized()
    assert seen, "no listening socket found while Ray ran"
    assert all(_is_loopback(a) for a in seen), sorted(seen)


# --- lone surrogates and deep JSON: reported or replaced, the run goes on ------------------------


def _hostile_archive(root: Path) -> Path:
    archive = root / "archive"
    archive.mkdir()
    lone = "\n".join(
        [_record("please refactor the parser"), _record("broken \ud800 text"), _record("now the tests")]
    )
    (archive / "a-lone.jsonl").write_text(lone + "\n", encoding="utf-8")
    deep = _record("first") + '\n{"type": "user", "deep": ' + "[" * 900 + "]" * 900 + "}\n" + _record("last")
    (archive / "b-deep.jsonl").write_text(deep + "\n", encoding="utf-8")
    (archive / "c-good.jsonl").write_bytes(SESSION.read_bytes())
    return archive


@pytest.mark.parametrize("engine", ["local", "ray"])
def test_lone_surrogates_and_deep_json_do_not_stop_batch(engine: str, tmp_path: Path) -> None:
    if engine == "ray":
        pytest.importorskip("ray", reason="the ray engine needs Ray")
    import pyarrow.parquet as pq

    archive = _hostile_archive(tmp_path)
    out = tmp_path / "out"
    done = batch(str(archive), "--out", str(out), "--engine", engine, "-j", "1")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "nested deeper" in done.stderr
    rows = pq.read_table(out / "units").to_pylist()
    by_file: dict[str, list[str]] = {}
    for row in rows:
        by_file.setdefault(Path(row["session_id"]).name, []).append(row["text"])
    assert by_file["a-lone.jsonl"] == ["please refactor the parser", "broken \ufffd text", "now the tests"]
    assert by_file["b-deep.jsonl"] == ["first", "last"]
    assert len(by_file["c-good.jsonl"]) > 3
    again = batch(str(archive), "--out", str(out), "--engine", engine, "-j", "1")
    assert again.returncode == 0 and "1 already written" in again.stderr, again.stderr


def test_stats_html_with_a_lone_surrogate_writes_the_page(tmp_path: Path) -> None:
    archive = _hostile_archive(tmp_path)
    page = tmp_path / "map.html"
    done = subprocess.run(
        [sys.executable, "-m", "turnlens", "stats", "--html", str(page), str(archive / "a-lone.jsonl")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    html = page.read_text(encoding="utf-8")
    assert "now the tests" in html and "</html>" in html
    from turnlens.report import render_html

    raw = render_html([{"title": "t\ud800", "units": [{"text": "x\udfff"}]}])
    raw.encode("utf-8")  # a lone surrogate that reaches the page is escaped, never written raw


# --- the output folder: one line for what cannot be used, nothing deleted that is not ours -------


def _inputs(root: Path) -> Path:
    folder = root / "in"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes(SESSION.read_bytes())
    (folder / "b.jsonl").write_text(_record("write the parser tests") + "\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    "manifest",
    [
        {"partitions": {"0123456789abcdef": "written"}},
        {"partitions": {"0123456789abcdef": {"units": "12", "sessions": 1, "skipped": []}}},
        {"partitions": {"0123456789abcdef": {"units": 3, "sessions": 1, "skipped": [["a", "b"]]}}},
        {"partitions": {"../../etc/passwd": {"units": 3, "sessions": 1}}},
        {"partitions": {}, "pending": "0123456789abcdef"},
        {"partitions": [], "schema_version": 1},
        ["not", "an", "object"],
        "[[[[" * 5,
    ],
)
def test_a_damaged_manifest_is_one_line_and_the_folder_can_start_over(tmp_path: Path, manifest: Any) -> None:
    inputs = _inputs(tmp_path)
    out = tmp_path / "out"
    assert batch(str(inputs), "--out", str(out)).returncode == 0
    (out / "_manifest.json").write_text(manifest if isinstance(manifest, str) else json.dumps(manifest))
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    line = one_line(batch(str(inputs), "--out", str(out)))
    assert "_manifest.json" in line and "start over" in line
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before  # nothing removed
    import shutil

    shutil.rmtree(out)  # the way the message gives
    assert batch(str(inputs), "--out", str(out)).returncode == 0


def test_bad_out_folders_and_partition_sizes_are_one_line(tmp_path: Path) -> None:
    inputs = _inputs(tmp_path)
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    (tmp_path / "dangling").symlink_to(tmp_path / "missing")
    (tmp_path / "file").write_text("x")
    outs = [
        tmp_path / "link",
        tmp_path / "dangling",
        tmp_path / "file",
        tmp_path / "file" / "under",
        Path("/proc/self/turnlens-out"),
        Path("/proc"),
    ]
    for out in outs:
        line = one_line(batch(str(inputs), "--out", str(out)))
        assert str(out) in line, line
    assert not any(real.iterdir())  # nothing written through the link
    for size in ("inf", "nan", "1e400", "-inf", "1e400k"):
        line = one_line(batch(str(inputs), "--out", str(tmp_path / "o"), "--partition-size", size))
        assert "--partition-size" in line


def test_a_folder_turnlens_did_not_write_is_refused_untouched(tmp_path: Path) -> None:
    inputs = _inputs(tmp_path)
    out = tmp_path / "theirs"
    (out / "_tmp").mkdir(parents=True)
    (out / "_tmp" / "draft.txt").write_text("keep me")
    (out / "units").mkdir()
    (out / "units" / "part-0123456789abcdef-0.parquet").write_text("not ours")
    line = one_line(batch(str(inputs), "--out", str(out)))
    assert "not a TurnLens output folder" in line
    assert (out / "_tmp" / "draft.txt").read_text() == "keep me"
    assert (out / "units" / "part-0123456789abcdef-0.parquet").read_text() == "not ours"


def test_a_rerun_removes_only_the_files_its_manifest_owns(tmp_path: Path) -> None:
    inputs = _inputs(tmp_path)
    out = tmp_path / "out"
    assert batch(str(inputs), "--out", str(out), "--partition-size", "1").returncode == 0
    manifest = json.loads((out / "_manifest.json").read_text())
    assert len(manifest["partitions"]) == 2 and manifest["pending"] == []
    strangers = [
        out / "units" / "part-ffffffffffffffff-0.parquet",
        out / "sessions" / "part-ffffffffffffffff.parquet",
        out / "_tmp" / "part-ffffffffffffffff-0.parquet",
        out / "notes.txt",
    ]
    for f in strangers:
        f.parent.mkdir(exist_ok=True)
        f.write_text("someone else's")
    (inputs / "b.jsonl").write_text(_record("changed: write the lexer tests") + "\n", encoding="utf-8")
    done = batch(str(inputs), "--out", str(out), "--partition-size", "1")
    assert done.returncode == 0, done.stderr
    assert all(f.read_text() == "someone else's" for f in strangers)
    now = json.loads((out / "_manifest.json").read_text())
    assert len(now["partitions"]) == 2 and set(now["partitions"]) != set(manifest["partitions"])
    ours = {p.name for p in (out / "sessions").iterdir()} - {"part-ffffffffffffffff.parquet"}
    assert ours == {f"part-{pid}.parquet" for pid in now["partitions"]}
