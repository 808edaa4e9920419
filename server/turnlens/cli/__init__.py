"""The `turnlens` command line: parse, call the API, print, exit.

Each subcommand lives in its own module with `register(subparsers)`. Modules
keep heavy imports (pygls, HTTP) inside their `run` so `turnlens classify`
starts fast; the plain forms of `classify` and `route` (what scripts and hooks call on
every turn) skip argparse altogether.
"""

from __future__ import annotations

import sys

from turnlens.cli.common import EXIT_USAGE, UsageError

TYPE_CHECKING = False  # `typing` (and the `re` it imports) stays off the one-shot path
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from types import ModuleType
    from typing import NoReturn

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
    "batch": "turnlens.cli.batch",
    "train": "turnlens.cli.train",
    "export-pins": "turnlens.cli.export_pins",
    "hook": "turnlens.cli.hook",
    "statusline": "turnlens.cli.statusline",
}


def _modules(argv: Sequence[str] | None) -> list[ModuleType]:
    """The subcommand modules needed to parse `argv`: one when it names a command, else all."""
    import importlib

    words = [a for a in (argv or []) if not a.startswith("-")]
    names = [words[0]] if words and words[0] in _COMMANDS else list(_COMMANDS)
    return [importlib.import_module(_COMMANDS[name]) for name in names]


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    import argparse

    from turnlens import __version__

    class _Parser(argparse.ArgumentParser):
        """argparse that fails with one line and exit code 2."""

        def error(self, message: str) -> None:  # type: ignore[override]
            raise UsageError(f"{self.prog}: {message}")

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


_CLASSIFY_FLAGS = {"--stdin": "stdin", "--json": "json", "--explain": "explain", "--strict": "strict"}
_CLASSIFY_VALUES = {"--input": "input", "--rules": "rules", "--from": "from_format"}
_ROUTE_FLAGS = {"--stdin": "stdin", "--json": "json", "--explain": "explain"}
_ROUTE_VALUES = {"--input": "input"}
# route's options that only argparse reads (choices, numbers): None, as argparse leaves them
_ROUTE_UNSET = ("backend", "endpoint", "model", "timeout_ms", "api_key_env", "fallback", "min_confidence")


def _plain_classify(args: list[str]) -> dict[str, object] | None:
    """The options of a `classify` call in its plain spelling (each option once, exactly as
    `--help` shows it), or None: anything else, help and errors included, goes to argparse,
    so both routes accept and reject exactly the same command lines."""
    if not args or args[0] != "classify":
        return None
    opts: dict[str, object] = {"stdin": False, "json": False, "explain": False, "strict": False}
    opts.update(input=None, rules=None, model=[], from_format=None)
    return _plain_options(args, opts, _CLASSIFY_FLAGS, _CLASSIFY_VALUES, model=True)


def _plain_route(args: list[str]) -> dict[str, object] | None:
    """The same for `route` with the offline labeler: --stdin or --input FILE, --json, --explain
    (a back end, a model or a bound goes to argparse, which checks their values)."""
    if not args or args[0] != "route":
        return None
    opts: dict[str, object] = {"stdin": False, "json": False, "explain": False, "input": None}
    opts.update(dict.fromkeys(_ROUTE_UNSET))
    return _plain_options(args, opts, _ROUTE_FLAGS, _ROUTE_VALUES, model=False)


def _plain_options(
    args: list[str],
    opts: dict[str, object],
    flags: dict[str, str],
    values: dict[str, str],
    *,
    model: bool,
) -> dict[str, object] | None:
    seen: set[str] = set()
    i = 1
    while i < len(args):
        arg = args[i]
        if arg in seen:
            return None
        seen.add(arg)
        if arg in flags:
            opts[flags[arg]] = True
        elif arg in values and i + 1 < len(args) and not args[i + 1].startswith("-"):
            opts[values[arg]] = args[i + 1]
            i += 1
        elif model and arg == "--model" and i + 1 < len(args) and not args[i + 1].startswith("-"):
            opts["model"] = [args[i + 1]]
            i += 1
        else:
            return None
        i += 1
    if opts["stdin"] and opts["input"] is not None:
        return None  # argparse says they exclude each other
    return opts


# commands that start no thread or process and hold no file open once they return, so the
# console script may end the process without the interpreter's teardown
_QUICK_EXIT = ("classify", "route", "hook", "statusline")
# one-shot commands that run without the cyclic collector (see `entry`)
_NO_COLLECTOR = ("classify", "route")
# commands that run a process pool (`-j N`): stopped by SIGTERM, they end without the teardown
_POOLED = ("check", "batch")


def entry() -> None:
    """The console script: `main`, then a quick exit after the one-shot commands.

    Freeing every object of a process that is about to end (the model's vocabulary, the
    compiled patterns, each module) costs a short `turnlens classify` ~6 ms, a third of
    its own time; `os._exit` after flushing the output skips it. For the same reason
    `classify` and `route` run without the cyclic garbage collector: it would walk the
    imported modules and the loaded data a dozen times (~0.7 ms of a short call, ~1.4 ms at
    50 KB) to free almost nothing (their objects hold no cycles worth collecting before exit).
    """
    if sys.argv[1:2] and sys.argv[1] in _NO_COLLECTOR:
        import gc

        gc.disable()
    code = main()
    if sys.argv[1:2] and sys.argv[1] in _QUICK_EXIT:
        _exit_now(code)
    if sys.argv[1:2] and sys.argv[1] in _POOLED:
        from turnlens.cli.workers import EXIT_TERMINATED

        # stopped by SIGTERM: the run has unwound and its pool's workers are killed, but the
        # interpreter's teardown joins the pool's manager thread with no time limit, which may
        # wait on a queue no worker will read again; the person who sent SIGTERM wants it over
        if code == EXIT_TERMINATED:
            _exit_now(code)
    raise SystemExit(code)


def _exit_now(code: int) -> NoReturn:
    """Flush what was written and end the process without the interpreter's teardown."""
    import os

    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        pass  # the reader left: nothing more to deliver
    except OSError:
        raise SystemExit(code) from None
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; usage errors print one line and return 2."""
    try:
        return _dispatch(list(sys.argv[1:] if argv is None else argv))
    except UsageError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt as exc:
        from turnlens.cli.workers import EXIT_TERMINATED, Terminated

        return EXIT_TERMINATED if isinstance(exc, Terminated) else 130


def _agent_call(args_list: list[str]) -> int | None:
    """An agent's hook or status-line call in its plain spelling (what agents run on every
    prompt), answered without argparse; None for anything else."""
    if args_list[:1] == ["hook"]:
        from turnlens.cli.hook import answer, fast_args, refuse

        opts = fast_args(args_list)
        if opts is None:
            return None
        if opts["problem"]:
            return refuse(opts["event"], opts["problem"])
        return answer(opts["event"], opts["agent"], opts["window"], opts["labeler"])
    if args_list[:1] == ["statusline"]:
        from turnlens.cli import statusline

        sopts = statusline.fast_args(args_list)
        return (
            None if sopts is None else statusline.answer(sopts["window"], sopts["colour"], sopts["labeler"])
        )
    return None


class _Options:
    """The options of a plain command line as attributes, as argparse's namespace has them
    (`types.SimpleNamespace` without importing `types`)."""

    def __init__(self, options: dict[str, object]) -> None:
        self.__dict__.update(options)


def _dispatch(args_list: list[str]) -> int:
    quick = _agent_call(args_list)
    if quick is not None:
        return quick
    plain = _plain_classify(args_list)
    if plain is not None:
        from turnlens.cli.classify import run

        return int(run(_Options(plain)))  # type: ignore[arg-type]
    plain = _plain_route(args_list)
    if plain is not None:
        from turnlens.cli.route import run as route

        return int(route(_Options(plain)))  # type: ignore[arg-type]
    parser = build_parser(args_list)
    args = parser.parse_args(args_list)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    return int(args.func(args))
