"""The router (SPEC §5): which reasoning effort a prompt gets, from which source, and why.

Pure like the core: HTTP (httpx) is imported only when a model back end makes
its first call.
"""

from turnlens.router.resolve import SOURCES, Route, resolve_early, resolve_offline
from turnlens.router.sample import sample
from turnlens.router.service import Router
from turnlens.router.settings import (
    DEFAULT,
    RouterSettings,
    default,
    parse_router_settings,
    router_settings_schema,
)

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
