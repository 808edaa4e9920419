"""workspace/executeCommand: turnlens.classify, turnlens.plan, turnlens.reload.

Every command answers with JSON (the VS Code client renders it). Most other clients drop an
executeCommand result on the floor, so the classify and plan results are also shown to the
user with window/showMessage — unless the client asked for the raw JSON only, per call
(`"format": "json"` in the argument) or for the session (`"commandResults": "json"` in
initializationOptions, which the VS Code client sends).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from turnlens.classifier import classify
from turnlens.core.plan import plan
from turnlens.core.rules import builtin_pack
from turnlens.lsp.server import TurnLensServer
from turnlens.pipeline.units import parse_directives
from turnlens.router.resolve import resolve_offline


def _arg(args: tuple[Any, ...], name: str) -> Mapping[str, Any]:
    if len(args) != 1 or not isinstance(args[0], Mapping):
        raise JsonRpcInvalidParams(f"{name} takes one object argument")
    return args[0]


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


def wants_json_only(ls: TurnLensServer, arg: Mapping[str, Any]) -> bool:
    if arg.get("format") == "json":
        return True
    return ls.init_options.get("commandResults") == "json"


def render_classification(out: Mapping[str, Any]) -> tuple[str, str]:
    """The classify result as one short line for the message area (editors cut longer ones, or
    show only the last line of several) and the details (scores, rules) for the log."""
    frozen = {"true": ", frozen", "partial": ", partly frozen"}.get(out["frozen"], "")
    where = f"line {out['range']['start']['line'] + 1}" if out.get("range") else "text"
    route = out.get("route") or {}
    effort = f"effort {route['effort']}" if route.get("effort") else "no route"
    summary = f"TurnLens {where}: {out['class']} ≤{out['max_ratio']}:1{frozen} · {effort}"
    why = (
        f"{route.get('phase') or 'explicit'}, {route.get('source')}"
        if route.get("effort")
        else route.get("source")
    )
    ranked = sorted(out["scores"].items(), key=lambda kv: -kv[1])
    details = [
        f"{summary} ({why}) · {out['words']} words · {out['verdict']}",
        "scores: " + ", ".join(f"{name} {score}" for name, score in ranked),
    ]
    offset = out["range"]["start"]["line"] if out.get("range") else 0
    fired = [s for s in out.get("signals", []) if s.get("class") == out["class"]]
    if fired:
        details.append(
            "rules: " + ", ".join(f"{s['rule']} (+{s['weight']}, line {offset + s['line']})" for s in fired)
        )
    return summary, "\n".join(details)


def render_plan(out: Mapping[str, Any]) -> tuple[str, str]:
    """The session plan: its verdict as one line; the per-turn plan for the log."""
    summary = f"TurnLens plan: {out['message']}"
    lines = [summary]
    for t in out["plan"]:
        ratio = "kept whole" if t["applied_ratio"] == 1 else f"÷{t['applied_ratio']}"
        lines.append(
            f"turn {t['turn']}: {t['class']} · {t['words_orig']} → {t['words_plan']} words ({ratio})"
        )
    return summary, "\n".join(lines)


def show(ls: TurnLensServer, arg: Mapping[str, Any], rendered: tuple[str, str]) -> None:
    """The summary as a message the user sees, the details in the client's log."""
    if wants_json_only(ls, arg):
        return
    summary, details = rendered
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=summary))
    ls.window_log_message(types.LogMessageParams(type=types.MessageType.Info, message=details))


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
            state = ls.named_document(arg, "turnlens.classify")
            settings, pack = state.settings, ls.pack_of(state)
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
        show(ls, arg, render_classification(out))
        return out

    @server.command("turnlens.plan")
    def plan_command(ls: TurnLensServer, *args: Any) -> dict[str, Any]:
        arg = _arg(args, "turnlens.plan")
        state = ls.named_document(arg, "turnlens.plan")
        budget = arg.get("budget", state.settings.budget)
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
            raise JsonRpcInvalidParams("turnlens.plan: `budget` must be a whole number ≥ 0")
        if not state.fresh:
            ls.analyze(state)
        ls.settle(state)
        out = plan([r.classification for r in state.results if not r.unit.ignored], budget).to_json()
        show(ls, arg, render_plan(out))
        return out

    @server.command("turnlens.reload")
    async def reload_command(ls: TurnLensServer, *args: Any) -> dict[str, Any]:
        ls.resolver.forget_files()
        ls.resolver.reload_routers()
        await asyncio.gather(*(ls.pull_settings(s) for s in list(ls.documents.values())))
        for state in ls.documents.values():
            state.cache.clear()
            state.model_routes.clear()
            ls.analyze(state)
        return {"reloaded": True, "documents": len(ls.documents)}
