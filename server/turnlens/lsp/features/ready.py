"""Waiting for a document's settings before answering what an editor asks on attach."""

from __future__ import annotations

import asyncio

from turnlens.lsp.documents import DocState
from turnlens.lsp.server import TurnLensServer

WAIT_FOR_SETTINGS_STEPS = 300  # × 10 ms


async def settings_pulled(ls: TurnLensServer, state: DocState) -> None:
    """Wait (3 s at most) until the document's settings have arrived, or it was closed.

    Editors ask for lenses and inlay hints as soon as a file is attached, often while its
    settings are still being pulled. An empty answer then stays: Neovim re-asks lenses on
    refresh only for buffers that have some, and draws inlay hints fetched again after a
    refresh only at its next redraw (a freshly opened file showed none until a key press)."""
    for _ in range(WAIT_FOR_SETTINGS_STEPS):
        if state.settings_ready or ls.documents.get(state.doc.uri) is not state:
            return
        await asyncio.sleep(0.01)
