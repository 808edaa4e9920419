"""A batch run: session files → partitions → labelled Parquet, resumable.

Inputs are grouped, in path order, into partitions of about `partition_size`
bytes. A partition is named by a hash of its files' paths, sizes and
modification times and of the run's options, so a rerun knows what is already
written. Each partition's files are written under temporary names and renamed;
its session table is renamed last and marks it complete, so an interrupted run
leaves no half partition behind that a rerun would count twice.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from turnlens.batch.label import Labeler
from turnlens.batch.read import ReadOptions, Session, file_tables, read_table
from turnlens.batch.schema import SCHEMA_VERSION, require_pyarrow
from turnlens.batch.summary import STATS_COLUMNS, sessions_table
from turnlens.cli.common import shown
from turnlens.userfiles import read_limited

MANIFEST = "_manifest.json"
UNITS = "units"
SESSIONS = "sessions"
TMP = "_tmp"
LABEL_ROWS = 4096  # rows labelled and written at a time: bounds a worker's memory

FileEntry = tuple[str, str, int, float]  # (session id, path, size, mtime)


class BatchRefused(Exception):
    """A run TurnLens will not start: an output folder it cannot own, a Ray it cannot keep to
    this machine. The message is one line for the user."""


@dataclass(frozen=True, slots=True)
class Partition:
    id: str
    files: tuple[FileEntry, ...]

    @property
    def size(self) -> int:
        return sum(f[2] for f in self.files)


@dataclass(frozen=True, slots=True)
class Job:
    """What a worker needs for one partition (pickled to it)."""

    partition: Partition
    out: str
    read: ReadOptions
    labeler: Labeler


@dataclass(slots=True)
class Done:
    """A written partition, as the manifest keeps it."""

    id: str
    units: int
    sessions: int
    skipped: list[tuple[str, str]]  # (path, error)
    notes: list[str] = field(default_factory=list)  # warnings to print (lines passed over, bad UTF-8)


@dataclass(slots=True)
class Report:
    partitions: int = 0
    written: int = 0
    resumed: int = 0
    units: int = 0
    sessions: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0


def plan(files: list[Path], partition_size: int, read: ReadOptions, labeler: Labeler) -> list[Partition]:
    """Files in order, cut into partitions of about `partition_size` bytes (a larger file is
    a partition of its own)."""
    entries: list[FileEntry] = []
    for path in files:
        try:
            st = path.stat()
        except OSError:  # gone since it was listed: read_units reports it
            size, mtime = 0, 0.0
        else:
            size, mtime = st.st_size, st.st_mtime
        # a file name that is not UTF-8 is shown (and stored) with U+FFFD; opened by its bytes
        entries.append((shown(path), str(path), size, mtime))
    parts: list[Partition] = []
    group: list[FileEntry] = []
    size = 0
    for entry in entries:
        if group and size + entry[2] > partition_size:
            parts.append(_partition(group, read, labeler))
            group, size = [], 0
        group.append(entry)
        size += entry[2]
    if group:
        parts.append(_partition(group, read, labeler))
    return parts


def _partition(group: list[FileEntry], read: ReadOptions, labeler: Labeler) -> Partition:
    key = {
        "schema": SCHEMA_VERSION,
        "read": [read.format, read.separator],
        "labels": [labeler.pack, list(labeler.route_roles)]
        + ([labeler.engine] if labeler.engine != "model" else []),  # earlier runs' ids stand
        "files": [[os.path.abspath(p), size, mtime] for _, p, size, mtime in group],
    }
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    return Partition(digest, tuple(group))


# --- the output folder ------------------------------------------------------------------------


class Output:
    """The output folder: partitions' Parquet files and the manifest.

    TurnLens writes only into an empty or new folder, or one whose `_manifest.json` it wrote;
    and it removes only files the manifest owns: the Parquet files of partitions it lists as
    written or as being written (`pending`), and its own temporary files. Anything else in the
    folder is left alone."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.units = root / UNITS
        self.sessions = root / SESSIONS
        self.tmp = root / TMP
        _check_folder(root, "--out")
        try:
            fresh = not any(root.iterdir())
        except OSError as exc:
            raise BatchRefused(f"--out {shown(root)}: {exc.strerror or exc}") from None
        if fresh:
            self.manifest: dict[str, Any] = {"partitions": {}, "pending": []}
            self._save()  # the folder is TurnLens's from now on, even if this run is stopped
        else:
            self.manifest = self._load()
        for d in (self.units, self.sessions, self.tmp):
            try:
                d.mkdir(exist_ok=True)
            except OSError as exc:
                raise BatchRefused(
                    f"--out {shown(root)}: cannot make {d.name}/: {exc.strerror or exc}"
                ) from None
            _check_folder(d, "--out")
        # what an interrupted run left: unit files of a partition whose session table never
        # landed, and temporary files of the partitions it was writing
        owned = set(self.manifest["partitions"]) | set(self.manifest["pending"])
        for f in self.units.glob("part-*.parquet"):
            pid = _part_id(f.name)
            if pid in self.manifest["pending"] and not self.complete(pid):
                f.unlink()
        self._clear_tmp(owned)

    def _load(self) -> dict[str, Any]:
        """The manifest, validated: a folder without one, or with one TurnLens cannot use, is
        refused (its files are not TurnLens's to replace)."""
        where = f"--out {shown(self.root)}"
        path = self.root / MANIFEST
        if path.is_symlink() or not path.is_file():
            raise BatchRefused(
                f"{where}: not empty and not a TurnLens output folder (no {MANIFEST}); "
                "choose an empty or new folder"
            )
        try:
            data = json.loads(read_limited(path, MAX_MANIFEST).decode("utf-8"))
        except (OSError, ValueError, RecursionError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)[:120]
            raise BatchRefused(f"{where}: {MANIFEST} cannot be read ({reason}); {_START_OVER}") from None
        problem = manifest_problem(data)
        if problem is not None:
            raise BatchRefused(f"{where}: {MANIFEST} is damaged ({problem}); {_START_OVER}")
        data.setdefault("pending", [])
        return dict(data)

    def complete(self, pid: str) -> bool:
        return pid in self.manifest["partitions"] and (self.sessions / f"part-{pid}.parquet").exists()

    def begin(self, pids: list[str]) -> None:
        """Note the partitions this run writes: their files are the manifest's from now on."""
        self.manifest["pending"] = sorted(set(self.manifest["pending"]) | set(pids))
        self._save()

    def record(self, part: Partition, done: Done, engine: str) -> None:
        """Note a written partition; the manifest is replaced atomically."""
        self.manifest["partitions"][part.id] = {
            "files": [{"path": p, "size": size, "mtime": mtime} for _, p, size, mtime in part.files],
            "units": done.units,
            "sessions": done.sessions,
            "skipped": [{"path": p, "error": e} for p, e in done.skipped],
            "engine": engine,
        }
        self.manifest["pending"] = [p for p in self.manifest["pending"] if p != part.id]
        self._save()

    def _save(self) -> None:
        self.manifest["schema_version"] = SCHEMA_VERSION
        text = json.dumps(self.manifest, indent=1, sort_keys=True)
        # a fresh name, created exclusively: a planted file or link is never written through
        fd, tmp = tempfile.mkstemp(prefix=f"{MANIFEST}.", suffix=".tmp", dir=self.root)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                os.fchmod(f.fileno(), 0o644)
                f.write(text)
            os.replace(tmp, self.root / MANIFEST)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def prune(self, keep: set[str]) -> None:
        """Forget partitions of files that changed or went: the folder mirrors this run's inputs.
        Only the files of partitions the manifest lists are removed."""
        gone = {p for p in self.manifest["partitions"] if p not in keep}
        gone |= {p for p in self.manifest["pending"] if p not in keep}
        for pid in gone:
            self.manifest["partitions"].pop(pid, None)
        for folder in (self.units, self.sessions):
            for f in folder.glob("part-*.parquet"):
                if _part_id(f.name) in gone:
                    f.unlink()
        self.manifest["pending"] = [p for p in self.manifest["pending"] if p in keep]
        self._save()
        self._clear_tmp(gone | keep)
        with contextlib.suppress(OSError):
            self.tmp.rmdir()  # only when nothing else is in it

    def _clear_tmp(self, owned: set[str]) -> None:
        """Remove TurnLens's own temporary files of the partitions in `owned`."""
        if not self.tmp.is_dir() or self.tmp.is_symlink():
            return
        for f in self.tmp.iterdir():
            name = f.name
            if name.startswith("wave-") and name[5:] in owned and not f.is_symlink():
                shutil.rmtree(f, ignore_errors=True)
            elif name.startswith("part-") and name.endswith(".parquet") and _part_id(name) in owned:
                f.unlink()


MAX_MANIFEST = 256 * 1024 * 1024
_START_OVER = "remove the folder (or choose another --out) to start over"
_PID = re.compile(r"[0-9a-f]{16}")


def manifest_problem(data: Any) -> str | None:
    """What makes `data` unusable as a manifest, or None when every field has its type."""
    if not isinstance(data, dict):
        return "not an object"
    parts = data.get("partitions")
    if not isinstance(parts, dict):
        return "`partitions` is not an object"
    if not isinstance(data.get("schema_version", 0), int):
        return "`schema_version` is not a number"
    pending = data.get("pending", [])
    if not isinstance(pending, list) or not all(isinstance(p, str) and _PID.fullmatch(p) for p in pending):
        return "`pending` is not a list of partition ids"
    for pid, entry in parts.items():
        where = f"partition {pid[:20]!r}"
        if not _PID.fullmatch(pid):
            return f"{where}: not a partition id"
        if not isinstance(entry, dict):
            return f"{where}: not an object"
        for key in ("units", "sessions"):
            value = entry.get(key, 0)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                return f"{where}: `{key}` is not a count"
        skipped = entry.get("skipped", [])
        if not isinstance(skipped, list) or not all(
            isinstance(s, dict) and isinstance(s.get("path"), str) and isinstance(s.get("error"), str)
            for s in skipped
        ):
            return f"{where}: `skipped` is not a list of {{path, error}}"
    return None


def _check_folder(path: Path, what: str) -> None:
    """BatchRefused unless `path` is a real folder TurnLens may write into (made when missing).

    A symbolic link is refused, not followed: the files would land, and be removed, elsewhere."""
    try:
        if path.is_symlink():
            raise BatchRefused(f"{what} {shown(path)}: a symbolic link; give the folder itself")
        if path.exists() and not path.is_dir():
            raise BatchRefused(f"{what} {shown(path)}: not a folder")
        path.mkdir(parents=True, exist_ok=True)
        if not os.access(path, os.W_OK | os.X_OK):
            raise BatchRefused(f"{what} {shown(path)}: not writable")
    except OSError as exc:
        raise BatchRefused(f"{what} {shown(path)}: {exc.strerror or exc}") from None


def _part_id(name: str) -> str:
    return name.removeprefix("part-").removesuffix(".parquet").split("-")[0]


def _publish(tmp: Path, final: Path) -> None:
    os.replace(tmp, final)


# --- one partition, in a worker ---------------------------------------------------------------


class _FailedPartWay(Exception):
    """A file failed after some of its rows were written: the partition is written again without it."""

    def __init__(self, path: str, error: str) -> None:
        super().__init__(path, error)
        self.path, self.error = path, error


def label_partition(job: Job) -> Done:
    """Read, label and write one partition (the local engine's unit of work)."""
    failed: dict[str, str] = {}
    while True:
        try:
            return _label_partition(job, failed)
        except _FailedPartWay as exc:  # rare: an I/O error or a reader bug mid-file
            failed[exc.path] = exc.error


def _label_partition(job: Job, failed: dict[str, str]) -> Done:
    pa = require_pyarrow()
    import pyarrow.parquet as pq

    from turnlens.batch.schema import units_schema

    part, root = job.partition, Path(job.out)
    tmp_units = root / TMP / f"part-{part.id}-0.parquet"
    stats_parts: list[Any] = []
    sessions: list[Session] = []
    units = 0
    with pq.ParquetWriter(tmp_units, units_schema()) as writer:
        for session_id, path, size, mtime in part.files:
            session = Session(session_id, path, size, mtime)
            sessions.append(session)
            if path in failed:
                session.error = failed[path]
                continue
            wrote = False
            # rows are labelled and written a slice at a time: memory holds one slice, not the file
            for chunk in file_tables(session, job.read, LABEL_ROWS):
                labelled = job.labeler(chunk)
                writer.write_table(labelled)
                stats_parts.append(labelled.select(STATS_COLUMNS))
                units += labelled.num_rows
                wrote = True
            if session.error is not None and wrote:
                raise _FailedPartWay(path, session.error)  # keyed by the path opened
    stats = pa.concat_tables(stats_parts) if stats_parts else _empty_stats()
    return _finish(part, root, [tmp_units], stats, sessions, units)


def _empty_stats() -> Any:
    from turnlens.batch.schema import units_schema

    schema = units_schema()
    return schema.empty_table().select(STATS_COLUMNS)


def _finish(
    part: Partition, root: Path, unit_files: list[Path], stats: Any, sessions: list[Session], units: int
) -> Done:
    """Write the session table, then publish: unit files first, the session table last."""
    import pyarrow.parquet as pq

    table = sessions_table(stats, sessions)
    tmp_sessions = root / TMP / f"part-{part.id}.sessions.parquet"
    pq.write_table(table, tmp_sessions)
    for i, f in enumerate(unit_files):
        _publish(f, root / UNITS / f"part-{part.id}-{i}.parquet")
    _publish(tmp_sessions, root / SESSIONS / f"part-{part.id}.parquet")
    skipped = [(s.session_id, s.error) for s in sessions if s.error is not None]
    return Done(part.id, units, table.num_rows, skipped, _notes(sessions))


def _notes(sessions: list[Session]) -> list[str]:
    notes = []
    for s in sessions:
        if s.invalid_utf8:
            notes.append(f"turnlens: warning: {s.session_id}: invalid UTF-8 replaced with U+FFFD")
        if s.problems:
            first = s.problems[0]
            where = f"line {first.line}: " if first.line else ""
            more = f" (and {len(s.problems) - 1} more)" if len(s.problems) > 1 else ""
            notes.append(f"turnlens: {first.severity}: {s.session_id}: {where}{first.message}{more}")
    return notes


# --- engines ------------------------------------------------------------------------------------

Engine = Callable[[list[Job], int, Callable[[Partition, Done], None]], None]


def run_local(jobs: list[Job], workers: int, on_done: Callable[[Partition, Done], None]) -> None:
    """A process pool on this machine, one partition per task, biggest first."""
    order = sorted(jobs, key=lambda j: -j.partition.size)
    if workers <= 1 or len(order) <= 1:
        for job in order:
            on_done(job.partition, label_partition(job))
        return
    from concurrent.futures import as_completed

    from turnlens.cli.workers import worker_pool

    with worker_pool(workers) as pool:  # on an error, Ctrl-C or SIGTERM its workers are killed
        futures = {pool.submit(label_partition, job): job for job in order}
        for future in as_completed(futures):
            on_done(futures[future].partition, future.result())


def run_ray(
    jobs: list[Job], workers: int, on_done: Callable[[Partition, Done], None], address: str | None = None
) -> None:
    """The same reading and `label_batch` on Ray: partitions are read by Ray tasks, labelled with
    `Dataset.map_batches` and written with `Dataset.write_parquet`, a wave of partitions at a time."""
    if not jobs:
        return
    try:
        import ray
        import ray.data
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("the ray engine needs Ray: pip install 'turnlens[ray]'") from exc

    import logging

    for name in ("ray", "ray.data"):
        logging.getLogger(name).setLevel(logging.ERROR)  # our bar says how it goes
    started = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {
            "include_dashboard": False,
            "logging_level": "warning",
            "log_to_driver": False,
        }
        if address:
            ray.init(address=address, **kwargs)  # the user's cluster, as the user set it up
        else:
            _start_local_ray(ray, max(1, workers), kwargs)
        started = True
    try:
        ctx = ray.data.DataContext.get_current()
        ctx.enable_progress_bars = False
        with contextlib.suppress(AttributeError):
            ctx.print_on_execution_start = False
        resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
        cpus = max(1, int(resources.get("CPU", workers)))
        read = ray.remote(num_returns=2)(_ray_read)
        per_wave = cpus * RAY_WAVE_PER_CPU
        for start in range(0, len(jobs), per_wave):
            _ray_wave(ray, read, jobs[start : start + per_wave], on_done)
    finally:
        if started:
            ray.shutdown()


# Partitions per CPU in one wave of the Ray engine. Each wave is one Dataset execution (its
# start costs about a second) ending at a barrier, where a core whose partitions are done
# waits for the wave's largest; more partitions a wave amortise both, and bound what is in
# flight at once to a few partitions a core.
RAY_WAVE_PER_CPU = 4

# Ray on Linux advertises (and binds its gRPC servers to every interface for) the machine's
# network address; with clusters "disabled" it takes the loopback address, and its servers
# listen on 127.0.0.1 only. The switch is read from the environment by Ray's processes.
_RAY_CLUSTER_SWITCH = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
LOOPBACK = "127.0.0.1"


def _start_local_ray(ray: Any, cpus: int, kwargs: dict[str, Any]) -> None:
    """Start a Ray for this run that listens on the loopback interface only: anyone who can
    reach a Ray node's ports can run code on it, so a Ray TurnLens starts is reachable from
    this machine alone. Refuses to run when Ray came up on another address."""
    saved = os.environ.get(_RAY_CLUSTER_SWITCH)
    os.environ[_RAY_CLUSTER_SWITCH] = "0"
    constants = sys.modules.get("ray._private.ray_constants")
    previous = getattr(constants, "ENABLE_RAY_CLUSTER", None)
    if constants is not None:  # already imported: the switch was read at import
        setattr(constants, "ENABLE_RAY_CLUSTER", False)  # noqa: B010
    try:
        ray.init(num_cpus=cpus, _node_ip_address=LOOPBACK, **kwargs)
    finally:
        if saved is None:
            os.environ.pop(_RAY_CLUSTER_SWITCH, None)
        else:
            os.environ[_RAY_CLUSTER_SWITCH] = saved
        if constants is not None:
            setattr(constants, "ENABLE_RAY_CLUSTER", previous)  # noqa: B010
    node = ray.util.get_node_ip_address()
    if node != LOOPBACK:
        ray.shutdown()
        raise BatchRefused(
            f"the local Ray came up on {node}, not {LOOPBACK}; refusing to expose it "
            "(start Ray yourself and pass --ray-address to choose)"
        )


def _ray_read(job: Job) -> tuple[Any, list[Session]]:
    """A Ray task: one partition's unit rows, tagged with the partition, and what was learnt."""
    pa = require_pyarrow()
    table, sessions = read_table(list(job.partition.files), job.read)
    column = pa.array([job.partition.id] * table.num_rows, type=pa.string())
    return table.append_column("partition", column), sessions


def _ray_wave(ray: Any, read: Any, wave: list[Job], on_done: Callable[[Partition, Done], None]) -> None:
    import pyarrow.parquet as pq

    root = Path(wave[0].out)
    pairs = [read.remote(job) for job in wave]
    tables = [p[0] for p in pairs]
    sessions = ray.get([p[1] for p in pairs])
    target = root / TMP / f"wave-{wave[0].partition.id}"
    ds = ray.data.from_arrow_refs(tables)
    ds = ds.map_batches(wave[0].labeler, batch_format="pyarrow", batch_size=LABEL_ROWS)
    ds.write_parquet(str(target), partition_cols=["partition"])
    for job, found in zip(wave, sessions, strict=True):
        part = job.partition
        files = sorted((target / f"partition={part.id}").glob("*.parquet"))
        stats = pq.read_table(files, columns=list(STATS_COLUMNS)) if files else _empty_stats()
        _finish_ray(part, root, files, stats, found, on_done)
    shutil.rmtree(target, ignore_errors=True)


def _finish_ray(
    part: Partition,
    root: Path,
    files: list[Path],
    stats: Any,
    sessions: list[Session],
    on_done: Callable[[Partition, Done], None],
) -> None:
    import pyarrow.parquet as pq

    from turnlens.batch.schema import units_schema

    # Hive partitioning left the files without the partition column and with Ray's own
    # file names; cast them to the documented schema under the run's names
    schema = units_schema()
    renamed = []
    for i, f in enumerate(files):
        out = root / TMP / f"part-{part.id}-{i}.parquet"
        pq.write_table(pq.read_table(f).select(schema.names).cast(schema), out)
        renamed.append(out)
    on_done(part, _finish(part, root, renamed, stats, sessions, stats.num_rows))


# --- the whole run ------------------------------------------------------------------------------


class Progress:
    """A plain-text bar on stderr: partitions, units, units per second, time left."""

    def __init__(self, total_bytes: int, partitions: int, stream: TextIO = sys.stderr) -> None:
        self.total, self.partitions, self.stream = total_bytes, partitions, stream
        self.done_bytes = self.done = self.units = 0
        self.start = time.monotonic()
        self.tty = stream.isatty()

    def update(self, part: Partition, units: int) -> None:
        self.done += 1
        self.done_bytes += part.size
        self.units += units
        elapsed = max(time.monotonic() - self.start, 1e-6)
        rate = self.units / elapsed
        share = self.done_bytes / self.total if self.total else 1.0
        left = elapsed * (1 - share) / share if share else 0.0
        bar = "#" * int(share * 24)
        line = (
            f"[{bar:<24}] {self.done}/{self.partitions} partitions  {self.units:,} units  "
            f"{rate:,.0f} units/s  {_mb(self.done_bytes)}/{_mb(self.total)}  ~{left:.0f} s left"
        )
        self.stream.write(("\r" + line) if self.tty else line + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty and self.done:
            self.stream.write("\n")
            self.stream.flush()


def _mb(n: int) -> str:
    return f"{n / 1e6:,.1f} MB"


def run_batch(
    files: list[Path],
    out: Path,
    *,
    engine: str = "local",
    workers: int = 1,
    partition_size: int = 64 * 1024 * 1024,
    read: ReadOptions | None = None,
    labeler: Labeler | None = None,
    ray_address: str | None = None,
    warn: Callable[[str], None] | None = None,
    progress: TextIO | None = sys.stderr,
) -> Report:
    """Label `files` into `out`; partitions already written by an earlier run are skipped."""
    started = time.monotonic()
    read = read or ReadOptions()
    labeler = labeler or Labeler()
    say = warn or (lambda line: print(line, file=sys.stderr))
    parts = plan(files, partition_size, read, labeler)
    output = Output(out)
    pending = [p for p in parts if not output.complete(p.id)]
    output.begin([p.id for p in pending])
    report = Report(partitions=len(parts), resumed=len(parts) - len(pending))
    for p in parts:
        if output.complete(p.id):
            entry = output.manifest["partitions"][p.id]
            report.units += int(entry.get("units", 0))
            report.sessions += int(entry.get("sessions", 0))
            report.skipped += [(s["path"], s["error"]) for s in entry.get("skipped", [])]
    bar = Progress(sum(p.size for p in pending), len(pending), progress) if progress else None

    def on_done(part: Partition, done: Done) -> None:
        output.record(part, done, engine)
        report.written += 1
        report.units += done.units
        report.sessions += done.sessions
        report.skipped += done.skipped
        if bar:
            bar.update(part, done.units)
        for note in done.notes:
            say(note)
        for path, error in done.skipped:
            say(f"turnlens: warning: {path}: {error}; skipped")

    jobs = [Job(p, str(out), read, labeler) for p in pending]
    try:
        if engine == "ray":
            run_ray(jobs, workers, on_done, ray_address)
        else:
            run_local(jobs, workers, on_done)
    finally:
        if bar:
            bar.close()
    output.prune({p.id for p in parts})
    report.seconds = time.monotonic() - started
    return report
