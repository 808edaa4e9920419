"""`turnlens statusline`: Claude Code's status line (its JSON on stdin, one line out)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "statusline",
        help="a status line for Claude Code: last route, frozen share, plan against the window",
        description="Read Claude Code's status-line JSON on stdin and print one line: the last "
        "prompt's route (phase·effort and why), the session's frozen share, and the plan against "
        "the context window (FITS/OVERFLOW). Colour unless NO_COLOR is set. Prints nothing when "
        "the input cannot be used (logged to $XDG_STATE_HOME/turnlens/hooks.log).",
    )
    p.add_argument(
        "--window",
        metavar="N",
        type=int,
        help="context window in tokens (default: what the agent says, else 200000)",
    )
    p.add_argument("--no-color", action="store_true", help="no ANSI colour")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return answer(args.window, False if args.no_color else None)


def answer(window: int | None, colour: bool | None) -> int:
    from turnlens.agents.hook import serve, statusline_answer

    return serve("statusline", statusline_answer(window, colour))


def fast_args(args: list[str]) -> dict[str, Any] | None:
    """`statusline [--no-color] [--window N]` spelled plainly, else None (argparse decides)."""
    if not args or args[0] != "statusline":
        return None
    opts: dict[str, Any] = {"window": None, "colour": None}
    rest = args[1:]
    while rest:
        if rest[0] == "--no-color":
            opts["colour"] = False
            rest = rest[1:]
        elif rest[0] == "--window" and len(rest) > 1 and rest[1].isdigit():
            opts["window"] = int(rest[1])
            rest = rest[2:]
        else:
            return None
    return opts
