"""Speed and memory of the learned classifier next to the rules (not a test: prints figures).

    python tests/bench/bench_learn.py [--runs 15]

- p50 of `classify` on ~2 KB prompts (workloads.py) with the model (`default`), the default
  pack's rules alone and `reference`; the same for the router's labeler;
- loading the two shipped models (first use) and the memory they add to a process;
- `turnlens classify --stdin` on a short input (model, and `--rules reference`) next to a bare
  Python start, interleaved, wall-clock medians;
- the size of the model files and the shipped corpus.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workloads import prompts_2kb

from turnlens.classifier import classify
from turnlens.core.rules import builtin_pack, rules_only
from turnlens.router.labeler import label_text


def p50_us(fn, texts: list[str], rounds: int = 30) -> float:  # type: ignore[no-untyped-def]
    for t in texts:
        fn(t)
    samples = []
    for _ in range(rounds):
        for t in texts:
            start = time.perf_counter()
            fn(t)
            samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e6


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def wall_ms(cmd: list[str], data: bytes) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, input=data, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - start) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    from turnlens.learn import model as m

    before = rss_kib()
    start = time.perf_counter()
    m.packaged_model("classes")
    classes_ms = (time.perf_counter() - start) * 1e3
    start = time.perf_counter()
    m.packaged_model("labels")
    labels_ms = (time.perf_counter() - start) * 1e3
    added = (rss_kib() - before) / 1024
    texts = prompts_2kb()
    default, reference = builtin_pack("default"), builtin_pack("reference")
    rules = rules_only(default)
    rows = [
        ("classify, model (default pack)", p50_us(lambda t: classify(t, default), texts)),
        ("classify, model, with explain", p50_us(lambda t: classify(t, default, explain=True), texts)),
        ("classify, default pack's rules alone", p50_us(lambda t: classify(t, rules), texts)),
        ("classify, reference pack", p50_us(lambda t: classify(t, reference), texts)),
        ("router labeler, model", p50_us(lambda t: label_text(t, explain=False), texts)),
        ("router label rules alone", p50_us(lambda t: label_text(t, explain=False, use_model=False), texts)),
    ]
    print(f"2 KB prompts: {len(texts)} of {min(map(len, texts))}–{max(map(len, texts))} characters\n")
    print("| path | p50 per 2 KB text |")
    print("|---|---:|")
    for name, us in rows:
        print(f"| {name} | {us:.0f} µs |")
    print(
        f"\nloading the models on first use: classes {classes_ms:.1f} ms, labels {labels_ms:.1f} ms; "
        f"memory added by both: {added:.1f} MB"
    )
    base = [sys.executable, "-c", "pass"]
    model_cmd = [sys.executable, "-m", "turnlens", "classify", "--stdin"]
    ref_cmd = [*model_cmd, "--rules", "reference"]
    data = b"thanks, that fixed it!\n"
    times: dict[str, list[float]] = {
        "python -c pass": [],
        "classify (model)": [],
        "classify --rules reference": [],
    }
    for _ in range(2):
        wall_ms(model_cmd, data)
    for _ in range(args.runs):
        times["python -c pass"].append(wall_ms(base, b""))
        times["classify (model)"].append(wall_ms(model_cmd, data))
        times["classify --rules reference"].append(wall_ms(ref_cmd, data))
    print("\n| command (short input) | median wall |")
    print("|---|---:|")
    for name, values in times.items():
        print(f"| {name} | {statistics.median(values):.1f} ms |")
    folder = Path(m.__file__).resolve().parent
    size = lambda sub, pat: sum(p.stat().st_size for p in (folder / sub).glob(pat)) / 1e6  # noqa: E731
    print(
        f"\npackage data: models {size('models', '*.tlm'):.2f} MB, corpus {size('corpus', '*.jsonl'):.2f} MB"
    )


if __name__ == "__main__":
    main()
