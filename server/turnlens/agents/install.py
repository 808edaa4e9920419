"""Putting TurnLens's hook and status-line entries into an agent's settings, and taking them out.

Claude Code reads `settings.json` (user: `~/.claude`, or $CLAUDE_CONFIG_DIR;
project: `<project>/.claude`, or `settings.local.json` for a personal project
file); Codex reads `hooks.json` (user: `~/.codex`, or $CODEX_HOME; project:
`<project>/.codex`), with the same event → matcher group → handlers layout.
Only TurnLens's own entries are added, updated or removed: every other key,
hook and matcher group stays as it was. A changed file is backed up first and
written atomically; a run that changes nothing writes nothing.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import re
import shlex
import shutil
import sys
import time
from dataclasses import dataclass, field
from typing import Any

MAX_SETTINGS = 4 * 1024 * 1024


class InstallError(Exception):
    """The settings file cannot be changed safely (the message says why)."""


@dataclass(frozen=True, slots=True)
class Entry:
    event: str
    matcher: str | None
    timeout: int


# what each agent gets; Codex's PreCompact and PostCompact take no context, so they are left out
ENTRIES: dict[str, tuple[Entry, ...]] = {
    "claude-code": (
        Entry("UserPromptSubmit", None, 10),
        Entry("PreCompact", "", 60),
        Entry("PostCompact", "", 60),
        Entry("SessionStart", "compact", 60),
    ),
    "codex": (
        Entry("UserPromptSubmit", None, 10),
        Entry("SessionStart", "compact", 60),
    ),
}
STATUS_LINE = {"claude-code": True, "codex": False}

# the events Claude Code's hooks reference documents (a settings check refuses others)
CLAUDE_EVENTS = frozenset(
    [
        "SessionStart",
        "Setup",
        "UserPromptSubmit",
        "UserPromptExpansion",
        "PreToolUse",
        "PermissionRequest",
        "PermissionDenied",
        "PostToolUse",
        "PostToolUseFailure",
        "PostToolBatch",
        "Notification",
        "MessageDisplay",
        "SubagentStart",
        "SubagentStop",
        "TaskCreated",
        "TaskCompleted",
        "Stop",
        "StopFailure",
        "TeammateIdle",
        "InstructionsLoaded",
        "ConfigChange",
        "CwdChanged",
        "DirectoryAdded",
        "FileChanged",
        "WorktreeCreate",
        "WorktreeRemove",
        "PreCompact",
        "PostCompact",
        "PreModelSwitch",
        "PostModelSwitch",
        "Elicitation",
        "ElicitationResult",
        "SessionEnd",
    ]
)
_COMMAND_KEYS = frozenset(
    {"type", "command", "timeout", "async", "asyncRewake", "shell", "if", "statusMessage", "args"}
)
_OURS = re.compile(
    r"(?:^|[\s/\\'\"])(?:turnlens(?:\.exe)?['\"]?|-m\s+turnlens)\s+(hook\s+(\w+)|statusline)\b"
)


def settings_path(agent: str, scope: str, project: str | None = None) -> str:
    """Where `agent` reads its settings for `scope` (`user`, `project` or `local`)."""
    where = os.path.abspath(project or os.getcwd())
    if agent == "claude-code":
        if scope == "user":
            base = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")
            return os.path.join(base, "settings.json")
        name = "settings.local.json" if scope == "local" else "settings.json"
        return os.path.join(where, ".claude", name)
    if agent == "codex":
        if scope == "local":
            raise InstallError("Codex has no local (personal project) settings file; use --project or --user")
        if scope == "user":
            base = os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")
            return os.path.join(base, "hooks.json")
        return os.path.join(where, ".codex", "hooks.json")
    raise InstallError(f"unknown agent {agent!r} (known: claude-code, codex)")


def turnlens_command() -> str:
    """How the agent should start TurnLens: this installation's console script, by absolute
    path (an agent's PATH may not have it), else this interpreter with `-m turnlens`."""
    here = shutil.which("turnlens")
    if here:
        return shlex.quote(os.path.abspath(here))
    return f"{shlex.quote(sys.executable)} -m turnlens"


def _ours(handler: Any, what: str) -> bool:
    """Whether a handler (or status line) is TurnLens's own for `what` (`hook EVENT`, `statusline`)."""
    if not isinstance(handler, dict):
        return False
    command = handler.get("command")
    if not isinstance(command, str):
        return False
    m = _OURS.search(command)
    return m is not None and " ".join(m.group(1).split()) == what


def _handler(base: str, entry: Entry, agent: str, labeler: str | None = None) -> dict[str, Any]:
    agent_flag = "" if agent == "claude-code" else f" --agent {agent}"
    command = f"{base} hook {entry.event}{agent_flag}{_labeler_flag(labeler)}"
    return {"type": "command", "command": command, "timeout": entry.timeout}


def _labeler_flag(labeler: str | None) -> str:
    """The labeler engine chosen at install, as every command's `--labeler` (none: the agent's
    $TURNLENS_LABELER, else the default, decides)."""
    if labeler is None:
        return ""
    if labeler not in ("model", "encoder"):
        raise InstallError(f"unknown labeler {labeler!r} (known: model, encoder)")
    return f" --labeler {labeler}"


@dataclass
class Change:
    """What one install or uninstall did to a settings object."""

    before: dict[str, Any]
    after: dict[str, Any]
    said: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.before != self.after


def add(
    settings: dict[str, Any],
    agent: str,
    base: str,
    *,
    status_line: bool,
    replace_status: bool,
    labeler: str | None = None,
) -> Change:
    """`settings` with TurnLens's entries added or brought up to date (a new object); with
    `labeler`, every command names that engine."""
    after = copy.deepcopy(settings)
    change = Change(settings, after)
    hooks = after.get("hooks")
    if hooks is None:
        hooks = after["hooks"] = {}
    if not isinstance(hooks, dict):
        raise InstallError("`hooks` is not a JSON object; fix it by hand first")
    for entry in ENTRIES[agent]:
        want = _handler(base, entry, agent, labeler)
        groups = hooks.setdefault(entry.event, [])
        if not isinstance(groups, list):
            raise InstallError(f"`hooks.{entry.event}` is not a list; fix it by hand first")
        found = False
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for i, h in enumerate(handlers if isinstance(handlers, list) else []):
                if _ours(h, f"hook {entry.event}"):
                    found = True
                    if h != want:
                        handlers[i] = want  # type: ignore[index]
                        change.said.append(f"updated the {entry.event} hook")
        if not found:
            group = {"hooks": [want]}
            if entry.matcher is not None:
                group = {"matcher": entry.matcher, **group}
            groups.append(group)
            change.said.append(
                f"added the {entry.event} hook" + (f" ({entry.matcher})" if entry.matcher else "")
            )
    if status_line and STATUS_LINE[agent]:
        want_status = {
            "type": "command",
            "command": f"{base} statusline{_labeler_flag(labeler)}",
            "padding": 0,
        }
        current = after.get("statusLine")
        if current is None:
            after["statusLine"] = want_status
            change.said.append("added the status line")
        elif _ours(current, "statusline"):
            if current != want_status:
                after["statusLine"] = want_status
                change.said.append("updated the status line")
        elif replace_status:
            after["statusLine"] = want_status
            change.said.append("replaced your status line (the backup keeps it; uninstall puts it back)")
        else:
            change.said.append("kept your own status line (--replace-statusline puts TurnLens's instead)")
    return change


def remove(settings: dict[str, Any], agent: str, previous_status: Any = None) -> Change:
    """`settings` without TurnLens's entries (a new object); groups, events and `hooks` that only
    TurnLens's entries filled go too. `previous_status` is a status line TurnLens replaced."""
    after = copy.deepcopy(settings)
    change = Change(settings, after)
    hooks = after.get("hooks")
    if isinstance(hooks, dict):
        for event in list(hooks):
            groups = hooks[event]
            if not isinstance(groups, list):
                continue
            kept_groups = []
            for group in groups:
                handlers = group.get("hooks") if isinstance(group, dict) else None
                if not isinstance(handlers, list):
                    kept_groups.append(group)
                    continue
                kept = [h for h in handlers if not _ours(h, f"hook {event}")]
                if len(kept) != len(handlers):
                    change.said.append(f"removed the {event} hook")
                    if not kept:
                        continue
                    group["hooks"] = kept
                kept_groups.append(group)
            if len(kept_groups) != len(groups) and not kept_groups:
                del hooks[event]
            else:
                hooks[event] = kept_groups
        if not hooks and "hooks" in after and settings.get("hooks") != {}:
            del after["hooks"]
    if _ours(after.get("statusLine"), "statusline"):
        if isinstance(previous_status, dict):
            after["statusLine"] = previous_status
            change.said.append("put your previous status line back")
        else:
            del after["statusLine"]
            change.said.append("removed the status line")
    return change


def settings_problems(obj: Any, agent: str = "claude-code") -> list[str]:
    """What in `obj` breaks the documented settings fields TurnLens writes (`hooks`, `statusLine`):
    the event names, the matcher-group and command-handler shapes, and the status line's."""
    problems: list[str] = []
    if not isinstance(obj, dict):
        return ["the settings are not a JSON object"]
    hooks = obj.get("hooks", {})
    if not isinstance(hooks, dict):
        problems.append("hooks: not an object")
        hooks = {}
    for event, groups in hooks.items():
        where = f"hooks.{event}"
        if agent == "claude-code" and event not in CLAUDE_EVENTS:
            problems.append(f"{where}: not a documented hook event")
        if not isinstance(groups, list):
            problems.append(f"{where}: not an array of matcher groups")
            continue
        for i, group in enumerate(groups):
            at = f"{where}[{i}]"
            if not isinstance(group, dict):
                problems.append(f"{at}: not an object")
                continue
            extra = set(group) - {"matcher", "hooks"}
            if extra:
                problems.append(f"{at}: unknown keys {sorted(extra)}")
            if "matcher" in group and not isinstance(group["matcher"], str):
                problems.append(f"{at}.matcher: not a string")
            handlers = group.get("hooks")
            if not isinstance(handlers, list):
                problems.append(f"{at}.hooks: missing or not an array")
                continue
            for j, h in enumerate(handlers):
                problems += _handler_problems(h, f"{at}.hooks[{j}]")
    if "statusLine" in obj:
        status = obj["statusLine"]
        if not isinstance(status, dict):
            problems.append("statusLine: not an object")
        else:
            if status.get("type") != "command":
                problems.append('statusLine.type: must be "command"')
            if not isinstance(status.get("command"), str):
                problems.append("statusLine.command: missing or not a string")
            for key in ("padding", "refreshInterval"):
                if key in status and (
                    isinstance(status[key], bool) or not isinstance(status[key], int | float)
                ):
                    problems.append(f"statusLine.{key}: not a number")
    return problems


def _handler_problems(h: Any, at: str) -> list[str]:
    if not isinstance(h, dict):
        return [f"{at}: not an object"]
    if h.get("type") != "command":
        return []  # prompt, agent, http and mcp_tool handlers are someone else's; TurnLens writes commands
    out = []
    extra = set(h) - _COMMAND_KEYS
    if extra:
        out.append(f"{at}: unknown keys {sorted(extra)}")
    command = h.get("command")
    if not isinstance(command, str) or not command:
        out.append(f"{at}.command: missing or empty")
    timeout = h.get("timeout")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0
    ):
        out.append(f"{at}.timeout: not a number > 0")
    if "shell" in h and h["shell"] not in ("bash", "powershell"):
        out.append(f"{at}.shell: not bash or powershell")
    return out


# -- files ------------------------------------------------------------------------------------


def read_settings(path: str) -> tuple[dict[str, Any], str | None]:
    """The settings object and the file's text (None when there is no file yet)."""
    from turnlens.userfiles import ReadProblem, read_limited

    if not os.path.lexists(path):
        return {}, None
    try:
        raw = read_limited(path, MAX_SETTINGS)
    except ReadProblem as exc:
        raise InstallError(f"{path}: {exc}") from None
    text = raw.decode("utf-8", errors="replace")
    if not text.strip():
        return {}, text
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        raise InstallError(f"{path}: not valid JSON; fix it by hand first (nothing was changed)") from None
    if not isinstance(obj, dict):
        raise InstallError(f"{path}: not a JSON object; fix it by hand first (nothing was changed)")
    return obj, text


def render(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=2) + "\n"


def diff(path: str, old: str | None, new: str) -> str:
    import difflib

    lines = difflib.unified_diff(
        (old or "").splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"{path} (now)" if old is not None else "/dev/null",
        tofile=f"{path} (after)",
    )
    return "".join(lines)


def write_settings(path: str, old: str | None, new: str) -> str | None:
    """Back the old file up (returns the backup's path) and write the new one atomically."""
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    backup = None
    mode = 0o644
    if old is not None:
        mode = os.stat(path).st_mode & 0o777
        backup = f"{path}.turnlens-{time.strftime('%Y%m%d-%H%M%S')}.bak"
        n = 1
        while os.path.exists(backup):
            n += 1
            backup = f"{path}.turnlens-{time.strftime('%Y%m%d-%H%M%S')}-{n}.bak"
        shutil.copy2(path, backup)
    tmp = f"{path}.turnlens-{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(new)
    os.chmod(tmp, mode)
    os.replace(tmp, path)
    return backup


def _memory_path(path: str) -> str:
    from turnlens.agents.state import session_key, state_dir

    return os.path.join(state_dir(), "installs", session_key(path) + ".json")


def remember_status(path: str, previous: Any) -> None:
    """Keep a status line TurnLens replaced, for uninstall."""
    memory = _memory_path(path)
    os.makedirs(os.path.dirname(memory), mode=0o700, exist_ok=True)
    with open(memory, "w", encoding="utf-8") as f:
        json.dump({"path": path, "statusLine": previous}, f)


def recall_status(path: str) -> Any:
    from turnlens.userfiles import ReadProblem, read_limited

    try:
        data = json.loads(read_limited(_memory_path(path), MAX_SETTINGS))
    except (ReadProblem, ValueError):
        return None
    return data.get("statusLine") if isinstance(data, dict) else None


def forget_status(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(_memory_path(path))
