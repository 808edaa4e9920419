"""The `turnlens` command line: parse, call the API, print, exit.

Each subcommand lives in its own module with `register(subparsers)`. Modules
keep heavy imports (pygls, HTTP) inside their `run` so `turnlens classify`
starts fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

from turnlens.cli.common import EXIT_USAGE, UsageError

# subcommand → module; only the one asked for is imported (start-up time is a feature)
_COMMANDS = {
    "classify": "turnlens.cli.classify",
    "route": "turnlens.cli.route",
    "plan": "turnlens.cli.plan",
    "check": "turnlens.cli.check",
    "serve": "turnlens.cli.serve",
    "schema": "turnlens.cli.schema",
    "eval": "turnlens.cli.evaluate",
    "stats": "turnlens.cli.stats",
}


class _Parser(argparse.ArgumentParser):
    """argparse that fails with one line and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")


def _modules(argv: Sequence[str] | None) -> list[ModuleType]:
    """The subcommand modules needed to parse `argv`: one when it names a command, else all."""
    words = [a for a in (argv or []) if not a.startswith("-")]
    names = [words[0]] if words and words[0] in _COMMANDS else list(_COMMANDS)
    return [importlib.import_module(_COMMANDS[name]) for name in names]


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
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
    for module in _modules(argv):
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(args_list)
    try:
        args = parser.parse_args(args_list)
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
