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

from turnlens.cli.common import EXIT_OK, UsageError, load_rules
from turnlens.core.rules import RulePack

SUFFIXES = (".md", ".txt")
PARALLEL_MIN_BYTES = 4_000_000
_pack: RulePack | None = None
_separator = "---TURN---"
_format = "text"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "check",
        help="classify every turn of files and folders, one line each",
        description="Print one line per turn: path:line:col: class ≤ratio:1 frozen=… verdict. "
        "Folders are walked for *.md, *.txt and *.prompt* files.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--rules", metavar="NAME|PATH", help="rule pack or rules file (as for classify)")
    p.add_argument(
        "--separator", metavar="REGEX", default=None, help="turn separator line (default ---TURN---)"
    )
    p.add_argument(
        "--jobs", "-j", type=int, default=0, metavar="N", help="worker processes (default: all cores)"
    )
    p.set_defaults(func=run)


def _wanted(path: Path) -> bool:
    name = path.name
    return name.endswith(SUFFIXES) or ".prompt" in name


def collect(paths: list[str]) -> list[Path]:
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for root, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "node_modules")
                files.extend(Path(root) / n for n in sorted(names) if _wanted(Path(n)))
        elif path.is_file():
            files.append(path)
        else:
            raise UsageError(f"turnlens check: {raw}: no such file or folder")
    return files


def _init(pack: RulePack, separator: str, fmt: str = "text") -> None:
    global _pack, _separator, _format
    _pack, _separator, _format = pack, separator, fmt


def check_rendered(path: Path) -> tuple[list[str], str | None]:
    """The output lines for one file, made in the worker (strings pickle cheaply)."""
    findings, warning = check_file(path)
    if _format == "json":
        return [json.dumps(item, ensure_ascii=False) for item in findings], warning
    return [_render(item) for item in findings], warning


def check_file(path: Path) -> tuple[list[dict[str, Any]], str | None]:
    """The findings for one file, and a warning to print (binary, unreadable, bad UTF-8)."""
    from turnlens.api import classify_unit
    from turnlens.core.units import split_units

    assert _pack is not None
    try:
        data = path.read_bytes()
    except OSError as exc:
        return [], f"turnlens: warning: {path}: {exc.strerror or exc}"
    if b"\0" in data[:8192]:
        return [], f"turnlens: warning: {path}: binary file skipped"
    warning = None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        warning = f"turnlens: warning: {path}: invalid UTF-8 replaced with U+FFFD"
    out: list[dict[str, Any]] = []
    line = 1
    pos = 0
    for unit in split_units(text, _separator):
        if unit.ignored:
            continue
        anchor = unit.content_start
        line += text.count("\n", pos, anchor)
        pos = anchor
        col = anchor - (text.rfind("\n", 0, anchor) + 1) + 1
        result = classify_unit(unit, _pack)
        out.append({"path": str(path), "line": line, "column": col, "turn": unit.index, **result.to_json()})
    return out, warning


def _render(item: dict[str, Any]) -> str:
    return (
        f"{item['path']}:{item['line']}:{item['column']}: {item['class']} ≤{item['max_ratio']}:1 "
        f"frozen={item['frozen']} {item['verdict']}"
    )


def _results(
    files: list[Path], jobs: int, pack: RulePack, separator: str, fmt: str
) -> Iterator[tuple[list[str], str | None]]:
    total = 0
    for f in files:
        with contextlib.suppress(OSError):
            total += f.stat().st_size
    if jobs == 1 or len(files) < 2 or total < PARALLEL_MIN_BYTES:
        _init(pack, separator, fmt)
        yield from map(check_rendered, files)
        return
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=jobs, initializer=_init, initargs=(pack, separator, fmt)) as pool:
        yield from pool.map(check_rendered, files, chunksize=max(1, len(files) // (jobs * 8)))


def run(args: argparse.Namespace) -> int:
    from turnlens.core.units import SeparatorError, compile_separator

    separator = args.separator or "---TURN---"
    try:
        compile_separator(separator)
    except SeparatorError as exc:
        raise UsageError(f"turnlens check: {exc}") from None
    files = collect(args.paths)
    if not files:
        raise UsageError(f"turnlens check: no *.md, *.txt or *.prompt* files in {', '.join(args.paths)}")
    pack = load_rules(args.rules, files[0] if len(files) == 1 else None)
    jobs = args.jobs if args.jobs > 0 else (os.cpu_count() or 1)
    first = True
    if args.format == "json":
        sys.stdout.write("[")
    for lines, warning in _results(files, jobs, pack, separator, args.format):
        if warning:
            print(warning, file=sys.stderr)
        for line in lines:
            if args.format == "json":
                sys.stdout.write(("\n" if first else ",\n") + line)
                first = False
            else:
                sys.stdout.write(line + "\n")
    if args.format == "json":
        sys.stdout.write("\n]\n")
    return EXIT_OK
