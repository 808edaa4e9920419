"""`turnlens plan`: the SE-029 session compression plan against a token budget."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from turnlens.cli.common import (
    EXIT_FLAGGED,
    EXIT_OK,
    UsageError,
    add_format_arg,
    load_rules,
    make_profile,
    report_problems,
    separator_help,
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "plan",
        help="plan a session's compression against a token budget",
        description="Classify every turn of a session file (any supported format: turns separated by "
        "separator lines, Claude Code, Codex, ChatGPT exports, …) and plan how far each may be "
        "compressed. Exit 1 when the plan overflows the budget.",
    )
    p.add_argument("--session", metavar="FILE", help="the session transcript")
    p.add_argument("--budget", metavar="N", help="the token budget (a whole number ≥ 0)")
    p.add_argument("--json", action="store_true", help="print the plan as JSON")
    p.add_argument("--rules", metavar="NAME|PATH", help="rule pack or rules file (as for classify)")
    p.add_argument("--separator", metavar="REGEX", default=None, help=separator_help())
    add_format_arg(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from turnlens.cli.sessions import analyze_file
    from turnlens.core.plan import plan
    from turnlens.pipeline.analyze import NotATranscript

    if not args.session:
        raise UsageError("turnlens plan: missing --session FILE")
    if args.budget is None:
        raise UsageError("turnlens plan: missing --budget N")
    try:
        budget = int(args.budget)
    except ValueError:
        raise UsageError(f"turnlens plan: --budget must be a whole number, got {args.budget!r}") from None
    if budget < 0:
        raise UsageError(f"turnlens plan: --budget must be ≥ 0, got {budget}")
    path = Path(args.session)
    if not path.exists():
        raise UsageError(f"turnlens: {path}: no such file")
    if path.is_dir():
        raise UsageError(f"turnlens: {path}: is a directory")
    pack = load_rules(args.rules, path)
    profile = make_profile(args, pack, "turnlens plan")
    try:
        fa = analyze_file(path, profile)
        classifications = [r.classification for r in fa.results]
    except NotATranscript as exc:
        raise UsageError(f"turnlens plan: {path}: {exc}") from None
    report_problems(path, fa.problems)
    result = plan(classifications, budget)
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False, separators=(",", ":")))
    else:
        # the plan keeps words; the budget is in tokens (SE-029: 1.3 tokens a word)
        print(f"{'turn':>4}  {'class':<9} {'frozen':<8} {'words':>7}  {'ratio':>5}  {'kept words':>10}")
        for t in result.turns:
            print(
                f"{t.turn:>4}  {t.task_class:<9} {t.frozen:<8} {t.words_orig:>7}  "
                f"{t.applied_ratio:>4}:1  {t.words_plan:>10}"
            )
        print(
            f"{'all':>4}  {'':<9} {'':<8} {result.total_orig_words:>7}  {'':>5}  {result.total_plan_words:>10}"
            f"  ≈ {result.total_plan_tokens} tokens (1.3 a word)"
        )
        print(result.message)
    return EXIT_OK if result.fits else EXIT_FLAGGED
