"""What a command line names — `--rules NAME|PATH`, `--model FILE` — resolved with the readers
the workspace uses, where a file that cannot be used stops the command.

Kept apart from `workspace.py` (which re-exports these names) so that a one-shot
`turnlens classify` resolves its pack without importing the analysis, the router and the
session formats: tens of milliseconds of a call that should take a few.
"""

from __future__ import annotations

from turnlens import userfiles
from turnlens.core.rules import BUILTIN_PACKS, RulePack, RulePackError, builtin_pack, with_model

TYPE_CHECKING = False  # `typing` stays off the one-shot path (see core/record.py)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path
    from typing import Any

    from turnlens.router.settings import RouterSettings

# `pathlib` and `dataclasses` are imported where used: the plain `classify` path needs neither

__all__ = [
    "WorkspaceError",
    "command_line_models",
    "command_line_pack",
    "shown",
    "with_labels_model",
    "with_user_model",
]


class WorkspaceError(Exception):
    """A file a command line names cannot be used (the message says which and why)."""


def shown(path: object) -> str:
    """A path or message as it can be shown: bytes of a non-UTF-8 file name become U+FFFD."""
    return str(path).encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def with_labels_model(router: RouterSettings, models: Mapping[str, Any]) -> RouterSettings:
    """Router settings whose labeler is the user's labels model, when one is given."""
    model = models.get("labels")
    if model is None:
        return router
    from dataclasses import replace

    return replace(router, label_model=model)


def with_user_model(pack: RulePack, models: Mapping[str, Any]) -> RulePack:
    """The pack with the user's classes model deciding, when one is given and the pack has a
    model (a pack without one, `reference`, keeps its rules)."""
    model = models.get("classes")
    return pack if model is None or pack.model is None else with_model(pack, model)


def command_line_pack(spec: str | None, near: Path | str | None, warn: Callable[[str], None]) -> RulePack:
    """`--rules NAME|PATH`, else the `.turnlens.toml` found upward from the input (or the current
    folder), else `default`; WorkspaceError when a named file cannot be used."""
    import os

    try:
        if spec in BUILTIN_PACKS:
            return builtin_pack(spec)
        if spec:
            from pathlib import Path

            file = Path(spec)
            try:
                exists = file.exists()
            except OSError as exc:  # a name too long, a folder we may not enter
                raise WorkspaceError(f"--rules {shown(spec)}: {exc.strerror or exc}") from None
            if not exists:
                raise WorkspaceError(
                    f"--rules {shown(spec)}: no such file (built-in packs: {', '.join(BUILTIN_PACKS)})"
                )
            pack = userfiles.load_rules_file(file)
        else:
            # a str `near` is a normalized path (cli.common.path_text): its folder as Path.parent
            folder = (near.parent if not isinstance(near, str) else os.path.dirname(near)) if near else ""
            found = userfiles.find_project_rules(folder or os.getcwd())
            pack = userfiles.load_rules_file(found) if found else builtin_pack("default")
    except RulePackError as exc:
        raise WorkspaceError(shown(str(exc))) from None
    for warning in pack.warnings:
        warn(f"{warning} (rule skipped)")
    return pack


def command_line_models(paths: list[str]) -> dict[str, Any]:
    """Model files by task (`classes`, `labels`): `--model` paths, else $TURNLENS_MODELS;
    ModelError when one cannot be used."""
    import os

    from turnlens.learn.model import ModelError

    source = "--model"
    if not paths:
        source = "TURNLENS_MODELS"
        paths = [p for p in os.environ.get("TURNLENS_MODELS", "").split(os.pathsep) if p]

    models: dict[str, Any] = {}
    for raw in paths:
        try:
            model = userfiles.load_model_file(userfiles.model_path(raw))
        except ModelError as exc:
            raise ModelError(f"{source}: {shown(str(exc))}") from None
        models[model.task] = model
    return models
