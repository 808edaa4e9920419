"""The session map: `turnlens/sessionMap` (data or a ready page, for a webview) and the
`turnlens.sessionMap` command, which writes the page to a file for clients without a webview
(into a folder only this user can use: see `turnlens.lsp.pages`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import from_fs_path

from turnlens.lsp.documents import DocState
from turnlens.lsp.pages import remove_page, write_page
from turnlens.lsp.server import TurnLensServer
from turnlens.pipeline.analyze import Analyzed
from turnlens.pipeline.sessionmap import session_map
from turnlens.report import render_html

REQUEST = "turnlens/sessionMap"
COMMAND = "turnlens.sessionMap"
_NONCE = re.compile(r"^[A-Za-z0-9+/=_-]{8,128}$")


def _as_mapping(params: Any) -> Mapping[str, Any]:
    """Params of a custom request, however the protocol layer structured them."""
    if isinstance(params, Mapping):
        return params
    if hasattr(params, "_asdict"):
        return dict(params._asdict())
    return dict(getattr(params, "__dict__", {}))


def _state(ls: TurnLensServer, params: Any, name: str) -> tuple[DocState, Mapping[str, Any]]:
    arg = _as_mapping(params)
    return ls.named_document(arg, name), arg


def build_map(ls: TurnLensServer, state: DocState, budget: int | None = None) -> dict[str, Any]:
    """The map of a document as it is now, each unit with its LSP range (negotiated encoding)."""
    if not state.fresh:
        ls.analyze(state)
    ls.settle(state)
    doc = state.doc
    analyzed = Analyzed(state.format_name, state.results, state.problems, state.title, state.info)
    pack = ls.profile_of(state).pack
    path = state.path or doc.uri
    data = session_map(
        analyzed,
        doc.text,
        path=path,
        budget=state.settings.budget if budget is None else budget,
        pack=pack,
    )
    for unit in data["units"]:
        rng = doc.range_at(unit["start"], unit["end"])
        unit["range"] = {
            "start": {"line": rng.start.line, "character": rng.start.character},
            "end": {"line": rng.end.line, "character": rng.end.character},
        }
    data["uri"] = doc.uri
    data["version"] = doc.version
    return data


def _budget(arg: Mapping[str, Any], name: str) -> int | None:
    budget = arg.get("budget")
    if budget is None:
        return None
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
        raise JsonRpcInvalidParams(f"{name}: `budget` must be a whole number ≥ 0")
    return budget


def register(server: TurnLensServer) -> None:
    pages: dict[str, Path] = {}  # the last page written for each document, replaced by the next

    @server.feature(REQUEST)
    def session_map_request(ls: TurnLensServer, params: Any) -> dict[str, Any]:
        """`{uri, budget?, html?, nonce?}` → `{map, html?}`; `html` is the whole page, its
        scripts and styles allowed by `nonce` (a webview's content security policy)."""
        state, arg = _state(ls, params, REQUEST)
        data = build_map(ls, state, _budget(arg, REQUEST))
        out: dict[str, Any] = {"map": data}
        if arg.get("html"):
            nonce = arg.get("nonce")
            if nonce is not None and (not isinstance(nonce, str) or not _NONCE.match(nonce)):
                raise JsonRpcInvalidParams(f"{REQUEST}: `nonce` must be 8–128 base64 characters")
            out["html"] = render_html([data], nonce=nonce, vscode=bool(arg.get("vscode")))
        return out

    @server.command(COMMAND)
    def session_map_command(ls: TurnLensServer, *args: Any) -> dict[str, Any]:
        """Write the page to a file and say where: for clients that cannot show a webview."""
        if len(args) != 1 or not isinstance(args[0], Mapping):
            raise JsonRpcInvalidParams(f"{COMMAND} takes one object argument")
        state, arg = _state(ls, args[0], COMMAND)
        data = build_map(ls, state, _budget(arg, COMMAND))
        name = PurePosixPath(state.path or state.doc.uri).name or "session"
        out = write_page(name, render_html([data]))
        previous = pages.get(state.doc.uri)
        if previous is not None and previous != out:
            remove_page(previous)
        pages[state.doc.uri] = out
        uri = from_fs_path(str(out)) or f"file://{out}"
        ls.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Info, message=f"TurnLens session map: {out}")
        )
        return {"path": str(out), "uri": uri, "units": len(data["units"])}
