"""The files a folder command reads (`check`, `stats`, `batch`, `export-pins`): paths, folders
and globs, with `**` walked so that a symbolic-link loop cannot multiply or stall a run.

`glob.glob(..., recursive=True)` follows links to folders: one loop gave 41 copies of a
session, two never finished. Here each real folder (device and inode) is entered once,
whatever links lead to it, and a link that cannot be resolved (it loops, or points nowhere)
is a note on stderr, not a refusal of the run.
"""

from __future__ import annotations

import fnmatch
import os
import sys
from functools import cache
from pathlib import Path

from turnlens.cli.common import UsageError, shown

_MAGIC = "*?["


def _is_glob(raw: str) -> bool:
    return any(ch in raw for ch in _MAGIC) and not os.path.lexists(raw)


def expand(paths: list[str], command: str) -> list[str]:
    """Globs (`**` too) expanded, in order; a glob that matches nothing is an error."""
    out: list[str] = []
    for raw in paths:
        if _is_glob(raw):
            found = sorted(glob(raw, command))
            if not found:
                raise UsageError(f"turnlens {command}: {shown(raw)}: no file matches")
            out.extend(found)
        else:
            out.append(raw)
    return out


def glob(pattern: str, command: str) -> list[str]:
    """Paths matching `pattern` (`*`, `?`, `[…]` within a name; `**` any number of folders).

    Names that start with a dot match only a pattern part that starts with one, as in `glob`."""
    parts = pattern.split(os.sep)
    anchor = os.sep if pattern.startswith(os.sep) else ""
    if anchor:
        parts = parts[1:]
    fixed: list[str] = []
    while parts and not any(ch in parts[0] for ch in _MAGIC):
        fixed.append(parts.pop(0))
    base = anchor + os.sep.join(fixed) if fixed else (anchor or os.curdir)
    if not parts:
        return [base] if os.path.lexists(base) else []
    rest = tuple(p for p in parts if p)
    dotted = any(p.startswith(".") for p in rest)
    matches: list[str] = []
    levels = None if "**" in rest else len(rest)
    for rel in _walk(base, command, dotted, levels):
        if _match(rest, tuple(rel.split(os.sep))):
            matches.append(rel if base == os.curdir and not fixed else os.path.join(base, rel))
    return matches


def _walk(base: str, command: str, dotted: bool, levels: int | None) -> list[str]:
    """Every path under `base` (at most `levels` deep; None: all), relative to it; each real
    folder entered once."""
    out: list[str] = []
    try:
        first = os.stat(base)
    except OSError:
        return out
    seen = {(first.st_dev, first.st_ino)}
    stack = [("", 1)]
    while stack:
        rel, level = stack.pop()
        folder = os.path.join(base, rel) if rel else base
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            child = os.path.join(rel, name) if rel else name
            out.append(child)
            if (levels is not None and level >= levels) or (name.startswith(".") and not dotted):
                continue
            try:
                is_dir = entry.is_dir()  # follows a link
                info = entry.stat() if is_dir else None
            except OSError:
                is_dir, info = False, None
            if info is None:  # a file, or a link that loops or points nowhere (collect says so)
                continue
            key = (info.st_dev, info.st_ino)
            if key in seen:  # a loop, or a second way to a folder already walked
                continue
            seen.add(key)
            stack.append((child, level + 1))
    return out


def _link_problem(path: str) -> str:
    try:
        os.stat(path)
    except OSError as exc:
        return exc.strerror or str(exc)
    return "cannot be followed"


def _match(pattern: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    @cache
    def at(i: int, j: int) -> bool:
        if i == len(pattern):
            return j == len(parts)
        seg = pattern[i]
        if seg == "**":
            if at(i + 1, j):
                return True
            return j < len(parts) and not parts[j].startswith(".") and at(i, j + 1)
        if j == len(parts):
            return False
        name = parts[j]
        if name.startswith(".") and not seg.startswith("."):
            return False
        return fnmatch.fnmatchcase(name, seg) and at(i + 1, j + 1)

    return at(0, 0)


def note(command: str, path: str | Path, why: str) -> None:
    print(f"turnlens {command}: warning: {shown(path)}: {why}; skipped", file=sys.stderr)


def collect(paths: list[str], command: str = "check") -> list[Path]:
    """Files to read: files as given, folders walked (links to folders are not followed),
    globs expanded. A name that is not there is an error; a link that loops is a note."""
    from turnlens.pipeline.formats import readable_name

    files: list[Path] = []
    seen: set[tuple[int, int]] = set()  # each real file and folder once, whatever path leads there

    def first_time(path: str | Path) -> bool:
        try:
            info = os.stat(path)
        except OSError:
            return True  # the reader reports it
        key = (info.st_dev, info.st_ino)
        if key in seen:
            return False
        seen.add(key)
        return True

    for raw in expand(paths, command):
        path = Path(raw)
        try:
            path.exists()
        except OSError as exc:  # a name too long, a folder we may not enter
            raise UsageError(f"turnlens {command}: {shown(raw)}: {exc.strerror or exc}") from None
        if path.is_dir():
            for root, dirs, names in os.walk(path):
                if not first_time(root):
                    dirs[:] = []
                    continue
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "node_modules")
                files.extend(
                    Path(root) / n for n in sorted(names) if readable_name(n) and first_time(Path(root) / n)
                )
        elif path.exists():  # a file, or something the reader refuses with a warning
            if first_time(path):
                files.append(path)
        elif path.is_symlink():  # a link that loops or points nowhere
            note(command, raw, _link_problem(raw))
        else:
            raise UsageError(f"turnlens {command}: {shown(raw)}: no such file or folder")
    return files
