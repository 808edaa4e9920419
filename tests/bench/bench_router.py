"""How fast the router answers in-process (not a test: prints figures).

    python tests/bench/bench_router.py [--n 2000]

Measures the embedded `rules` labeler and the whole offline resolution on
prompts of about 2 KB (the most the classifier ever sees), and a short one.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from turnlens.router.labeler import label_pack, label_text
from turnlens.router.resolve import resolve_offline

PARAGRAPH = (
    "We need to decide how the importer should handle retries when a worker restarts halfway "
    "through a file. Right now it re-reads everything and creates duplicates. Here is the loop:\n"
    "```python\nfor row in rows:\n    if seen(row):\n        continue\n    save(row)\n```\n"
    "Propose an approach and the trade-offs, in Spanish if you like: ¿qué opciones tenemos? 🙂\n"
)


def prompts() -> dict[str, str]:
    long = (PARAGRAPH * (2048 // len(PARAGRAPH) + 1))[:2048]
    plain = ("Fix the flaky date test in the importer and make it pass on CI. " * 40)[:2048]
    return {
        "2 KB design prompt": long,
        "2 KB coding prompt": plain,
        "short prompt": "Rename utils.py please.",
    }


def measure(fn: Callable[[], object], n: int) -> tuple[float, float]:
    for _ in range(min(200, n)):
        fn()
    times = []
    for _ in range(n):
        start = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - start)
    times.sort()
    return statistics.median(times) / 1000, times[int(len(times) * 0.95) - 1] / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="runs per case (default 2000)")
    args = parser.parse_args()
    label_pack()  # parse and compile once, as a long-running server would
    print(f"{'case':<22}{'what':<30}{'median µs':>10}{'p95 µs':>10}")
    for name, text in prompts().items():
        for what, fn in (
            ("label_text (explain)", lambda t=text: label_text(t)),
            ("label_text (no explain)", lambda t=text: label_text(t, explain=False)),
            ("resolve_offline", lambda t=text: resolve_offline(t)),
        ):
            median, p95 = measure(fn, args.n)
            print(f"{name:<22}{what:<30}{median:>10.1f}{p95:>10.1f}")


if __name__ == "__main__":
    main()
