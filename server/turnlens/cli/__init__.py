"""The `turnlens` command line: parse, call the API, print, exit.

Each subcommand lives in its own module with `register(subparsers)`. Modules
keep heavy imports (pygls, HTTP) inside their `run` so `turnlens classify`
starts fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from turnlens.cli import check, classify, evaluate, plan, route, schema, serve
from turnlens.cli.common import EXIT_USAGE, UsageError

_COMMANDS = (classify, route, plan, check, serve, schema, evaluate)


class _Parser(argparse.ArgumentParser):
    """argparse that fails with one line and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    from turnlens import __version__

    parser = _Parser(
        prog="turnlens",
        description="See what each prompt or conversation turn is: task class, compression ratio, "
        "frozen flag and routed reasoning effort.",
        epilog="Task classes: decision (≤5:1, frozen), spec (≤3:1, frozen), code (≤10:1, partly frozen), "
        "review (≤15:1), context (≤25:1), chitchat (≤80:1). Efforts: plan and reflect → high, "
        "implement → medium, apply → low.",
    )
    parser.add_argument("--version", action="version", version=f"turnlens {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module in _COMMANDS:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        return int(args.func(args))
    except UsageError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
