"""Finding and reading users' files: rule files (`--rules PATH`, `.turnlens.toml`), model
files (`turnlens.models`, `--model`, `$TURNLENS_MODELS`), JSON Lines sessions line by line.

This is the I/O the core and `learn` leave to their callers: the CLI, the pipeline and the
language server read files here, with bounds, and hand text to
`turnlens.core.rules.parse_pack` or bytes to `turnlens.learn.model.Model.from_bytes`.
"""

from __future__ import annotations

import os
import stat

from turnlens.core.rules import RulePack, RulePackError, builtin_pack, parse_pack

TYPE_CHECKING = False  # `typing` stays off the one-shot path (see core/record.py)
if TYPE_CHECKING:  # pathlib too: every `turnlens classify` imports this module
    from collections import OrderedDict
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from turnlens.learn.model import Model, ModelError
    from turnlens.pipeline.formats.jsonl import Line

PROJECT_FILE = ".turnlens.toml"
MAX_RULES_FILE = 1_000_000
# Documents the command line reads (`check`, `--input`, `--stdin`): larger ones are refused (with
# a warning in `check`), since analysing a file costs up to 16 times its size in memory.
MAX_INPUT_BYTES = 64_000_000
_CHUNK = 1 << 20


class ReadProblem(OSError):
    """A file TurnLens will not read: not a regular file, too large, or unreadable."""


def regular_file(path: Path | str) -> os.stat_result:
    """The file's status, or ReadProblem when it is not a regular file (a FIFO would block a
    reader for ever, a device may never end)."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise ReadProblem(exc.strerror or str(exc)) from None
    if stat.S_ISDIR(info.st_mode):
        raise ReadProblem("is a directory")
    if not stat.S_ISREG(info.st_mode):
        raise ReadProblem("not a regular file")
    return info


def read_limited(path: Path | str, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes, read without ever holding more.

    A FIFO would block the reader for ever and `/dev/zero` never ends, so anything
    that is not a regular file is refused before it is opened; the size is checked
    before reading, and again while reading (a file can grow meanwhile).
    """
    info = regular_file(path)
    if info.st_size > limit:
        raise ReadProblem(f"larger than {limit:,} bytes ({info.st_size:,})")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise ReadProblem(exc.strerror or str(exc)) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped for something else since the stat
            raise ReadProblem("not a regular file")
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise ReadProblem(f"larger than {limit:,} bytes")
        return b"".join(chunks)
    except OSError as exc:
        if isinstance(exc, ReadProblem):
            raise
        raise ReadProblem(exc.strerror or str(exc)) from None
    finally:
        os.close(fd)


def find_project_rules(start: str | os.PathLike[str]) -> Path | None:
    """The nearest `.turnlens.toml` in `start` or a folder above it.

    Walked with `os.path`: every `turnlens classify` without `--rules` looks, and `pathlib`
    would add ~2.5 ms to its start in a fresh environment."""
    try:
        here = os.path.realpath(start)
    except (OSError, ValueError):
        return None
    while True:
        candidate = os.path.join(here, PROJECT_FILE)
        if os.path.isfile(candidate):  # False for a folder we may not look into: keep going up
            from pathlib import Path

            return Path(candidate)
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _names_a_base(text: str) -> bool:
    """Whether the file says `[pack] extends = "…"` itself (a TOML error is left to the parser)."""
    import tomllib

    try:
        meta = tomllib.loads(text.removeprefix("\ufeff")).get("pack")
    except (tomllib.TOMLDecodeError, RecursionError):
        return False
    return isinstance(meta, dict) and "extends" in meta


def load_rules_file(path: Path, base: RulePack | None = None) -> RulePack:
    """A user rules file extends `default` (or the pack its `[pack] extends` names).

    Bad rules are skipped and listed in `pack.warnings`; a file that cannot be
    used (unreadable, too large, not TOML) raises RulePackError naming it.
    """
    try:
        data = read_limited(path, MAX_RULES_FILE)
    except ReadProblem as exc:
        raise RulePackError(f"{path}: cannot read: {exc}") from None
    text = data.decode("utf-8", errors="replace")
    if _names_a_base(text):
        base = None  # the file's own `[pack] extends` wins over the caller's default
    elif base is None:
        base = builtin_pack("default")
    return parse_pack(text, str(path), base=base, strict=False, user=True)


# --- model files ------------------------------------------------------------------------------
# A model file is data from wherever a path points: it is read as rules files are (a regular
# file only, so a FIFO or `/dev/stdin` cannot block and `/dev/zero` is refused unread; its size
# checked before and while reading), then validated by `Model.from_bytes` (finite weights,
# matching lengths, known classes, a shallow header). Every problem is a ModelError naming the
# file. A long-running process keeps models in a ModelCache: one version per path, and at most
# MAX_CACHED_BYTES of model files in all, so rewriting a model file again and again costs
# nothing that stays.

#: the largest model file read (the shipped ones are under 1 MB; loaded, a model takes about
#: six times its file's size)
MAX_MODEL_FILE = 16_000_000
#: at most this many bytes of model files are kept loaded by a long-running process
MAX_CACHED_BYTES = 48_000_000


def model_path(raw: str, folder: str | None = None) -> Path:
    """The file a model setting names: `~` expanded, relative to `folder`; ModelError for a
    path that cannot name a file (a NUL, an unknown `~user`, an empty string)."""
    from pathlib import Path

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
        from collections import OrderedDict  # a server's cache; a one-shot run makes none

        self._entries: OrderedDict[str, tuple[tuple[int, int], Model | ModelError, int]] = OrderedDict()
        # (mtime, size) of the file, the model or the error reading it, and the bytes it counts

    def load(self, path: Path) -> Model:
        """The model at `path` (the cached one while the file is unchanged); ModelError."""
        from turnlens.learn.model import Model, ModelError, ModelMissing

        key = str(path)
        try:
            info = os.stat(path)
        except (OSError, ValueError) as exc:
            self._entries.pop(key, None)
            if isinstance(exc, FileNotFoundError):
                raise ModelMissing(f"{path}: no such file") from None
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


def read_shipped_corpus(task: str) -> str:
    """The training rows shipped with TurnLens for `task` (`classes` or `labels`), as JSONL text."""
    from turnlens.learn.dataset import shipped_files

    return "".join(path.read_text(encoding="utf-8") for path in shipped_files(task))


_KEEP_OFFSETS = 4096
#: a streamed JSON Lines line longer than this many bytes is passed over unread
MAX_LINE_BYTES = 64 * 1024 * 1024


class Overlong(str):
    """A line over the limit that `jsonl_lines` passed over unread: it stands for the line
    (empty text) and says how many characters it had; the readers report it."""

    chars: int

    def __new__(cls, chars: int) -> Overlong:
        line = super().__new__(cls, "")
        line.chars = chars
        return line


def jsonl_lines(
    path: str | os.PathLike[str],
    *,
    offsets: dict[int, int] | None = None,
    on_invalid_utf8: Callable[[], None] | None = None,
    limit: int | None = None,
) -> Iterator[Line]:
    """A JSON Lines file's non-blank lines, read one at a time, as the streaming readers take
    them: (1-based number, character offset, text without its break, whether it is the last),
    one line of look-ahead to know the last. `offsets` gets the recent lines' offsets (at most
    ~4,096, for positions); `on_invalid_utf8` is called once, at the end, when bytes that are
    not UTF-8 were replaced.

    A line over `limit` bytes (default MAX_LINE_BYTES, 64 MiB) is never held: its first
    `limit` bytes are read, the rest is passed over in 1 MiB pieces, and it comes as an
    `Overlong` text that the readers report. Memory stays within a few times the limit,
    whatever the file's longest line."""
    cap = MAX_LINE_BYTES if limit is None else limit
    pending: Line | None = None
    pos = 0
    bad = False
    number = 0
    with open(path, "rb") as f:
        while True:
            raw = f.readline(cap + 1)
            if not raw:
                break
            number += 1
            start = pos
            if len(raw) > cap and not raw.endswith(b"\n"):
                chars = _chars(raw)
                while raw and not raw.endswith(b"\n"):  # pass over the rest, a piece at a time
                    raw = f.readline(_CHUNK)
                    chars += _chars(raw)
                pos += chars
                line: str = Overlong(chars - _breaks(raw))
                if offsets is not None:
                    offsets[number] = start
                if pending is not None:
                    yield pending
                pending = (number, start, line, False)
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                line = raw.decode("utf-8", errors="replace")
                bad = True
            pos += len(line)
            body = line.rstrip("\r\n")
            if start == 0 and body.startswith("\ufeff"):  # a byte-order mark is not content
                body, start = body[1:], 1
            if not body.strip():
                continue
            if offsets is not None:
                if len(offsets) > _KEEP_OFFSETS:
                    offsets.clear()
                offsets[number] = start
            if pending is not None:
                yield pending
            pending = (number, start, body, False)
    if pending is not None:
        yield (*pending[:3], True)
    if bad and on_invalid_utf8 is not None:
        on_invalid_utf8()


# UTF-8 continuation bytes: a character is every byte that is not one of these
_CONTINUATION = bytes(range(0x80, 0xC0))


def _chars(data: bytes) -> int:
    """How many characters UTF-8 bytes decode to (a replaced bad byte counts as one)."""
    return len(data.translate(None, _CONTINUATION))


def _breaks(data: bytes) -> int:
    """The characters of the line break `data` ends with."""
    return 2 if data.endswith(b"\r\n") else 1 if data.endswith(b"\n") else 0
