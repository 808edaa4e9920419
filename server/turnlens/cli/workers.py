"""Process pools of `check -j N` and `batch -j N` that never outlive the command.

Ctrl-C stops a run and its workers, but SIGTERM (what `kill`, `timeout`, systemd and CI runners
send) killed only the parent before: the pool's workers, blocked on their task queue, lived on.
Here SIGTERM is raised as `Terminated`, a `KeyboardInterrupt`, so a run unwinds the same way as
on Ctrl-C; a pool left by an exception kills its workers instead of waiting for their tasks; and
on Linux each worker asks the kernel to end it if the parent dies without unwinding (SIGKILL).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

EXIT_TERMINATED = 128 + signal.SIGTERM


class Terminated(KeyboardInterrupt):
    """The process got SIGTERM: stop as on Ctrl-C."""


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated


def stop_on_sigterm() -> None:
    """From now on SIGTERM raises `Terminated` in the main thread (as SIGINT raises
    KeyboardInterrupt), so pools and `finally` blocks unwind."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _raise_terminated)


def _end_with_parent(parent: int) -> None:
    """Linux: the kernel sends this worker SIGKILL when its parent process ends."""
    with contextlib.suppress(Exception):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent ended before the request took effect
        os._exit(1)


def _start_worker(parent: int, init: Callable[..., None] | None, args: tuple[Any, ...]) -> None:
    # a worker inherits the parent's handlers: SIGTERM must end it, not raise inside a task
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _end_with_parent(parent)
    if init is not None:
        init(*args)


def _kill_workers(pool: ProcessPoolExecutor) -> None:
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):
            process.kill()
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(timeout=5)


@contextlib.contextmanager
def worker_pool(
    workers: int, initializer: Callable[..., None] | None = None, initargs: tuple[Any, ...] = ()
) -> Iterator[ProcessPoolExecutor]:
    """A process pool that waits for its workers when the block ends normally, and kills them
    when it ends by an exception (Ctrl-C, SIGTERM, a failed task, a closed generator)."""
    pool = ProcessPoolExecutor(
        max_workers=workers, initializer=_start_worker, initargs=(os.getpid(), initializer, initargs)
    )
    try:
        yield pool
    except BaseException:
        _kill_workers(pool)
        raise
    pool.shutdown(wait=True)
