"""`turnlens route`: the reasoning effort a router gives a prompt, its source and why."""

from __future__ import annotations

from turnlens.cli.common import EXIT_OK, UsageError, add_input_args, load_models, read_input

TYPE_CHECKING = False  # `typing` (and the `re` it imports) stays off the one-shot path
if TYPE_CHECKING:
    import argparse
    from typing import Any

HELP = """Print the route of a prompt: `phase effort (source)`, e.g.

  plan high (keyword)                 reflect high (classifier: analysis)
  high (explicit)                     none (classifier: chat)       none (short)

The embedded labeler is a learned model: it always names one of design, analysis,
coding, bookkeeping or chat, with a confidence; --explain shows the features that
pushed it. Answers less sure than --min-confidence get no route.

Phases: plan, reflect, implement, apply. Sources, first match wins: off, directive
(/route <phase>), slash, explicit (/effort <level>, effort: frontmatter), keyword
(ultrathink, think hard…), short, paused, classifier, fallback.
The default back end (rules) is offline; --backend openai|anthropic sends a sample
of the prompt to --endpoint.
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    import argparse

    p = sub.add_parser(
        "route",
        help="print the reasoning effort a router gives a prompt",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_input_args(p)
    p.add_argument("--json", action="store_true", help="print phase, effort, label, source, reason, signals")
    p.add_argument("--explain", action="store_true", help="also print the reason and the rules that fired")
    p.add_argument(
        "--backend", choices=("rules", "openai", "anthropic"), help="the classifier (default rules)"
    )
    p.add_argument("--endpoint", metavar="URL", help="model server base URL (openai: …/v1)")
    p.add_argument(
        "--model",
        metavar="NAME|PATH",
        help="with --backend openai|anthropic: the model name; with the embedded labeler: a model file "
        "made by `turnlens train --task router` (default: $TURNLENS_MODELS, else the shipped model)",
    )
    p.add_argument("--timeout-ms", metavar="N", type=int, help="bound of a model call (default 3000)")
    p.add_argument("--api-key-env", metavar="NAME", help="environment variable that holds the API key")
    p.add_argument("--fallback", choices=("rules", "none"), help="what answers when the model fails")
    p.add_argument(
        "--min-confidence",
        metavar="P",
        type=float,
        help="labeler answers less sure than P (0–1) get no route (default: the setting's default)",
    )
    p.set_defaults(func=run)


def _settings(args: argparse.Namespace) -> Any:
    raw: dict[str, Any] = {}
    backend = args.backend or "rules"
    for flag, key in (
        ("backend", "backend"),
        ("endpoint", "endpoint"),
        ("model", "model" if backend != "rules" else ""),
        ("timeout_ms", "timeoutMs"),
        ("api_key_env", "apiKeyEnv"),
        ("fallback", "fallback"),
        ("min_confidence", "minConfidence"),
    ):
        value = getattr(args, flag)
        if value is not None and key:
            raw[key] = value
    if not raw:  # the defaults, without building the editor settings' dataclass
        from turnlens.router.vocabulary import DEFAULTS

        return DEFAULTS
    from turnlens.router.settings import parse_router_settings

    settings, warnings = parse_router_settings(raw)
    if warnings:
        flags = {
            "router.timeoutMs": "--timeout-ms",
            "router.apiKeyEnv": "--api-key-env",
            "router.minConfidence": "--min-confidence",
        }
        message = warnings[0].replace("; using the default", "")
        for name, flag in flags.items():
            message = message.replace(name, flag)
        raise UsageError(f"turnlens route: {message.replace('router.', '--')}")
    return settings


async def _route_with_model(text: str, settings: Any) -> Any:
    from turnlens.router.service import Router

    router = Router(settings)
    try:
        return await router.route(text)
    finally:
        await router.aclose()


def run(args: argparse.Namespace) -> int:
    from turnlens.pipeline.command_line import with_labels_model
    from turnlens.router.resolve import resolve_early, resolve_offline

    text, _ = read_input(args)
    settings = _settings(args)
    files = [args.model] if args.model and not settings.uses_model else []
    models = load_models(files, "route")
    if "labels" in models and not hasattr(settings, "__dataclass_fields__"):
        from turnlens.router.settings import DEFAULT

        settings = DEFAULT  # the user's labels model goes into a copy of the settings
    settings = with_labels_model(settings, models)
    if settings.uses_model and resolve_early(text, settings) is None:
        import asyncio

        route = asyncio.run(_route_with_model(text, settings))
    else:
        # the reason and the located signals are printed only with --json or --explain
        route = resolve_offline(text, settings, explain=bool(args.json or args.explain))
    if args.json:
        import json

        print(json.dumps(route.to_json(), ensure_ascii=False, separators=(",", ":")))
        return EXIT_OK
    print(route.describe())
    if args.explain:
        if route.confidence is not None:
            print(f"  confidence: {route.confidence:.1%}")
        print(f"  why: {route.reason}")
        for s in route.signals:
            weight = f"+{s.weight}" if s.weight > 0 else (str(s.weight) if s.weight else " ·")
            where = f"line {s.line}: {s.text!r}" if s.line else s.description
            print(f"  {weight:>3} {s.category:<11} {s.rule:<26} {where}")
    return EXIT_OK
