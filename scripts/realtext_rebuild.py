"""Rebuild the real-text cache from the repositories its refs name.

    python scripts/realtext_rebuild.py --repos DIR [SET …] [--clone] [--cache DIR] [--readers]

The real sets keep only refs in this repository (`tests/data/realtext/NAME.refs.jsonl`); the
texts live in a cache outside it (`$TURNLENS_REALTEXT_CACHE`, default
`~/.cache/turnlens/realtext`). A row taken from an agent log names the public repository, the
file, the commit and the message's position:

    github.com/OWNER/NAME PATH @COMMIT (message #N)

(PATH is C-quoted, as git prints it, when it holds spaces or non-ASCII bytes; `@HEAD(ls-tree)`
means the commit the collector listed, read here as HEAD.) This script reads that file at that
commit from a local copy of the repository, splits it with TurnLens's own readers, and keeps
the unit whose SHA-256 is the ref's: first the unit at position N, then any unit of the file
(a reader that has changed since may count differently), so a text is recovered only when it
is exactly the one that was labelled. A row whose ref names no file is looked for in every file
the set's other rows name. The sets made since the sixteenth pass cite

    OWNER/NAME PATH@COMMIT turn N

(the path as it is; N counts the person's turns, so it is only a hint). A JSON or JSON Lines
file is searched string by string too, as typed and trimmed: a prompt history such as
`~/.claude/history.jsonl` or `~/.codex/history.jsonl`, committed with a backup of those folders,
is no session transcript, and no reader takes it.

Local copies are looked up in DIR as `OWNER+NAME/repo`, `OWNER+NAME` or `OWNER/NAME` (bare or
with a work tree). `--clone` clones a missing one from GitHub into `DIR/OWNER+NAME` first
(blobless, so only the files read are fetched); without it a missing copy is reported.

Rows quoted from GitHub issue and pull-request threads cannot be rebuilt from a repository:
they are counted as `thread` and their texts must come from the cache they were collected
into. `--readers` then says how many cached texts are units TurnLens's readers give as they
are (and with the kind the set labels them), which is what the product reads. The cache files
are merged, never truncated: a cached row whose text still matches its
ref is kept, a recovered row is added, and a row that matches no ref is dropped with a count.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from realtext_eval import MAX_TEXT, cache_dir, sha256, unit_kind
from realtext_eval import _jsonl as _read_jsonl  # a sibling script

REPO = Path(__file__).resolve().parents[1]
REFS = REPO / "tests" / "data" / "realtext"
# a session file bigger than this is not read (the snapshots hold files below 4 MiB)
MAX_FILE = 64 << 20
FIELDS = ("id", "text", "label", "lang", "source", "genre", "hard", "kind")
log = logging.getLogger("realtext_rebuild")

_SOURCE = re.compile(
    r'^(?:https?://)?github\.com/(?P<repo>[\w.-]+/[\w.-]+)\s+(?P<path>"(?:[^"\\]|\\.)*"|\S+)\s+'
    r"@(?P<rev>[0-9a-fA-F]{7,40}|HEAD(?:\([^)]*\))?)\s+\(message\s+#(?P<n>\d+)\)\s*$"
)
# the shape the collectors wrote since the sixteenth pass: `OWNER/NAME PATH@COMMIT turn N`,
# N counting the person's turns (so it is a hint only: a text is found by its hash)
_SOURCE_TURN = re.compile(
    r"^(?:https?://)?(?:github\.com/)?(?P<repo>[\w.-]+/[\w.-]+)\s+(?P<path>.+?)"
    r"@(?P<rev>[0-9a-fA-F]{40})\s+turn\s+(?P<n>\d+)\s*$"
)
_THREAD = re.compile(r"^https?://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull)/\d+")
_NO_FILE = re.compile(r"^\s*\(message\s+#(?P<n>\d+)\)\s*$")


def unquote_path(path: str) -> str:
    """A path as git C-quotes it (`"a\\303\\251.md"`) back to its text; a bare path as is."""
    if not (len(path) >= 2 and path[0] == path[-1] == '"'):
        return path
    out = bytearray()
    body = path[1:-1]
    escapes = {"n": b"\n", "t": b"\t", '"': b'"', "\\": b"\\", "a": b"\a", "b": b"\b", "f": b"\f"}
    escapes |= {"r": b"\r", "v": b"\v"}
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\" or i + 1 == len(body):
            out += ch.encode("utf-8")
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in "01234567" and re.fullmatch(r"[0-7]{3}", body[i + 1 : i + 4]):
            out.append(int(body[i + 1 : i + 4], 8))
            i += 4
        else:
            out += escapes.get(nxt, nxt.encode("utf-8"))
            i += 2
    return out.decode("utf-8", errors="surrogateescape")


@dataclass(frozen=True, slots=True)
class Where:
    """The file, commit and position a ref's text was taken from."""

    repo: str  # OWNER/NAME
    path: str
    rev: str  # a commit, or HEAD
    index: int  # the message's position, from 1


def parse_source(source: str) -> Where | None:
    """The file a ref names, or None for a thread or a source of another shape."""
    m = _SOURCE.match(source.strip()) or _SOURCE_TURN.match(source.strip())
    if m is None:
        return None
    rev = m["rev"]
    return Where(m["repo"], unquote_path(m["path"]), "HEAD" if rev.startswith("HEAD") else rev, int(m["n"]))


def find_repo(root: Path, repo: str) -> Path | None:
    """The local copy of OWNER/NAME under `root`, as a git directory, or None."""
    owner, name = repo.split("/", 1)
    if {owner, name} & {".", ".."}:
        return None  # a ref names a repository, never a way out of `root`
    for cand in (root / f"{owner}+{name}" / "repo", root / f"{owner}+{name}", root / owner / name):
        if (cand / ".git").exists():
            return cand / ".git"
        if (cand / "HEAD").is_file() and (cand / "objects").is_dir():
            return cand
    return None


def clone(root: Path, repo: str) -> Path | None:
    """A blobless clone of github.com/OWNER/NAME into root; None when git cannot make it."""
    owner, name = repo.split("/", 1)
    dest = root / f"{owner}+{name}"
    cmd = [
        "git",
        "clone",
        "--quiet",
        "--bare",
        "--filter=blob:none",
        f"https://github.com/{repo}.git",
        str(dest),
    ]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        log.warning("%s: clone failed: %s", repo, exc)
        return None
    if done.returncode != 0:
        log.warning("%s: clone failed: %s", repo, done.stderr.strip()[:300])
        return None
    return dest


def read_blob(git_dir: Path, rev: str, path: str) -> str | None:
    """The file at `rev`, or None when the commit or the file is not there (or too big)."""
    spec = f"{rev}:{path}"
    try:
        size = subprocess.run(
            ["git", "--git-dir", str(git_dir), "cat-file", "-s", spec],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if size.returncode != 0 or int(size.stdout.strip() or 0) > MAX_FILE:
            return None
        blob = subprocess.run(
            ["git", "--git-dir", str(git_dir), "cat-file", "blob", spec],
            capture_output=True,
            timeout=300,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return None
    if blob.returncode != 0:
        return None
    return blob.stdout.decode("utf-8", errors="replace")


# the breaks a Markdown log's parts were cut at: `---` rules, and the `_****_` lines older
# SpecStory exports put between the parts of an agent's turn
_BREAK = re.compile(r"\n(?:[ ]{0,3}---[ \t]*|_\*\*\*\*_)\n")
_MARKER_LINE = re.compile(r"^(?:_\*\*|#{1,6}[ \t]|\*\*)[^\n]*\n")


# a unit as the readers give it: its text, its kind and, for a tool result, its call
ReaderUnit = tuple[str, str | None, str | None]


def reader_units(path: str, text: str) -> list[ReaderUnit]:
    """(text, kind, call) of each unit of a session file, as TurnLens's readers split it."""
    from turnlens.pipeline.formats import detect
    from turnlens.pipeline.formats.base import FormatOptions, NotATranscript

    try:
        return [(u.text, u.kind, u.call) for u in detect(path, text).split(text, FormatOptions()).units]
    except NotATranscript:
        return []


def unit_texts(path: str, text: str, units: list[ReaderUnit]) -> list[str]:
    """The texts of a session file's `units` (as TurnLens's readers split it), in order; for a
    Markdown log, then its `---`-separated parts too (how a part of a long agent turn was
    taken: one tool use, one thinking block, one paragraph of narration)."""
    texts = [t for t, _, _ in units]
    # a unit as a collector took it, trimmed (a Codex IDE turn's request ends on a newline)
    texts += [t.strip() for t in texts if t != t.strip()]
    if path.lower().endswith((".json", ".jsonl")):
        texts += json_strings(text)
    if path.lower().endswith(".aider.input.history"):
        texts += aider_inputs(text)
    # a Markdown or text log, or a screen copy saved with no extension
    if path.lower().endswith((".md", ".markdown", ".txt")) or "." not in path.rsplit("/", 1)[-1]:
        # a transcript's JSON Lines pasted into a Markdown file (a Cursor agent log in a prompt log)
        texts += json_strings(text)
        texts += terminal_prompts(text)
        for part in _BREAK.split(text.replace("\r\n", "\n")):
            part = part.strip()
            texts += [part, _MARKER_LINE.sub("", part, count=1).strip()]
        texts += [t.replace("\r\n", "\n") for t in texts if "\r\n" in t]
    return texts


# what the person typed, as an agent's transcript wraps it: Cursor's `<user_query>`, Antigravity's
# `<USER_REQUEST>` (its `transcript.jsonl` puts the local time and settings after it)
_USER_QUERY = re.compile(r"<(user_query|USER_REQUEST)>(.*?)</\1>", re.DOTALL)
# an entry of aider's input history: a `# <timestamp>` line, then the typed lines, each after a `+`
# (a local time, "2025-03-02 14:07:31.512", or an ISO one, "2026-04-24T22:59:38.557Z")
_AIDER_STAMP = re.compile(r"^# [0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9:.]+Z?$", re.MULTILINE)


def aider_inputs(text: str) -> list[str]:
    """What a person typed to aider, from its input history (`.aider.input.history`, no session
    transcript, so no reader takes it): each entry's lines after their `+`, trimmed."""
    out: list[str] = []
    for entry in _AIDER_STAMP.split(text.replace("\r\n", "\n")):
        lines = [line[1:] for line in entry.split("\n") if line.startswith("+")]
        if lines:
            out.append("\n".join(lines).strip())
    return out


# a prompt as a terminal shows it, copied with the agent's screen: Claude Code's `❯ `, Gemini CLI's
# ` > `; the agent's answer opens on its own mark (`●`, `⏺`, `✦`, `⎿`), and the screen's frame and
# status lines on theirs (Claude Code's `/export` text file holds the same screen)
_TERMINAL_PROMPT = re.compile(r"^[ \t]{0,2}(?:❯|>)[ \t]+(\S.*)$")
_TERMINAL_ANSWER = ("●", "⏺", "✦", "⎿", "❯", "✻", "✽", "✶", "∴", "▐▛", "═", "╭", "╰", "─")
# the most lines of a prompt that runs on, blank lines included, as a screen copy keeps them
TERMINAL_MAX_LINES = 200
# a screen's copy: at least this many of the agent's answers open a line on its mark
_TERMINAL_AGENT = ("●", "⏺", "✦")
TERMINAL_MIN_ANSWERS = 3


def terminal_prompts(text: str) -> list[str]:
    """What a person typed, in a copy of an agent's terminal screen saved as Markdown or text:
    the text after each prompt mark, alone and with the lines that follow it up to a blank line
    or the agent's mark (a long prompt wraps), trimmed; and, as the file holds them (wraps and
    padding kept), its lines up to each later line before a line that opens on the agent's mark,
    blank lines included (where a prompt ends is the hash's to say)."""
    lines = text.replace("\r\n", "\n").split("\n")
    # as the file holds them only in a screen's copy: a Markdown quote opens on `> ` too
    screen = sum(1 for line in lines if line.startswith(_TERMINAL_AGENT)) >= TERMINAL_MIN_ANSWERS
    out: list[str] = []
    for i, line in enumerate(lines):
        m = _TERMINAL_PROMPT.match(line)
        if m is None:
            continue
        body = [m.group(1)]
        for nxt in lines[i + 1 :]:
            if not nxt.strip() or nxt.lstrip().startswith(_TERMINAL_ANSWER):
                break
            body.append(nxt.strip())
        out += [m.group(1).strip(), "\n".join(body).strip(), " ".join(body).strip()]
        if not screen:
            continue
        raw = [m.group(1)]
        for nxt in lines[i + 1 : i + 1 + TERMINAL_MAX_LINES]:
            # (a screen pasted into the prompt is indented: only a mark at the line's start ends it)
            if nxt.startswith(_TERMINAL_ANSWER) or _TERMINAL_PROMPT.match(nxt):
                break
            raw.append(nxt)
            if nxt.strip():
                out.append("\n".join(raw).strip())
    return out


def json_strings(text: str) -> list[str]:
    """Every string value of a JSON or JSON Lines file, as is and stripped: the last resort for
    a file no reader takes (a prompt history such as `~/.claude/history.jsonl` or
    `~/.codex/history.jsonl`, where each line holds one prompt the person typed; a Cursor agent
    transcript, whose person's turns are wrapped in `<user_query>` tags, and an Antigravity
    `transcript.jsonl`, whose are in `<USER_REQUEST>` tags, read inside them)."""
    docs: list[Any] = []
    try:
        docs.append(json.loads(text))
    except ValueError:
        for line in text.splitlines():
            try:
                docs.append(json.loads(line))
            except ValueError:
                continue
    out: list[str] = []
    stack = docs[::-1]  # in the file's order: each container's items are pushed last first
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out += [item, item.strip()]
            # a Cursor or Antigravity transcript wraps what the person typed in tags
            out += [m.group(2).strip() for m in _USER_QUERY.finditer(item)]
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return out


_PARAGRAPH_SPLIT = re.compile(r"(\n[ \t]*\n)")
_QUOTE = re.compile(r"^>[ \t]?", re.MULTILINE)
_ALERT = re.compile(r"^\[![A-Z]+\][ \t]*\n")  # a GitHub alert's first line: `> [!IMPORTANT]`
# the longest run of paragraphs tried as one text (a long agent reply has a few dozen)
MAX_RUN = 40


# a prompt log's entry label ("**Prompt:**", "- **Промпт**:", "**用户输入：**", "12. **User**:"), an
# entry's number ("3. " before the prompt), a fenced block, a pair of quotes around a prompt, a
# table row's cells, a quoted prompt inside a line
_ENTRY_LABEL = re.compile(r"\A[ \t]*(?:(?:[-*]|[0-9]{1,4}[.)])[ \t]*)?\*\*[^*\n]{1,40}\*\*[ \t]*[:：]?[ \t]*")
_ENTRY_NUMBER = re.compile(r"\A[ \t]*[0-9]{1,4}[.)][ \t]+")
# a list item's plain label before a quoted prompt ("- Kérdés: \"…\"", "- Prompt: …")
_PLAIN_LABEL = re.compile(r"\A[ \t]*[-*][ \t]+[^\s:：*\"]{1,24}[ \t]*[:：][ \t]*")
# a heading that numbers the prompt it holds ("### 프롬프트 2: …", "## Prompt 3: …")
_HEADING_LABEL = re.compile(r"\A[ \t]*#{1,6}[ \t]+[^\n:：]{1,30}?[0-9]{1,4}[ \t]*[:：][ \t]*")
# a numbered list item whose prompt is in backticks ("2. `…`")
_NUMBERED_CODE = re.compile(r"\A[ \t]*[0-9]{1,4}[.)][ \t]+`([^`\n]+)`[ \t]*\Z")
_FENCED = re.compile(r"\A```[\w-]*\n(.*)\n```\Z", re.DOTALL)
_QUOTE_PAIRS = (('"', '"'), ("“", "”"), ("«", "»"), ("「", "」"))
_INLINE_QUOTED = re.compile(r'"([^"\n]{2,})"|“([^”\n]{2,})”|«([^»\n]{2,})»')


def entry_forms(run: str) -> list[str]:
    """The forms a prompt log (a Markdown file in which a person logged the prompts they typed,
    PROMPT_LOG.md, AI_PROMPTS.md) gives an entry of `run`: the run without its first lines (a
    heading, a timestamp, a label line; up to three), without an entry label (bold, or a list
    item's plain "- Question:") or number, out of its
    fence or its quotes, its `> ` markers removed; each trimmed."""
    lines = run.strip().split("\n")
    forms: list[str] = []
    for k in range(min(len(lines), 4)):  # a heading, a timestamp, a label line or three before it
        rest = "\n".join(lines[k:])
        forms += [rest.strip(), _ENTRY_LABEL.sub("", rest, count=1).strip()]
        forms.append(_PLAIN_LABEL.sub("", rest, count=1).strip())
        forms.append(_ENTRY_NUMBER.sub("", rest, count=1).strip())
    out: list[str] = []
    for form in forms:
        unquoted = _QUOTE.sub("", form).strip()
        for cand in (form, unquoted):
            fenced = _FENCED.match(cand)
            cand = fenced.group(1).strip() if fenced else cand
            out.append(cand)
            for a, b in _QUOTE_PAIRS:
                if len(cand) >= 2 and cand.startswith(a) and cand.endswith(b):
                    out.append(cand[1:-1].strip())
    return out


def line_parts(text: str) -> list[str]:
    """The cells of a prompt log's table rows, the quoted prompts inside its lines, what follows
    a line's entry label ("47. **User**: …", the agent's notes on the lines below) or a heading's
    numbered label ("### Prompt 2: …"), and a numbered item's prompt in backticks ("2. `…`")."""
    out: list[str] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        labelled = _ENTRY_LABEL.match(line) or _HEADING_LABEL.match(line)
        if labelled is not None:
            out.append(line[labelled.end() :].strip())
        coded = _NUMBERED_CODE.match(line)
        if coded is not None:
            out += [coded.group(1), coded.group(1).strip()]
        if line.lstrip().startswith("|"):
            out += [cell.strip() for cell in line.split("|")[1:-1]]
        quoted = [next(g for g in m.groups() if g is not None) for m in _INLINE_QUOTED.finditer(line)]
        out += quoted + [q.strip() for q in quoted]
    return out


# the unit kinds only an agent's own export of a session holds
_AGENT_ONLY = frozenset({"tool_call", "tool_result", "thinking"})
# the most lines a span of a prompt log is tried with (an entry cut where no blank line is)
MAX_SPAN_LINES = 400


def line_spans(text: str, wanted: set[str]) -> dict[str, str]:
    """The spans of up to MAX_SPAN_LINES consecutive lines, trimmed, whose hash is in `wanted`:
    a prompt log's entry between timestamp lines or before a heading, with no blank line around
    it; a span that opens on an entry label is tried without it and out of its quotes too (a
    prompt quoted over several lines, the next label on the line after it). Only the hits are
    kept."""
    lines = text.split("\n")
    out: dict[str, str] = {}
    for i in range(len(lines)):
        span = ""
        labelled = _ENTRY_LABEL.match(lines[i])
        for k in range(i, min(len(lines), i + MAX_SPAN_LINES)):
            span = lines[k] if k == i else f"{span}\n{lines[k]}"
            if len(span) > MAX_TEXT:
                break
            cands = [span.strip()]
            if labelled is not None:
                bare = span[labelled.end() :].strip()
                cands.append(bare)
                cands += [
                    bare[1:-1].strip()
                    for a, b in _QUOTE_PAIRS
                    if len(bare) >= 2 and bare[0] == a and bare[-1] == b
                ]
            for cand in cands:
                digest = sha256(cand)
                if digest in wanted:
                    out[digest] = cand
        if len(out) == len(wanted):
            break
    return out


def paragraph_runs(text: str, wanted: set[str], prompt_log: bool = False) -> dict[str, str]:
    """The runs of up to MAX_RUN consecutive paragraphs of a Markdown log whose hash is in
    `wanted`: the last resort for a part cut where no reader cuts (a log whose exporter TurnLens
    does not read); a quoted block (a prompt the exporter wrote as `> ` lines) is tried without
    its markers too. Only the hits are kept: a long log has millions of runs. A `prompt_log` (a
    Markdown file a person keeps, with no tool call and no thinking in it) is also tried in the
    forms such a log gives its entries (`entry_forms`, `line_parts`, `line_spans`)."""
    text = text.replace("\r\n", "\n").lstrip("\ufeff")
    # each paragraph with the break before it, so that a run is the file's text as it is
    pieces = _PARAGRAPH_SPLIT.split(text)
    paras = [pieces[0]] + [pieces[i] + pieces[i + 1] for i in range(1, len(pieces) - 1, 2)]
    out: dict[str, str] = {}
    for cand in line_parts(text) if prompt_log else []:
        digest = sha256(cand)
        if digest in wanted:
            out[digest] = cand
    for i in range(len(paras)):
        run = ""
        for k in range(i, min(len(paras), i + MAX_RUN)):
            run = paras[k].lstrip("\n") if k == i else run + paras[k]
            if len(run) > MAX_TEXT:
                break
            cands = [run, run.strip(), *(entry_forms(run) if prompt_log else ())]
            if run.lstrip().startswith(">"):
                cands.append(_ALERT.sub("", _QUOTE.sub("", run.strip())).strip())
            for cand in cands:
                digest = sha256(cand)
                if digest in wanted:
                    out[digest] = cand
        if len(out) == len(wanted):
            return out
    if prompt_log:
        out.update(line_spans(text, wanted - set(out)))
    return out


def pick(texts: Sequence[str], index: int, digest: str) -> str | None:
    """The unit whose hash is `digest`: the one at `index` first, then any."""
    if 1 <= index <= len(texts) and sha256(texts[index - 1]) == digest:
        return texts[index - 1]
    for text in texts:
        if sha256(text) == digest:
            return text
    return None


def _jsonl(path: Path) -> list[dict[str, Any]]:
    """A JSON Lines file's objects (`realtext_eval`'s reader); a missing file has none."""
    return _read_jsonl(path) if path.is_file() else []


class Files:
    """Session files read once each, split once each."""

    def __init__(self, root: Path, allow_clone: bool) -> None:
        self.root = root
        self.allow_clone = allow_clone
        self._repos: dict[str, Path | None] = {}
        self._blobs: dict[tuple[str, str, str], str | None] = {}
        self._readers: dict[tuple[str, str, str], list[ReaderUnit]] = {}
        self._units: dict[tuple[str, str, str], list[str]] = {}
        self._runs: dict[tuple[str, str, str], dict[str, str]] = {}
        self.wanted: dict[tuple[str, str, str], set[str]] = {}  # the hashes to seek in each file
        self._sought: dict[tuple[str, str, str], set[str]] = {}

    def repo(self, name: str) -> Path | None:
        if name not in self._repos:
            found = find_repo(self.root, name)
            if found is None and self.allow_clone:
                found = clone(self.root, name)
            self._repos[name] = found
        return self._repos[name]

    def blob(self, where: Where) -> str | None:
        """The file `where` names at its commit; None when it or its repository is not here."""
        key = (where.repo, where.path, where.rev)
        if key not in self._blobs:
            git_dir = self.repo(where.repo)
            self._blobs[key] = read_blob(git_dir, where.rev, where.path) if git_dir is not None else None
        return self._blobs[key]

    def readers(self, where: Where) -> list[ReaderUnit]:
        """(text, kind, call) of each unit TurnLens's readers give for the file `where` names."""
        key = (where.repo, where.path, where.rev)
        if key not in self._readers:
            blob = self.blob(where)
            self._readers[key] = reader_units(where.path, blob) if blob is not None else []
        return self._readers[key]

    def call(self, where: Where, digest: str) -> str | None:
        """The call the readers pair with the tool result whose hash is `digest` in the file
        `where` names (the one at its position first), else None."""
        if self.repo(where.repo) is None:
            return None
        units = self.readers(where)
        if 1 <= where.index <= len(units):
            text, kind, call = units[where.index - 1]
            if kind == "tool_result" and sha256(text) == digest:
                return call
        for text, kind, call in units:
            if kind == "tool_result" and call is not None and sha256(text) == digest:
                return call
        return None

    def units(self, where: Where) -> list[str] | None:
        """The unit texts of the file `where` names; None when the repository is not here."""
        if self.repo(where.repo) is None:
            return None
        key = (where.repo, where.path, where.rev)
        if key not in self._units:
            blob = self.blob(where)
            self._units[key] = unit_texts(where.path, blob, self.readers(where)) if blob is not None else []
        return self._units[key]

    def runs(self, where: Where) -> dict[str, str]:
        """The paragraph runs of a Markdown file `where` names whose hashes are sought in it
        (`wanted`), by hash; a file is searched again only for hashes not sought before."""
        key = (where.repo, where.path, where.rev)
        found = self._runs.setdefault(key, {})
        new = self.wanted.get(key, set()) - self._sought.setdefault(key, set())
        if new and where.path.lower().endswith((".md", ".markdown")):
            blob = self.blob(where)
            if blob is not None:
                # a prompt log a person keeps holds no tool call and no thinking, which an agent's
                # own export of a session does
                kinds = {kind for _, kind, _ in self.readers(where)}
                found.update(paragraph_runs(blob, new, prompt_log=not kinds & _AGENT_ONLY))
        self._sought[key] |= new
        return found


def rebuild(name: str, refs_dir: Path, cache: Path, files: Files) -> Counter[str]:
    """Recover set `name`'s texts into `cache/NAME.jsonl`; the count of each outcome."""
    refs = _jsonl(refs_dir / f"{name}.refs.jsonl")
    by_id = {str(r.get("id")): r for r in refs}
    out_path = cache / f"{name}.jsonl"
    kept: dict[str, dict[str, Any]] = {}
    tally: Counter[str] = Counter()
    for row in _jsonl(out_path):
        ref = by_id.get(str(row.get("id")))
        cached = row.get("text")
        if ref is not None and isinstance(cached, str) and sha256(cached) == ref.get("sha256"):
            kept[str(ref["id"])] = row
        else:
            tally["dropped from the cache"] += 1
    named = [w for w in (parse_source(str(r.get("source", ""))) for r in refs) if w is not None]
    for ref in refs:  # what each file is searched for, should its readers' units not hold it
        where = parse_source(str(ref.get("source", "")))
        if where is not None and str(ref.get("id")) not in kept:
            files.wanted.setdefault((where.repo, where.path, where.rev), set()).add(str(ref.get("sha256")))
    for ref in refs:
        rid, digest, source = str(ref.get("id")), str(ref.get("sha256")), str(ref.get("source", ""))
        if rid in kept:
            tally["cached"] += 1
            continue
        if _THREAD.match(source):
            tally["thread"] += 1
            continue
        where = parse_source(source)
        text: str | None = None
        if where is not None:
            texts = files.units(where)
            if texts is None:
                tally["no local copy"] += 1
                continue
            text = pick(texts, where.index, digest) or files.runs(where).get(digest)
        elif (m := _NO_FILE.match(source)) is not None:
            for other in dict.fromkeys(named):  # each file the set names, once
                text = pick(files.units(other) or [], int(m["n"]), digest)
                if text is not None:
                    break
        if text is None:
            tally["not found"] += 1
            log.info("%s: %s not found (%s)", name, rid, source[:160])
            continue
        kept[rid] = {k: ref[k] for k in FIELDS if k in ref} | {"text": text}
        tally["recovered"] += 1
    for ref in refs:  # each tool result's call, as the readers pair them (evidence for its class)
        result = kept.get(str(ref.get("id")))
        where = parse_source(str(ref.get("source", "")))
        if result is None or where is None or unit_kind(str(ref.get("kind") or "")) != "tool_result":
            continue
        call = files.call(where, str(ref.get("sha256")))
        if call is not None and result.get("call") != call:
            result["call"] = call
            tally["call paired"] += 1
    if kept:
        cache.mkdir(parents=True, exist_ok=True)
        order = [str(r.get("id")) for r in refs if str(r.get("id")) in kept]
        body = "".join(json.dumps(kept[i], ensure_ascii=False) + "\n" for i in order)
        tmp = out_path.with_suffix(".jsonl.tmp")
        tmp.write_text(body, encoding="utf-8")
        tmp.replace(out_path)
    return tally


def coverage(name: str, refs_dir: Path, cache: Path, files: Files) -> str:
    """How many of a set's cached texts from session files are units TurnLens's readers give,
    and of those with a labelled kind, how many the reader gives that kind: whether the
    product reads a log as the set was cut."""
    refs = {str(r.get("id")): r for r in _jsonl(refs_dir / f"{name}.refs.jsonl")}
    n = as_unit = kinded = same_kind = 0
    for row in _jsonl(cache / f"{name}.jsonl"):
        ref = refs.get(str(row.get("id")))
        where = parse_source(str(ref.get("source", ""))) if ref else None
        if ref is None or where is None or files.repo(where.repo) is None:
            continue
        n += 1
        kinds = {sha256(t): k for t, k, _ in files.readers(where)}
        digest = str(ref.get("sha256"))
        if digest not in kinds:
            continue
        as_unit += 1
        if ref.get("kind"):
            kinded += 1
            same_kind += unit_kind(str(ref["kind"])) == kinds[digest]
    kinds_said = f"; the reader's kind is the labelled one for {same_kind} of {kinded}" if kinded else ""
    return f"{name}: {as_unit} of {n} texts from session files are units of TurnLens's readers{kinds_said}"


def set_names(refs_dir: Path) -> list[str]:
    return sorted(p.name.removesuffix(".refs.jsonl") for p in refs_dir.glob("*.refs.jsonl"))


def report(name: str, total: int, tally: Counter[str]) -> str:
    have = tally["cached"] + tally["recovered"]
    parts: Iterable[str] = (f"{k} {v}" for k, v in sorted(tally.items()) if v)
    return f"{name}: {have} of {total} texts in the cache ({', '.join(parts)})"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("sets", nargs="*", help="set names (default: every set with refs)")
    parser.add_argument("--repos", type=Path, required=True, help="the folder of local repository copies")
    parser.add_argument("--clone", action="store_true", help="clone a repository that is not there")
    parser.add_argument("--refs", type=Path, default=REFS, help="the folder of NAME.refs.jsonl files")
    parser.add_argument("--cache", type=Path, help="the cache folder (default: $TURNLENS_REALTEXT_CACHE)")
    parser.add_argument("-v", "--verbose", action="store_true", help="name each row not found")
    parser.add_argument(
        "--readers",
        action="store_true",
        help="then say how many cached texts are units of TurnLens's readers, and with the labelled kind",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(message)s")
    names = args.sets or set_names(args.refs)
    unknown = [n for n in names if not (args.refs / f"{n}.refs.jsonl").is_file()]
    if unknown:
        sys.stderr.write(f"no refs for {', '.join(unknown)} in {args.refs}\n")
        return 2
    cache = args.cache.expanduser() if args.cache else cache_dir()
    files = Files(args.repos.expanduser(), args.clone)
    for name in names:
        total = len(_jsonl(args.refs / f"{name}.refs.jsonl"))
        sys.stdout.write(report(name, total, rebuild(name, args.refs, cache, files)) + "\n")
    if args.readers:
        for name in names:
            sys.stdout.write(coverage(name, args.refs, cache, files) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
