"""Where the `turnlens.sessionMap` command writes its page: a folder no other user can touch.

The shared temp folder is writable by everyone, so a fixed path there (`$TMPDIR/turnlens/x.html`)
lets another local user plant a symbolic link that the server would write through, or a folder
they own that they can read and swap files in. Pages go instead into `$TMPDIR/turnlens-<uid>`,
made with mode 0700 and used only when it is a real folder (not a link) owned by this user that
no one else can enter; otherwise into a fresh private folder from `mkdtemp`. Each page is created
with `O_CREAT | O_EXCL | O_NOFOLLOW` and mode 0600 under a name with a random part, so it is never
an existing file or a link, and two documents with one name get two pages.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import stat
import tempfile
from pathlib import Path

log = logging.getLogger("turnlens")

_OPEN_FLAGS = (
    os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
)
_fallback: Path | None = None


def is_private(path: Path) -> bool:
    """A real folder (not a link to one) owned by this user, with no access for group or others."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if not stat.S_ISDIR(st.st_mode):
        return False
    if not hasattr(os, "getuid"):  # Windows: the temp folder is per user already
        return True
    return st.st_uid == os.getuid() and st.st_mode & 0o077 == 0


def private_folder() -> Path:
    """This user's folder for pages (made when missing); never one someone else controls."""
    global _fallback
    uid = os.getuid() if hasattr(os, "getuid") else None
    if uid is not None:
        folder = Path(tempfile.gettempdir()) / f"turnlens-{uid}"
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass
        except OSError as exc:
            log.warning("cannot make %s (%s); using a new private folder", folder, exc.strerror)
        if is_private(folder):
            return folder
        log.warning("%s is not a private folder of this user; using a new private folder", folder)
    if _fallback is None or not is_private(_fallback):
        _fallback = Path(tempfile.mkdtemp(prefix="turnlens-"))
    return _fallback


def write_page(stem: str, text: str) -> Path:
    """Writes `text` to a new file `<stem>-<random>.map.html` in `private_folder()`."""
    folder = private_folder()
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", stem)[:80] or "session"
    for _ in range(16):
        path = folder / f"{safe}-{secrets.token_hex(6)}.map.html"
        try:
            fd = os.open(path, _OPEN_FLAGS, 0o600)
        except FileExistsError:
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        return path
    raise FileExistsError(f"no free file name in {folder}")


def remove_page(path: Path) -> None:
    """Removes a page this server wrote earlier (only a regular file in its private folder)."""
    try:
        if path.parent == private_folder() and stat.S_ISREG(os.lstat(path).st_mode):
            path.unlink()
    except OSError:
        pass
