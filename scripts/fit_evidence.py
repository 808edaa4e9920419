"""Fit how sure each of the labeler's answers from the guide's evidence is, on real prompts.

    TURNLENS_REALTEXT_CACHE=DIR python scripts/fit_evidence.py SET [SET …] [--write]

The labeler answers some prompts with the guide's evidence rather than the model's words (a
go-ahead is chat, a question about the work is analysis …: `turnlens.router.labeler`). Each
such answer states a confidence: how often that answer was right on the router sets named
(refs in `tests/data/realtext/`, texts in the cache as `realtext_eval.py` reads them),
Laplace-smoothed, (right + 1) / (answers + 2), in whole percent. The script prints, for each
evidence, the answers, how many were right and that figure; `--write` puts the figures in the
`[evidence]` table of `server/turnlens/router/defaults.toml` (then regenerate the parsed
cache: `python -m tests.core.test_parsed_cache`). Only the router's dev sets may be fitted on;
a set measured once stays out.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from realtext_eval import cache_dir, load_set  # noqa: E402

from turnlens.router.labeler import EVIDENCE_NAMES, label_text  # noqa: E402
from turnlens.router.vocabulary import evidence_floor, vocabulary  # noqa: E402

REFS = HERE.parent / "tests" / "data" / "realtext"
DEFAULTS_TOML = HERE.parent / "server" / "turnlens" / "router" / "defaults.toml"
# a line of the [evidence] table: `name = 37`
_LINE = re.compile(r"^(?P<name>[a-z]+)[ \t]*=[ \t]*\d+[ \t]*$")


def fit(sets: list[str], refs: Path = REFS, cache: Path | None = None) -> dict[str, tuple[int, int, int]]:
    """For each evidence name: the answers it gave, how many were right, the fitted percent."""
    answers: Counter[str] = Counter()
    right: Counter[str] = Counter()
    for name in sets:
        loaded = load_set(name, refs, cache or cache_dir())
        if loaded.missing or loaded.changed:
            print(f"{name}: {len(loaded.missing)} missing, {len(loaded.changed)} changed", file=sys.stderr)
        for item in loaded.items:
            labeling = label_text(item.text, explain=False)
            if labeling.evidence is None:
                continue
            key = EVIDENCE_NAMES[labeling.evidence]
            answers[key] += 1
            right[key] += labeling.label == item.label
    # the range `defaults.toml` accepts: an answer from the evidence stays the likeliest label
    least = evidence_floor(len(vocabulary().labels))
    out = {}
    for key in EVIDENCE_NAMES.values():
        n, ok = answers[key], right[key]
        pct = round(100 * (ok + 1) / (n + 2))
        if pct < least:
            print(
                f"{key}: right {pct} % of the time, stated as {least} %: the rule is worth less than a guess",
                file=sys.stderr,
            )
        out[key] = (n, ok, min(99, max(least, pct)))
    return out


def write(fitted: dict[str, tuple[int, int, int]], path: Path = DEFAULTS_TOML) -> None:
    """Put the fitted percents in the [evidence] table, the file's comments kept."""
    lines = path.read_text(encoding="utf-8").splitlines()
    table = False
    for i, line in enumerate(lines):
        if line.startswith("["):
            table = line.strip() == "[evidence]"
            continue
        match = _LINE.match(line) if table else None
        if match and match["name"] in fitted:
            lines[i] = f"{match['name']} = {fitted[match['name']][2]}"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("sets", nargs="+", help="router sets (their refs carry a router label)")
    parser.add_argument("--write", action="store_true", help="write the figures into defaults.toml")
    args = parser.parse_args()
    fitted = fit(args.sets)
    print(f"{'evidence':10s} {'answers':>7s} {'right':>5s} {'stated':>6s}")
    for key, (n, ok, pct) in fitted.items():
        print(f"{key:10s} {n:7d} {ok:5d} {pct:5d}%")
    if args.write:
        write(fitted)
        print(f"written: {DEFAULTS_TOML}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
