"""What the subcommands share: reading input safely, loading rule packs, exit codes."""

from __future__ import annotations

import errno
import os
import sys

from turnlens.core.rules import RulePack

TYPE_CHECKING = False  # `typing` (and the `re` it imports) stays off the one-shot path
if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping, Sequence
    from pathlib import Path
    from typing import Any

    from turnlens.pipeline.formats import Problem
    from turnlens.pipeline.profile import Profile


def separator_help() -> str:
    from turnlens.pipeline.formats.turns import DEFAULT_SEPARATOR

    return f"turn separator line, a regular expression (default {DEFAULT_SEPARATOR})"


EXIT_OK = 0
EXIT_FLAGGED = 1
EXIT_USAGE = 2


class UsageError(Exception):
    """Bad flags, missing files: one line on stderr, exit 2."""


def add_format_arg(parser: argparse.ArgumentParser) -> None:
    from turnlens.pipeline.formats import AUTO, names

    parser.add_argument(
        "--from",
        dest="from_format",
        metavar="FORMAT",
        default=AUTO,
        choices=[AUTO, *names()],
        help=f"input format: {AUTO} (default: detected from the file name and content), {', '.join(names())}",
    )


def make_profile(
    args: argparse.Namespace, pack: RulePack, command: str, models: Mapping[str, Any] | None = None
) -> Profile:
    """The profile of a CLI run: `--from`, `--separator` and the pack (validated here, exit 2);
    a labels model among `models` routes."""
    from turnlens.pipeline.formats.turns import DEFAULT_SEPARATOR, SeparatorError, compile_separator
    from turnlens.pipeline.workspace import profile_for_pack, with_labels_model
    from turnlens.router.settings import RouterSettings

    separator = getattr(args, "separator", None) or DEFAULT_SEPARATOR
    try:
        compile_separator(separator)
    except SeparatorError as exc:
        raise UsageError(f"{command}: {exc}") from None
    router = with_labels_model(RouterSettings(), models or {})
    return profile_for_pack(
        pack, format=getattr(args, "from_format", "auto"), separator=separator, router=router
    )


def report_problems(path: Path | str, problems: Sequence[Problem]) -> None:
    """What a session reader passed over, one line each on stderr."""
    for problem in problems:
        where = f"{path}:{problem.line}" if problem.line else str(path)
        print(f"turnlens: {problem.severity}: {where}: {problem.message}", file=sys.stderr)


def add_input_args(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--stdin", action="store_true", help="read the text from standard input")
    group.add_argument("--input", metavar="FILE", help="read the text from FILE")


def decode(data: bytes, name: str, *, quiet: bool = False) -> str:
    """UTF-8 with invalid bytes replaced, said once on stderr (unless `quiet`)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        if not quiet:
            warn_invalid_utf8(name)
        return data.decode("utf-8", errors="replace")


def warn_invalid_utf8(name: str) -> None:
    print(f"turnlens: warning: {name}: invalid UTF-8 replaced with U+FFFD", file=sys.stderr)


def shown(path: Path | str) -> str:
    """A path as it can be printed: bytes of a non-UTF-8 file name become U+FFFD."""
    return str(path).encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def read_path(path: Path | str) -> str:
    """A file's text, read with a bound (userfiles.MAX_INPUT_BYTES); problems exit 2."""
    from turnlens.userfiles import MAX_INPUT_BYTES, ReadProblem, read_limited

    try:
        data = read_limited(path, MAX_INPUT_BYTES)
    except ReadProblem as exc:
        reason = "no such file" if str(exc) == os.strerror(errno.ENOENT) else str(exc)
        raise UsageError(f"turnlens: {shown(path)}: {reason}") from None
    return decode(data, shown(path))


def path_text(raw: str) -> str:
    """`str(Path(raw))` without importing `pathlib` (a few ms of every `classify --input`):
    on POSIX, empty and `.` parts dropped, and the root as `PurePosixPath` keeps it."""
    if os.name != "posix":
        from pathlib import Path

        return str(Path(raw))
    root = "//" if raw.startswith("//") and not raw.startswith("///") else "/" if raw.startswith("/") else ""
    return root + "/".join(p for p in raw.split("/") if p and p != ".") or "."


def read_input(args: argparse.Namespace) -> tuple[str, str | None]:
    """The text of --stdin or --input, and the file it came from (as `str(Path(FILE))`)."""
    if args.input:
        path = path_text(args.input)
        return read_path(path), path
    if args.stdin:
        from turnlens.userfiles import MAX_INPUT_BYTES

        data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        if len(data) > MAX_INPUT_BYTES:
            raise UsageError(f"turnlens: <stdin>: larger than {MAX_INPUT_BYTES:,} bytes")
        return decode(data, "<stdin>"), None
    raise UsageError("turnlens: no input: give --stdin or --input FILE")


def load_rules(spec: str | None, near: Path | str | None) -> RulePack:
    """`--rules NAME|PATH`, else the `.turnlens.toml` found upward from the input, else `default`
    (resolved by the pipeline's workspace; a file it cannot use exits 2)."""
    from turnlens.pipeline.command_line import WorkspaceError, command_line_pack

    def warn(message: str) -> None:
        print(f"turnlens: warning: {message}", file=sys.stderr)

    try:
        return command_line_pack(spec, near, warn)
    except WorkspaceError as exc:
        raise UsageError(f"turnlens: {exc}") from None


def add_model_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model",
        metavar="PATH",
        action="append",
        default=[],
        help="a model file made by `turnlens train` (repeatable: one per task); "
        "default: the TURNLENS_MODELS paths, else the shipped models",
    )


def load_models(paths: list[str], command: str) -> dict[str, Any]:
    """Model files by task (`classes`, `labels`): `--model` paths, else $TURNLENS_MODELS."""
    from turnlens.learn.model import ModelError
    from turnlens.pipeline.command_line import command_line_models

    try:
        return command_line_models(paths)
    except ModelError as exc:
        raise UsageError(f"turnlens {command}: {exc}") from None


def apply_models(pack: RulePack, paths: list[str], command: str) -> RulePack:
    """The pack with a user's classes model deciding, when one is given and the pack has a model."""
    from turnlens.pipeline.command_line import with_user_model

    return with_user_model(pack, load_models(paths, command))
