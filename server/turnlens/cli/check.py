"""`turnlens check`: lint-style lines for files and folders, what the editor would show.

Large runs fan out over processes (one file at a time per worker) so both cores
of a laptop are used on a transcript archive.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from turnlens.cli.common import (
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    add_format_arg,
    add_model_arg,
    load_models,
    load_rules,
    make_profile,
    separator_help,
    shown,
)
from turnlens.cli.paths import collect as collect  # re-exported: other views walk folders alike
from turnlens.pipeline.profile import Profile

PARALLEL_MIN_BYTES = 4_000_000
_profile: Profile | None = None
_format = "text"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "check",
        help="classify every turn of files and folders, one line each",
        description="Print one line per turn or message: path:line:col: class ≤ratio:1 frozen=… "
        "verdict, the routed effort, and the role and kind where the format records them. Folders "
        "are walked for *.md, *.txt, *.prompt*, *.json and *.jsonl files (session files of coding "
        "agents are detected by content).",
    )
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--rules", metavar="NAME|PATH", help="rule pack or rules file (as for classify)")
    p.add_argument("--separator", metavar="REGEX", default=None, help=separator_help())
    add_format_arg(p)
    p.add_argument(
        "--jobs", "-j", type=int, default=0, metavar="N", help="worker processes (default: all cores)"
    )
    add_model_arg(p)
    p.set_defaults(func=run)


def _init(profile: Profile, fmt: str = "text") -> None:
    global _profile, _format
    _profile, _format = profile, fmt


def check_rendered(path: Path) -> tuple[list[str], str | None, bool]:
    """The output lines for one file, made in the worker (strings pickle cheaply), its
    warning, and whether it was refused as not a transcript."""
    findings, warning, refused = check_file(path)
    if _format == "json":
        return [json.dumps(item, ensure_ascii=False) for item in findings], warning, refused
    return [_render(item) for item in findings], warning, refused


def check_file(path: Path) -> tuple[list[dict[str, Any]], str | None, bool]:
    """The findings for one file, a warning to print (binary, unreadable, bad UTF-8, lines a
    session reader passed over), and whether it is no transcript (JSON of another kind:
    named on the command line that is an error, met in a folder walk a note). Large JSON Lines
    sessions are read line by line; anything else is read with a bound, and what is not a
    regular file is skipped."""
    from turnlens.cli.sessions import STREAM_MIN_BYTES, FileAnalysis, analyze_file
    from turnlens.pipeline.analyze import NotATranscript, analyze
    from turnlens.userfiles import ReadProblem, read_limited, regular_file

    assert _profile is not None
    name = shown(path)
    warnings: list[str] = []
    try:
        big = regular_file(path).st_size >= STREAM_MIN_BYTES
        if big:
            with path.open("rb") as f:
                sniff = f.read(8192)
            data = b""
        else:
            data = read_limited(path, STREAM_MIN_BYTES)
            sniff = data[:8192]
    except OSError as exc:  # ReadProblem too: a FIFO, a device, a file that vanished
        return [], f"turnlens: warning: {name}: {exc.strerror or exc}; skipped", False
    if b"\0" in sniff:
        return [], f"turnlens: warning: {name}: binary file skipped", False
    try:
        if big:
            fa = analyze_file(path, _profile)
        else:
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                text = data.decode("utf-8", errors="replace")
                warnings.append(f"turnlens: warning: {name}: invalid UTF-8 replaced with U+FFFD")
            analyzed = analyze(text, _profile, path=str(path))
            fa = FileAnalysis(analyzed.format, iter(analyzed.results), list(analyzed.problems), text)
    except NotATranscript as exc:
        warnings.append(f"turnlens: warning: {name}: {exc}; skipped")
        return [], "\n".join(warnings), True
    except (UsageError, ReadProblem) as exc:  # too large to read whole
        warnings.append(f"turnlens: warning: {str(exc).removeprefix('turnlens: ')}; skipped")
        return [], "\n".join(warnings), False
    out: list[dict[str, Any]] = []
    for r in fa.results:
        unit = r.unit
        if unit.ignored:
            continue
        line, col = fa.position(r)
        item = {"path": name, "line": line, "column": col, "turn": unit.index}
        item.update(r.classification.to_json())
        item.update(role=unit.role, kind=unit.kind, format=fa.format)
        route = r.route
        item["route"] = (
            None
            if route.source == "role"
            else {"effort": route.effort, "phase": route.phase, "label": route.label, "source": route.source}
        )
        if unit.effort_used:
            item["effort_used"] = unit.effort_used
        out.append(item)
    for problem in fa.problems:
        where = f"{name}:{problem.line}" if problem.line else name
        warnings.append(f"turnlens: {problem.severity}: {where}: {problem.message}")
    return out, "\n".join(warnings) or None, False


def _unsure(item: dict[str, Any]) -> str:
    from turnlens.core.classify import UNSURE_BELOW

    return "?" if item.get("engine") == "model" and item.get("confidence", 1.0) < UNSURE_BELOW else ""


def _render(item: dict[str, Any]) -> str:
    line = (
        f"{item['path']}:{item['line']}:{item['column']}: {item['class']}{_unsure(item)} ≤{item['max_ratio']}:1 "
        f"frozen={item['frozen']} {item['verdict']}"
    )
    route = item.get("route")
    if route is not None:
        line += f" effort={route['effort'] or 'none'}"
    if item.get("effort_used"):
        line += f" used={item['effort_used']}"
    if item.get("role"):
        line += f" role={item['role']} kind={item['kind']}"
    return line


def _results(
    files: list[Path], jobs: int, profile: Profile, fmt: str
) -> Iterator[tuple[list[str], str | None, bool]]:
    total = 0
    for f in files:
        with contextlib.suppress(OSError):
            total += f.stat().st_size
    if jobs == 1 or len(files) < 2 or total < PARALLEL_MIN_BYTES:
        _init(profile, fmt)
        yield from map(check_rendered, files)
        return
    from turnlens.cli.workers import worker_pool

    with worker_pool(jobs, _init, (profile, fmt)) as pool:
        yield from pool.map(check_rendered, files, chunksize=max(1, len(files) // (jobs * 8)))


def run(args: argparse.Namespace) -> int:
    from turnlens.cli.workers import stop_on_sigterm

    stop_on_sigterm()  # SIGTERM unwinds like Ctrl-C: no pool worker is left behind
    files = collect(args.paths, "check")
    if not files:
        raise UsageError(
            f"turnlens check: no *.md, *.txt, *.prompt*, *.json or *.jsonl files in {shown(', '.join(args.paths))}"
        )
    from turnlens.pipeline.command_line import with_user_model

    models = load_models(args.model, "check")
    pack = with_user_model(load_rules(args.rules, files[0] if len(files) == 1 else None), models)
    profile = make_profile(args, pack, "turnlens check", models)
    jobs = args.jobs if args.jobs > 0 else (os.cpu_count() or 1)
    named = {Path(p) for p in args.paths}  # files named on the command line, not found in a walk
    code = EXIT_OK
    first = True
    if args.format == "json":
        sys.stdout.write("[")
    for path, (lines, warning, refused) in zip(
        files, _results(files, jobs, profile, args.format), strict=True
    ):
        if refused and path in named:
            # asked for by name: refusing it is an error, not a note
            print(
                (warning or "").replace(": warning: ", ": error: ", 1).removesuffix("; skipped"),
                file=sys.stderr,
            )
            code = EXIT_USAGE
        elif warning:
            print(warning, file=sys.stderr)
        for line in lines:
            if args.format == "json":
                sys.stdout.write(("\n" if first else ",\n") + line)
                first = False
            else:
                sys.stdout.write(line + "\n")
    if args.format == "json":
        sys.stdout.write("\n]\n")
    from turnlens.core.engine import take_switched_off

    for message in take_switched_off():
        print(f"turnlens: warning: {shown(message)}", file=sys.stderr)
    return code
