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
    p.add_argument(
        "--labeler",
        choices=("model", "encoder"),
        help="the labeler engine, as $TURNLENS_LABELER (which this overrides); `turnlens hook "
        "install --labeler` writes it",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return answer(args.window, False if args.no_color else None, args.labeler)


def answer(window: int | None, colour: bool | None, labeler: str | None = None) -> int:
    from turnlens.agents.hook import serve, statusline_answer
    from turnlens.cli.hook import use_labeler

    use_labeler(labeler)
    return serve("statusline", statusline_answer(window, colour))


def fast_args(args: list[str]) -> dict[str, Any] | None:
    """`statusline [--no-color] [--window N] [--labeler L]` spelled plainly, else None
    (argparse decides)."""
    if not args or args[0] != "statusline":
        return None
    opts: dict[str, Any] = {"window": None, "colour": None, "labeler": None}
    rest = args[1:]
    while rest:
        if rest[0] == "--no-color":
            opts["colour"] = False
            rest = rest[1:]
        elif rest[0] == "--window" and len(rest) > 1 and rest[1].isdigit():
            opts["window"] = int(rest[1])
            rest = rest[2:]
        elif rest[0] == "--labeler" and len(rest) > 1 and rest[1] in ("model", "encoder"):
            opts["labeler"] = rest[1]
            rest = rest[2:]
        else:
            return None
    return opts
