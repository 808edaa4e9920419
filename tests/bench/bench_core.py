"""How fast the core classifies (not a test: prints figures).

    python tests/bench/bench_core.py [--repeats 7] [--pack default]

For a ~2 KB prompt and a 500 KB `---TURN---` transcript (from workloads.py, fixed
seed), prints the classify throughput in MB/s (UTF-8 bytes in, median of the
repeats): the fast engine (`classify`), the line-by-line reference semantics
(`score_plain`) for comparison, and for the transcript also the per-turn path
that `turnlens check` and the editor take (split into turns, classify each).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workloads import prompts_2kb, transcript

from turnlens.classifier import classify
from turnlens.core.engine import score_plain
from turnlens.core.rules import RulePack, builtin_pack
from turnlens.pipeline.formats.turns import split_units


def median_seconds(run: Callable[[], object], repeats: int, min_time: float = 0.2) -> float:
    """Median time of one call of `run`, each repeat looping until `min_time` has passed."""
    run()  # warm up: compile the pack, fill caches
    samples = []
    for _ in range(repeats):
        n = 0
        start = time.perf_counter()
        while True:
            run()
            n += 1
            elapsed = time.perf_counter() - start
            if elapsed >= min_time:
                break
        samples.append(elapsed / n)
    return statistics.median(samples)


def mb_per_s(nbytes: int, seconds: float) -> str:
    return f"{nbytes / seconds / 1e6:9.1f} MB/s"


def bench_pack(pack: RulePack, repeats: int) -> None:
    prompts = prompts_2kb()
    prompt_bytes = sum(len(p.encode()) for p in prompts)
    big = transcript(500_000)
    big_bytes = len(big.encode())
    units = split_units(big)

    def each_prompt() -> None:
        for p in prompts:
            classify(p, pack)

    def each_prompt_plain() -> None:
        for p in prompts:
            score_plain(p, pack.rules, pack.categories)

    def per_turn() -> None:
        for unit in split_units(big):
            classify(unit.text, pack)

    def whole() -> None:
        classify(big, pack)

    def whole_plain() -> None:
        score_plain(big, pack.rules, pack.categories)

    avg = prompt_bytes // len(prompts)
    rows = [
        (f"2 KB prompt ({len(prompts)} kinds, {avg} B avg)", prompt_bytes, each_prompt),
        ("  same, score_plain (line by line)", prompt_bytes, each_prompt_plain),
        (f"500 KB transcript, whole text ({big_bytes} B)", big_bytes, whole),
        ("  same, score_plain (line by line)", big_bytes, whole_plain),
        (f"500 KB transcript, per turn ({len(units)} turns)", big_bytes, per_turn),
    ]
    print(f"pack {pack.name} ({len(pack.rules)} rules), median of {repeats} repeats")
    for label, nbytes, run in rows:
        seconds = median_seconds(run, repeats)
        print(f"  {label:<52} {mb_per_s(nbytes, seconds)}  ({seconds * 1e3:8.3f} ms a pass)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--pack", action="append", choices=["default", "reference"])
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}")
    for name in args.pack or ["default", "reference"]:
        bench_pack(builtin_pack(name), args.repeats)


if __name__ == "__main__":
    main()
