"""`turnlens batch`: label whole transcript archives into Parquet, resumably.

Thin: it parses flags, finds the files, and calls `turnlens.batch.run.run_batch`.
pyarrow (and Ray for `--engine ray`) are imported only when this command runs.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

from turnlens.cli.common import EXIT_OK, UsageError, add_format_arg, separator_help

_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "batch",
        help="label transcript archives into Parquet (a process pool or a Ray cluster), resumably",
        description="Read session files (any supported format; folders are walked as by `check`; "
        "globs are expanded) and write Parquet to DIR: units/ (one row per unit with its labels) "
        "and sessions/ (one row per session with the `turnlens stats` figures). A rerun skips "
        "partitions already written; files that cannot be read are reported and skipped.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH_OR_GLOB")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if missing)")
    p.add_argument("--engine", choices=["local", "ray"], default="local", help="local process pool or Ray")
    p.add_argument(
        "--ray-address", metavar="ADDR", default=None, help="an existing Ray cluster (default: start one)"
    )
    add_format_arg(p)
    p.add_argument("--separator", metavar="REGEX", default=None, help=separator_help())
    p.add_argument(
        "--rules", metavar="NAME", default="default", help="built-in rule pack: default or reference"
    )
    p.add_argument(
        "--labeler",
        metavar="ENGINE",
        default=None,
        help="the router labeler's engine, as the router.labeler setting: model, or encoder with "
        "turnlens[encoder] installed (default: $TURNLENS_LABELER, else model)",
    )
    p.add_argument(
        "--partition-size",
        metavar="N",
        default="64M",
        help="input bytes per partition, with an optional k/M/G suffix (default 64M)",
    )
    p.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=0,
        metavar="N",
        help="worker processes or Ray CPUs (default: all cores)",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def parse_size(text: str) -> int:
    raw = text.strip().lower().removesuffix("b")
    unit = raw[-1:] if raw[-1:] in _UNITS else ""
    try:
        value = float(raw[: len(raw) - len(unit)])
    except ValueError:
        raise UsageError(f"turnlens batch: --partition-size {text}: not a size (e.g. 64M)") from None
    if not math.isfinite(value) or not math.isfinite(value * _UNITS[unit]):
        raise UsageError(f"turnlens batch: --partition-size {text}: not a finite size (e.g. 64M)")
    if value <= 0:
        raise UsageError(f"turnlens batch: --partition-size {text}: must be above 0")
    return max(1, int(value * _UNITS[unit]))


def run(args: argparse.Namespace) -> int:
    from turnlens.cli.paths import collect
    from turnlens.core.rules import BUILTIN_PACKS
    from turnlens.pipeline.formats.turns import DEFAULT_SEPARATOR, SeparatorError, compile_separator

    size = parse_size(args.partition_size)
    if args.rules not in BUILTIN_PACKS:
        raise UsageError(
            f"turnlens batch: --rules {args.rules}: built-in packs are {', '.join(BUILTIN_PACKS)}"
        )
    separator = args.separator or DEFAULT_SEPARATOR
    try:
        compile_separator(separator)
    except SeparatorError as exc:
        raise UsageError(f"turnlens batch: {exc}") from None
    files = collect(args.paths, "batch")
    if not files:
        raise UsageError(f"turnlens batch: no session files in {', '.join(args.paths)}")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"turnlens batch: --out {out}: not a folder")
    try:
        from turnlens.batch import Labeler, ReadOptions
        from turnlens.batch.run import BatchRefused, run_batch
    except ImportError as exc:
        raise UsageError(f"turnlens batch: {exc}") from None
    from turnlens.router.labeler_engine import ENV, chosen_engine

    engine = chosen_engine(
        args.labeler if args.labeler is not None else os.environ.get(ENV),
        "--labeler" if args.labeler is not None else f"${ENV}",
        lambda line: print(line, file=sys.stderr),
    )
    workers = args.jobs if args.jobs > 0 else (os.cpu_count() or 1)
    from turnlens.cli.workers import stop_on_sigterm

    stop_on_sigterm()  # SIGTERM unwinds like Ctrl-C: no pool worker is left behind
    try:
        report = run_batch(
            files,
            out,
            engine=args.engine,
            workers=workers,
            partition_size=size,
            read=ReadOptions(format=args.from_format, separator=separator),
            labeler=Labeler(pack=args.rules, engine=engine),
            ray_address=args.ray_address,
            progress=None if args.quiet else sys.stderr,
        )
    except (ImportError, BatchRefused) as exc:
        raise UsageError(f"turnlens batch: {exc}") from None
    resumed = f", {report.resumed} already written" if report.resumed else ""
    skipped = f", {len(report.skipped)} files skipped" if report.skipped else ""
    print(
        f"turnlens batch: {report.sessions} sessions, {report.units} units in {report.partitions} "
        f"partitions ({report.written} written{resumed}{skipped}) → {out} in {report.seconds:.1f} s",
        file=sys.stderr,
    )
    return EXIT_OK
