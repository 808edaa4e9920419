"""Reading users' model files (`turnlens.models`, `--model`, `$TURNLENS_MODELS`) with bounds.

A model file is data from wherever a path points: it is read as rules files are read
(a regular file only, so a FIFO or `/dev/stdin` cannot block and `/dev/zero` is refused
unread; its size is checked before and while reading), then validated by
`Model.from_bytes` (finite weights, matching lengths, known classes, a shallow header).
Every problem is a ModelError whose message names the file. Loaded models are kept in a
bounded cache: one version per path, and at most MAX_CACHED_BYTES of model files in all,
so rewriting a model file again and again costs nothing that stays.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

from turnlens.userfiles import ReadProblem, read_limited

if TYPE_CHECKING:  # imported when a model is read: the server starts without them
    from turnlens.learn.model import Model, ModelError

#: the largest model file read (the shipped ones are under 1 MB; loaded, a model takes about
#: six times its file's size)
MAX_MODEL_FILE = 16_000_000
#: at most this many bytes of model files are kept loaded by a long-running process
MAX_CACHED_BYTES = 48_000_000


def model_path(raw: str, folder: str | None = None) -> Path:
    """The file a model setting names: `~` expanded, relative to `folder`; ModelError for a
    path that cannot name a file (a NUL, an unknown `~user`, an empty string)."""
    from turnlens.learn.model import ModelError

    if not raw or not raw.strip():
        raise ModelError("an empty path")
    if "\0" in raw:
        raise ModelError(f"{raw!r}: a path cannot hold a NUL character")
    try:
        path = Path(raw).expanduser()
    except RuntimeError:  # `~nobody`: no such user, no home folder
        raise ModelError(f"{raw}: no such user's home folder") from None
    if not path.is_absolute() and folder:
        path = Path(folder) / path
    return path


def load_model_file(path: Path | str) -> Model:
    """A model made by `turnlens train`, read with a bound and validated; raises ModelError."""
    from turnlens.learn.model import Model, ModelError

    try:
        data = read_limited(path, MAX_MODEL_FILE)
    except ReadProblem as exc:
        raise ModelError(f"{path}: cannot read: {exc}") from None
    except (ValueError, OSError) as exc:  # a NUL, a name too long
        raise ModelError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    return Model.from_bytes(data, str(path))


class ModelCache:
    """Loaded model files by path, for a process that lives long (the language server).

    A file is read again when its modification time or size changes, and the old version is
    dropped at once; failures are kept too (so a bad file is not read on every request); and
    the least recently used files are dropped when the cache holds more than
    MAX_CACHED_BYTES of model files."""

    def __init__(self, max_bytes: int = MAX_CACHED_BYTES) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, tuple[tuple[int, int], Model | ModelError, int]] = OrderedDict()
        # (mtime, size) of the file, the model or the error reading it, and the bytes it counts

    def load(self, path: Path) -> Model:
        """The model at `path` (the cached one while the file is unchanged); ModelError."""
        from turnlens.learn.model import Model, ModelError

        key = str(path)
        try:
            info = os.stat(path)
        except (OSError, ValueError) as exc:
            self._entries.pop(key, None)
            if isinstance(exc, FileNotFoundError):
                raise ModelError(f"{path}: no such file") from None
            raise ModelError(f"{path}: {getattr(exc, 'strerror', None) or exc}") from None
        version = (info.st_mtime_ns, info.st_size)
        entry = self._entries.get(key)
        if entry is None or entry[0] != version:
            self._entries.pop(key, None)  # the old version goes before the new one is read
            outcome: Model | ModelError
            try:
                outcome = load_model_file(path)
            except ModelError as exc:
                outcome = exc
            entry = (version, outcome, info.st_size if isinstance(outcome, Model) else 0)
            self._entries[key] = entry
            self._shrink(keep=key)
        self._entries.move_to_end(key)
        if isinstance(entry[1], ModelError):
            raise entry[1]
        return entry[1]

    def _shrink(self, keep: str) -> None:
        while sum(e[2] for e in self._entries.values()) > self.max_bytes and len(self._entries) > 1:
            oldest = next(k for k in self._entries if k != keep)
            del self._entries[oldest]

    def models(self) -> list[Model]:
        """The models loaded now (to let go of anything built from older ones)."""
        return [e[1] for e in self._entries.values() if not isinstance(e[1], Exception)]

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
