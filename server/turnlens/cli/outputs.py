"""Output files of the CLI (`stats --html`, `train --out`): checked before the work, written
without ever blocking.

Opening a FIFO for writing waits for a reader for ever, and a path under a missing folder is
only found out when the write fails — after `train` has spent a minute fitting. So an output
path is checked first (an existing one must be a regular file; a new one needs an existing,
writable folder), and opened with `O_NONBLOCK`, so a FIFO swapped in after the check fails at
once instead of hanging.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


class OutputProblem(Exception):
    """Why a path cannot take the output (a short phrase, no traceback)."""


def check_output(path: Path) -> None:
    """Raises OutputProblem unless `path` is a regular file or can be created as one."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise OutputProblem(exc.strerror or str(exc)) from None
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            raise OutputProblem("is a directory")
        if not stat.S_ISREG(info.st_mode):
            raise OutputProblem("exists and is not a regular file (a FIFO or device is refused)")
        if not os.access(path, os.W_OK):
            raise OutputProblem("is not writable")
        return
    folder = path.parent if str(path.parent) else Path(".")
    try:
        folder_info = os.stat(folder)
    except OSError as exc:
        raise OutputProblem(f"folder {folder}: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(folder_info.st_mode):
        raise OutputProblem(f"{folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputProblem(f"folder {folder} is not writable")


def write_output(path: Path, data: bytes) -> None:
    """Writes `data` to `path` (a regular file), never blocking on a FIFO; OSError on failure."""
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, 0o666)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OutputProblem("exists and is not a regular file (a FIFO or device is refused)")
        os.ftruncate(fd, 0)
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
    finally:
        os.close(fd)
