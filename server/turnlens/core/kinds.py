"""What a session unit of each kind can be: its kind is evidence for its class.

A tool call, a tool result, an agent's thinking and text a harness injects are not
turns of a conversation: nobody decides or chats in them. So the model chooses among
the classes the kind allows (docs/labels.md, "Session units by kind"), and a call
whose tool only runs a command or writes a file is code whatever its arguments say. An
agent's reply is not a decision (the person decides, in a prompt, or in the answer the client
hands back when the agent asked them: that result is a decision). A person's prompts and
the turns of threads and plain text keep every class, but a prompt that is only a pick among
options or a go-ahead is a decision (`turnlens.core.picks`); one of a few words that asks for
something is a request (neither chitchat nor a review), one of nothing but command lines is
code, and one that sets a standing rule or lists points is kept word for word
(`turnlens.core.prompt_shapes`); a thread message that says a triage outcome is a decision,
one that is only a +1 or a ping chitchat (`turnlens.core.outcomes`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from turnlens.core.commands import SHELL_TOOLS, call_args, call_evidence, command_evidence, main_command
from turnlens.core.outcomes import turn_evidence
from turnlens.core.picks import (
    GO_AHEAD_WHY,
    PICK_WHY,
    SAID_WHY,
    STATED_WHY,
    answered_go_ahead,
    bare_pick,
    said_go_ahead,
    stated_choice,
)
from turnlens.core.prebuilt import compile_re
from turnlens.core.prompt_shapes import (
    ASK_WHY,
    COMMANDS_WHY,
    COMMIT_WHY,
    CONDITIONS_WHY,
    ERROR_WHY,
    FAILURE_CLASSES,
    FAILURE_WHY,
    LIST_WHY,
    REQUEST_CLASSES,
    REQUEST_WHY,
    RULE_WHY,
    asks,
    asks_to_commit,
    asks_without_choice,
    command_lines,
    lists_points,
    pasted_error,
    reports_failure,
    standing_rule,
    states_conditions,
)
from turnlens.core.results import SHAPE_HEAD, failed, result_evidence

if TYPE_CHECKING:
    from collections.abc import Callable

# not conversation: machine traffic and text nobody in the thread wrote to the others
_NOT_SPOKEN: Final = ("spec", "code", "review", "context")
KIND_CLASSES: Final[dict[str, tuple[str, ...]]] = {
    "tool_call": _NOT_SPOKEN,
    "tool_result": _NOT_SPOKEN,
    # the agent's reasoning, checks and plans alike: what it settles reaches the person in its
    # reply or its next tool call, so the reasoning itself is never kept word for word
    "thinking": ("context",),
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
        # Cursor's edit tools, as SpecStory exports name them
        "search_replace",
        "delete_file",
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
# the person's answer, as the client hands it back as the asking tool's result, is where they
# decide: Claude Code's `User has answered your questions: "…"="…"` (AskUserQuestion) and
# `User has approved your plan` / `… approved exiting plan mode` (ExitPlanMode, the plan
# attached); Codex's answers by question as JSON (`{"answers": {"q1": {"answers": [...]}}}`),
# read as one only where the call is known to have asked. A decision, kept word for word
_ANSWERED = compile_re(
    r"\A\s*+User has (?:answered your questions?:|approved (?:your plan|exiting plan mode)\b)"
)
_ANSWERS_JSON = compile_re(r'\A\s*+\{\s*+"answers"\s*+:\s*+\{')
_ANSWER_WHY = "the person's answer to the agent's question, or their approval of its plan: decision"
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
# SpecStory's exports of late 2025 open a tool's part with a line of its own naming the tool
# (`Tool use: **run_terminal_cmd**`), then the call and what it gave
_TOOL_USE_LINE = compile_re(r"\A\s*+Tool use:[ \t]*+\*\*([A-Za-z][\w.\-]{0,63}+)\*\*")

# a Markdown export that keeps a command with what it printed, in one part: the tool's line, the
# command in a fence, then the output in a fence of its own (`💻 **Bash: Run the tests**`,
# SpecStory's `Tool use: **run_terminal_cmd**`)
_EXPORTED_RUN = compile_re(
    r"\A[^\n]{0,300}\n(?:[ \t]*\n){0,3}```[\w+-]{0,20}[ \t]*\n([^`]{1,2000}?)\n```[ \t]*\n(?:[ \t]*\n){0,3}```"
)


# an agent's message that only leads into its next step ("Let's fix the config test:", "现在让我
# 检查一下配置："): one paragraph, no code, ending on a colon
_LEAD_IN_MAX = 400
_LEAD_IN_WHY = "the agent says what it does next: context (what it does is the call that follows)"


def _leads_in(text: str) -> bool:
    """Whether a reply is one paragraph of at most `_LEAD_IN_MAX` characters that ends on a
    colon: the agent announcing the tool call that follows, which carries the substance."""
    body = text.strip()
    return (
        0 < len(body) <= _LEAD_IN_MAX
        and body.endswith((":", "："))
        and "\n\n" not in body.replace("\r", "")
        and "```" not in body
        and "~~~" not in body
    )


def tool_name(text: str) -> str | None:
    """The tool of a call as the session readers write it (`Bash: du -sh .`) or as a
    SpecStory export names it (a `<tool-use>` element, a `Tool use: **name**` line), lower-cased."""
    m = _TOOL_USE.match(text)
    if m is not None:
        kind, name = m.group(1).lower(), (m.group(2) or "").lower()
        return _TYPE_TOOL.get(kind) or name or None
    m = _TOOL_USE_LINE.match(text) or _TOOL_NAME.match(text)
    if m is None:
        return None
    name = m.group(1).lower()
    # MCP tools are written mcp__server__tool: the last part names the action
    return name.rsplit("__", 1)[-1]


# the standing text an agent's client sends with every session, not the project's instructions:
# Codex's sandbox rules, collaboration mode, environment, lists of the skills, plugins and apps
# at hand, app context, model switch notes and its note that a turn was stopped. A reminder, so
# context (a project's AGENTS.md is not among them)
_CLIENT_TEXT = compile_re(
    r"\A\s*+<(?:permissions instructions|collaboration_mode|environment_context|skills_instructions"
    r"|plugins_instructions|apps_instructions|recommended_plugins|multi_agent_mode"
    r"|app-context|turn_aborted|model_switch)>"
)
# the body of a skill the agent loaded for the work, as Claude Code passes it on (`Base directory
# for this skill: …`, then the skill's SKILL.md): instructions the work must follow, spec as a
# project's AGENTS.md is
_SKILL_BODY = compile_re(r"\A\s*+Base directory for this skill:")
# a project's instructions for its agents as Codex passes them on: its `AGENTS.md` under
# `# AGENTS.md instructions for <folder>` (since 2025's autumn; `<user_instructions>` before):
# how the work must be done, spec
_PROJECT_INSTRUCTIONS = compile_re(r"\A\s*+(?:# AGENTS\.md instructions for |<user_instructions>)")
# text the client passes on at a session's start, by its opening: the classes and why
_STANDING_TEXTS: Final = (
    (_CLIENT_TEXT, ("context",), "the client's standing text is context"),
    (_SKILL_BODY, ("spec",), "a skill's instructions, loaded for the work, are spec"),
    (_PROJECT_INSTRUCTIONS, ("spec",), "a project's instructions for its agents (its AGENTS.md) are spec"),
)
# a notice the agent's client writes when the person stops it: a caveat, context
_INTERRUPTED = compile_re(r"\A\s*+\[Request interrupted by user[^\]\n]{0,80}\]\s*+\Z")
# notices Claude Code puts into the person's message: a background task's progress (one that
# carries the task's own report, `<result>`, is a tool result in all but name and is read as
# one), the caveat over a local command's output, the file the person has open. Context
_CLIENT_NOTICE = compile_re(r"\A\s*+<(?:task-notification|local-command-caveat|ide_opened_file)>")
_NOTICE_RESULT = compile_re(r"<result>")


def _lookup_classes(text: str) -> tuple[str, ...]:
    """A look-up call's classes: a path, a pattern or a query alone (the call on one line, each
    argument one line) is context; a call that pastes text (a snippet to find) may be code."""
    if "\n" in text.strip():
        return ("code", "context")
    if not text.partition(":")[2].strip().startswith("{"):
        return ("context",)  # a path or a query as written
    args = call_args(text)
    if args is not None and all(not isinstance(v, str) or "\n" not in v for v in args.values()):
        return ("context",)
    return ("code", "context")


# why a kind's classes are what they are, when nothing narrows them further
_KIND_WHY: Final = {
    "tool_call": "a tool call is machine traffic, not conversation",
    "tool_result": "a tool result is machine traffic, not conversation",
    "thinking": "the agent's reasoning is context",
    "injected": "text the client added is not conversation",
    "system": "a system text is not conversation",
    "summary": "a summary is not conversation",
    "command": "a command a person ran is code",
    "reply": "the agent's own message: the person decides, in a prompt",
}

# what a person's prompt may be by its shape, asked in this order (`core.picks`,
# `core.prompt_shapes`): a pick, a go-ahead or a choice said decides; a pasted error (npm's
# `npm ERR!` lines too, before they read as command lines) and command lines are code; a
# standing rule or a list of points is kept word for word; a request that states conditions is a
# spec (code where it is mostly a paste); a commit or push asked for is a request, no decision; a
# request of a few words is neither chitchat nor a review
_PROMPT_SHAPES: Final[tuple[tuple[Callable[[str], bool], tuple[str, ...], str], ...]] = (
    (bare_pick, ("decision",), PICK_WHY),
    (answered_go_ahead, ("decision",), GO_AHEAD_WHY),
    (stated_choice, ("decision",), STATED_WHY),
    (said_go_ahead, ("decision",), SAID_WHY),
    (pasted_error, ("code",), ERROR_WHY),
    (command_lines, ("code",), COMMANDS_WHY),
    (standing_rule, ("decision", "spec"), RULE_WHY),
    (lists_points, ("decision", "spec", "code"), LIST_WHY),
    (states_conditions, ("spec", "code"), CONDITIONS_WHY),
    (asks_to_commit, ("spec", "code", "context"), COMMIT_WHY),
    (asks_without_choice, REQUEST_CLASSES, REQUEST_WHY),
    (asks, ("decision", "spec", "code", "context"), ASK_WHY),
    (reports_failure, FAILURE_CLASSES, FAILURE_WHY),
)


def kind_evidence(
    kind: str | None, text: str, call: str | None = None
) -> tuple[tuple[str, ...] | None, str | None]:
    """The classes a unit of `kind` may take (None: any class, as for a conversation turn whose
    words settle none) and why, for the views. `call`: for a tool result, the text of the call
    that produced it, where the reader knows it (`Unit.call`): what the call ran settles what
    the result is when its shape does not."""
    if kind is None:
        # a conversation turn: any class, unless its own words settle it (a triage outcome, a +1)
        settled = turn_evidence(text)
        return settled if settled is not None else (None, None)
    allowed = KIND_CLASSES.get(kind)
    why = _KIND_WHY.get(kind)
    if kind == "tool_result":
        tool = tool_name(call) if call is not None else None
        if _ANSWERED.match(text) or (tool in _ASK_TOOLS and _ANSWERS_JSON.match(text)):
            return ("decision",), _ANSWER_WHY
        settled = result_evidence(text)
        if (settled is None or len(settled[0]) > 1) and call is not None:
            by_call = call_evidence(call, tool)
            # a command that failed printed its error, not what it prints (a failed test run's
            # output is still its verdict)
            if by_call is not None and by_call[0] != ("review",) and failed(text):
                by_call = None
            if settled is None:
                settled = by_call
            elif by_call is not None:
                # the shape leaves some classes open (a command that printed nothing: chatter or
                # a silent verdict); what the call ran picks among them
                both = tuple(c for c in settled[0] if c in by_call[0])
                if both and both != settled[0]:
                    settled = both, f"{settled[1]}; {by_call[1]}"
        return settled if settled is not None else (allowed, why)
    if kind == "injected" and _INTERRUPTED.match(text):
        return ("context",), "the client's interruption notice is context"
    if kind in ("system", "injected"):
        for opening, classes, because in _STANDING_TEXTS:
            if opening.match(text):
                return classes, because
    if kind == "injected" and _CLIENT_NOTICE.match(text) and not _NOTICE_RESULT.search(text, 0, SHAPE_HEAD):
        return ("context",), "the client's notice is context"
    if kind == "reply" and _leads_in(text):
        return ("context",), _LEAD_IN_WHY
    if kind == "prompt":
        # a person's prompt: any class, unless its shape settles it, the first that holds
        for holds, shaped, said in _PROMPT_SHAPES:
            if holds(text):
                return shaped, said
        return None, None
    if allowed is None or kind != "tool_call":
        return allowed, why
    name = tool_name(text)
    if name in SHELL_TOOLS:
        run = _EXPORTED_RUN.match(text)
        verdict = command_evidence(main_command(run.group(1))) if run is not None else None
        if verdict is not None and verdict[0] == ("review",):
            # what the unit says is the check's verdict, as the result alone would
            return ("review",), f"{name} ran a check and its output follows: {verdict[1]}"
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
    if name == "exitplanmode":
        # the agent hands the person its plan to approve: the plan states what must be done
        # (a `plan` argument, or the plan written out as an export does); without one, the plan
        # is in a file and the call only asks
        args = call_args(text)
        rest = text.partition(":")[2].strip()
        plan = args.get("plan") if args is not None else (rest if not rest.startswith("{") else None)
        if isinstance(plan, str) and plan.strip():
            return ("spec",), f"{name} hands the person the agent's plan: spec"
        return ("context",), f"{name} asks the person to approve the plan: context"
    if name in _STATUS_TOOLS:
        args = call_args(text)
        if args is not None and args.keys() <= _STATUS_ARGS:
            return ("context",), f"{name} only moves a task's status: context"
        return ("spec", "context"), f"{name} restates a task"
    return allowed, why


def allowed_classes(kind: str | None, text: str, call: str | None = None) -> tuple[str, ...] | None:
    """The classes a unit of `kind` may take (None: any class, as for a conversation turn);
    `kind_evidence` without the why."""
    return kind_evidence(kind, text, call)[0]
