"""`turnlens batch` on a generated archive: units per second per core (local and Ray), the
speed-up from 1 to 2 cores, and peak memory per worker. A script, not a test.

    python tests/bench/bench_batch.py                     # 500 MB archive under /tmp, all engines
    python tests/bench/bench_batch.py --size 50M --quick  # a short look (local only)
    python tests/bench/bench_batch.py --write             # also rewrite docs/benchmarks.md's section

The archive (Claude Code JSON Lines sessions, a few of them over 8 MB so they are streamed,
and ---TURN--- Markdown sessions; fixed seed) is generated once under /tmp and reused; it is
never part of the repository.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.workloads import SEED, turns  # noqa: E402

BENCH_DOC = ROOT / "docs" / "benchmarks.md"
BEGIN = "<!-- batch-bench: begin -->"
END = "<!-- batch-bench: end -->"


# --- the archive -------------------------------------------------------------------------------


def _claude_session(rng: random.Random, stream: object, want: int, sid: str) -> bytes:
    """A Claude Code session of about `want` bytes: prompts, replies, tool calls and results."""
    lines: list[str] = []
    size = 0
    parent = None
    n = 0
    source = iter(stream)  # type: ignore[call-overload]
    while size < want:
        n += 1
        _kind, text = next(source)
        uid = f"{sid}-{n}"
        base = {
            "sessionId": sid,
            "parentUuid": parent,
            "uuid": uid,
            "timestamp": f"2026-11-{1 + n % 28:02d}T10:00:00Z",
        }
        pick = rng.random()
        if pick < 0.3:
            rec = {**base, "type": "user", "message": {"role": "user", "content": text}}
        elif pick < 0.75:
            content: list[dict[str, object]] = [{"type": "text", "text": text}]
            if rng.random() < 0.3:
                content.insert(0, {"type": "thinking", "thinking": next(source)[1], "signature": "c2ln"})
            if rng.random() < 0.3:
                content.append(
                    {"type": "tool_use", "id": f"t{n}", "name": "Read", "input": {"file_path": "/src/app.py"}}
                )
            rec = {
                **base,
                "type": "assistant",
                "message": {"role": "assistant", "model": "m", "content": content},
            }
        else:
            result = {"type": "tool_result", "tool_use_id": f"t{n - 1}", "content": text}
            rec = {**base, "type": "user", "message": {"role": "user", "content": [result]}}
        line = json.dumps(rec, ensure_ascii=False)
        lines.append(line)
        size += len(line.encode("utf-8")) + 1
        parent = uid
    return ("\n".join(lines) + "\n").encode("utf-8")


def make_archive(folder: Path, total: int, seed: int = SEED) -> tuple[int, int]:
    """About `total` bytes of sessions in `folder` (reused when already there). Returns (files, bytes)."""
    stamp = folder / ".complete"
    if stamp.exists() and json.loads(stamp.read_text())["total"] == total:
        info = json.loads(stamp.read_text())
        return int(info["files"]), int(info["bytes"])
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    rng = random.Random(seed)
    stream = turns(seed)
    written = files = 0
    while written < total:
        sub = folder / f"{files // 40:03d}"
        sub.mkdir(exist_ok=True)
        if files % 40 == 7:  # a long session: streamed line by line
            data = _claude_session(rng, stream, 9_000_000, f"s{files}")
            name = f"session-{files:05d}.jsonl"
        elif rng.random() < 0.7:
            data = _claude_session(rng, stream, rng.randint(100_000, 3_000_000), f"s{files}")
            name = f"session-{files:05d}.jsonl"
        else:
            parts = []
            size = 0
            want = rng.randint(50_000, 1_000_000)
            while size < want:
                text = next(stream)[1]
                parts.append(text)
                size += len(text) + 12
            data = ("\n---TURN---\n".join(parts) + "\n").encode("utf-8")
            name = f"notes-{files:05d}.md"
        (sub / name).write_bytes(data)
        written += len(data)
        files += 1
    stamp.write_text(json.dumps({"total": total, "files": files, "bytes": written}))
    return files, written


# --- measuring ---------------------------------------------------------------------------------


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for c in children.get(p, []):
            out.append(c)
            todo.append(c)
    return out


_TICK = os.sysconf("SC_CLK_TCK")


def _cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICK


def _rss_and_cmd(pid: int) -> tuple[int, str]:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return 0, ""
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024, cmd
    return 0, cmd


class MemoryWatch(threading.Thread):
    """Samples a process tree: the RSS of the largest worker and of the driver, and the CPU
    seconds of every process in it (the last sample of each)."""

    def __init__(self, pid: int, engine: str) -> None:
        super().__init__(daemon=True)
        self.pid, self.engine = pid, engine
        self.worker_peak = self.driver_peak = 0
        self.cpu: dict[int, float] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(0.25):
            self.driver_peak = max(self.driver_peak, _rss_and_cmd(self.pid)[0])
            self.cpu[self.pid] = max(self.cpu.get(self.pid, 0.0), _cpu(self.pid))
            for p in _descendants(self.pid):
                self.cpu[p] = max(self.cpu.get(p, 0.0), _cpu(p))
                rss, cmd = _rss_and_cmd(p)
                worker = (
                    ("ray::" in cmd or "default_worker" in cmd)
                    if self.engine == "ray"
                    else "turnlens" in cmd or "multiprocessing" in cmd
                )
                if worker:
                    self.worker_peak = max(self.worker_peak, rss)


@dataclass
class Run:
    engine: str
    cores: int
    seconds: float
    units: int
    worker_mb: float
    driver_mb: float
    cpu_seconds: float
    load: float  # the machine's 1-minute load average at the end (other processes included)

    @property
    def per_core(self) -> float:
        return self.units / self.seconds / self.cores

    @property
    def per_cpu_second(self) -> float:
        """Units per CPU second of the whole process tree: what a core does when it is not shared."""
        return self.units / self.cpu_seconds if self.cpu_seconds else 0.0


def run_once(archive: Path, out: Path, engine: str, cores: int, partition: str) -> Run:
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, "-m", "turnlens", "batch", str(archive), "--out", str(out), "--engine", engine]
    cmd += ["--jobs", str(cores), "--partition-size", partition, "--quiet"]
    # the installed TurnLens when this interpreter has one (measure what users run), else the
    # source tree next to this script
    env = dict(os.environ)
    if importlib.util.find_spec("turnlens") is None:
        env["PYTHONPATH"] = str(ROOT / "server")
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, text=True)
    watch = MemoryWatch(proc.pid, engine)
    watch.start()
    _, err = proc.communicate()
    seconds = time.perf_counter() - t
    watch.stop.set()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{err}")
    manifest = json.loads((out / "_manifest.json").read_text())
    units = sum(p["units"] for p in manifest["partitions"].values())
    worker = watch.worker_peak or watch.driver_peak  # one local core: the driver is the worker
    cpu = sum(watch.cpu.values())
    return Run(engine, cores, seconds, units, worker / 1e6, watch.driver_peak / 1e6, cpu, os.getloadavg()[0])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="500M", help="archive size (default 500M)")
    ap.add_argument("--folder", default="/tmp/turnlens-batch-bench", help="where the archive and output go")
    ap.add_argument("--partition-size", default="32M")
    ap.add_argument("--engines", default="local,ray")
    ap.add_argument("--quick", action="store_true", help="local engine only")
    ap.add_argument("--write", action="store_true", help="rewrite the batch section of docs/benchmarks.md")
    args = ap.parse_args()
    from turnlens.cli.batch import parse_size

    folder = Path(args.folder)
    files, nbytes = make_archive(folder / "archive", parse_size(args.size))
    print(f"archive: {files} files, {nbytes / 1e6:.0f} MB in {folder / 'archive'}", flush=True)
    engines = ["local"] if args.quick else args.engines.split(",")
    runs: list[Run] = []
    for engine in engines:
        for cores in (1, 2):
            r = run_once(
                folder / "archive", folder / f"out-{engine}-{cores}", engine, cores, args.partition_size
            )
            runs.append(r)
            print(
                f"{engine:5} {cores} core(s): {r.seconds:7.1f} s  {r.units:,} units  "
                f"{r.units / r.seconds:,.0f} units/s  {r.per_core:,.0f} units/s/core  "
                f"{nbytes / r.seconds / 1e6:.1f} MB/s  {r.cpu_seconds:.0f} CPU s ({r.per_cpu_second:,.0f} "
                f"units/CPU s)  worker peak {r.worker_mb:.0f} MB  driver {r.driver_mb:.0f} MB  load {r.load:.1f}",
                flush=True,
            )
    lines = _table(runs, files, nbytes, args)
    print("\n".join(lines))
    if args.write:
        _write(lines)
    return 0


def _table(runs: list[Run], files: int, nbytes: int, args: argparse.Namespace) -> list[str]:
    cpu = platform.processor() or platform.machine()
    out = [
        f"Archive: {files} generated session files, {nbytes / 1e6:.0f} MB (Claude Code JSON Lines, 1 in 40 "
        f"over 8 MB, and ---TURN--- Markdown), partitions of {args.partition_size}; "
        f"{os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, "
        f"{time.strftime('%Y-%m-%d')}. Command: `python tests/bench/bench_batch.py --size {args.size}`.",
        "",
        "| engine | cores | wall | units | units/s | units/s per core | units per CPU s | MB/s | speed-up 1→2 "
        "| peak RSS per worker | driver RSS | load avg |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    one = {r.engine: r for r in runs if r.cores == 1}
    for r in runs:
        speed = f"{one[r.engine].seconds / r.seconds:.2f}×" if r.cores == 2 and r.engine in one else "–"
        out.append(
            f"| {r.engine} | {r.cores} | {r.seconds:.1f} s | {r.units:,} | {r.units / r.seconds:,.0f} | "
            f"{r.per_core:,.0f} | {r.per_cpu_second:,.0f} | {nbytes / r.seconds / 1e6:.1f} | {speed} | "
            f"{r.worker_mb:.0f} MB | {r.driver_mb:.0f} MB | {r.load:.1f} |"
        )
    return out


def _write(lines: list[str]) -> None:
    doc = BENCH_DOC.read_text("utf-8")
    section = "\n".join([BEGIN, *lines, END])
    if BEGIN in doc and END in doc:
        head, rest = doc.split(BEGIN, 1)
        doc = head + section + rest.split(END, 1)[1]
    else:
        doc = doc.rstrip("\n") + "\n\n## Batch runs (`turnlens batch`)\n\n" + section + "\n"
    BENCH_DOC.write_text(doc, "utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
