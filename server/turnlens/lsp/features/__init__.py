"""One module per LSP feature; each has `register(server)`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from turnlens.lsp.server import TurnLensServer


def register_all(server: TurnLensServer) -> None:
    from turnlens.lsp.features import (
        code_actions,
        code_lens,
        commands,
        configuration,
        diagnostics,
        hover,
        inlay_hints,
        rules_files,
        session_map,
        status,
        sync,
    )

    for module in (
        configuration,
        rules_files,
        sync,
        diagnostics,
        status,
        code_lens,
        inlay_hints,
        hover,
        commands,
        code_actions,
        session_map,
    ):
        module.register(server)
