"""The size sweep: whole-process `turnlens classify --stdin`, `classify --input FILE` and `route
--stdin` from 200 B to 5 MB and `turnlens plan` on 200 turns, side by side with the original
SE-029 bash scripts when they are at hand (`--input FILE` against the script's own `--input FILE`,
the others against its `--stdin`).

The bash scripts are not part of TurnLens. Point the suite at a copy of them:

    TURNLENS_BASH_REFERENCE=/path/to/scripts/context-task-classify.sh python tests/bench/run.py

The plan comparison runs `operational-point-selector.sh` from the same folder (or the path in
`TURNLENS_BASH_PLAN_REFERENCE`), with `REPO_ROOT` set to the folder above it, as that script
expects. Without the variable the sweep prints TurnLens's own figures only.

Also measured: one-shot `classify` inside a fresh process (pack loading and any RE2 set
building included, interpreter start-up excluded) from 1 KB to 5 MB, to show that the cost per
byte never rises with size (no one-shot cliff).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from tests.bench import workloads

SIZES = (200, 5_000, 50_000, 500_000, 5_000_000)
ONE_SHOT_SIZES = (1_000, 5_000, 50_000, 500_000, 5_000_000)
RATIO_TARGET = 0.6
PLAN_RATIO_TARGET = 0.05
PLAN_TURNS = 200
PLAN_BUDGET = 20_000
CLIFF_TOLERANCE = 1.10  # a per-byte cost may wobble by 10 % between sizes (timer noise)
ENV = "TURNLENS_BASH_REFERENCE"
PLAN_ENV = "TURNLENS_BASH_PLAN_REFERENCE"


# every one-shot way of naming the input, with the bash script's own spelling it is held to
WAYS = {
    "classify --stdin": ("--stdin",),
    "classify --input FILE": ("--input", "FILE"),
    "route --stdin": ("--stdin",),
}


@dataclass
class SweepPoint:
    size: int
    label: str
    way: str = "classify --stdin"
    turnlens: list[float] = field(default_factory=list)  # seconds
    bash: list[float] = field(default_factory=list)
    turnlens_cpu: list[float] = field(default_factory=list)  # CPU seconds of the process
    bash_cpu: list[float] = field(default_factory=list)  # of the script and the tools it starts

    @property
    def cpu_ratio(self) -> float | None:
        """The same ratio in CPU time: what a quiet machine would show (a busy one inflates wall)."""
        if not self.bash_cpu or not self.turnlens_cpu:
            return None
        return statistics.median(self.turnlens_cpu) / statistics.median(self.bash_cpu)

    @property
    def ratio(self) -> float | None:
        if not self.bash:
            return None
        return statistics.median(self.turnlens) / statistics.median(self.bash)


@dataclass
class SweepData:
    points: list[SweepPoint] = field(default_factory=list)  # classify --stdin (the plot's line)
    others: list[SweepPoint] = field(default_factory=list)  # classify --input FILE, route --stdin
    plan: SweepPoint | None = None
    python_start: float | None = None  # seconds, median of `python -c pass`
    bash_path: str | None = None
    one_shot: dict[int, float] = field(default_factory=dict)  # size -> median seconds


LAST: SweepData = SweepData()


def sweep_input(size: int) -> bytes:
    """200 B: a one-line prompt; larger sizes: a transcript classified as one text."""
    if size < 2_000:
        return workloads.prompt_2kb("prose", size=size).encode("utf-8")
    return workloads.transcript(size).encode("utf-8")


def plan_session() -> str:
    parts = []
    for _, text in workloads.turns():
        parts.append(text)
        if len(parts) == PLAN_TURNS:
            break
    return workloads._join(parts)


def bash_reference() -> tuple[str | None, str | None]:
    """The classifier script and the plan script, from the environment (None where absent)."""
    classifier = os.environ.get(ENV) or None
    if classifier and not Path(classifier).is_file():
        print(f"{ENV}={classifier}: no such file; the sweep runs without it", file=sys.stderr)
        classifier = None
    plan = os.environ.get(PLAN_ENV) or None
    if plan is None and classifier:
        sibling = Path(classifier).with_name("operational-point-selector.sh")
        plan = str(sibling) if sibling.is_file() else None
    return classifier, plan


def _run(
    cmd: list[str], data: bytes = b"", env: dict[str, str] | None = None, cpu: list[float] | None = None
) -> float:
    """Wall seconds of one run; its CPU seconds (user + system) go into `cpu`."""
    import resource
    import time

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, input=data, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - t
    if cpu is not None:
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return wall


def _repeats(size: int, quick: bool) -> int:
    if size >= 5_000_000:
        return 2 if quick else 5
    if size >= 500_000:
        return 3 if quick else 7
    return 5 if quick else 15


_ONE_SHOT = """
import sys, time
text = open(sys.argv[1], encoding="utf-8").read()
t = time.perf_counter()
from turnlens.classifier import classify
classify(text)
print(time.perf_counter() - t)
"""


def one_shot(size: int, repeats: int) -> float:
    """Median seconds of one `classify` in a fresh process (imports, pack and sets included)."""
    data = sweep_input(size)
    with tempfile.NamedTemporaryFile(suffix=".txt", delete=False) as handle:
        handle.write(data)
        path = handle.name
    try:
        times = []
        for _ in range(repeats):
            out = subprocess.run(
                [sys.executable, "-c", _ONE_SHOT, path], capture_output=True, text=True, check=True
            )
            times.append(float(out.stdout.strip()))
        return statistics.median(times)
    finally:
        os.unlink(path)


def run_sweep(
    turnlens: list[str], quick: bool, log: Callable[[str], None], python_start: float | None
) -> SweepData:
    """Interleaved runs of TurnLens and (when set) the bash script at every size, then `plan`."""
    classifier, plan_script = bash_reference()
    data = SweepData(python_start=python_start, bash_path=classifier)
    if not classifier:
        log(f"  {ENV} is not set: TurnLens's figures only")
    for size in SIZES:
        payload = sweep_input(size)
        with tempfile.TemporaryDirectory(prefix="turnlens-sweep-") as tmp:
            path = Path(tmp) / "input.txt"
            path.write_bytes(payload)
            for way, script_args in WAYS.items():
                point = SweepPoint(size, workloads._human(size), way)
                words = way.split()
                args = [str(path) if w == "FILE" else w for w in words]
                cmd = [*turnlens, *args]
                bash_cmd = ["bash", classifier or "", *(str(path) if w == "FILE" else w for w in script_args)]
                data_in = payload if "--stdin" in words else b""
                _run(cmd, data_in)  # warm the page cache and bytecode
                if classifier:
                    _run(bash_cmd, data_in)
                for _ in range(_repeats(size, quick)):
                    point.turnlens.append(_run(cmd, data_in, cpu=point.turnlens_cpu))
                    if classifier:
                        point.bash.append(_run(bash_cmd, data_in, cpu=point.bash_cpu))
                (data.points if way == "classify --stdin" else data.others).append(point)
                bash = f", bash {statistics.median(point.bash) * 1e3:.0f} ms" if point.bash else ""
                log(
                    f"  {point.label} {way}: TurnLens {statistics.median(point.turnlens) * 1e3:.0f} ms "
                    f"(CPU {statistics.median(point.turnlens_cpu) * 1e3:.0f} ms){bash}"
                )
    session = plan_session()
    with tempfile.TemporaryDirectory(prefix="turnlens-sweep-") as tmp:
        path = Path(tmp) / "session.txt"
        path.write_text(session, encoding="utf-8")
        plan = SweepPoint(len(session.encode("utf-8")), f"{PLAN_TURNS} turns")
        cmd = [*turnlens, "plan", "--session", str(path), "--budget", str(PLAN_BUDGET), "--json"]
        _run(cmd)
        for _ in range(2 if quick else 5):
            plan.turnlens.append(_run(cmd, cpu=plan.turnlens_cpu))
        if plan_script and classifier:
            env = {**os.environ, "REPO_ROOT": str(Path(classifier).resolve().parent.parent)}
            bash_cmd = ["bash", plan_script, "--session", str(path), "--budget", str(PLAN_BUDGET), "--json"]
            for _ in range(1 if quick else 2):
                plan.bash.append(_run(bash_cmd, env=env))
        data.plan = plan
    for size in ONE_SHOT_SIZES:
        data.one_shot[size] = one_shot(size, 3 if quick else 5)
    global LAST
    LAST = data
    return data


def cliff(data: SweepData) -> tuple[float, str]:
    """The largest rise of the per-byte cost from one size to the next (≤ 1 means none)."""
    worst, where = 0.0, ""
    sizes = sorted(data.one_shot)
    for a, b in pairwise(sizes):
        rise = (data.one_shot[b] / b) / (data.one_shot[a] / a)
        if rise > worst:
            worst, where = rise, f"{workloads._human(a)} → {workloads._human(b)}"
    return worst, where


def markdown(data: SweepData, image: str | None) -> list[str]:
    """The sweep as a table (and the plot) for docs/benchmarks.md."""
    if not data.points:
        return []
    lines = ["### Size sweep against the SE-029 bash script", ""]
    if data.bash_path is None:
        lines += ["The bash script was not given (`TURNLENS_BASH_REFERENCE`): TurnLens alone.", ""]
    lines += [
        "| input | `turnlens` (wall, median) | bash script (wall, median) | TurnLens / bash | target | result "
        "| the same in CPU time |",
        "|---|--:|--:|--:|---|---|--:|",
    ]
    rows = [*_by_way(data), *([data.plan] if data.plan else [])]
    for p in rows:
        is_plan = p is data.plan
        what = f"`plan`, {p.label}" if is_plan else f"`{p.way}`, {p.label}"
        target = PLAN_RATIO_TARGET if is_plan else RATIO_TARGET
        ratio = p.ratio
        bash = f"{statistics.median(p.bash) * 1e3:,.0f} ms" if p.bash else "—"
        verdict = "" if ratio is None else ("met" if ratio <= target else "**missed**")
        lines.append(
            f"| {what} | {statistics.median(p.turnlens) * 1e3:,.0f} ms | {bash} | "
            f"{'—' if ratio is None else f'{ratio:.2f}'} | ≤ {target:g}× | {verdict} | "
            f"{'—' if p.cpu_ratio is None else f'{p.cpu_ratio:.2f}'} |"
        )
    if data.python_start is not None:
        lines += [
            "",
            f"Python's own start-up (`python -c pass`) on this machine: {data.python_start * 1e3:.0f} ms.",
        ]
    if data.one_shot:
        worst, where = cliff(data)
        per = ", ".join(
            f"{workloads._human(s)} {t * 1e3:.1f} ms ({t / s * 1e9:.0f} ns/B)"
            for s, t in sorted(data.one_shot.items())
        )
        trend = (
            f"the cost per byte falls at every step (to at most {worst:.2f}× of the step before, {where})"
            if worst <= 1
            else f"the cost per byte rises by up to {worst:.2f}× ({where})"
        )
        lines += [
            "",
            f"One-shot `classify` in a fresh process (imports, pack and RE2 sets included): {per}; {trend}.",
        ]
    if image:
        lines += ["", f"![classify wall time against input size, TurnLens and the bash script]({image})"]
    return lines


def plot(data: SweepData, path: Path) -> bool:
    """A log-log plot of wall time against input size; False when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    sizes = [p.size for p in data.points]
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    ax.plot(
        sizes,
        [statistics.median(p.turnlens) * 1e3 for p in data.points],
        "o-",
        label="turnlens classify --stdin",
    )
    if all(p.bash for p in data.points):
        ax.plot(
            sizes, [statistics.median(p.bash) * 1e3 for p in data.points], "s--", label="SE-029 bash script"
        )
        ax.plot(
            sizes,
            [statistics.median(p.bash) * 1e3 * RATIO_TARGET for p in data.points],
            ":",
            color="grey",
            label=f"target: {RATIO_TARGET:g} × bash",
        )
    if data.python_start is not None:
        ax.axhline(data.python_start * 1e3, color="tab:green", linewidth=0.8, label="python -c pass")
    finish_log_plot(
        fig,
        ax,
        path,
        "input size (bytes)",
        "wall time (ms, median)",
        "Whole-process classify time against input size",
    )
    return True


def finish_log_plot(fig: Any, ax: Any, path: Path, xlabel: str, ylabel: str, title: str) -> None:
    """Log-log axes, labels, grid and legend, then the figure written to `path` and closed
    (the look every benchmark plot shares)."""
    import matplotlib.pyplot as plt

    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", linewidth=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _by_way(data: SweepData) -> list[SweepPoint]:
    """The points way by way (every size of `classify --stdin`, then of the next way)."""
    order = list(WAYS)
    return sorted([*data.points, *data.others], key=lambda p: (order.index(p.way), p.size))


def results(data: SweepData, make: Callable[..., Any]) -> list[Any]:
    """Rows for the main table; `make(bench, what, seconds, **kw)` builds one (run.from_times)."""
    out = []
    for p in _by_way(data):
        bash_ms = statistics.median(p.bash) * 1e3 if p.bash else None
        out.append(
            make(
                "sweep",
                f"`turnlens {p.way}`, {p.label} (wall)",
                p.turnlens,
                cpu=statistics.median(p.turnlens_cpu) if p.turnlens_cpu else None,
                target=None if bash_ms is None else bash_ms * RATIO_TARGET,
                target_text=""
                if bash_ms is None
                else f"≤ {RATIO_TARGET:g} × bash = {bash_ms * RATIO_TARGET:.0f} ms",
                note=""
                if bash_ms is None
                else f"bash script `{' '.join(WAYS[p.way])}` {bash_ms:,.0f} ms; ratio {p.ratio:.2f}"
                + ("" if p.cpu_ratio is None else f" (CPU {p.cpu_ratio:.2f})"),
            )
        )
    if data.plan:
        p = data.plan
        bash_ms = statistics.median(p.bash) * 1e3 if p.bash else None
        out.append(
            make(
                "sweep",
                f"`turnlens plan`, {p.label} (wall)",
                p.turnlens,
                cpu=statistics.median(p.turnlens_cpu) if p.turnlens_cpu else None,
                target=None if bash_ms is None else bash_ms * PLAN_RATIO_TARGET,
                target_text=""
                if bash_ms is None
                else f"≤ {PLAN_RATIO_TARGET:g} × bash = {bash_ms * PLAN_RATIO_TARGET:.0f} ms",
                note=""
                if bash_ms is None
                else f"bash operational-point selector {bash_ms:,.0f} ms; ratio {p.ratio:.3f}",
            )
        )
    for size, seconds in sorted(data.one_shot.items()):
        out.append(
            make(
                "sweep",
                f"  one-shot `classify` in a fresh process, {workloads._human(size)}",
                [seconds],
                note=f"{seconds / size * 1e9:.0f} ns per byte; imports, pack and sets included",
            )
        )
    return out
