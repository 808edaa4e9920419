"""What a session unit of each kind can be: its kind is evidence for its class.

A tool call, a tool result, an agent's thinking and text a harness injects are not
turns of a conversation: nobody decides or chats in them. So the model chooses among
the classes the kind allows (docs/labels.md, "Session units by kind"), and a call
whose tool only runs a command or writes a file is code whatever its arguments say. An
agent's reply is not a decision (the person decides, in a prompt). A person's prompts and
the turns of threads and plain text keep every class.
"""

from __future__ import annotations

import json
import re
from typing import Final

from turnlens.core.commands import SHELL_TOOLS, Evidence, call_evidence
from turnlens.core.prebuilt import compile_re

# not conversation: machine traffic and text nobody in the thread wrote to the others
_NOT_SPOKEN: Final = ("spec", "code", "review", "context")
KIND_CLASSES: Final[dict[str, tuple[str, ...]]] = {
    "tool_call": _NOT_SPOKEN,
    "tool_result": _NOT_SPOKEN,
    "thinking": ("spec", "code", "review", "context"),
    "injected": _NOT_SPOKEN,
    "system": _NOT_SPOKEN,
    "summary": _NOT_SPOKEN,
    # a command a person ran in the session (`!ls`, a shell escape): machine text
    "command": ("code",),
    # the agent's own message: it explains, proposes, reports and asks; the person decides, in a
    # prompt, so what a reply proposes or narrates is not a decision of the session
    "reply": ("spec", "code", "review", "context", "chitchat"),
}

# tools whose call is a command line or a file write: the call is code
_ACTION_TOOLS: Final = SHELL_TOOLS | frozenset(
    {
        "edit",
        "multiedit",
        "write",
        "edit_file",
        "write_file",
        "create_file",
        "apply_patch",
        "replace",
        "str_replace_editor",
        "str_replace_based_edit_tool",
        "notebookedit",
        "python",
        "killshell",
        "killbash",
        # Codex's input to a command still running
        "write_stdin",
    }
)
# tools with which the agent sets its own plan: a todo list states what must be done
_PLAN_TOOLS: Final = frozenset(
    {"todowrite", "todo_write", "update_plan", "write_todos", "todo", "taskcreate"}
)
# tools that move a task of that plan along (Claude Code's `TaskUpdate`): a call that only sets
# a task's status or owner is bookkeeping, context; one that rewrites the task states it again
_STATUS_TOOLS: Final = frozenset({"taskupdate"})
_STATUS_ARGS: Final = frozenset({"taskId", "status", "owner", "activeForm"})
# tools that look things up: a path, a pattern or a query is code or context, never a spec
_LOOKUP_TOOLS: Final = frozenset(
    {
        "read",
        "read_file",
        "view",
        "grep",
        "glob",
        "ls",
        "list_dir",
        "list_directory",
        "search",
        "find",
        "codebase_search",
        "file_search",
        "grep_search",
        "web_search",
        "websearch",
        "webfetch",
        "web_fetch",
        "fetch",
        "toolsearch",
        "bashoutput",
        "notebookread",
        "taskoutput",
        "tasklist",
        "taskget",
        "google_web_search",
        "read_many_files",
        "search_file_content",
        "view_image",
        # Codex's wait on a script still running: it reads the output so far
        "wait",
    }
)
# tools with which the agent asks the person (a question, options to pick from): the agent
# proposes and asks, the person decides in the answer, so the question is context
_ASK_TOOLS: Final = frozenset({"askuserquestion", "request_user_input", "ask_followup_question", "ask_user"})
# `Bash: du -sh .` as the session readers write a call; Markdown exports of sessions put an
# emoji and bold around it (`💻 **Bash: Run the tests**`)
# each run of blanks follows something else (a symbol, `**`), so that no two runs meet: a line
# of blanks alone is read once, not once per way of splitting it between them
_TOOL_NAME = compile_re(r"\A[ \t]*(?:[^\w\s*]{1,4}[ \t]*)?(?:\*\*[ \t]*)?([A-Za-z][\w.\-]{0,63}):")
# SpecStory's Markdown exports open a tool call with `<tool-use data-tool-type="shell"
# data-tool-name="run_terminal_cmd">`; the type alone says a command, a write or a lookup
_TOOL_USE = compile_re(
    r'\A\s*<tool-use\b[^>\n]{0,300}?\bdata-tool-type="(\w{1,20})"(?:[^>\n]{0,200}?\bdata-tool-name="([\w.\-]{1,64})")?'
)
_TYPE_TOOL = {"shell": "bash", "write": "write", "read": "read", "search": "grep"}


def tool_name(text: str) -> str | None:
    """The tool of a call as the session readers write it (`Bash: du -sh .`) or as a
    SpecStory `<tool-use>` element names it, lower-cased."""
    m = _TOOL_USE.match(text)
    if m is not None:
        kind, name = m.group(1).lower(), (m.group(2) or "").lower()
        return _TYPE_TOOL.get(kind) or name or None
    m = _TOOL_NAME.match(text)
    if m is None:
        return None
    name = m.group(1).lower()
    # MCP tools are written mcp__server__tool: the last part names the action
    return name.rsplit("__", 1)[-1]


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
# the standing text an agent's client sends with every session, not the project's instructions:
# Codex's sandbox rules, collaboration mode, environment, skills list, app context, model
# switch notes and its note that a turn was stopped. A reminder, so context (a project's
# AGENTS.md is not among them)
_CLIENT_TEXT = compile_re(
    r"\A\s*+<(?:permissions instructions|collaboration_mode|environment_context|skills_instructions"
    r"|app-context|turn_aborted|model_switch)>"
)
# a notice the agent's client writes when the person stops it: a caveat, context
_INTERRUPTED = compile_re(r"\A\s*+\[Request interrupted by user[^\]\n]{0,80}\]\s*+\Z")
# notices Claude Code puts into the person's message: a background task's progress (one that
# carries the task's own report, `<result>`, is a tool result in all but name and is read as
# one), the caveat over a local command's output, the file the person has open. Context
_CLIENT_NOTICE = compile_re(r"\A\s*+<(?:task-notification|local-command-caveat|ide_opened_file)>")
_NOTICE_RESULT = compile_re(r"<result>")
# a tool's acknowledgement that an action went through, the whole of some results (the guide:
# "command chatter … is context"): Claude Code's Edit, Write, TaskCreate, TaskUpdate, TodoWrite
# and Bash, Gemini CLI's write_file and replace, Codex's apply_patch. Gemini's write_file
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
    r"|Success\. Updated the following files:(?:[ \t]*+\r?\n[MAD] [^\n]{1,1000}+)*+)"
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
_SHAPE_HEAD = 16384
_SHAPE_PERCENT = 80


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


def _failed(text: str) -> bool:
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
    head = text[start:][:_SHAPE_HEAD]
    truncated = _TRUNCATED.match(head) if envelope is not None else None
    if truncated is not None:
        head = head[truncated.end() :]
    if _FRONT_MATTER.match(head):
        return ("code",), "a file printed with its front matter is a file's content: code"
    lines = [line for line in head.split("\n") if line.strip()]
    if envelope is not None and not lines:
        return ("context", "review"), "the command printed nothing: chatter, or a silent verdict"
    if len(text) <= _SHAPE_HEAD and _ACK.match(text):
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


def result_classes(text: str) -> tuple[str, ...] | None:
    """The class a tool result's shape settles, else None (`result_evidence` without the why)."""
    found = result_evidence(text)
    return found[0] if found is not None else None


def _call_args(text: str) -> dict[str, object] | None:
    """The arguments of a call the readers write as `Tool: {json}` (None when they are not a
    JSON object on one line)."""
    _name, sep, rest = text.partition(": ")
    rest = rest.strip()
    if not sep or "\n" in rest or not rest.startswith("{") or len(rest) > _SHAPE_HEAD:
        return None
    try:
        args = json.loads(rest)
    except ValueError:
        return None
    return args if isinstance(args, dict) else None


def _lookup_classes(text: str) -> tuple[str, ...]:
    """A look-up call's classes: a path, a pattern or a query alone (the call on one line, each
    argument one line) is context; a call that pastes text (a snippet to find) may be code."""
    if "\n" in text.strip():
        return ("code", "context")
    args = _call_args(text) if text.partition(":")[2].strip().startswith("{") else {}
    if args is not None and all(not isinstance(v, str) or "\n" not in v for v in args.values()):
        return ("context",)
    return ("code", "context")


# why a kind's classes are what they are, when nothing narrows them further
_KIND_WHY: Final = {
    "tool_call": "a tool call is machine traffic, not conversation",
    "tool_result": "a tool result is machine traffic, not conversation",
    "thinking": "the agent's thinking is not conversation",
    "injected": "text the client added is not conversation",
    "system": "a system text is not conversation",
    "summary": "a summary is not conversation",
    "command": "a command a person ran is code",
    "reply": "the agent's own message: the person decides, in a prompt",
}


def kind_evidence(
    kind: str | None, text: str, call: str | None = None
) -> tuple[tuple[str, ...] | None, str | None]:
    """The classes a unit of `kind` may take (None: any class, as for a conversation turn) and
    why, for the views. `call`: for a tool result, the text of the call that produced it, where
    the reader knows it (`Unit.call`): what the call ran settles what the result is when its
    shape does not."""
    if kind is None:
        return None, None
    allowed = KIND_CLASSES.get(kind)
    why = _KIND_WHY.get(kind)
    if kind == "tool_result":
        settled = result_evidence(text)
        if settled is None and call is not None:
            settled = call_evidence(call, tool_name(call))
            # a command that failed printed its error, not what it prints (a failed test run's
            # output is still its verdict)
            if settled is not None and settled[0] != ("review",) and _failed(text):
                settled = None
        return settled if settled is not None else (allowed, why)
    if kind == "injected" and _INTERRUPTED.match(text):
        return ("context",), "the client's interruption notice is context"
    if kind in ("system", "injected") and _CLIENT_TEXT.match(text):
        return ("context",), "the client's standing text is context"
    if kind == "injected" and _CLIENT_NOTICE.match(text) and not _NOTICE_RESULT.search(text, 0, _SHAPE_HEAD):
        return ("context",), "the client's notice is context"
    if allowed is None or kind != "tool_call":
        return allowed, why
    name = tool_name(text)
    if name in _ACTION_TOOLS:
        return ("code",), f"{name} runs a command or writes a file: code"
    if name in _PLAN_TOOLS:
        return ("spec",), f"{name} sets the agent's plan: spec"
    if name in _LOOKUP_TOOLS:
        found = _lookup_classes(text)
        return found, f"{name} looks something up: " + (
            "context" if found == ("context",) else "context or code"
        )
    if name in _ASK_TOOLS:
        return ("context",), f"{name} asks the person: context"
    if name in _STATUS_TOOLS:
        args = _call_args(text)
        if args is not None and args.keys() <= _STATUS_ARGS:
            return ("context",), f"{name} only moves a task's status: context"
        return ("spec", "context"), f"{name} restates a task"
    return allowed, why


def allowed_classes(kind: str | None, text: str, call: str | None = None) -> tuple[str, ...] | None:
    """The classes a unit of `kind` may take (None: any class, as for a conversation turn);
    `kind_evidence` without the why."""
    return kind_evidence(kind, text, call)[0]
