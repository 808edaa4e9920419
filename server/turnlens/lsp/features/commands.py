"""workspace/executeCommand: turnlens.classify, turnlens.plan, turnlens.reload."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from turnlens.core.classify import classify
from turnlens.core.plan import plan
from turnlens.core.rules import builtin_pack
from turnlens.lsp.documents import DocState
from turnlens.lsp.server import TurnLensServer
from turnlens.pipeline.units import parse_directives
from turnlens.router.resolve import resolve_offline


def _arg(args: tuple[Any, ...], name: str) -> Mapping[str, Any]:
    if len(args) != 1 or not isinstance(args[0], Mapping):
        raise JsonRpcInvalidParams(f"{name} takes one object argument")
    return args[0]


def _state(ls: TurnLensServer, arg: Mapping[str, Any], name: str) -> DocState:
    uri = arg.get("uri")
    if not isinstance(uri, str):
        raise JsonRpcInvalidParams(f"{name}: `uri` must be a string")
    state = ls.documents.get(uri)
    if state is None:
        raise JsonRpcInvalidParams(f"{name}: {uri} is not open")
    return state


def _range(arg: Mapping[str, Any]) -> types.Range | None:
    raw = arg.get("range")
    if raw is None:
        return None
    try:
        return types.Range(
            start=types.Position(line=int(raw["start"]["line"]), character=int(raw["start"]["character"])),
            end=types.Position(line=int(raw["end"]["line"]), character=int(raw["end"]["character"])),
        )
    except (KeyError, TypeError, ValueError):
        raise JsonRpcInvalidParams("turnlens.classify: `range` must be an LSP Range") from None


def register(server: TurnLensServer) -> None:
    @server.command("turnlens.classify")
    async def classify_command(ls: TurnLensServer, *args: Any) -> dict[str, Any]:
        arg = _arg(args, "turnlens.classify")
        if "text" in arg:
            text = arg["text"]
            if not isinstance(text, str):
                raise JsonRpcInvalidParams("turnlens.classify: `text` must be a string")
            settings = ls.base_settings()
            pack = builtin_pack(settings.rules_pack)
            rng = None
        else:
            state = _state(ls, arg, "turnlens.classify")
            settings, pack = state.settings, state.pack or builtin_pack(state.settings.rules_pack)
            doc = state.doc
            requested = _range(arg)
            start, end = (
                (0, len(doc.text))
                if requested is None
                else (
                    doc.offset_at(requested.start),
                    doc.offset_at(requested.end),
                )
            )
            start, end = min(start, end), max(start, end)
            text = doc.text[start:end]
            rng = doc.range_at(start, end)
        result = classify(text, pack, explain=True, pin=parse_directives(text).pin)
        router = ls.router_for(settings.router)
        route = resolve_offline(text, settings.router, paused=router.paused)
        if settings.router.backend != "rules":
            asked = await router.route(text, key=None)
            if asked is not None:
                route = asked
        out = {**result.to_json(explain=True), "route": route.to_json()}
        if rng is not None:
            out["range"] = {
                "start": {"line": rng.start.line, "character": rng.start.character},
                "end": {"line": rng.end.line, "character": rng.end.character},
            }
        return out

    @server.command("turnlens.plan")
    def plan_command(ls: TurnLensServer, *args: Any) -> dict[str, Any]:
        arg = _arg(args, "turnlens.plan")
        state = _state(ls, arg, "turnlens.plan")
        budget = arg.get("budget", state.settings.budget)
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
            raise JsonRpcInvalidParams("turnlens.plan: `budget` must be a whole number ≥ 0")
        if not state.fresh:
            ls.analyze(state)
        return plan([r.classification for r in state.results if not r.unit.ignored], budget).to_json()

    @server.command("turnlens.reload")
    async def reload_command(ls: TurnLensServer, *args: Any) -> dict[str, Any]:
        ls.clear_packs()
        ls.reload_routers()
        await asyncio.gather(*(ls.pull_settings(s) for s in list(ls.documents.values())))
        for state in ls.documents.values():
            state.cache.clear()
            state.model_routes.clear()
            ls.analyze(state)
        return {"reloaded": True, "documents": len(ls.documents)}
