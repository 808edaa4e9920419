"""The user's state folder: where hooks log, remember sessions and record restores.

`$XDG_STATE_HOME/turnlens` (an absolute XDG_STATE_HOME only, as the XDG spec
says), else `~/.local/state/turnlens`. Everything here is small and capped: a
hook runs on every prompt of every session and must never fill a disk. Nothing
here raises: a hook that cannot write its log still answers.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from typing import Any

from turnlens.agents.hashes import sha256_hex

LOG_FILE = "hooks.log"
RESTORE_LOG = "restore.jsonl"
SESSIONS = "sessions"
MAX_LOG_BYTES = 256 * 1024  # then the log moves to `<name>.1` and starts again
MAX_RESTORE_LOG_BYTES = 1024 * 1024
MAX_SESSION_FILES = 200  # the oldest session ledgers go first
MAX_STATE_FILE = 16 * 1024 * 1024


def state_dir() -> str:
    """`$XDG_STATE_HOME/turnlens`, or `~/.local/state/turnlens`."""
    base = os.environ.get("XDG_STATE_HOME", "")
    if not base or not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "turnlens")


def _ensure(folder: str) -> bool:
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError:
        return False
    return os.path.isdir(folder)


def _append_capped(name: str, line: str, cap: int) -> None:
    folder = state_dir()
    if not _ensure(folder):
        return
    path = os.path.join(folder, name)
    try:
        if os.path.getsize(path) > cap:
            os.replace(path, path + ".1")
    except OSError:
        pass  # no log yet
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError:
        return
    try:
        os.write(fd, line.encode("utf-8", "replace"))
    except OSError:
        pass
    finally:
        os.close(fd)


def log(event: str, message: str) -> None:
    """One line in the hook log: time, event, what happened (never raises)."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime())
    text = " ".join(message.split())[:500]
    _append_capped(LOG_FILE, f"{stamp} {event}: {text}\n", MAX_LOG_BYTES)


def record_restore(entry: dict[str, Any]) -> None:
    """One JSON line in the restore log: what a compaction lost and what was given back."""
    entry = {"time": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime()), **entry}
    _append_capped(RESTORE_LOG, json.dumps(entry, ensure_ascii=False) + "\n", MAX_RESTORE_LOG_BYTES)


def session_key(transcript: str) -> str:
    """A file name for a session: a hash of its transcript's real path (a path an agent
    sends is untrusted text and never becomes part of a file name)."""
    try:
        real = os.path.realpath(transcript)
    except (OSError, ValueError):
        real = transcript
    return sha256_hex(real.encode("utf-8", "surrogateescape"))[:32]


def ledger_key(transcript: str, fmt: str, engine: str = "model") -> str:
    """The name of a session's ledger: one per format and per labeler engine (the optional
    encoder engine classes a person's prompts its own way, so its ledger is kept apart)."""
    key = f"{session_key(transcript)}-{fmt}"
    return key if engine == "model" else f"{key}-{engine}"


def _session_path(key: str) -> str:
    return os.path.join(state_dir(), SESSIONS, key + ".json")


def load_session(key: str) -> dict[str, Any] | None:
    """A session's remembered state, or None (missing, unreadable, not ours)."""
    from turnlens.userfiles import ReadProblem, read_limited

    try:
        data = json.loads(read_limited(_session_path(key), MAX_STATE_FILE))
    except (ReadProblem, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def save_session(key: str, data: dict[str, Any]) -> None:
    """Write a session's state atomically; keep the files of at most MAX_SESSION_FILES sessions
    (a ledger and a list of routes each)."""
    folder = os.path.join(state_dir(), SESSIONS)
    if not _ensure(folder):
        return
    path = _session_path(key)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            os.write(fd, json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return
    _prune(folder)


def _prune(folder: str) -> None:
    try:
        names = [n for n in os.listdir(folder) if n.endswith((".json", ".routes"))]
        if len(names) <= 2 * MAX_SESSION_FILES:
            return
        aged = sorted(names, key=lambda n: os.path.getmtime(os.path.join(folder, n)))
        for name in aged[: len(names) - 2 * MAX_SESSION_FILES]:
            os.unlink(os.path.join(folder, name))
    except OSError:
        pass


MAX_ROUTES = 8


def remember_route(
    key: str, digest: str, shown: str, effort: str | None, known: list[str | None] | None = None
) -> None:
    """The route of a prompt just submitted, for the status line (which then need not route it);
    `known`: the prompt's [class, class in doubt] when an engine the status line would have to
    load classed it (the encoder engine: `turnlens.agents.ledger.prompt_class`)."""
    from turnlens.userfiles import ReadProblem, read_limited

    path = os.path.join(state_dir(), SESSIONS, key + ".routes")
    try:
        routes = json.loads(read_limited(path, 64 * 1024))
        if not isinstance(routes, list):
            routes = []
    except (ReadProblem, ValueError, RecursionError):
        routes = []
    routes = [r for r in routes if isinstance(r, list) and len(r) in (3, 4) and r[0] != digest][
        -(MAX_ROUTES - 1) :
    ]
    routes.append([digest, shown, effort] if known is None else [digest, shown, effort, known])
    if not _ensure(os.path.dirname(path)):
        return
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(routes, f, ensure_ascii=False)
            os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _routes(key: str) -> list[list[Any]]:
    """The records `remember_route` wrote for a session that have the right shape."""
    from turnlens.userfiles import ReadProblem, read_limited

    path = os.path.join(state_dir(), SESSIONS, key + ".routes")
    try:
        routes = json.loads(read_limited(path, 64 * 1024))
    except (ReadProblem, ValueError, RecursionError):
        return []
    return [
        r
        for r in (routes if isinstance(routes, list) else ())
        if isinstance(r, list) and len(r) in (3, 4) and isinstance(r[0], str) and isinstance(r[1], str)
    ]


def remembered_route(key: str, digest: str) -> tuple[str, str | None] | None:
    for r in _routes(key):
        if r[0] == digest:
            return r[1], r[2] if isinstance(r[2], str) else None
    return None


def remembered_classes(key: str) -> dict[str, tuple[str, str | None]]:
    """By prompt digest, the [class, class in doubt] `remember_route` kept, where both name
    classes the guard could give (a state file damaged by hand is never believed)."""
    from turnlens.agents.guard import UNSURE, frozen_classes
    from turnlens.core.classes import task_classes

    out: dict[str, tuple[str, str | None]] = {}
    for r in _routes(key):
        if len(r) != 4 or not isinstance(r[3], list) or len(r[3]) != 2:
            continue
        name, doubt = r[3]
        if not isinstance(name, str) or name not in task_classes():
            continue
        if doubt is not None and not (
            isinstance(doubt, str) and doubt.endswith(UNSURE) and doubt[: -len(UNSURE)] in frozen_classes()
        ):
            continue
        out[r[0]] = (name, doubt)
    return out
