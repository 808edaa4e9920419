"""How fast the agent hooks and the status line answer, as the agent runs them (not a test).

    python tests/bench/bench_agents.py [--n 40] [--mb 20] [--cold 1] [--labeler model|encoder]

Every figure is a whole `turnlens` process, started the way an agent starts it (the
console script, JSON on stdin), in wall time and in CPU time (user + system of the
child): on a shared machine the wall time includes waiting for a core.

- UserPromptSubmit on ~2 KB prompts of every kind (target ≤ 60 ms p95);
- the status line on a session whose last prompt is ~2 KB, one new prompt per call
  (the ledger reads the new lines and routes the new prompt; target ≤ 60 ms p95);
- PreCompact on a generated Claude Code session of --mb megabytes (target ≤ 1 s):
  cold (nothing remembered), kept current by the status line, and after the submit
  hook's background reader has read the session;
- the restore after compaction (SessionStart, source compact) on the same session.

`--labeler encoder` runs every process with $TURNLENS_LABELER=encoder (the optional engine,
which needs `turnlens[encoder]`): the route and a person's prompts' classes from the encoder.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.agents.make_fixtures import SUMMARY, Writer, compacted, session
from tests.bench.workloads import prompts_2kb, turns

TURNLENS = shutil.which("turnlens") or "turnlens"


def run(args: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, float, bytes]:
    """(wall seconds, CPU seconds, stdout) of one `turnlens` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run([TURNLENS, *args], input=stdin, capture_output=True, env=env, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


# started from a small process: a child forked from this one (which holds the generated session)
# would count this process's pages in its peak before it runs `turnlens`
_PEAK = (
    "import os, resource, subprocess, sys; "
    "subprocess.run(sys.argv[1:], stdin=sys.stdin, stdout=subprocess.DEVNULL, check=True); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def peak_mb(args: list[str], stdin: bytes, env: dict[str, str]) -> float:
    """The largest resident size of one `turnlens` process (Linux: ru_maxrss in KB)."""
    proc = subprocess.run(
        [sys.executable, "-c", _PEAK, TURNLENS, *args], input=stdin, capture_output=True, env=env, check=True
    )
    return int(proc.stdout) / 1024


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def report(name: str, walls: list[float], cpus: list[float], target: float | None) -> None:
    verdict = ""
    if target is not None:
        met = "met" if p95(walls) <= target else "NOT met"
        verdict = f"  (target ≤ {target * 1000:.0f} ms: {met})"
    print(
        f"{name:<44} wall p50 {statistics.median(walls) * 1000:7.1f} ms  p95 {p95(walls) * 1000:7.1f} ms   "
        f"cpu p50 {statistics.median(cpus) * 1000:7.1f} ms  p95 {p95(cpus) * 1000:7.1f} ms{verdict}"
    )


def big_session(path: Path, megabytes: int) -> int:
    """The fixture's session (decisions early), then generated turns until `megabytes`: prompts,
    replies, tool calls and results of every kind. Returns the number of lines."""
    w = session()
    texts = turns()
    size = sum(len(x) + 1 for x in w.lines)
    while size < megabytes * 1024 * 1024:
        _, text = next(texts)
        w.user(text[:4000])
        tid = w.assistant(next(texts)[1][:3000], ("Read", {"file_path": "/home/dev/limiter/app/x.py"}))
        assert tid
        w.tool_result(tid, next(texts)[1] * 3)
        size = sum(len(x) + 1 for x in w.lines[-3:]) + size
    path.write_text("\n".join(w.lines) + "\n", encoding="utf-8")
    return len(w.lines)


def payload(event: str, transcript: Path, **fields: object) -> bytes:
    obj: dict[str, object] = {
        "session_id": "bench",
        "transcript_path": str(transcript),
        "cwd": "/home/dev/limiter",
        "hook_event_name": event,
    }
    obj.update(fields)
    return json.dumps(obj).encode()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=40, help="runs per short measurement")
    parser.add_argument(
        "--mb", type=int, default=20, help="size of the generated session (0: per-prompt figures only)"
    )
    parser.add_argument("--cold", type=int, default=1, help="runs of each cold session measurement")
    parser.add_argument("--labeler", choices=("model", "encoder"), default="model", help="$TURNLENS_LABELER")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="turnlens-bench-agents-"))
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("TURNLENS_") and k != "PYTHONDONTWRITEBYTECODE"
    }
    # an installed package has its bytecode compiled; a checkout run with PYTHONDONTWRITEBYTECODE
    # would compile every module in every process, so the children keep theirs in a cache folder
    env.update(
        XDG_STATE_HOME=str(tmp / "state"),
        NO_COLOR="1",
        PYTHONPYCACHEPREFIX=str(tmp / "pycache"),
        TURNLENS_HOOK_DEADLINE="600",  # the cold reads are measured, not cut short
        TURNLENS_LABELER=args.labeler,
    )
    print(
        f"turnlens: {TURNLENS}; {os.cpu_count()} CPUs; load {os.getloadavg()[0]:.1f}; labeler {args.labeler}"
    )
    warm = payload("UserPromptSubmit", tmp / "none", prompt="ultrathink")
    run(["hook", "UserPromptSubmit"], warm, env)  # writes the bytecode cache
    run(["statusline"], warm, env)

    prompts = prompts_2kb()
    walls, cpus = [], []
    for i in range(args.n):
        prompt = prompts[i % len(prompts)]
        w, c, _ = run(
            ["hook", "UserPromptSubmit"], payload("UserPromptSubmit", tmp / "none", prompt=prompt), env
        )
        walls.append(w)
        cpus.append(c)
    report("UserPromptSubmit, 2 KB prompts", walls, cpus, 0.060)

    live = tmp / "live.jsonl"
    w0 = session()
    live.write_text("\n".join(w0.lines) + "\n", encoding="utf-8")
    status = payload("statusline", live, model={"id": "claude-sonnet-4-5", "display_name": "Sonnet"})
    run(["statusline"], status, {**env, "TURNLENS_STATUS_READ_SECONDS": "600"})  # reads the session once
    walls, cpus = [], []
    for i in range(args.n):
        w0.lines.clear()
        w0.user(prompts[i % len(prompts)])
        with live.open("a", encoding="utf-8") as f:
            f.write(w0.lines[-1] + "\n")
        w, c, out = run(["statusline"], status, env)
        walls.append(w)
        cpus.append(c)
    report("statusline, a new 2 KB prompt each call", walls, cpus, 0.060)
    print(f"  e.g. {out.decode().strip()}")
    walls, cpus = [], []
    for i in range(args.n):  # as in a session: the submit hook routes the prompt, then the line is written
        w0.lines.clear()
        prompt = prompts[(i + 3) % len(prompts)] + f" ({i})"
        run(["hook", "UserPromptSubmit"], payload("UserPromptSubmit", live, prompt=prompt), env)
        w0.user(prompt)
        with live.open("a", encoding="utf-8") as f:
            f.write(w0.lines[-1] + "\n")
        w, c, out = run(["statusline"], status, env)
        walls.append(w)
        cpus.append(c)
    report("statusline, after the submit hook", walls, cpus, 0.060)

    if args.mb <= 0:  # the per-prompt figures only
        shutil.rmtree(tmp, ignore_errors=True)
        return
    big = tmp / "big.jsonl"
    lines = big_session(big, args.mb)
    print(f"generated session: {big.stat().st_size / 1e6:.1f} MB, {lines:,} lines")
    pre = payload("PreCompact", big, trigger="auto", custom_instructions=None)
    walls, cpus = [], []
    for _ in range(args.cold):
        shutil.rmtree(tmp / "state", ignore_errors=True)
        w, c, out = run(["hook", "PreCompact"], pre, env)
        walls.append(w)
        cpus.append(c)
    report(f"PreCompact, {args.mb} MB, cold (x{args.cold})", walls, cpus, 1.0)
    shutil.rmtree(tmp / "state")
    print(
        f"  {len(out):,} characters of instructions; max RSS {peak_mb(['hook', 'PreCompact'], pre, env):.0f} MB"
    )
    shutil.rmtree(tmp / "state")
    big_status = payload("statusline", big)
    calls = 0
    while True:  # the status line, called after each message, keeps the ledger current
        calls += 1
        _, _, out = run(["statusline"], big_status, env)
        if b"reading" not in out:
            break
    print(f"  the status line read the session in {calls} calls (1 s of reading each)")
    w1 = Writer()
    w1.n = 900_000
    w1.user("Now wire the limiter into the response hook and add the header.")
    with big.open("a", encoding="utf-8") as f:
        f.write(w1.lines[-1] + "\n")
    w, c, out = run(["hook", "PreCompact"], pre, env)
    report(f"PreCompact, {args.mb} MB, kept current by the status line", [w], [c], 1.0)

    shutil.rmtree(tmp / "state")
    t = time.perf_counter()
    run(["hook", "UserPromptSubmit"], payload("UserPromptSubmit", big, prompt="thanks!"), env)
    ledgers = tmp / "state" / "turnlens" / "sessions"
    while not (list(ledgers.glob("*-claude-code*.json")) and not list(ledgers.glob("*.warm"))):
        time.sleep(0.2)
    print(f"  the submit hook's background reader read the session in {time.perf_counter() - t:.1f} s (wall)")
    w1.lines.clear()
    w1.user("And log every 429 with the key's hash.")
    with big.open("a", encoding="utf-8") as f:
        f.write(w1.lines[-1] + "\n")
    w, c, out = run(["hook", "PreCompact"], pre, env)
    report(f"PreCompact, {args.mb} MB, after the background read", [w], [c], 1.0)

    compacted(w1)
    with big.open("a", encoding="utf-8") as f:
        f.write("\n".join(w1.lines[1:]) + "\n")
    start = payload("SessionStart", big, source="compact", model="claude-sonnet-4-5")
    w, c, out = run(["hook", "SessionStart"], start, env)
    report(f"restore (SessionStart compact), {args.mb} MB, warm", [w], [c], 1.0)
    restored = json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""
    print(f"  restored {restored.count(chr(10) + '[')} frozen turn(s), {len(restored):,} characters")
    post = payload("PostCompact", big, trigger="auto", compact_summary=SUMMARY)
    w, c, _ = run(["hook", "PostCompact"], post, env)
    report(f"PostCompact, {args.mb} MB, warm", [w], [c], 1.0)
    walls, cpus = [], []
    for _ in range(args.cold):
        shutil.rmtree(tmp / "state", ignore_errors=True)
        w, c, out = run(["hook", "SessionStart"], start, env)
        walls.append(w)
        cpus.append(c)
    report(f"restore (SessionStart compact), {args.mb} MB, cold (x{args.cold})", walls, cpus, 1.0)
    shutil.rmtree(tmp / "state")
    print(f"  max RSS {peak_mb(['hook', 'SessionStart'], start, env):.0f} MB")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
