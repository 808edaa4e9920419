"""The router (SPEC §5): which reasoning effort a prompt gets, from which source, and why.

Pure like the core: HTTP (httpx) is imported only when a model back end makes
its first call. Names are resolved on first use: the service (asyncio) loads
only for a caller that needs it, so an agent's hook that routes one prompt
offline starts without it.
"""

from __future__ import annotations

# bound here, not on first use: the submodule of the same name would shadow it otherwise
from turnlens.router.sample import sample

TYPE_CHECKING = False  # `typing` (and the `re` it imports) stays off the one-shot path

_WHERE = {
    "SOURCES": "turnlens.router.resolve",
    "Route": "turnlens.router.resolve",
    "resolve_early": "turnlens.router.resolve",
    "resolve_offline": "turnlens.router.resolve",
    "Router": "turnlens.router.service",
    "DEFAULT": "turnlens.router.settings",
    "RouterSettings": "turnlens.router.settings",
    "default": "turnlens.router.settings",
    "parse_router_settings": "turnlens.router.settings",
    "router_settings_schema": "turnlens.router.settings",
}

if TYPE_CHECKING:
    from typing import Any

    from turnlens.router.resolve import SOURCES, Route, resolve_early, resolve_offline
    from turnlens.router.service import Router
    from turnlens.router.settings import (
        DEFAULT,
        RouterSettings,
        default,
        parse_router_settings,
        router_settings_schema,
    )


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'turnlens.router' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT",
    "SOURCES",
    "Route",
    "Router",
    "RouterSettings",
    "default",
    "parse_router_settings",
    "resolve_early",
    "resolve_offline",
    "router_settings_schema",
    "sample",
]
