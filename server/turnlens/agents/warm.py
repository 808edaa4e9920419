"""Reading a long session ahead of time, in the background, so compaction does not wait for it.

A session TurnLens has not seen (installed mid-session, or without the status line) would
be read whole by the first compaction hook: seconds for tens of megabytes. When the submit
hook finds the ledger more than WARM_MIN_BYTES behind the session file (or WARM_MIN_UNITS tool
calls and results a quick read left unclassified), it starts this
module as a detached process (its own session, no pipes to the agent, nice 10) that reads
the file into the ledger and exits. One reader per session at a time (a lock file in the
state folder); TURNLENS_NO_WARM=1 turns it off.

    python -m turnlens.agents.warm PATH FORMAT
"""

from __future__ import annotations

import contextlib
import os
import sys
import time

from turnlens.agents import state

WARM_MIN_BYTES = 2 * 1024 * 1024
WARM_MIN_UNITS = 500  # or this many units a quick read left to classify later
WARM_SECONDS = 300.0
STALE_LOCK_SECONDS = 600.0


def _lock_path(path: str, fmt: str, engine: str) -> str:
    return os.path.join(state.state_dir(), state.SESSIONS, f"{state.ledger_key(path, fmt, engine)}.warm")


def behind(path: str, fmt: str, engine: str = "model") -> int:
    """How many bytes of the session file the ledger (of `engine`) has not read yet."""
    try:
        size = os.stat(path).st_size
    except OSError:
        return 0
    data = state.load_session(state.ledger_key(path, fmt, engine))
    offset = data.get("offset") if data else 0
    if not isinstance(offset, int) or not 0 <= offset <= size:
        return size
    waiting = data.get("deferred") if data else None
    if isinstance(waiting, list) and len(waiting) >= WARM_MIN_UNITS:
        return max(size - offset, WARM_MIN_BYTES)  # units a quick read left unclassified
    return size - offset


def start(path: str, fmt: str, engine: str = "model") -> bool:
    """Start a background reader when the ledger (of `engine`, which the reader finds in the
    environment it inherits) is far behind; True when one was started."""
    if os.environ.get("TURNLENS_NO_WARM") or behind(path, fmt, engine) < WARM_MIN_BYTES:
        return False
    lock = _lock_path(path, fmt, engine)
    with contextlib.suppress(OSError):
        if time.time() - os.path.getmtime(lock) < STALE_LOCK_SECONDS:
            return False  # one is reading already
    import subprocess  # here, not on top: most prompts start no reader, and it costs ~5 ms to import

    try:
        subprocess.Popen(
            [sys.executable, "-m", "turnlens.agents.warm", path, fmt],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
    except OSError as exc:
        state.log("warm", f"not started: {exc}")
        return False
    return True


def main(argv: list[str]) -> int:
    from turnlens.agents.ledger import Ledger, Unreadable
    from turnlens.agents.prompt import labeler

    if len(argv) != 2:
        return 0
    path, fmt = argv
    engine = labeler(warn=False)
    lock = _lock_path(path, fmt, engine)
    try:
        os.makedirs(os.path.dirname(lock), mode=0o700, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            if time.time() - os.path.getmtime(lock) >= STALE_LOCK_SECONDS:
                os.unlink(lock)
        fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError:
        return 0  # another reader holds the lock
    try:
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        with contextlib.suppress(OSError):
            os.nice(10)
        Ledger(path, fmt, engine).update(time.monotonic() + WARM_SECONDS, quick=None)
    except Unreadable as exc:
        state.log("warm", f"no-op: session file not read: {exc}")
    except Exception as exc:  # a background reader never shows an error to anyone
        state.log("warm", f"no-op: {type(exc).__name__}: {exc}")
    finally:
        with contextlib.suppress(OSError):
            os.unlink(lock)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
