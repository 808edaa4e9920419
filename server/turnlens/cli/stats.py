"""`turnlens stats`: what whole sessions are — classes, roles, frozen share, plan savings, efforts."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from turnlens.cli.common import (
    EXIT_OK,
    UsageError,
    add_format_arg,
    load_rules,
    make_profile,
    report_problems,
    separator_help,
)

if TYPE_CHECKING:
    from turnlens.pipeline.analyze import UnitResult
    from turnlens.pipeline.stats import SessionStats


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "stats",
        help="per-session and total figures: classes, roles, frozen share, plan savings, efforts",
        description="Read session files (any supported format; folders are walked as by `check`) and "
        "print, per session and in total: units by class and role, the share of tokens that is "
        "frozen, what the SE-029 plan would save, the routed effort mix, and routed against used "
        "effort where the file records it.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--format", choices=["text", "json", "csv"], default="text")
    p.add_argument("--rules", metavar="NAME|PATH", help="rule pack or rules file (as for classify)")
    p.add_argument("--separator", metavar="REGEX", default=None, help=separator_help())
    p.add_argument(
        "--html",
        metavar="OUT.html",
        help="also write the session map: one self-contained HTML page (no network) for all the files",
    )
    p.add_argument(
        "--budget",
        metavar="N",
        type=int,
        default=0,
        help="token budget drawn on the session map's plan (0: none)",
    )
    add_format_arg(p)
    p.set_defaults(func=run)


def collect_stats(
    args: argparse.Namespace,
    maps: list[dict[str, Any]] | None = None,
    skipped: list[dict[str, str]] | None = None,
) -> tuple[list[SessionStats], SessionStats]:
    """Every readable session's figures and their total; problems are said on stderr.
    With `maps`, each session's map is appended to it too; with `skipped`, each file passed
    over, with the reason."""
    from turnlens.cli.paths import collect
    from turnlens.cli.sessions import analyze_file
    from turnlens.pipeline.analyze import Analyzed, NotATranscript
    from turnlens.pipeline.sessionmap import session_map
    from turnlens.pipeline.stats import StatsBuilder, link_sub_agents, total

    files = collect(args.paths, "stats")
    if not files:
        raise UsageError(f"turnlens stats: no session files in {', '.join(args.paths)}")
    pack = load_rules(args.rules, files[0] if len(files) == 1 else None)
    profile = make_profile(args, pack, "turnlens stats")
    sessions: list[SessionStats] = []
    for path in files:
        try:
            fa = analyze_file(path, profile)
            builder = StatsBuilder(str(path), fa.format)
            kept: list[UnitResult] | None = [] if maps is not None else None
            for result in fa.results:
                builder.add(result)
                if kept is not None:
                    kept.append(result)
        except UsageError as exc:
            print(f"turnlens: warning: {exc}", file=sys.stderr)
            if skipped is not None:
                skipped.append({"path": str(path), "reason": str(exc).removeprefix("turnlens: ")})
            continue
        except NotATranscript as exc:
            print(f"turnlens: warning: {path}: {exc}; skipped", file=sys.stderr)
            if skipped is not None:
                skipped.append({"path": str(path), "reason": str(exc)})
            continue
        report_problems(path, fa.problems)
        sessions.append(builder.finish(len(fa.problems), fa.info))
        if maps is not None and kept is not None:
            title = fa.title or (fa.info.title if fa.info is not None else None)
            analyzed = Analyzed(fa.format, tuple(kept), tuple(fa.problems), title, fa.info)
            maps.append(session_map(analyzed, fa.text, path=str(path), budget=args.budget, pack=pack))
    link_sub_agents(sessions)
    if maps is not None:
        for data, s in zip(maps, sessions, strict=True):
            data["stats"]["sub_agents"] = list(s.sub_agents)
    return sessions, total(sessions)


def run(args: argparse.Namespace) -> int:
    if args.budget < 0:
        raise UsageError(f"turnlens stats: --budget must be ≥ 0, got {args.budget}")
    maps: list[dict[str, Any]] | None = [] if args.html else None
    if args.html:
        from turnlens.cli.outputs import OutputProblem, check_output

        try:  # before any work: a FIFO or a missing folder is refused, not found out at the end
            check_output(Path(args.html))
        except OutputProblem as exc:
            raise UsageError(f"turnlens stats: --html {args.html}: {exc}") from None
    skipped: list[dict[str, str]] = []
    sessions, overall = collect_stats(args, maps, skipped)
    if args.html and maps is not None:
        write_report(Path(args.html), maps, skipped)
    if not sessions and skipped:  # nothing could be read: say so in the exit code too
        reasons = "; ".join(f"{s['path']}: {s['reason']}" for s in skipped[:3])
        raise UsageError(f"turnlens stats: no session could be read ({reasons})")
    if args.format == "json":
        out = {"sessions": [s.to_json() for s in sessions], "total": overall.to_json()}
        print(json.dumps(out, ensure_ascii=False, indent=1))
    elif args.format == "csv":
        _csv([*sessions, overall])
    else:
        for s in sessions:
            print(_text(s))
            print()
        if len(sessions) != 1:
            print(_text(overall))
    return EXIT_OK


def write_report(out: Path, maps: list[dict[str, Any]], skipped: list[dict[str, str]] | None = None) -> None:
    from turnlens.cli.outputs import OutputProblem, write_output
    from turnlens.report import render_html

    try:
        write_output(out, render_html(maps, skipped=skipped).encode("utf-8"))
    except OutputProblem as exc:
        raise UsageError(f"turnlens stats: --html {out}: {exc}") from None
    except OSError as exc:
        raise UsageError(f"turnlens stats: --html {out}: {exc.strerror or exc}") from None
    print(f"turnlens: session map written to {out}", file=sys.stderr)


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _when(seconds: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S")


def _span(s: SessionStats) -> str | None:
    """`start → end UTC (duration)` where the files record times."""
    if s.started is None or s.ended is None:
        return None
    start, end = _when(s.started), _when(s.ended)
    if end[:10] == start[:10]:
        end = end[11:]
    minutes, seconds = divmod(round(s.ended - s.started), 60)
    hours, minutes = divmod(minutes, 60)
    took = (
        f"{hours} h {minutes} min" if hours else f"{minutes} min {seconds} s" if minutes else f"{seconds} s"
    )
    return f"{start} → {end} UTC ({took})"


def _recorded(s: SessionStats) -> str | None:
    """The token usage the files record, said as such (not the words × 1.3 estimate)."""
    total = s.recorded_tokens
    if total is None:
        return None
    u = s.usage
    parts = [f"input {u['input']:,}"]
    if u["cache_read"] or u["cache_write"]:
        parts.append(f"cache read {u['cache_read']:,}, cache write {u['cache_write']:,}")
    parts.append(f"output {u['output']:,}" + (f" (reasoning {u['reasoning']:,})" if u["reasoning"] else ""))
    where = (
        s.usage_source
        if s.sessions <= 1
        else f"{s.usage_sessions} of {s.sessions} sessions, {s.usage_source}"
    )
    return f"{total:,} tokens recorded by the API ({where}): {', '.join(parts)}"


def _text(s: SessionStats) -> str:
    data = s.to_json()
    head = s.path if s.path != "(total)" else f"total: {s.sessions} sessions"
    fmt = f" ({s.format})" if s.format else ""
    lines = [f"{head}{fmt}: {s.units} units, {s.tokens} tokens (estimated: words × 1.3)"]
    if s.parent_session:
        lines.append(
            f"  sub-agent of session {s.parent_session}"
            + (f" (agent {s.session_id})" if s.session_id else "")
        )
    if s.sub_agents:
        lines.append(f"  sub-agents {len(s.sub_agents)}: {', '.join(s.sub_agents)}")
    if s.sidechain_units:
        lines.append(f"  sidechain {s.sidechain_units} units of sub-agents (Task) inside the file")
    span = _span(s)
    if span:
        lines.append(f"  time      {span}")
    if s.models:
        lines.append(f"  models    {', '.join(s.models)}")
    recorded = _recorded(s)
    if recorded:
        lines.append(f"  recorded  {recorded}")
    classes = ", ".join(f"{c} {n}" for c, n in data["by_class"].items() if n)
    lines.append(f"  classes   {classes or '–'}")
    roles = ", ".join(f"{r} {n}" for r, n in data["by_role"].items())
    lines.append(f"  roles     {roles or '–'}")
    kinds = ", ".join(f"{k} {n}" for k, n in data["by_kind"].items())
    aside = f" ({s.aside} injected or command: not prompts, not routed)" if s.aside else ""
    lines.append(f"  kinds     {kinds or '–'}{aside}")
    lines.append(
        f"  frozen    {s.frozen_tokens} of {s.tokens} tokens ({_pct(s.frozen_share)}); "
        f"partly frozen {s.partial_tokens}"
    )
    lines.append(
        f"  plan      {s.tokens} → {s.plan_tokens} tokens, saves {s.saved_tokens} ({_pct(s.saved_share)})"
    )
    mix = ", ".join(f"{e} {n}" for e, n in data["effort_mix"].items())
    lines.append(f"  efforts   {s.prompts} prompts routed: {mix or '–'}")
    if data["effort_agreement"] is not None:
        pairs = ", ".join(f"{p['routed']}/{p['used']} {p['count']}" for p in data["effort_routed_vs_used"])
        lines.append(f"  used      routed/used: {pairs}; agree {_pct(data['effort_agreement'])}")
    return "\n".join(lines)


_CSV_FIELDS = (
    "path",
    "format",
    "sessions",
    "units",
    "words",
    "tokens",
    "frozen_tokens",
    "frozen_share",
    "partial_tokens",
    "plan_tokens",
    "saved_tokens",
    "saved_share",
    "prompts",
    "effort_agreement",
    "problems",
    "started",
    "ended",
    "recorded_tokens",
    "parent_session",
)


def _csv(rows: list[SessionStats]) -> None:
    from turnlens.core.classes import CLASS_NAMES
    from turnlens.pipeline.stats import EFFORT_ORDER

    header = [*_CSV_FIELDS, *(f"class_{c}" for c in CLASS_NAMES), *(f"effort_{e}" for e in EFFORT_ORDER)]
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(header)
    for s in rows:
        data: dict[str, Any] = s.to_json()
        row = [data[f] for f in _CSV_FIELDS]
        row += [data["by_class"][c] for c in CLASS_NAMES]
        row += [s.effort_mix.get(e, 0) for e in EFFORT_ORDER]
        writer.writerow(["" if v is None else v for v in row])


__all__ = ["collect_stats", "register", "run"]
