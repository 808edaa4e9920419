"""Rules files are data the analysis depends on: when one changes, the documents under it follow.

Each analysis checks the document's rules file (its mtime and size), so saving a document after
editing `.turnlens.toml` uses the new rules; a client that can watch files is also asked, with a
dynamic registration, to report `.turnlens.toml` changes, so open documents follow at once.
"""

from __future__ import annotations

import logging

from lsprotocol import types

from turnlens.lsp.server import TurnLensServer

log = logging.getLogger("turnlens")

RULES_GLOB = "**/.turnlens.toml"
REGISTRATION_ID = "turnlens-rules-files"


async def watch_rules_files(ls: TurnLensServer) -> None:
    """Ask the client to report changes of `.turnlens.toml` files (when it can)."""
    if not ls.client_supports("workspace.did_change_watched_files.dynamic_registration"):
        return
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern=RULES_GLOB)]
    )
    registration = types.Registration(
        id=REGISTRATION_ID, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options
    )
    try:
        await ls.client_register_capability_async(types.RegistrationParams(registrations=[registration]))
    except Exception as exc:  # a client that refuses: the mtime check on each analysis remains
        log.info("the client did not register the rules file watcher (%s)", exc)


def register(server: TurnLensServer) -> None:
    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: TurnLensServer, params: types.DidChangeWatchedFilesParams) -> None:
        if params.changes:
            ls.rules_files_changed()
