"""`turnlens classify`: the task class of one prompt or turn."""

from __future__ import annotations

from typing import TYPE_CHECKING

from turnlens.cli.common import (
    EXIT_FLAGGED,
    EXIT_OK,
    add_input_args,
    add_model_arg,
    apply_models,
    load_rules,
    read_input,
)

if TYPE_CHECKING:
    import argparse

    from turnlens.core.classify import Classification

HELP = """Print the task class of a prompt or turn: one of
  decision (≤5:1, frozen)   spec (≤3:1, frozen)        code (≤10:1, partly frozen)
  review (≤15:1)            context (≤25:1)            chitchat (≤80:1)
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    import argparse

    p = sub.add_parser(
        "classify",
        help="print the task class of a prompt or turn",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_input_args(p)
    p.add_argument("--json", action="store_true", help="print the SE-029 JSON")
    p.add_argument(
        "--explain",
        action="store_true",
        help="also show the probability, the features that pushed the answer and the rules that fired",
    )
    p.add_argument(
        "--rules",
        metavar="NAME|PATH",
        help="a built-in pack (default, reference) or a rules TOML file; "
        "default: the nearest .turnlens.toml, else the default pack",
    )
    p.add_argument("--strict", action="store_true", help="exit 1 when the verdict is SKIP (frozen)")
    add_model_arg(p)
    p.set_defaults(func=run)


def explain_lines(result: Classification) -> list[str]:
    """The `--explain` block: the engine's answer and why (probability, features, rules)."""
    frozen = {"true": "frozen", "partial": "partly frozen", "false": "not frozen"}[result.frozen]
    out = [
        f"  ≤{result.max_ratio}:1 · {frozen} · {result.verdict} · {result.words} words, {result.lines} lines"
    ]
    if result.pinned:
        out.append("  pinned by a <!-- turnlens: class=… --> directive")
    elif result.overridden_by:
        out.append(f"  decided by your rules: {', '.join(result.overridden_by)} (they win over the model)")
    if result.engine == "model" and result.probabilities:
        ranked = sorted(result.probabilities.items(), key=lambda kv: -kv[1])
        others = ", ".join(f"{k} {v:.0%}" for k, v in ranked[1:4])
        unsure = " — unsure" if result.unsure else ""
        out.append(f"  model: {result.task_class} {result.confidence:.1%}{unsure} (then {others})")
        if result.features:
            out.append("  features that pushed it:")
            for c in result.features:
                out.append(f"    {c.weight:+.2f} {c.label()}")
    if result.signals:
        out.append("  rules that fired:")
        for s in result.signals:
            where = f"line {s.line}: {s.text!r}" if s.line else s.description
            weight = ""
            if result.rule_weights is not None and s.rule in result.rule_weights:
                weight = f" (model {result.rule_weights[s.rule]:+.2f})"
            out.append(f"    {s.weight:+d} {s.category:<8} {s.rule:<22} {where}{weight}")
    out.append("  rule scores: " + "  ".join(f"{k} {v}" for k, v in result.scores.items()))
    return out


def run(args: argparse.Namespace) -> int:
    from turnlens.core.classify import classify

    text, path = read_input(args)
    pack = apply_models(load_rules(args.rules, path), args.model, "classify")
    pin = None
    if "<!--" in text:  # an inline `<!-- turnlens: class=… -->` pins the class
        from turnlens.pipeline.units import parse_directives

        pin = parse_directives(text).pin
    result = classify(text, pack, explain=args.explain, pin=pin)
    if args.json:
        import json

        print(json.dumps(result.to_json(explain=args.explain), ensure_ascii=False, separators=(",", ":")))
    else:
        print(result.shown_class())
        if args.explain:
            print("\n".join(explain_lines(result)))
    return EXIT_FLAGGED if args.strict and result.verdict == "SKIP" else EXIT_OK
