"""initialize / initialized / didChangeConfiguration: where settings come from.

Clients deliver settings in one of three ways, and all three must reach documents opened later:
- pull: the client answers workspace/configuration (VS Code, eglot, Neovim);
- push: a client without that capability sends them in didChangeConfiguration, often before
  the first didOpen (ALE, vim-lsp, Neovim's `on_init` pattern) — kept on the server, because a
  push is not repeated when the next file opens;
- `settings: null` (or nothing usable) is the signal to pull again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from lsprotocol import types

from turnlens import __version__
from turnlens.lsp.features import rules_files
from turnlens.lsp.server import TurnLensServer

log = logging.getLogger("turnlens")

SECTION = "turnlens"


def pushed_section(settings: Any) -> Mapping[str, Any] | None:
    """The `turnlens` settings in a didChangeConfiguration payload, or None when it says "pull".

    Accepts `{"turnlens": {...}}` and the bare section `{...}` (some clients send only the
    settings of the server they talk to)."""
    if not isinstance(settings, Mapping) or not settings:
        return None
    inner = settings.get(SECTION)
    if isinstance(inner, Mapping):
        return inner
    return settings


def register(server: TurnLensServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: TurnLensServer, params: types.InitializeParams) -> None:
        ls.set_init_options(params.initialization_options)
        backend = ls.base_settings().router.backend
        log.info("TurnLens %s starting; router back end: %s", __version__, backend)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: TurnLensServer, params: types.InitializedParams) -> None:
        ls.window_log_message(
            types.LogMessageParams(
                type=types.MessageType.Info,
                message=f"TurnLens ready (router back end: {ls.base_settings().router.backend}, "
                f"position encoding: {ls.encoding})",
            )
        )
        ls.spawn(rules_files.watch_rules_files(ls))  # not awaited here: shutdown may come first

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: TurnLensServer, params: types.DidChangeConfigurationParams
    ) -> None:
        pushed = pushed_section(params.settings)
        if pushed is not None:
            # kept, so a document opened after this push gets the same settings
            ls.pushed_settings = dict(pushed)
            log.info("settings pushed by the client: %s", sorted(pushed))
        # pull-capable clients are asked again (their answer is authoritative); for the others
        # pull_settings falls back to what they pushed
        await asyncio.gather(*(ls.pull_settings(s) for s in list(ls.documents.values())))
        ls.resolver.forget_files()
        ls.reanalyze_all()
