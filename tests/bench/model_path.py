"""The learned default path in CPU time, for comparing two installs (not a test: prints JSON).

    /path/to/venv-a/bin/python tests/bench/model_path.py [--runs 5]
    /path/to/venv-b/bin/python tests/bench/model_path.py [--runs 5]

Whatever TurnLens the interpreter has installed is measured (the workloads come from this
checkout), so running it with two virtual environments in turn — a wheel of `main` and a wheel
of a change — compares them on a busy machine by the clock that the other processes disturb
least: this process's CPU time. Printed: the default path (`split_units` + `classify_many`) and
the rules path on the 5 MB transcript in MB per CPU-second, the turns labelled per CPU-second
(what `turnlens batch` does per unit), and the scorer's `predict` on a 2 KB turn, each the
median of `--runs` runs.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workloads import prompts_2kb, transcript_workload

from turnlens.classifier import classify_many
from turnlens.core.engine import score
from turnlens.core.rules import builtin_pack, rules_only
from turnlens.learn.model import packaged_model
from turnlens.learn.scorer import scorer_for
from turnlens.pipeline.formats.turns import split_units


def cpu_seconds(fn: Callable[[], object], runs: int) -> float:
    """The median CPU time of `fn` over `runs` runs, after one to warm up."""
    fn()
    times = []
    for _ in range(runs):
        gc.collect()
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    model_pack = builtin_pack("default")
    rules_pack = rules_only(model_pack)
    scorer = scorer_for(packaged_model("classes"))
    work = transcript_workload(5_000_000)

    def path(pack: object) -> Callable[[], object]:
        return lambda: classify_many([u.text for u in split_units(work.text)], pack)  # type: ignore[arg-type]

    model_cpu = cpu_seconds(path(model_pack), args.runs)
    rules_cpu = cpu_seconds(path(rules_pack), args.runs)
    prompts = prompts_2kb()
    passes = [score(t, model_pack) for t in prompts]

    def predict_all() -> None:
        for _ in range(100):
            for text, rules in zip(prompts, passes, strict=True):
                scorer.predict(text, rules)

    predict_cpu = cpu_seconds(predict_all, args.runs) / (100 * len(prompts))
    print(
        json.dumps(
            {
                "scorer": scorer.implementation,
                "model_path_mb_per_cpu_s": round(work.nbytes / 1e6 / model_cpu, 2),
                "rules_path_mb_per_cpu_s": round(work.nbytes / 1e6 / rules_cpu, 2),
                "turns_per_cpu_s": round(work.nturns / model_cpu),
                "predict_2kb_us": round(predict_cpu * 1e6, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
