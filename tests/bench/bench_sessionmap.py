"""How fast the session map is written and drawn (not a test: prints figures).

    python tests/bench/bench_sessionmap.py [--units 2000] [--runs 5] [--keep DIR]

Generates a Claude Code session (JSON Lines, fixed seed, one message per line: user prompts,
replies, thinking, tool calls and tool results) with `--units` messages, then prints the
median of `--runs` runs of:
- `turnlens stats FILE --html OUT.html`: wall time of the whole command (process start
  included); target < 2 s for 2,000 units. Its CPU time (user + system) is printed too: on a
  busy machine the wall time says more about the neighbours than about TurnLens; and the
  CPU time of each step, in a fresh process as the CLI runs them: reading and classifying,
  building the map, writing the page;
- the page's own render time in headless Chromium (`chromium --headless --dump-dom`): the
  page stores it in `document.body.dataset.renderMs` (parse, layout of every mark, the
  table); target < 1 s. The wall time of the whole Chromium run is printed for reference.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workloads import turns

SEED = 2026
WRITE_TARGET_S = 2.0
RENDER_TARGET_MS = 1000.0
_RENDER_MS = re.compile(r'<body[^>]*\bdata-render-ms="([0-9.]+)"')


def _line(n: int, kind: str, text: str, rng: random.Random) -> dict[str, object]:
    """One Claude Code JSONL record holding one message of `kind`."""
    content: object
    if kind == "prompt":
        role, content = "user", text
    elif kind == "tool_result":
        role = "user"
        content = [{"type": "tool_result", "tool_use_id": f"toolu_{n - 1:05d}", "content": text}]
    elif kind == "tool_call":
        role = "assistant"
        command = rng.choice(["pytest -q", "rg -n TODO", "git diff", "ls src", "make lint"])
        content = [
            {"type": "tool_use", "id": f"toolu_{n:05d}", "name": "Bash", "input": {"command": command}}
        ]
    elif kind == "thinking":
        role, content = "assistant", [{"type": "thinking", "thinking": text, "signature": "x"}]
    else:
        role, content = "assistant", [{"type": "text", "text": text}]
    record: dict[str, object] = {
        "parentUuid": f"u{n - 1}" if n else None,
        "sessionId": "5b0c9e4e-bench-map",
        "type": role,
        "uuid": f"u{n}",
        "timestamp": f"2026-11-28T{9 + n // 3600 % 12:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
        "message": {"role": role, "content": content},
    }
    return record


def _kinds(rng: random.Random) -> Iterator[str]:
    """A plausible rhythm: a prompt, then thinking, replies and tool round trips."""
    while True:
        yield "prompt"
        if rng.random() < 0.5:
            yield "thinking"
        for _ in range(rng.randint(0, 3)):
            yield "tool_call"
            yield "tool_result"
        yield "reply"


def session_jsonl(units: int, seed: int = SEED) -> str:
    """A Claude Code session of `units` non-blank messages, one per line."""
    rng = random.Random(seed)
    texts = (text for _, text in turns(seed) if text.strip())
    kinds = _kinds(rng)
    lines = []
    for n in range(units):
        kind = next(kinds)
        text = "" if kind == "tool_call" else next(texts)
        lines.append(json.dumps(_line(n, kind, text, rng), ensure_ascii=False))
    return "\n".join(lines) + "\n"


def _chromium() -> str:
    found = (
        os.environ.get("TURNLENS_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    )
    if not found:
        raise SystemExit("Chromium is not installed (apt-get install chromium)")
    return found


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_write(session: Path, out: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one `turnlens stats --html`."""
    cmd = [sys.executable, "-m", "turnlens", "stats", str(session), "--html", str(out), "--budget", "20000"]
    cpu = _children_cpu()
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start, _children_cpu() - cpu


def time_render(page: Path, chromium: str, profile: Path) -> tuple[float, float]:
    """(render ms the page measured itself, wall seconds of the Chromium run)."""
    cmd = [
        chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={profile}", "--dump-dom", page.as_uri(),
    ]  # fmt: skip
    start = time.perf_counter()
    dom = subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=120).stdout
    wall = time.perf_counter() - start
    found = _RENDER_MS.search(dom)
    if not found:
        raise SystemExit("the page did not record its render time (no data-render-ms on <body>)")
    return float(found.group(1)), wall


def time_steps(session: Path) -> dict[str, float]:
    """CPU seconds of each step in this process: read + classify, build the map, write the page."""
    from turnlens.cli.common import load_rules, make_profile
    from turnlens.cli.sessions import analyze_file
    from turnlens.pipeline.analyze import Analyzed
    from turnlens.pipeline.sessionmap import session_map
    from turnlens.report import render_html

    clock = time.process_time
    pack = load_rules(None, session)
    profile = make_profile(argparse.Namespace(separator=None, rules=None), pack, "bench")
    t0 = clock()
    fa = analyze_file(session, profile)
    results = tuple(fa.results)
    t1 = clock()
    data = session_map(
        Analyzed(fa.format, results, tuple(fa.problems), fa.title), fa.text, path=str(session), pack=pack
    )
    t2 = clock()
    render_html([data])
    t3 = clock()
    return {"read + classify": t1 - t0, "session map data": t2 - t1, "HTML page": t3 - t2}


def cold_steps(session: Path) -> dict[str, float]:
    """`time_steps` in a fresh process, as the CLI runs (nothing compiled or cached yet)."""
    cmd = [sys.executable, __file__, "--steps-of", str(session)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    steps: dict[str, float] = json.loads(out)
    return steps


def _units_in(page: Path) -> int:
    found = re.search(
        r'<script id="turnlens-data" type="application/json">(.*?)</script>', page.read_text("utf-8"), re.S
    )
    if not found:
        raise SystemExit(f"{page}: no embedded session map")
    return sum(len(s["units"]) for s in json.loads(found.group(1))["sessions"])


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--units", type=int, default=2000, help="messages in the generated session")
    parser.add_argument("--runs", type=int, default=5, help="runs of each measurement (median printed)")
    parser.add_argument("--keep", type=Path, help="write the session and the page to this folder")
    parser.add_argument("--steps-of", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.steps_of:
        print(json.dumps(time_steps(args.steps_of)))
        return 0
    chromium = _chromium()
    with tempfile.TemporaryDirectory(prefix="turnlens-bench-map-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        session = folder / "bench-session.jsonl"
        session.write_text(session_jsonl(args.units), encoding="utf-8")
        page = folder / "bench-session.map.html"
        size = session.stat().st_size
        timed = [time_write(session, page) for _ in range(args.runs)]
        writes = [wall for wall, _ in timed]
        cpus = [cpu for _, cpu in timed]
        units = _units_in(page)
        steps = [cold_steps(session) for _ in range(args.runs)]
        renders = [time_render(page, chromium, Path(tmp) / f"chromium-{k}") for k in range(args.runs)]
        render_ms = [ms for ms, _ in renders]
        walls = [wall for _, wall in renders]
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"{os.cpu_count()} CPUs, load average {load:.1f}; {args.runs} runs each")
        print(
            f"session: {units:,} units ({size:,} bytes of Claude Code JSONL); page {page.stat().st_size:,} bytes"
        )
        print(f"{'turnlens stats --html (wall)':36} median {statistics.median(writes):6.2f} s   "
              f"max {max(writes):6.2f} s   target < {WRITE_TARGET_S:.0f} s")  # fmt: skip
        print(f"{'turnlens stats --html (CPU)':36} median {statistics.median(cpus):6.2f} s   (user + system)")
        for name in steps[0]:
            print(
                f"{'  of which ' + name + ' (CPU)':36} median {statistics.median(s[name] for s in steps):6.3f} s   (fresh process)"
            )
        print(f"{'render in Chromium (renderMs)':36} median {statistics.median(render_ms):6.0f} ms  "
              f"max {max(render_ms):6.0f} ms  target < {RENDER_TARGET_MS:.0f} ms")  # fmt: skip
        print(f"{'chromium --dump-dom (wall, for ref.)':36} median {statistics.median(walls):6.2f} s")
        missed = [
            name
            for name, ok in (
                ("write", statistics.median(writes) < WRITE_TARGET_S),
                ("render", statistics.median(render_ms) < RENDER_TARGET_MS),
            )
            if not ok
        ]
        if units != args.units:
            print(f"note: the page has {units} units, {args.units} were generated")
        if missed:
            print(f"missed targets: {', '.join(missed)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
