"""The words every view uses, so a diagnostic, a lens and a hover never disagree."""

from __future__ import annotations

import re
from typing import NamedTuple

from turnlens.core.classify import Classification
from turnlens.pipeline.analyze import UnitResult
from turnlens.pipeline.units import Unit
from turnlens.router.resolve import Route

FROZEN_WORDS = {"true": "frozen", "partial": "partly frozen", "false": "compressible"}


def frozen_word(c: Classification) -> str:
    return FROZEN_WORDS.get(c.frozen, c.frozen)


def route_text(route: Route) -> str:
    """`effort high (plan, classifier)`, or `no route (chat)`."""
    if route.effort:
        return f"effort {route.effort} ({route.phase or 'explicit'}, {route.source})"
    if route.source == "pending":
        return "effort pending"
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


# after a label that is the rules' quick answer, until the model has read the turn
PROVISIONAL = " · provisional"


def diagnostic_message(r: UnitResult) -> str:
    head = class_text(r.classification) + (PROVISIONAL if r.provisional else "")
    if not routed(r.route):
        return f"{head} · {who(r)}" if who(r) else head
    return f"{head} · {route_text(r.route)}{used_text(r)}"


def lens_class_title(c: Classification, provisional: bool = False) -> str:
    return f"{class_text(c)} ({c.verdict})" + (PROVISIONAL if provisional else "")


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
    # the rules' quick answer, the model's to come (`?` already marks an unsure model answer)
    mark = "…" if r.provisional else ""
    if not routed(r.route):
        return f"{c.task_class}{mark} ≤{c.max_ratio}:1"
    effort = r.route.effort or "–"
    return f"{c.shown_class()}{mark} ≤{c.max_ratio}:1 · {effort}"


class _Style(NamedTuple):
    """How a hover marks things up: Markdown for clients that render it, plain text otherwise."""

    markdown: bool

    def bold(self, text: str) -> str:
        return f"**{text}**" if self.markdown else text

    def code(self, text: str) -> str:
        """Text quoted from the document or a rule id."""
        flat = text.replace("\n", " ")
        return f"`{flat.replace('`', chr(39))}`" if self.markdown else f"'{flat}'"

    def number(self, text: str) -> str:
        return f"`{text}`" if self.markdown else text

    def plain(self, text: str) -> str:
        """Text from a rules file, a model server or a session file: never markup."""
        return escape(text) if self.markdown else " ".join(text.split())[:500]

    def item(self, text: str) -> str:
        return f"- {text}" if self.markdown else f"  {text}"


def hover_markdown(r: UnitResult, first_line: int, n_units: int, route_line: int | None = None) -> str:
    """The hover in Markdown (kept for callers that name the format)."""
    return hover_text(r, first_line, n_units, route_line, markdown=True)


def hover_text(
    r: UnitResult, first_line: int, n_units: int, route_line: int | None = None, *, markdown: bool = True
) -> str:
    """Scores, what pushed the answer, the rules that fired (document line numbers), the route.

    `first_line` is 0 for a message decoded from JSON: lines are then counted in the message.
    `route_line` is where the text the router read begins, when that is not `first_line`
    (a prompt file's frontmatter comes before the unit). `markdown` False gives plain text
    for clients that do not render Markdown (no escapes, no tables).
    """
    st = _Style(markdown)
    c, route, unit = r.classification, r.route, r.unit
    shown = st.plain(c.task_class)  # class names can come from a user's model file: text, not markup
    turn = f"turn {unit.index} of {n_units}" if n_units > 1 else "prompt"
    if who(r):  # a role read from a session file: its text, not Markdown
        turn = f"{st.plain(who(r))} {unit.index} of {n_units}"
    pinned = " · pinned by a directive" if c.pinned else ""
    out = [
        f"{st.bold('TurnLens')} · {turn}: {st.bold(shown)} — compress ≤{c.max_ratio}:1, "
        f"{frozen_word(c)} ({st.code(c.verdict)}){pinned}",
        "",
    ]
    if c.overridden_by:
        fired = ", ".join(st.code(name) for name in c.overridden_by)
        out += [f"Decided by your rules ({fired}): they win over the model.", ""]
    elif c.engine == "model" and not c.pinned:
        out += _kind_lines(st, unit)
    if c.engine == "model" and c.probabilities:
        unsure = " — unsure" if c.unsure else ""
        second = c.runner_up()
        then = f" Runner-up: {st.plain(second[0])} {second[1]:.0%}." if second else ""
        out += [f"Model: {st.bold(f'{c.confidence:.0%}')} {shown}{unsure}.{then}", ""]
        ranked = sorted(c.probabilities.items(), key=lambda kv: -kv[1])
        out += _table(
            st,
            ("class", "probability", "rule score"),
            [(name, f"{p:.0%}", str(c.scores.get(name, 0))) for name, p in ranked],
            c.task_class,
        )
    else:
        out += _table(st, ("class", "score"), [(n, str(v)) for n, v in c.scores.items()], c.task_class)
    out.append("")
    out.append(f"{_count(c.words, 'word')}, {_count(c.lines, 'line')}.")
    if c.phrases or c.features:
        out.append("")
        out.append(f"What pushed it toward {shown}:")
        if c.phrases:
            for ph in c.phrases:
                where = _line(first_line, ph.line) if first_line else f"message line {ph.line}"
                out.append(st.item(f"{st.code(ph.text)} — {where} ({ph.weight:+.2f})"))
        else:
            for f in c.features:
                out.append(st.item(f"{st.code(f.label())} ({f.weight:+.2f})"))
    if c.signals:
        out.append("")
        out.append("Rules that fired:")
        for s in c.signals:
            where = f"{_line(first_line, s.line)}: {st.code(s.text)}" if s.line else st.plain(s.description)
            weight = ""
            if c.rule_weights is not None and s.rule in c.rule_weights:
                weight = f" (model {c.rule_weights[s.rule]:+.2f})"
            out.append(
                st.item(f"{st.number(f'+{s.weight}')} {s.category} — {st.code(s.rule)} — {where}{weight}")
            )
    elif c.engine == "rules" and all(v <= 0 for v in c.scores.values()):
        out.append("")
        out.append("No rule fired: short text counts as chitchat, longer text as context.")
    out.append("")
    if not routed(route):
        out.append(f"{st.bold('Route:')} none — {st.plain(route.reason)}")
        return "\n".join(out)
    out.append(f"{st.bold('Route:')} {route_text(route)} — {st.plain(route.reason)}")
    if unit.effort_used:  # read from the session file: its text, not Markdown
        out.append(f"{st.bold('Effort used')} (recorded in the session): {st.plain(str(unit.effort_used))}")
    route_first = first_line if route_line is None else route_line
    for s in route.signals:
        where = f"{_line(route_first, s.line)}: {st.code(s.text)}" if s.line else st.plain(s.description)
        out.append(st.item(f"{st.number(f'+{s.weight}')} {s.category} — {st.code(s.rule)} — {where}"))
    return "\n".join(out)


def _kind_lines(st: _Style, unit: Unit) -> list[str]:
    """What the unit's kind (and, for a tool result, its call) allows, and why: the model
    answers among those classes (turnlens.core.kinds)."""
    from turnlens.core.kinds import kind_evidence
    from turnlens.core.reasoning import kind_of_text

    kind = unit.kind
    if kind is None:  # a turn read alone: its top may show the agent's reasoning
        kind = kind_of_text(unit.text)
    allowed, why = kind_evidence(kind, unit.text, unit.call)
    if allowed is None or why is None:
        return []
    classes = ", ".join(allowed)
    if kind is None:  # a conversation turn whose own words settle its class
        return [f"{st.bold('Settled by its words:')} {st.plain(why)} → {st.plain(classes)}", ""]
    if unit.kind is None:
        why = f"the turn opens with the agent's reasoning; {why}"
    # the why may name a tool or a program read from the session file: text, not markup
    return [f"{st.bold('Kind:')} {st.plain(kind)} — {st.plain(why)} → {st.plain(classes)}", ""]


def _table(st: _Style, head: tuple[str, ...], rows: list[tuple[str, ...]], winner: str) -> list[str]:
    """A Markdown table, or aligned columns in plain text (the winner marked in both)."""
    if st.markdown:
        out = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
        for name, *cells in rows:
            mark = f"**{escape(name)}**" if name == winner else escape(name)
            out.append("| " + " | ".join([mark, *cells]) + " |")
        return out
    widths = [max(len(x) for x in col) for col in zip(head, *rows, strict=True)]
    widths[0] += 2  # room for the winner's mark
    out = [
        "  ".join(
            [head[0].ljust(widths[0]), *(h.rjust(w) for h, w in zip(head[1:], widths[1:], strict=True))]
        )
    ]
    for name, *cells in rows:
        mark = f"{name} ←" if name == winner else name
        out.append(
            "  ".join([mark.ljust(widths[0]), *(x.rjust(w) for x, w in zip(cells, widths[1:], strict=True))])
        )
    return out


def _line(first_line: int, line: int) -> str:
    return f"line {first_line + line - 1}" if first_line else f"message line {line}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


# What could start markup inside a line: emphasis, code, links and images (`[`, `](`, `!`),
# HTML and entities, table cells, strike-through, autolinks (`://`). Nothing else is escaped,
# so that `shape: code-lines<20%` stays readable where a client shows the Markdown raw.
_MARKDOWN = re.compile(r"[\\`*_\[\]<>&|~#!]|(?<=\])\(|:(?=//)")


def escape(text: str) -> str:
    """Text from a rules file or a model server, shown as plain text in Markdown: no image,
    link, heading, HTML or table can be injected into a hover."""
    flat = " ".join(text.split())[:500]
    return _MARKDOWN.sub(lambda m: "\\" + m.group(), flat)


def _code(text: str) -> str:
    return text.replace("`", "'").replace("\n", " ")
