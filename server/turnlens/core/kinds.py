"""What a session unit of each kind can be: its kind is evidence for its class.

A tool call, a tool result, an agent's thinking and text a harness injects are not
turns of a conversation: nobody decides or chats in them. So the model chooses among
the classes the kind allows (docs/labels.md, "Session units by kind"), and a call
whose tool only runs a command or writes a file is code whatever its arguments say. An
agent's reply is not a decision (the person decides, in a prompt). A person's prompts and
the turns of threads and plain text keep every class.
"""

from __future__ import annotations

import re
from typing import Final

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
_ACTION_TOOLS: Final = frozenset(
    {
        "bash",
        "shell",
        "exec",
        "exec_command",
        "execute_command",
        "run_command",
        "run_shell_command",
        "run_terminal_cmd",
        "terminal",
        "local_shell",
        "container.exec",
        "powershell",
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
    }
)
# tools with which the agent sets its own plan: a todo list states what must be done
_PLAN_TOOLS: Final = frozenset({"todowrite", "todo_write", "update_plan", "write_todos", "todo"})
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
    }
)
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


def result_classes(text: str) -> tuple[str, ...] | None:
    """The class a tool result's shape settles (a numbered file, a listing, search hits, a
    command that printed nothing), else None. A shell tool's envelope is read past."""
    envelope = _ENVELOPE.match(text)
    head = text[envelope.end() if envelope is not None else 0 :][:_SHAPE_HEAD]
    lines = [line for line in head.split("\n") if line.strip()]
    if envelope is not None and not lines:
        return ("context", "review")  # nothing printed: chatter, or a silent verdict
    if len(lines) < 2:
        return None
    if _share(_NUMBERED_LINE, lines):
        return ("code",)
    if any(_share(p, lines) for p in (_LISTED_LINE, _PATH_LINE, _HIT_LINE)):
        return ("context",)
    return None


def allowed_classes(kind: str | None, text: str) -> tuple[str, ...] | None:
    """The classes a unit of `kind` may take (None: any class, as for a conversation turn)."""
    if kind is None:
        return None
    allowed = KIND_CLASSES.get(kind)
    if kind == "tool_result":
        return result_classes(text) or allowed
    if kind == "injected" and _INTERRUPTED.match(text):
        return ("context",)
    if kind in ("system", "injected") and _CLIENT_TEXT.match(text):
        return ("context",)
    if allowed is None or kind != "tool_call":
        return allowed
    name = tool_name(text)
    if name in _ACTION_TOOLS:
        return ("code",)
    if name in _PLAN_TOOLS:
        return ("spec",)
    if name in _LOOKUP_TOOLS:
        return ("code", "context")
    return allowed
