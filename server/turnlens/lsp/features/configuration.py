"""initialize / initialized / didChangeConfiguration: where settings come from."""

from __future__ import annotations

import asyncio
import logging

from lsprotocol import types

from turnlens import __version__
from turnlens.lsp.features import rules_files
from turnlens.lsp.server import TurnLensServer

log = logging.getLogger("turnlens")


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
        if not ls.client_supports("workspace.configuration") and isinstance(params.settings, dict):
            # Push-style clients send the settings themselves.
            raw = params.settings.get("turnlens", params.settings)
            for state in ls.documents.values():
                ls.apply_settings(state, ls.effective(raw))
        else:
            await asyncio.gather(*(ls.pull_settings(s) for s in list(ls.documents.values())))
        ls.clear_packs()
        ls.reanalyze_all()
