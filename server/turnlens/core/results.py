"""What a tool result's text shows: the shapes that settle its class (docs/labels.md,
"Session units by kind").

A numbered file is a file's content (code), a listing or search hits are context, a tool's own
acknowledgement is chatter (context) and its own error code, whatever the words inside say. A
shell tool's envelope (Codex's `Chunk ID`, `Wall time`, `Exit code` … `Output:`; Gemini CLI's
`Command`, `Directory`) is read past. Each shape is a harness's fixed format or one the guide
names, and a result read only so far (`SHAPE_HEAD`).
"""

from __future__ import annotations

import re
from typing import Final

from turnlens.core.commands import Evidence
from turnlens.core.prebuilt import compile_re

# a file's content as the agents' read tools return it, each line numbered (`cat -n`: Claude
# Code's `Read` writes `     1→text`, older versions and `cat -n` a tab): code, whatever the
# file holds (the guide: "a file's content … is code")
_NUMBERED_LINE = compile_re(r"\A[ \t]*+\d{1,7}+(?:\t|→)")
# a directory listing as the list tools return it: one path per `- ` line, nested by indent
# (`- /repo/\n  - src/\n    - main.py`): context (the guide: "a listing … is context")
_LISTED_LINE = compile_re(r"\A[ \t]*+- \S++[ \t]*+\r?$")
# the lines an agent's shell tool writes around a command's output, up to `Output:` (Codex:
# `Chunk ID: …`, `Wall time: …`, `Process exited with code 0`, `Original token count: …`, or
# `Exit code: 0`; Gemini CLI: `Command: …`, `Directory: …`): the harness's, not the output's
_ENVELOPE = compile_re(
    r"\A(?:[ \t]*+(?:Chunk ID|Wall time|Process exited with code|Process running with session ID"
    r"|Original token count|Total output lines|Exit code|Script completed|Script running with cell ID"
    r"|Command|Directory)\b[^\n]{0,300}+\n){1,8}+[ \t]*+Output:[ \t]*+"
)
# what Codex writes under `Output:` when it cut a long output: read past like the envelope
_TRUNCATED = compile_re(
    r"\A\s*+(?:(?:Warning: truncated output\b|Total output lines:)[^\n]{0,200}+\n\s*+){1,2}+"
)
# the exit code in a shell tool's envelope, and the harness's own word that a command failed
_EXIT_CODE = compile_re(r"(?:Process exited with code|Exit code:?)[ \t]*+(-?\d{1,6}+)")
_TOOL_FAILED = compile_re(r"\A\s*+(?:execution error:|command timed out after|aborted by user)")
# a file that opens with YAML front matter (`---`, `name: …`, `description: …`, `---`), as skill
# files, docs pages and posts do: printed by a command, it is a file's content, code
_FRONT_MATTER = compile_re(
    r"\A\s*+---[ \t]*+\r?\n(?:[\w-]{1,40}+:[^\n]{0,4000}+\n){1,30}+---[ \t]*+\r?(?:\n|\Z)"
)
# a listing a command printed, one path per line (`rg --files`, `find`, `git ls-files`, `ls -1`)
_PATH_LINE = compile_re(r"\A[ \t]*+[^\s/\\.]*+[/\\.]\S*+[ \t]*+\r?$")
# search hits: `path:line:` (or `path:line-` for context lines), as grep -n and rg print them
_HIT_LINE = compile_re(r"\A[ \t]*+[^\s:]++:\d{1,7}+[:-]")
# a tool's acknowledgement that an action went through, the whole of some results (the guide:
# "command chatter … is context"): Claude Code's Edit, Write, TaskCreate, TaskUpdate, TodoWrite
# and Bash, Gemini CLI's write_file and replace, Codex's apply_patch, and AskUserQuestion's
# note that the person answered nothing. Gemini's write_file
# result that goes on with "Here is the updated code:" and the file is not one
_ACK = compile_re(
    r"\A\s*+(?:The file [^\n]{1,1000}+(?<= has been updated successfully\.)"
    r"|The file [^\n]{1,1000}+(?<= All occurrences were successfully replaced\.)"
    r"|File created successfully at: [^\n]{1,1000}+"
    r"|Task #\d{1,9}+ created successfully: [^\n]{0,1000}+"
    r"|Updated task #\d{1,9}+ [\w, ]{1,80}+"
    r"|Todos have been modified successfully\.[^\n]{0,1000}+"
    r"|\((?:Bash completed|No content|Command completed) with no output\)"
    r"|Successfully (?:created and wrote to new file|overwrote file|modified file): \S++(?<!:)"
    r"|Success\. Updated the following files:(?:[ \t]*+\r?\n[MAD] [^\n]{1,1000}+)*+"
    r"|User submitted without answering any questions\.)"
    r"\s*+\Z"
)
# the count a search tool writes over its hits (Claude Code's Grep and Glob: `Found 3 files`),
# and "No files found" alone: a search's hits, or that it found none, context
_FOUND = compile_re(r"\A[ \t]*+(?:Found \d{1,9}+ (?:files?|lines?|matches|match)\b[^\n]{0,200}+)\r?\n")
_NOTHING_FOUND = compile_re(r"\A\s*+(?:No files found|No matches found)\s*+\Z")
# a tool's own error, as Claude Code wraps it: the guide's "an error … is code"
_TOOL_ERROR = compile_re(r"\A\s*+<tool_use_error>")
# a table as PowerShell's Format-Table prints one (`Get-ChildItem`, `Get-Process`): a header,
# then a line of dash runs under its columns. A listing, context
_TABLE_RULE = compile_re(r"\A[ \t]*+-{2,}+(?:[ \t]++-{2,}+)++[ \t]*+\r?$")
# the colour codes PowerShell 7 writes around a table's header and rule
_SGR = compile_re(r"\x1b\[[\d;]{0,12}+m")
# the one path a command printed, when it printed one line: absolute (`/…`, `~/…`, `C:\…`) or
# relative to here (`./…`), nothing a path does not hold (spaces, quotes, braces)
_ONE_PATH = compile_re(r"\A[ \t]*+(?:[A-Za-z]:[\\/]|~/|\.{0,2}/)[^\s\"'{}<>|]++[ \t]*+\r?$")

# how much of a result the shape is read from, and the share of its lines that must have it
SHAPE_HEAD: Final = 16384
_SHAPE_PERCENT: Final = 80


def _share(pattern: re.Pattern[str], lines: list[str]) -> bool:
    """Whether at least `_SHAPE_PERCENT` % of `lines` (the non-blank lines of a result's head, two or
    more) start with the shape `pattern` matches."""
    if len(lines) < 2:
        return False
    misses = 0
    allowed = len(lines) - -(-_SHAPE_PERCENT * len(lines) // 100)  # exact: no float rounding
    for line in lines:
        if pattern.match(line) is None:
            misses += 1
            if misses > allowed:  # most results leave after a few lines
                return False
    return True


def failed(text: str) -> bool:
    """Whether a tool result says its command failed: a shell tool's non-zero exit code, or
    the harness's own failure (a timeout, a sandbox error)."""
    if _TOOL_FAILED.match(text):
        return True
    envelope = _ENVELOPE.match(text)
    if envelope is None:
        return False
    code = _EXIT_CODE.search(text, 0, envelope.end())
    return code is not None and code.group(1) != "0"


def _is_table(lines: list[str]) -> bool:
    """Whether a result opens with a Format-Table table: its first or second line is the rule
    of dash runs under the header."""
    return any(_TABLE_RULE.match(_SGR.sub("", line)) is not None for line in lines[1:3])


def result_evidence(text: str) -> Evidence | None:
    """The class a tool result's shape settles (a numbered file, a listing, search hits, a
    tool's acknowledgement or error, a search's count, a command that printed nothing) and
    why, else None. A shell tool's envelope is read past."""
    if _TOOL_ERROR.match(text):
        return ("code",), "a tool's own error is code"
    if _NOTHING_FOUND.match(text) or _FOUND.match(text):
        return ("context",), "a search's count and hits are context"
    envelope = _ENVELOPE.match(text)
    start = envelope.end() if envelope is not None else 0
    head = text[start:][:SHAPE_HEAD]
    truncated = _TRUNCATED.match(head) if envelope is not None else None
    if truncated is not None:
        head = head[truncated.end() :]
    if _FRONT_MATTER.match(head):
        return ("code",), "a file printed with its front matter is a file's content: code"
    lines = [line for line in head.split("\n") if line.strip()]
    if envelope is not None and not lines:
        return ("context", "review"), "the command printed nothing: chatter, or a silent verdict"
    if len(text) <= SHAPE_HEAD and _ACK.match(text):
        return ("context",), "the tool's acknowledgement is context"
    if envelope is not None and len(lines) == 1 and _ONE_PATH.match(lines[0]):
        return ("context",), "the one path a command printed is context"
    if len(lines) < 2:
        return None
    if _share(_NUMBERED_LINE, lines):
        return ("code",), "a numbered file (a read tool's output) is a file's content: code"
    if any(_share(p, lines) for p in (_LISTED_LINE, _PATH_LINE, _HIT_LINE)) or _is_table(lines):
        return ("context",), "a listing or search hits are context"
    return None
