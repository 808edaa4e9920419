"""What a tool call ran, and what its result therefore is (docs/labels.md, "Session units by kind").

A tool result's text alone often cannot say what it is: a Markdown file printed with `cat`, a
sub-agent's report and a plan read the same. The call that produced it can: a file printed is
a file's content (code), a listing or a search is context, a test, lint, build or type-check
run gives a verdict (review), fetched web text is context. The session readers pair each result
with its call by the id the file gives them (`Unit.call`); this module reads the call.

Only what is unmistakable is settled: a script run, an install, `curl`, a sub-agent and any
program not named here leave the result to the model.
"""

from __future__ import annotations

import json
import shlex
from typing import Final

from turnlens.core.prebuilt import compile_re

# tools that run a command line (the call's `command` or `cmd` argument)
SHELL_TOOLS: Final = frozenset(
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
        "shell_command",
    }
)
# tools whose result is a file's content
_READ_TOOLS: Final = frozenset({"read", "read_file", "read_many_files", "view", "notebookread"})
# tools whose result is a listing of paths
_LIST_TOOLS: Final = frozenset({"glob", "ls", "list_dir", "list_directory"})
# tools whose result is fetched web text (or a summary of it)
_WEB_TOOLS: Final = frozenset(
    {"webfetch", "web_fetch", "websearch", "web_search", "google_web_search", "web_open", "web_find"}
)
# tools that hand a piece of work to a subagent (Claude Code's `Task`, later `Agent`): the result
# is the subagent's report, a summary of what it found or did, so context; review when it judges
# the work (a reviewing subagent's verdict), never a spec or a decision of the person's
_AGENT_TOOLS: Final = frozenset({"task", "agent"})
_REPORT: Final = ("review", "context")

# the command inside Codex's JavaScript `exec` cell: `tools.exec_command({"cmd": "…", …})`
_CELL_CMD = compile_re(r'"cmd"[ \t]*+:[ \t]*+("(?:[^"\\\n]++|\\.)*+")')
# where a command line splits into commands (`&&`, `||`, `;`, a new line): naive about quotes,
# which only makes a command harder to recognise, never another one's
_SEGMENTS = compile_re(r"&&|\|\||;|\n")
_PIPE = compile_re(r"(?<!\|)\|(?!\|)")
_ASSIGNMENT = compile_re(r"\A[A-Za-z_][A-Za-z0-9_]*+=")
# programs that only set the stage for the command that matters (`cd repo && npm test`)
_PRELUDE: Final = frozenset(
    {
        "cd",
        "pushd",
        "popd",
        "export",
        "set",
        "source",
        ".",
        "echo",
        "printf",
        "true",
        "sleep",
        "clear",
        "set-location",
    }
)
# wrappers that run the program after them
_WRAPPERS: Final = frozenset({"sudo", "time", "env", "nohup", "command", "exec", "npx", "bunx", "pnpx"})
_RUNNERS: Final = {
    "uv": "run",
    "poetry": "run",
    "pipenv": "run",
    "bundle": "exec",
    "pnpm": "exec",
    "rye": "run",
    "hatch": "run",
    "pdm": "run",
}
_SHELLS: Final = frozenset({"bash", "sh", "zsh", "dash", "pwsh", "powershell", "cmd"})
_SHELL_FLAGS: Final = frozenset({"-c", "-lc", "-ic", "-command", "/c", "-noprofile", "-l", "-i", "-e"})

# what a program's output is, by what it does
_PRINT: Final = frozenset(
    {
        "cat",
        "head",
        "tail",
        "sed",
        "nl",
        "less",
        "more",
        "bat",
        "type",
        "get-content",
        "gc",
        "jq",
        "xxd",
        "hexdump",
    }
)
_LIST: Final = frozenset(
    {
        "ls",
        "dir",
        "tree",
        "find",
        "fd",
        "get-childitem",
        "gci",
        "du",
        "df",
        "wc",
        "pwd",
        "which",
        "where",
        "stat",
    }
)
_SEARCH: Final = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "select-string", "sls", "findstr"})
_CHATTER: Final = frozenset(
    {
        "mkdir",
        "cp",
        "mv",
        "rm",
        "touch",
        "chmod",
        "chown",
        "ln",
        "echo",
        "printf",
        "cd",
        "new-item",
        "remove-item",
    }
)
_VERDICT: Final = frozenset(
    {
        "pytest",
        "py.test",
        "tox",
        "nox",
        "jest",
        "vitest",
        "mocha",
        "ava",
        "karma",
        "tsc",
        "vue-tsc",
        "eslint",
        "ruff",
        "mypy",
        "pyright",
        "flake8",
        "pylint",
        "rubocop",
        "phpunit",
        "rspec",
        "phpstan",
        "golangci-lint",
        "shellcheck",
        "mvn",
        "mvnw",
        "gradle",
        "gradlew",
        "ctest",
    }
)
# `npm run build`, `cargo test`, `go vet`, `make check`: the subcommands that test, lint, build
# or type-check
_VERDICT_SUB: Final = {
    "npm": frozenset({"test", "lint", "build", "typecheck", "type-check", "check", "tsc", "t"}),
    "yarn": frozenset({"test", "lint", "build", "typecheck", "type-check", "check", "tsc"}),
    "pnpm": frozenset({"test", "lint", "build", "typecheck", "type-check", "check", "tsc"}),
    "bun": frozenset({"test", "lint", "build", "typecheck", "type-check", "check", "tsc"}),
    "cargo": frozenset({"test", "check", "build", "clippy", "nextest"}),
    "go": frozenset({"test", "vet", "build"}),
    "make": frozenset({"test", "check", "lint", "build", "all", "tests"}),
    "dotnet": frozenset({"build", "test"}),
    "swift": frozenset({"build", "test"}),
    "next": frozenset({"build", "lint"}),
    "vite": frozenset({"build"}),
    "deno": frozenset({"test", "lint", "check"}),
    "playwright": frozenset({"test"}),
    "cypress": frozenset({"run"}),
    "flutter": frozenset({"test", "analyze", "build"}),
    "dart": frozenset({"test", "analyze"}),
    "mix": frozenset({"test", "compile"}),
}
# git: a diff is code, the rest (status, log, branch, commit, push…) is chatter or a listing
_GIT_CODE: Final = frozenset({"diff", "show"})
_GIT_SEARCH: Final = frozenset({"grep"})

_WORDS_MAX = 4096  # characters of a command read
_CALL_MAX = 65536  # characters of a call parsed to find its command (a longer one is not read)


def call_args(call: str) -> dict[str, object] | None:
    """The arguments of a call the session readers write as `Tool: {json}`: None when they are
    not a JSON object, or when the call is over `_CALL_MAX` characters (not read)."""
    _name, sep, rest = call.partition(":")
    rest = rest.strip()
    if not sep or not rest.startswith("{") or len(rest) > _CALL_MAX:
        return None
    try:
        args = json.loads(rest)
    except ValueError:
        return None
    return args if isinstance(args, dict) else None


def command_of(call: str) -> str | None:
    """The command line a shell call ran (`Bash: {"command": "…"}`, Codex's `["bash", "-lc", "…"]`
    and JavaScript `exec` cells, a plain `Bash: ls -la`), else None."""
    name, sep, rest = call.partition(":")
    if not sep or len(rest) > _CALL_MAX:
        return None
    rest = rest.strip()
    if name.strip().lower() == "exec" and not rest.startswith("{"):
        m = _CELL_CMD.search(rest, 0, _WORDS_MAX)
        if m is None:
            return None
        try:
            found = json.loads(m.group(1))
        except ValueError:
            return None
        return found if isinstance(found, str) else None
    if not rest.startswith("{"):
        return rest or None
    args = call_args(call)
    if args is None:
        return None
    command = args.get("command", args.get("cmd"))
    if isinstance(command, list) and all(isinstance(w, str) for w in command):
        return " ".join(shlex.quote(w) for w in command)
    return command if isinstance(command, str) else None


def _words(segment: str) -> list[str]:
    try:
        return shlex.split(segment[:_WORDS_MAX], comments=False, posix=True)
    except ValueError:  # an unclosed quote: the words as they stand
        return segment[:_WORDS_MAX].split()


def _program(words: list[str]) -> list[str]:
    """The words from the program on: assignments, wrappers and runners (`uv run`, `npx`,
    `python -m`) passed over."""
    i = 0
    wrapped = False  # a wrapper's own options (`sudo -E`) come before the program
    while i < len(words):
        word = words[i]
        if wrapped and word.startswith("-"):
            i += 1
            continue
        base = word.replace("\\", "/").rsplit("/", 1)[-1].lower().removesuffix(".exe")
        wrapped = base in _WRAPPERS
        runner = base in _RUNNERS and i + 1 < len(words) and words[i + 1] == _RUNNERS[base]
        module = base.startswith("python") and i + 2 < len(words) and words[i + 1] == "-m"
        if _ASSIGNMENT.match(word) or base in _WRAPPERS:
            i += 1
        elif runner or module or (base == "timeout" and i + 1 < len(words)):
            i += 2
        else:
            return [base, *words[i + 1 :]]
    return []


def _stage(stage: str, depth: int = 0) -> list[str]:
    """A pipeline stage's program and its arguments; a shell's `-c` string read in its place."""
    words = _program(_words(stage))
    if words and words[0] in _SHELLS and depth < 2:
        rest = [w for w in words[1:] if w.lower() not in _SHELL_FLAGS]
        if len(rest) == 1 and " " in rest[0]:
            return main_command(rest[0], depth + 1)
    return words


def main_command(command: str, depth: int = 0) -> list[str]:
    """The command that matters in a command line: the last one that is not a prelude (`cd`,
    `export`, `echo`), the first stage of its pipeline (`npm test 2>&1 | tail` is `npm test`), or
    a search when a later stage filters a printed file (`cat log | grep ERROR`)."""
    real: tuple[list[str], list[str]] | None = None
    last: tuple[list[str], list[str]] | None = None
    for segment in _SEGMENTS.split(command[:_WORDS_MAX]):
        if not segment.strip():
            continue
        pipeline = _PIPE.split(segment)
        words = _stage(pipeline[0], depth)
        if words:
            last = (words, pipeline[1:])
            if words[0] not in _PRELUDE:
                real = last
    chosen, stages = real or last or ([], [])
    if chosen and chosen[0] in _PRINT:
        for stage in stages:
            later = _program(_words(stage))
            if later and later[0] in _SEARCH:
                return later
    return chosen


def _after_options(words: list[str]) -> str | None:
    """The first word after the program that is not an option (a subcommand, `run` skipped)."""
    skip = False
    for word in words[1:]:
        if skip or word.startswith("-") or word == "run":
            skip = word in ("-C", "-c")  # git's options that take a value
            continue
        return word.lower()
    return None


# what each settled class says about a result, for the views' "why"
_PRINTED = "a file printed is a file's content"
_LISTED = "a listing or a search is context"
_VERDICT_SAYS = "a test, lint, build or type-check run gives a verdict"
_DIFF = "a diff is code"
_CHAT = "its output is chatter"
# evidence: the classes a result may take, and why (for the views)
Evidence = tuple[tuple[str, ...], str]


def command_evidence(words: list[str]) -> Evidence | None:
    """The class of what the command prints and why, where the program says it; else None."""
    if not words:
        return None
    program = words[0]
    if program in _PRINT:
        return ("code",), _PRINTED
    if program in _LIST or program in _SEARCH:
        return ("context",), _LISTED
    if program in _VERDICT:
        return ("review",), _VERDICT_SAYS
    if program == "git":
        sub = _after_options(words)
        if sub in _GIT_CODE:
            return ("code",), _DIFF
        if sub == "ls-files" or sub in _GIT_SEARCH:
            return ("context",), _LISTED
        return (("context",), "git's report is context") if sub is not None else None
    subs = _VERDICT_SUB.get(program)
    if subs is not None:
        sub = _after_options(words)
        return (("review",), _VERDICT_SAYS) if sub in subs else None
    if program in _CHATTER:
        return ("context",), _CHAT
    return None


def call_evidence(call: str | None, tool: str | None) -> Evidence | None:
    """The classes a tool result may take given the call that produced it (`tool`: the call's
    tool, lower-cased, as `turnlens.core.kinds.tool_name` reads it), and why; else None."""
    if call is None or tool is None:
        return None
    if tool in _READ_TOOLS:
        return ("code",), f"its call reads a file ({tool}): a file's content is code"
    if tool in _LIST_TOOLS:
        return ("context",), f"its call lists files ({tool}): a listing is context"
    if tool in _WEB_TOOLS:
        return ("context",), f"its call fetches from the web ({tool}): fetched text is context"
    if tool in _AGENT_TOOLS:
        return _REPORT, f"its call hands work to a subagent ({tool}): its report is context or review"
    if tool not in SHELL_TOOLS:
        return None
    command = command_of(call)
    words = main_command(command) if command else []
    found = command_evidence(words)
    if found is None:
        return None
    return found[0], f"its call ran {words[0]}: {found[1]}"
