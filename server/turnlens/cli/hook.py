"""`turnlens hook EVENT`: answer an agent's hook; `turnlens hook install|uninstall`: set them up."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from turnlens.cli.common import EXIT_OK, UsageError

if TYPE_CHECKING:
    import argparse

EVENTS = ("PreCompact", "PostCompact", "SessionStart", "UserPromptSubmit")
AGENTS = ("claude-code", "codex")
LABELERS = ("model", "encoder")  # the router.labeler setting's values

HELP = """Answer a coding agent's hook (the agent's JSON on stdin, the answer in its format on
stdout), or merge TurnLens's hooks into the agent's settings.

  turnlens hook install --agent claude-code [--user|--project|--local] [--labeler encoder] [--dry-run]
  turnlens hook uninstall --agent claude-code [--user|--project|--local] [--dry-run]
  turnlens hook PreCompact        what to keep verbatim, the ratios and the budget
  turnlens hook PostCompact       which frozen turns the summary lost (logged)
  turnlens hook SessionStart      after a compaction: the lost frozen turns, given back
  turnlens hook UserPromptSubmit  one line for a confident high-effort route

A hook never breaks the agent: on any problem it answers nothing, exits 0 and
logs one line to $XDG_STATE_HOME/turnlens/hooks.log. See docs/agents.md.
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    import argparse

    p = sub.add_parser(
        "hook",
        help="answer a coding agent's hook, or install TurnLens's hooks into its settings",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("action", metavar="EVENT|install|uninstall", choices=[*EVENTS, "install", "uninstall"])
    p.add_argument("--agent", choices=AGENTS, default="claude-code", help="the agent (default claude-code)")
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--user", dest="scope", action="store_const", const="user", help="your user settings (default)"
    )
    where.add_argument(
        "--project", dest="scope", action="store_const", const="project", help="the project's shared settings"
    )
    where.add_argument(
        "--local",
        dest="scope",
        action="store_const",
        const="local",
        help="the project's personal settings (Claude Code's settings.local.json)",
    )
    p.add_argument("--project-dir", metavar="DIR", help="the project folder (default: the current folder)")
    p.add_argument("--dry-run", action="store_true", help="show the change as a diff; write nothing")
    p.add_argument("--no-statusline", action="store_true", help="install the hooks only")
    p.add_argument(
        "--replace-statusline",
        action="store_true",
        help="replace a status line of your own (uninstall restores it)",
    )
    p.add_argument(
        "--window", metavar="N", type=int, help="context window in tokens for the plan (default 200000)"
    )
    p.add_argument(
        "--labeler",
        choices=LABELERS,
        help="the labeler engine (as $TURNLENS_LABELER, which this overrides): encoder routes and "
        "classes a person's prompts with the optional encoder engine (turnlens[encoder]); with "
        "install, written into every hook and status-line command",
    )
    p.set_defaults(func=run, scope="user")


def use_labeler(labeler: str | None) -> None:
    """A `--labeler` given on the command line: set for this process and what it starts (the
    background reader) as $TURNLENS_LABELER, which the hooks read."""
    if labeler is not None:
        import os

        from turnlens.router.labeler_engine import ENV

        os.environ[ENV] = labeler


def answer(event: str, agent: str, window: int | None, labeler: str | None = None) -> int:
    """The hook itself: never fails, always 0."""
    from turnlens.agents.hook import answer_for, serve

    use_labeler(labeler)
    return serve(event, answer_for(event, agent, window))


def run(args: argparse.Namespace) -> int:
    if args.action in EVENTS:
        return answer(args.action, args.agent, args.window, args.labeler)
    return change_settings(args)


def change_settings(args: argparse.Namespace) -> int:
    from turnlens.agents import install

    try:
        path = install.settings_path(args.agent, args.scope, args.project_dir)
        settings, old = install.read_settings(path)
        base = install.turnlens_command()
        if args.action == "install":
            change = install.add(
                settings,
                args.agent,
                base,
                status_line=not args.no_statusline,
                replace_status=args.replace_statusline,
                labeler=args.labeler,
            )
        else:
            change = install.remove(settings, args.agent, install.recall_status(path))
        problems = install.settings_problems(change.after, args.agent)
        if problems and not install.settings_problems(change.before, args.agent):
            raise install.InstallError("the result would not be valid settings: " + "; ".join(problems))
    except install.InstallError as exc:
        raise UsageError(f"turnlens hook {args.action}: {exc}") from None
    _say_missing_encoder(args)
    for line in change.said:
        if line.startswith("kept"):
            print(f"turnlens: {path}: {line}")
    if not change.changed:
        state = "installed" if args.action == "install" else "not installed"
        print(f"turnlens: {path}: TurnLens is already {state}; nothing changed")
        return EXIT_OK
    new = install.render(change.after)
    if args.dry_run:
        print(install.diff(path, old, new), end="")
        print(f"turnlens: dry run: {path} not written")
        return EXIT_OK
    try:
        previous = settings.get("statusLine")
        replaced = args.action == "install" and any(s.startswith("replaced") for s in change.said)
        if replaced:
            install.remember_status(path, previous)
        backup = install.write_settings(path, old, new)
        if args.action == "uninstall":
            install.forget_status(path)
    except OSError as exc:
        raise UsageError(f"turnlens hook {args.action}: {path}: {exc.strerror or exc}") from None
    for line in change.said:
        if not line.startswith("kept"):
            print(f"turnlens: {path}: {line}")
    if backup:
        print(f"turnlens: {path}: the previous file is kept as {backup}")
    if args.agent == "codex" and args.action == "install":
        print("turnlens: Codex runs a new hook only once you trust it: open /hooks in Codex to review it")
    return EXIT_OK


def _say_missing_encoder(args: argparse.Namespace) -> None:
    """An install that names the encoder engine where its package is missing says so once."""
    if args.action == "install" and args.labeler == "encoder":
        from turnlens.learn.encoder import available

        if not available():
            print(
                "turnlens: the encoder engine is not installed here (pip install 'turnlens[encoder]'): "
                "until it is, the hooks use the n-gram model and say so in hooks.log"
            )


def fast_args(args: list[str]) -> dict[str, Any] | None:
    """`hook EVENT [--agent A] [--window N] [--labeler L]` spelled plainly, else None (argparse decides).

    An agent runs this form: exit 2 would block its prompt or its compaction, so an unknown
    event or option here is a logged no-op (`event` None), never a usage error."""
    if len(args) < 2 or args[0] != "hook" or args[1] in ("install", "uninstall") or args[1].startswith("-"):
        return None
    opts: dict[str, Any] = {
        "event": args[1],
        "agent": "claude-code",
        "window": None,
        "labeler": None,
        "problem": None,
    }
    if args[1] not in EVENTS:
        opts["problem"] = f"unknown event {args[1][:40]!r} (known: {', '.join(EVENTS)})"
    rest = args[2:]
    while rest and opts["problem"] is None:
        flag, value = rest[0], rest[1] if len(rest) > 1 else ""
        if flag == "--agent" and value in AGENTS:
            opts["agent"] = value
        elif flag == "--window" and value.isdigit() and int(value) > 0:
            opts["window"] = int(value)
        elif flag == "--labeler" and value in LABELERS:
            opts["labeler"] = value
        else:
            opts["problem"] = f"unknown option {flag[:40]!r}"
        rest = rest[2:]
    return opts


def refuse(event: str, problem: str) -> int:
    """A hook call TurnLens cannot answer: one line in the hook log, exit 0."""
    from turnlens.agents.state import log

    log(event[:40], f"no-op: {problem}")
    return EXIT_OK
