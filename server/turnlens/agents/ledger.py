"""A session file read once, line by line, and remembered between hook calls.

An agent calls the status line after every message and the compaction hooks on a
session that may be tens of megabytes. Classifying the whole file on each call
would take seconds, so each call reads only the lines added since the last one
(through the format's own reader, without string positions, and `classified`:
the default pack's classes, in batches) and keeps, in the user's state folder,
what the views need: the plan's figures per class (for the whole session and
since the last compaction), the frozen turns (position, class, a short quote and
a digest — never their whole text: that stays in the session file, where
`turn_text` finds it again), the compaction summaries and the last prompt. A
first read of a long session leaves the tool traffic that needs the model for
later calls (QUICK_SECONDS). A file that shrank, was replaced or rewritten starts
again from the top.

With the optional encoder engine ($TURNLENS_LABELER=encoder: `engine`), a person's prompts
are classed by the classes encoder pooled with the model (on real prompts it keeps more of
the decisions and specs: docs/labels.md, ninth pass); everything else as always. Each engine
keeps its own ledger, and a prompt the submit hook classed already is not classed again.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from turnlens.agents import state
from turnlens.agents.hashes import sha256_hex, text_digest
from turnlens.core.record import Record
from turnlens.router.labeler_engine import DEFAULT_ENGINE, prompt_scorer

if TYPE_CHECKING:
    from turnlens.pipeline.units import Unit

VERSION = 2  # 2: a person's prompts kept in doubt are among the frozen turns (`agents.guard`)
MAX_TRANSCRIPT = 256 * 1024 * 1024  # a larger session file is not read (the hook is a no-op)
MAX_FROZEN = 3000  # frozen turns remembered per session (the oldest are dropped beyond this)
MAX_SUMMARIES = 50
QUOTE_CHARS = 100
HEAD_BYTES = 4096
KEEP_ROLES = ("user", "assistant")  # frozen turns worth keeping verbatim: people's and the model's words
# ... and the person's answer to the agent's question, which the client hands back as the asking
# tool's result: the only tool result that is a decision (`turnlens.core.kinds`)
KEEP_KINDS = ("prompt", "reply", "tool_result")


def kept(unit: Unit, name: str, frozen: bool, doubt: str | None) -> bool:
    """Whether the guard keeps this classified unit word for word: a frozen (or, for a person's
    prompt, doubtful) prompt or reply, or a person's answer handed back as a tool's result."""
    if unit.kind == "tool_result":
        return name == "decision"
    return (frozen or doubt is not None) and unit.role in KEEP_ROLES and unit.kind in KEEP_KINDS


# Which `summary` units are compactions: both readers also give a session's title that kind (a
# Claude Code `summary` line); the agents' own markers tell them apart.
_COMPACTION: dict[str, Callable[[dict[str, Any]], bool]] = {
    "claude-code": lambda obj: obj.get("isCompactSummary") is True,
    "codex": lambda obj: obj.get("type") == "compacted",
}

_MARKERS = ('"isCompactSummary"', '"compacted"')  # a cheap look before the JSON is parsed
# A call that must answer soon (a hook, the status line) and finds 2 MB or more to read leaves
# the tool calls and results that need the model for later: they are counted whole, as not
# classified yet, and each later call classifies them for up to QUICK_SECONDS (the submit hook's
# background reader all at once). Prompts and replies, which decide the frozen turns, are always
# classified at once.
QUICK_SECONDS = 0.3
QUICK_MIN_BYTES = 2 * 1024 * 1024  # a read of less than this is classified whole
DEFERRABLE = ("tool_call", "tool_result")
# readers whose line, read again alone, gives the same units (Codex's pairs records across lines)
DEFER_FORMATS = ("claude-code",)
MAX_DEFERRED = 100_000  # beyond this many waiting units, every unit is classified at once
PENDING = "(not classified yet)"  # their row in `totals`: [units, words, words (kept whole)]
MAX_KEPT_CHARS = 8 * 1024 * 1024  # frozen turns' texts kept in memory during one call
MAX_LINE_BYTES = 64 * 1024 * 1024  # a longer line is passed over unread, as the readers do
MAX_OFFSETS = 1_000_000  # line offsets kept while reading (a few tens of MB at most)

# what `classified` knows of a unit: its class (None: not classified yet), words, class in doubt
_Known = tuple[str | None, int, str | None]

# one frozen turn: [index, line, byte offset, role, kind, class, words, digest, quote]; the class
# of a prompt the guard keeps in doubt carries the unsure mark (`decision?`: `turnlens.agents.guard`)
FrozenRow = list[Any]


class Unreadable(Exception):
    """The session file cannot be read safely (missing, not a regular file, too large)."""


class FrozenTurn(Record):
    """One frozen turn the ledger remembers (a frozen record of a `FrozenRow`)."""

    _fields = ("index", "line", "offset", "role", "kind", "task_class", "words", "digest", "quote")
    __slots__ = _fields
    index: int  # the unit's number in the session, from 1
    line: int  # 1-based line of the session file
    offset: int  # byte offset of that line
    role: str
    kind: str
    task_class: str
    words: int
    digest: str
    quote: str

    def __init__(
        self,
        index: int,
        line: int,
        offset: int,
        role: str,
        kind: str,
        task_class: str,
        words: int,
        digest: str,
        quote: str,
    ) -> None:
        values = (index, line, offset, role, kind, task_class, words, digest, quote)
        for name, value in zip(self._fields, values, strict=True):
            object.__setattr__(self, name, value)

    @classmethod
    def from_row(cls, row: FrozenRow) -> FrozenTurn:
        return cls(*row)


def digest(text: str) -> str:
    return text_digest(text)


def quote(text: str, limit: int = QUOTE_CHARS) -> str:
    """The first words of a turn on one line, cut at a word with an ellipsis."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut) + "…"


def _fresh(path: str, fmt: str, info: os.stat_result) -> dict[str, Any]:
    return {
        "version": VERSION,
        "format": fmt,
        "dev": info.st_dev,
        "ino": info.st_ino,
        "head_len": 0,
        "head": "",
        "offset": 0,
        "line": 0,
        "units": 0,
        "session": {},
        "context": {},
        "frozen": [],
        "deferred": [],  # [index, line, offset, ordinal in its line, kind, words]
        "summaries": [],
        "last_prompt": None,
        "route": None,
    }


def open_session(path: str) -> tuple[int, os.stat_result]:
    """A read-only descriptor of a regular session file of bounded size (never a FIFO or a
    device: those would block or never end)."""
    from turnlens.userfiles import ReadProblem, regular_file

    try:
        info = regular_file(path)
    except ReadProblem as exc:
        raise Unreadable(str(exc)) from None
    if info.st_size > MAX_TRANSCRIPT:
        raise Unreadable(f"larger than {MAX_TRANSCRIPT:,} bytes ({info.st_size:,})")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise Unreadable(exc.strerror or str(exc)) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_TRANSCRIPT:
        os.close(fd)
        raise Unreadable("not a regular file of a readable size")
    return fd, info


def _same_file(data: dict[str, Any], fd: int, info: os.stat_result, fmt: str) -> bool:
    if data.get("version") != VERSION or data.get("format") != fmt:
        return False
    if data.get("dev") != info.st_dev or data.get("ino") != info.st_ino:
        return False
    offset = data.get("offset")
    if not isinstance(offset, int) or offset < 0 or offset > info.st_size:
        return False
    head_len = data.get("head_len")
    if not isinstance(head_len, int) or head_len < 0:
        return False
    return sha256_hex(os.pread(fd, head_len, 0)) == data.get("head")


class Ledger:
    """One session's remembered figures; `update` reads what was added since the last call."""

    def __init__(self, path: str, fmt: str, engine: str = DEFAULT_ENGINE) -> None:
        self.path = path
        self.format = fmt
        self.engine = engine  # which engine classes a person's prompts (`classified`)
        self.session = state.session_key(path)
        self.key = state.ledger_key(path, fmt, engine)
        self.data: dict[str, Any] = {}
        self.complete = False  # every complete line of the file has been read
        self.size = 0
        # the whole texts of the frozen turns read in this call, by digest (up to MAX_KEPT_CHARS):
        # a restore right after a first read need not read their lines again
        self.texts: dict[str, str] = {}
        self._kept = 0
        # byte offsets of the lines read in this call: a reader may hand a line's units on later
        # (Claude Code's holds units while a summary line waits for its leaf), so all are kept
        self._offsets: dict[int, int] = {}
        self._marked: dict[int, int] = {}  # offsets of lines that may hold a compaction summary
        self._fd = -1
        # with `save_later`, what changed is written by `flush` (once per call: the status line
        # reads the new lines and then remembers the new prompt's route in the same file)
        self.save_later = False
        self.dirty = False

    def update(self, deadline: float, quick: float | None = QUICK_SECONDS) -> None:
        """Read the lines added since the last call until `deadline` (time.monotonic);
        `complete` says whether the end was reached. With `quick` (seconds), a read of
        QUICK_MIN_BYTES or more leaves tool calls and results for later, and those left by
        earlier calls are classified for what is left of `quick`; with None, everything is
        classified before the deadline. Raises Unreadable."""
        started = time.monotonic()
        fd, info = open_session(self.path)
        try:
            loaded = state.load_session(self.key)
            data = loaded if loaded is not None and _same_file(loaded, fd, info, self.format) else None
            if data is None:
                data = _fresh(self.path, self.format, info)
            self.data = data
            self.size = info.st_size
            data["deferred"] = _valid_deferred(data.get("deferred"), info.st_size)
            changed = False
            soon = None if quick is None else started + quick
            if data["offset"] < info.st_size:
                big = info.st_size - data["offset"] >= QUICK_MIN_BYTES
                quick_read = big and soon is not None and self.format in DEFER_FORMATS
                self._read(fd, deadline, defer=quick_read)
                if data["head_len"] < HEAD_BYTES:
                    head = os.pread(fd, min(HEAD_BYTES, data["offset"]), 0)
                    data["head_len"], data["head"] = len(head), sha256_hex(head)
                changed = True
            if data["deferred"] and time.monotonic() < (deadline if soon is None else min(deadline, soon)):
                self._classify_deferred(fd, deadline if soon is None else min(deadline, soon))
                changed = True
            if changed:
                self.changed()
            # an unfinished last line (no line break yet) is read once it is finished
            self.complete = info.st_size - data["offset"] < 2 or self._only_tail_left(fd, info)
        finally:
            os.close(fd)

    def _only_tail_left(self, fd: int, info: os.stat_result) -> bool:
        rest = os.pread(fd, min(info.st_size - self.data["offset"], 1 << 20), self.data["offset"])
        return b"\n" not in rest

    def _lines(self, fd: int, deadline: float) -> Iterator[tuple[int, int, str, bool]]:
        """Complete lines from the remembered offset, until the deadline; the offset moves on
        as each line is handed over (a line's units are all read before the next is asked)."""
        data = self.data
        offset, number = data["offset"], data["line"]
        with os.fdopen(os.dup(fd), "rb") as f:
            f.seek(offset)
            while True:
                raw = f.readline(MAX_LINE_BYTES + 1)
                length = len(raw)
                if length > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                    rest = _skip_line(f)  # never held: passed over in pieces, as the readers do
                    if rest is None or time.monotonic() > deadline:
                        break  # no line break yet: read once it is finished
                    offset += length + rest
                    number += 1
                    data["offset"], data["line"] = offset, number
                    continue
                if not raw.endswith(b"\n") or time.monotonic() > deadline:
                    break
                start = offset
                offset += length
                number += 1
                data["offset"], data["line"] = offset, number
                text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                if text.strip():
                    self._offsets[number] = start
                    if len(self._offsets) > MAX_OFFSETS:  # keep the newest half
                        self._offsets = dict(list(self._offsets.items())[MAX_OFFSETS // 2 :])
                    if _MARKERS[0] in text or _MARKERS[1] in text:
                        self._marked[number] = start
                        if len(self._marked) > MAX_OFFSETS:
                            self._marked = dict(list(self._marked.items())[MAX_OFFSETS // 2 :])
                    yield number, start, text, False

    def _read(self, fd: int, deadline: float, *, defer: bool = False) -> None:
        from turnlens.core.classes import task_classes
        from turnlens.pipeline.formats import resolve
        from turnlens.pipeline.formats.base import FormatOptions

        fmt: Any = resolve(self.format, self.path, "")
        data = self.data
        self._offsets = {}
        self._marked = {}
        self._fd = fd
        classes = task_classes()
        session: dict[str, list[int]] = data["session"]
        context: dict[str, list[int]] = data["context"]
        frozen: list[FrozenRow] = data["frozen"]
        # the texts only: no string positions inside a line (the views never point into it)
        deferred: list[list[Any]] = data["deferred"]
        units = fmt.stream(self._lines(fd, deadline), FormatOptions(), [], spans=False)
        line, ordinal = -1, 0
        remembered = None
        if self.engine != DEFAULT_ENGINE:  # what the submit hook classed already (its last prompts)
            known = state.remembered_classes(self.session)

            def remembered(text: str) -> _Known | None:
                found = known.get(digest(text)) if known else None
                return None if found is None else (found[0], count_words_of(text), found[1])

        for unit, name, words, doubt in classified(
            units, lambda: defer and len(deferred) < MAX_DEFERRED, self.engine, remembered
        ):
            data["units"] += 1
            index = data["units"]
            ordinal = ordinal + 1 if unit.line == line else 0
            line = unit.line
            offset = self._offsets.get(unit.line, 0)  # 0 when forgotten: the digest then finds nothing
            if unit.kind == "summary" and self._compaction(unit.line):
                context.clear()
                data["summaries"] = [*data["summaries"][-(MAX_SUMMARIES - 1) :], [index, unit.line, offset]]
            if name is None:  # classified later (`_classify_deferred`)
                deferred.append([index, unit.line, offset, ordinal, unit.kind, words])
                continue
            tc = classes[name]
            whole = tc.frozen == "true"
            row = (1, words, max(1, words // (1 if whole else tc.max_ratio)))
            for table in (session, context):
                have = table.setdefault(name, [0, 0, 0])
                for i in range(3):
                    have[i] += row[i]
            # frozen, or a person's prompt the guard keeps in doubt (`turnlens.agents.guard`)
            if kept(unit, name, whole, doubt):
                key = digest(unit.text)
                frozen.append(
                    [
                        index,
                        unit.line,
                        offset,
                        unit.role,
                        unit.kind,
                        name if whole else doubt,
                        words,
                        key,
                        quote(unit.text),
                    ]
                )
                if self._kept + len(unit.text) <= MAX_KEPT_CHARS:
                    self.texts[key] = unit.text
                    self._kept += len(unit.text)
                if len(frozen) > MAX_FROZEN:
                    del frozen[: len(frozen) - MAX_FROZEN]
            if unit.role == "user" and unit.kind == "prompt":
                data["last_prompt"] = [index, unit.line, offset, digest(unit.text)]

    def _classify_deferred(self, fd: int, until: float) -> None:
        """Classify the units that waited (their lines read again), oldest first, until `until`."""
        from turnlens.core.classes import task_classes
        from turnlens.pipeline.formats import resolve
        from turnlens.pipeline.formats.base import FormatOptions

        reader: Any = resolve(self.format, self.path, "")
        classes = task_classes()
        data = self.data
        rows: list[list[Any]] = data["deferred"]
        last = self.last_summary()
        since = last[0] if last else 0
        done = 0
        cache: tuple[int, list[Unit]] = (-1, [])
        while done < len(rows) and time.monotonic() < until:
            chunk = rows[done : done + 64]
            found: list[tuple[list[Any], Unit]] = []
            for row in chunk:
                _, line, offset, ordinal, kind = row[:5]
                if cache[0] != offset:
                    text = _line_at(fd, offset).decode("utf-8", errors="replace").rstrip("\r\n")
                    lines = iter([(line, offset, text, True)])
                    cache = (offset, list(reader.stream(lines, FormatOptions(), [], spans=False)))
                units = cache[1]
                if ordinal < len(units) and units[ordinal].kind == kind:
                    found.append((row, units[ordinal]))
            answers = classified([u for _, u in found], engine=self.engine)
            for (row, _), (_, name, words, _) in zip(found, answers, strict=True):
                if name is None:  # pragma: no cover - classified() without defer_after gives a class
                    continue
                tc = classes[name]
                planned = max(1, words // (1 if tc.frozen == "true" else tc.max_ratio))
                for table, counted in ((data["session"], True), (data["context"], row[0] > since)):
                    if counted:
                        have = table.setdefault(name, [0, 0, 0])
                        have[0] += 1
                        have[1] += words
                        have[2] += planned
            done += len(chunk)  # a unit not found again (the file changed under us) is dropped
        del rows[:done]

    def _compaction(self, line: int) -> bool:
        """Whether the summary unit on `line` marks a compaction (its line read again: only
        lines that name a marker are remembered, by offset)."""
        import json

        start = self._marked.get(line)
        if start is None:
            return False
        raw = _line_at(self._fd, start)
        try:
            obj = json.loads(raw.decode("utf-8", errors="replace"))
        except (ValueError, RecursionError):
            return False
        test = _COMPACTION.get(self.format)
        return isinstance(obj, dict) and test is not None and test(obj)

    # -- what the views read --------------------------------------------------------------

    def frozen_turns(self) -> list[FrozenTurn]:
        return [FrozenTurn.from_row(row) for row in self.data.get("frozen", [])]

    def last_summary(self) -> tuple[int, int, int] | None:
        """(unit index, line, byte offset) of the latest compaction summary, if any."""
        rows = self.data.get("summaries") or []
        return tuple(rows[-1]) if rows else None  # type: ignore[return-value]

    def totals(self, scope: str) -> dict[str, list[int]]:
        """Per class: [units, words, planned words] — `session` (all) or `context` (since the
        last compaction summary); units not classified yet are the PENDING row, kept whole."""
        out = dict(self.data.get(scope, {}))
        rows = self.data.get("deferred") or []
        if rows:
            last = self.last_summary() if scope == "context" else None
            since = last[0] if last else 0
            waiting = [row[5] for row in rows if row[0] > since]
            if waiting:
                out[PENDING] = [len(waiting), sum(waiting), sum(waiting)]
        return out

    def pending(self) -> int:
        """How many units wait to be classified."""
        return len(self.data.get("deferred") or [])

    def save(self) -> None:
        state.save_session(self.key, self.data)
        self.dirty = False

    def changed(self) -> None:
        """`data` changed: saved now, or by `flush` with `save_later`."""
        if self.save_later:
            self.dirty = True
        else:
            self.save()

    def flush(self) -> None:
        """Save what changed since the last save, if anything did."""
        if self.dirty:
            self.save()


def _valid_deferred(rows: Any, size: int) -> list[list[Any]]:
    """The remembered waiting units that have the shape `_read` writes (a state file is ours,
    but one damaged by hand must not break every later call)."""
    if not isinstance(rows, list):
        return []
    return [
        row
        for row in rows
        if isinstance(row, list)
        and len(row) == 6
        and all(type(row[i]) is int and row[i] >= 0 for i in (0, 1, 2, 3, 5))
        and row[2] < size
        and row[4] in DEFERRABLE
    ]


def _skip_line(f: Any) -> int | None:
    """Bytes passed over up to and including the next line break; None when the file ends
    first (the line is not finished)."""
    skipped = 0
    while True:
        piece = f.readline(1 << 20)
        if not piece:
            return None
        skipped += len(piece)
        if piece.endswith(b"\n"):
            return skipped


def _line_at(fd: int, offset: int) -> bytes:
    """The line that starts at `offset` (at most MAX_LINE_BYTES of it)."""
    with os.fdopen(os.dup(fd), "rb") as f:
        f.seek(offset)
        return f.readline(MAX_LINE_BYTES)


# -- classifying the units as they come ----------------------------------------------------------

BATCH_UNITS = 256  # units classified together (`classify_many` shares rule passes between them)
BATCH_CHARS = 4 * 1024 * 1024  # …or fewer, when their texts are long
MEMO_CHARS = 4096  # texts up to this long are remembered with their class for the whole read
MEMO_ENTRIES = 8192


def count_words_of(text: str) -> int:
    """A unit's words as the classifier counts them."""
    from turnlens.core.engine import count_words, normalize_newlines

    return count_words(normalize_newlines(text) if "\r" in text else text)


def prompt_class(text: str, engine: str) -> list[str | None]:
    """A person's prompt's [class, class in doubt], as `classified` gives it with `engine` (the
    submit hook, which has the engine loaded for the route, remembers it for the ledger)."""
    from turnlens.agents.guard import GUARDED_KIND, GUARDED_ROLE, in_doubt
    from turnlens.classifier import classify_many
    from turnlens.core.rules import builtin_pack

    c = classify_many([text], builtin_pack("default"), kinds=[GUARDED_KIND], scorer=prompt_scorer(engine))[0]
    return [c.task_class, in_doubt(c, GUARDED_ROLE, GUARDED_KIND)]


def classified(
    units: Iterable[Unit],
    defer: Callable[[], bool] | None = None,
    engine: str = DEFAULT_ENGINE,
    remembered: Callable[[str], _Known | None] | None = None,
) -> Iterator[tuple[Unit, str | None, int, str | None]]:
    """(unit, class, words, in doubt) for each unit, in order, as the built-in default pack
    classifies it (`classify(text, pack, pin=, kind=)`): the units go to `classify_many` in
    batches; a unit whose kind allows one class only (a shell command, a file write:
    `core.kinds`) has that class without a model call, and a text met before has the class it
    had then. "In doubt" is the class under which the compaction guard keeps a person's prompt
    that is not frozen (`turnlens.agents.guard.in_doubt`: `decision?`), else None. While
    `defer()` is true, a tool call or result that needs the model comes with None for its
    class (its words are counted all the same). With `engine` other than the default, a
    person's prompts are classed by that engine (`labeler_engine.prompt_scorer`), or are what `remembered`
    (a prompt's text → what is known of it) says when it knows."""
    from turnlens.agents.guard import GUARDED_KIND, GUARDED_ROLE, in_doubt
    from turnlens.classifier import classify_many
    from turnlens.core.engine import count_words, normalize_newlines
    from turnlens.core.kinds import allowed_classes
    from turnlens.core.rules import builtin_pack

    pack = builtin_pack("default")
    memo: dict[tuple[str | None, str | None, str, str | None], _Known] = {}
    batch: list[Unit] = []
    known: list[_Known | None] = []
    chars = 0

    other = engine != DEFAULT_ENGINE
    scorer: list[Any] = []  # the prompt engine, loaded when a prompt first needs it

    def own(unit: Unit) -> bool:
        """Whether the prompt engine classes this unit (a person's prompt, not pinned)."""
        return other and unit.pin is None and unit.role == GUARDED_ROLE and unit.kind == GUARDED_KIND

    def flush() -> Iterator[tuple[Unit, str | None, int, str | None]]:
        todo = [u for u, k in zip(batch, known, strict=True) if k is None and not own(u)]
        mine = [u for u, k in zip(batch, known, strict=True) if k is None and own(u)]
        answers = iter(
            classify_many(
                [u.text for u in todo],
                pack,
                [u.pin for u in todo],
                [u.kind for u in todo],
                calls=[u.call for u in todo],
            )
        )
        if mine and not scorer:
            scorer.append(prompt_scorer(engine))  # None without its package: the model answers
        prompts = iter(
            classify_many([u.text for u in mine], pack, kinds=[GUARDED_KIND] * len(mine), scorer=scorer[0])
            if mine
            else ()
        )
        for unit, k in zip(batch, known, strict=True):
            if k is None:
                c = next(prompts) if own(unit) else next(answers)
                k = (c.task_class, c.words, in_doubt(c, unit.role, unit.kind) if unit.pin is None else None)
                if len(unit.text) <= MEMO_CHARS and unit.pin is None:
                    if len(memo) >= MEMO_ENTRIES:
                        memo.clear()
                    memo[(unit.role, unit.kind, unit.text, unit.call)] = k
            yield unit, k[0], k[1], k[2]
        batch.clear()
        known.clear()

    for unit in units:
        k: _Known | None = None
        if unit.pin is None:
            k = (
                memo.get((unit.role, unit.kind, unit.text, unit.call))
                if len(unit.text) <= MEMO_CHARS
                else None
            )
            if k is None and remembered is not None and own(unit):
                k = remembered(unit.text)
            if k is None and unit.kind is not None:
                allowed = allowed_classes(unit.kind, unit.text, unit.call)
                if allowed is not None and len(allowed) == 1:
                    text = normalize_newlines(unit.text) if "\r" in unit.text else unit.text
                    k = (allowed[0], count_words(text), None)
                elif defer is not None and unit.kind in DEFERRABLE and defer():
                    text = normalize_newlines(unit.text) if "\r" in unit.text else unit.text
                    k = (None, count_words(text), None)
        batch.append(unit)
        known.append(k)
        chars += len(unit.text)
        if len(batch) >= BATCH_UNITS or chars >= BATCH_CHARS:
            yield from flush()
            chars = 0
    yield from flush()


def turn_text(path: str, fmt: str, line: int, offset: int, want: str, kinds: tuple[str, ...]) -> str | None:
    """The whole text of one unit, read again from its line in the session file: the unit of
    kind in `kinds` whose digest is `want` (any such unit when `want` is empty)."""
    return turn_texts(path, fmt, [(line, offset, want)], kinds)[0]


def turn_texts(
    path: str, fmt: str, where: list[tuple[int, int, str]], kinds: tuple[str, ...]
) -> list[str | None]:
    """`turn_text` for each (line, offset, digest) of `where`, the file opened once."""
    from turnlens.pipeline.formats import resolve
    from turnlens.pipeline.formats.base import FormatOptions

    reader: Any = resolve(fmt, path, "")
    out: list[str | None] = []
    fd, info = open_session(path)
    try:
        for line, offset, want in where:
            if not 0 <= offset < info.st_size:
                out.append(None)
                continue
            text = _line_at(fd, offset).decode("utf-8", errors="replace").rstrip("\r\n")
            found = None
            lines = iter([(line, offset, text, True)])
            for unit in reader.stream(lines, FormatOptions(), [], spans=False):
                if unit.kind in kinds and (not want or digest(unit.text) == want):
                    found = unit.text
            out.append(found)
    finally:
        os.close(fd)
    return out
