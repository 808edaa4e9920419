"""`turnlens classify`: the task class of one prompt or turn."""

from __future__ import annotations

from typing import TYPE_CHECKING

from turnlens.cli.common import EXIT_FLAGGED, EXIT_OK, add_input_args, load_rules, read_input

if TYPE_CHECKING:
    import argparse

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
    p.add_argument("--explain", action="store_true", help="also show the rules that fired, with lines")
    p.add_argument(
        "--rules",
        metavar="NAME|PATH",
        help="a built-in pack (default, reference) or a rules TOML file; "
        "default: the nearest .turnlens.toml, else the default pack",
    )
    p.add_argument("--strict", action="store_true", help="exit 1 when the verdict is SKIP (frozen)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from turnlens.core.classify import classify

    text, path = read_input(args)
    pack = load_rules(args.rules, path)
    pin = None
    if "<!--" in text:  # an inline `<!-- turnlens: class=… -->` pins the class
        from turnlens.pipeline.units import parse_directives

        pin = parse_directives(text).pin
    result = classify(text, pack, explain=args.explain, pin=pin)
    if args.json:
        import json

        print(json.dumps(result.to_json(explain=args.explain), ensure_ascii=False, separators=(",", ":")))
    else:
        print(result.task_class)
        if args.explain:
            frozen = {"true": "frozen", "partial": "partly frozen", "false": "not frozen"}[result.frozen]
            print(
                f"  ≤{result.max_ratio}:1 · {frozen} · {result.verdict} · "
                f"{result.words} words, {result.lines} lines"
            )
            print("  scores: " + "  ".join(f"{k} {v}" for k, v in result.scores.items()))
            for s in result.signals:
                where = f"line {s.line}: {s.text!r}" if s.line else s.description
                print(f"  {s.weight:+d} {s.category:<8} {s.rule:<22} {where}")
    return EXIT_FLAGGED if args.strict and result.verdict == "SKIP" else EXIT_OK
