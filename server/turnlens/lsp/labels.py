"""The words every view uses, so a diagnostic, a lens and a hover never disagree."""

from __future__ import annotations

import re

from turnlens.core.classify import Classification
from turnlens.pipeline.analyze import UnitResult
from turnlens.router.resolve import Route

FROZEN_WORDS = {"true": "frozen", "partial": "partly frozen", "false": "compressible"}


def frozen_word(c: Classification) -> str:
    return FROZEN_WORDS.get(c.frozen, c.frozen)


def route_text(route: Route) -> str:
    """`effort high (plan, classifier)`, or `no route (chat)`."""
    if route.effort:
        return f"effort {route.effort} ({route.phase or 'explicit'}, {route.source})"
    why = route.label if route.source in ("classifier", "fallback") and route.label else route.source
    return f"no route ({why})"


def class_text(c: Classification) -> str:
    pinned = " · pinned" if c.pinned else ""
    return f"{c.shown_class()} · ≤{c.max_ratio}:1 · {frozen_word(c)}{pinned}"


def routed(route: Route) -> bool:
    """False for messages the router does not look at (replies, tool results…)."""
    return route.source != "role"


def who(r: UnitResult) -> str:
    """`user prompt`, `tool result`…: where a session message comes from (empty for plain text)."""
    unit = r.unit
    if unit.role is None:
        return ""
    kind = (unit.kind or "").replace("_", " ")
    return kind if kind.startswith(unit.role) else f"{unit.role} {kind}".strip()


def used_text(r: UnitResult) -> str:
    """` · used high`: the effort the agent recorded for this prompt (Codex), beside the routed one."""
    return f" · used {r.unit.effort_used}" if r.unit.effort_used else ""


def diagnostic_message(r: UnitResult) -> str:
    head = class_text(r.classification)
    if not routed(r.route):
        return f"{head} · {who(r)}" if who(r) else head
    return f"{head} · {route_text(r.route)}{used_text(r)}"


def lens_class_title(c: Classification) -> str:
    return f"{class_text(c)} ({c.verdict})"


def lens_route_title(route: Route, r: UnitResult | None = None) -> str:
    if not routed(route):
        return (who(r) if r is not None else "") or "not routed"
    used = used_text(r) if r is not None else ""
    if route.effort:
        phase = f" · {route.phase}" if route.phase else ""
        return f"effort {route.effort}{phase} · {route.source}{used}"
    return route_text(route) + used


def inlay_label(r: UnitResult) -> str:
    c = r.classification
    if not routed(r.route):
        return f"{c.task_class} ≤{c.max_ratio}:1"
    effort = r.route.effort or "–"
    return f"{c.shown_class()} ≤{c.max_ratio}:1 · {effort}"


def hover_markdown(r: UnitResult, first_line: int, n_units: int, route_line: int | None = None) -> str:
    """Scores, the rules that fired (document line numbers), and the route's reason.

    `first_line` is 0 for a message decoded from JSON: lines are then counted in the message.
    `route_line` is where the text the router read begins, when that is not `first_line`
    (a prompt file's frontmatter comes before the unit).
    """
    c, route, unit = r.classification, r.route, r.unit
    turn = f"turn {unit.index} of {n_units}" if n_units > 1 else "prompt"
    if who(r):  # a role read from a session file: its text, not Markdown
        turn = f"{escape(who(r))} {unit.index} of {n_units}"
    out = [
        f"**TurnLens** · {turn}: **{c.task_class}** — compress ≤{c.max_ratio}:1, "
        f"{frozen_word(c)} (`{c.verdict}`){' · pinned by a directive' if c.pinned else ''}",
        "",
    ]
    if c.overridden_by:
        out.append(
            f"Decided by your rules ({', '.join(f'`{r}`' for r in c.overridden_by)}): they win over the model."
        )
        out.append("")
    if c.engine == "model" and c.probabilities:
        unsure = " — unsure" if c.unsure else ""
        out.append(f"Model: **{c.confidence:.0%}** {c.task_class}{unsure}.")
        out.append("")
        out.append("| class | probability | rule score |")
        out.append("|---|---:|---:|")
        for name, p in sorted(c.probabilities.items(), key=lambda kv: -kv[1]):
            mark = f"**{name}**" if name == c.task_class else name
            out.append(f"| {mark} | {p:.0%} | {c.scores.get(name, 0)} |")
    else:
        out.append("| class | score |")
        out.append("|---|---:|")
        for name, value in c.scores.items():
            mark = f"**{name}**" if name == c.task_class else name
            out.append(f"| {mark} | {value} |")
    out.append("")
    out.append(f"{_count(c.words, 'word')}, {_count(c.lines, 'line')}.")
    if c.features:
        out.append("")
        out.append(f"What pushed it toward {c.task_class}:")
        for f in c.features:
            out.append(f"- `{f.weight:+.2f}` `{_code(f.label())}`")
    if c.signals:
        out.append("")
        out.append("Rules that fired:")
        for s in c.signals:
            where = f"{_line(first_line, s.line)}: `{_code(s.text)}`" if s.line else escape(s.description)
            weight = ""
            if c.rule_weights is not None and s.rule in c.rule_weights:
                weight = f" (model {c.rule_weights[s.rule]:+.2f})"
            out.append(f"- `+{s.weight}` {s.category} — `{s.rule}` — {where}{weight}")
    elif c.engine == "rules" and all(v <= 0 for v in c.scores.values()):
        out.append("")
        out.append("No rule fired: short text counts as chitchat, longer text as context.")
    out.append("")
    if not routed(route):
        out.append(f"**Route:** none — {escape(route.reason)}")
        return "\n".join(out)
    out.append(f"**Route:** {route_text(route)} — {escape(route.reason)}")
    if unit.effort_used:  # read from the session file: its text, not Markdown
        out.append(f"**Effort used** (recorded in the session): {escape(str(unit.effort_used))}")
    route_first = first_line if route_line is None else route_line
    for s in route.signals:
        where = f"{_line(route_first, s.line)}: `{_code(s.text)}`" if s.line else escape(s.description)
        out.append(f"- `+{s.weight}` {s.category} — `{s.rule}` — {where}")
    return "\n".join(out)


def _line(first_line: int, line: int) -> str:
    return f"line {first_line + line - 1}" if first_line else f"message line {line}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


_MARKDOWN = re.compile(r"[\\`*_{}\[\]()#+\-.!|<>~&:]")


def escape(text: str) -> str:
    """Text from a rules file or a model server, shown as plain text in Markdown: no image,
    link, heading, HTML or table can be injected into a hover."""
    flat = " ".join(text.split())[:500]
    return _MARKDOWN.sub(lambda m: "\\" + m.group(), flat)


def _code(text: str) -> str:
    return text.replace("`", "'").replace("\n", " ")
