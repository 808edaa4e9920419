"""Around a compaction: what to keep before it, and what the summary lost after it.

Before: the frozen turns (decisions and specs, and a person's prompts the guard keeps in
doubt: `turnlens.agents.guard`) to keep word for word, each with a short quote and its
position, the ratios the other classes may take, and the plan against the context window —
short, within INSTRUCTIONS_LIMIT, the most important (decisions, then specs, then the prompts
in doubt) and most recent first; a text typed again is listed once.

After: which frozen turns the summary kept, judged by their content (no model
call): a turn survives when its words, case and punctuation aside, appear in the
summary as a run, or when every number and identifier in it and at least
SURVIVE_SHARE of its other words do. The turns that did not survive are given
back verbatim, within RESTORE_LIMIT (the sure ones: not a prompt kept in doubt).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from turnlens.agents.guard import UNSURE
from turnlens.agents.ledger import KEEP_KINDS, PENDING, FrozenTurn, Ledger, quote, turn_texts
from turnlens.core.plan import tokens

INSTRUCTIONS_LIMIT = 4000  # characters of compaction instructions
RESTORE_LIMIT = 9000  # characters of restored turns (agents cap a hook's context at 10,000)
SURVIVE_SHARE = 0.6
MIN_CONTENT_WORDS = 2  # a turn with fewer content words ("yes", "ok") means nothing on its own
DEFAULT_WINDOW = 200_000
_RANK = {"decision": 0, "spec": 1}

_WORD = re.compile(r"\w+")
_STOP = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "but",
        "if",
        "then",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "by",
        "with",
        "from",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "we",
        "you",
        "i",
        "he",
        "she",
        "they",
        "them",
        "our",
        "your",
        "my",
        "me",
        "us",
        "do",
        "does",
        "did",
        "not",
        "no",
        "yes",
        "so",
        "than",
        "too",
        "very",
        "can",
        "will",
        "would",
        "should",
        "could",
        "shall",
        "may",
        "might",
        "must",
        "have",
        "has",
        "had",
        "let",
        "lets",
        "into",
        "out",
        "up",
        "over",
    ]
)


def by_importance(turns: Iterable[FrozenTurn]) -> list[FrozenTurn]:
    """Decisions before specs, then the prompts kept in doubt, each the most recent first."""
    return sorted(turns, key=lambda t: (_RANK.get(t.task_class, 2), -t.index))


def _distinct(turns: list[FrozenTurn]) -> list[FrozenTurn]:
    """The first of turns with the same text and class (a prompt typed again is listed once,
    at its most recent place when `turns` are by importance)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for t in turns:
        key = (t.digest, t.task_class)
        if key not in seen:
            seen.add(key)
            out.append(t)
    return out


def _words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(text)]


@dataclass(frozen=True, slots=True)
class Summary:
    """A compaction summary, prepared once for many survival checks."""

    flat: str  # its words, lower case, single spaces, padded with spaces
    vocabulary: frozenset[str]

    @classmethod
    def of(cls, text: str) -> Summary:
        words = _words(text)
        return cls(" " + " ".join(words) + " ", frozenset(words))


def content_words(text: str) -> set[str]:
    return {w for w in _words(text) if w not in _STOP and (len(w) > 2 or any(ch.isdigit() for ch in w))}


def survives(text: str, summary: Summary) -> bool:
    """Whether a turn's content is in the summary (see the module's docstring)."""
    words = _words(text)
    if not words:
        return True
    if " " + " ".join(words) + " " in summary.flat:
        return True
    content = content_words(text)
    if not content:
        return True
    anchors = {w for w in content if any(ch.isdigit() for ch in w)}
    if not anchors <= summary.vocabulary:
        return False
    kept = sum(1 for w in content if w in summary.vocabulary)
    return kept >= SURVIVE_SHARE * len(content)


# -- before ---------------------------------------------------------------------------------


def _ratios() -> str:
    from turnlens.core.classes import task_classes

    parts = []
    for c in task_classes().values():
        if c.frozen == "true":
            continue
        extra = " (keep code, diffs and error messages exact)" if c.frozen == "partial" else ""
        parts.append(f"{c.name} to 1/{c.max_ratio}{extra}")
    return ", ".join(parts)


def plan_line(totals: dict[str, list[int]], window: int) -> str:
    """`412 turns, 51,200 tokens; planned 9,800 (frozen 2,100 kept whole): FITS a 200,000-token window`."""
    from turnlens.core.classes import task_classes

    classes = task_classes()
    units = sum(row[0] for row in totals.values())
    words = sum(row[1] for row in totals.values())
    planned = sum(row[2] for row in totals.values())
    frozen = sum(row[1] for name, row in totals.items() if name in classes and classes[name].frozen == "true")
    verdict = "FITS" if tokens(planned) <= window else "OVERFLOW"
    return (
        f"{units:,} turns, {tokens(words):,} tokens; planned {tokens(planned):,} "
        f"(frozen {tokens(frozen):,} kept whole): {verdict} a {window:,}-token window"
    )


def instructions(ledger: Ledger, window: int, limit: int = INSTRUCTIONS_LIMIT) -> str | None:
    """The compaction instructions, or None when the session has nothing to say."""
    summary = ledger.last_summary()
    since = summary[0] if summary else 0
    turns = _distinct(by_importance(t for t in ledger.frozen_turns() if t.index > since))
    older = sum(1 for t in ledger.frozen_turns() if t.index <= since)
    totals = ledger.totals("context")
    if not totals:
        return None
    head = [
        "TurnLens: when you summarise, keep the frozen turns below word for word (decisions and specs "
        "must not be paraphrased), most important and most recent first."
    ]
    tail = [
        f"Compress the rest no further than: {_ratios()}.",
        f"Budget: {plan_line(totals, window)}.",
    ]
    waiting = totals.get(PENDING)
    if waiting:
        tail.append(
            f"({waiting[0]:,} tool call(s) and result(s) read but not classified yet are counted whole; "
            "none of them is a frozen turn.)"
        )
    if older:
        tail.append(
            f"{older} frozen turn(s) from before the previous compaction are not listed; "
            "TurnLens gives back any the summary loses."
        )
    if any(t.task_class.endswith(UNSURE) for t in turns):
        head.append(
            f"A class marked {UNSURE} is a person's prompt that may be one (TurnLens is unsure): keep it too."
        )
    used = sum(len(x) + 1 for x in head + tail)
    listed: list[str] = []
    for n, t in enumerate(turns, 1):
        entry = f'{n}. {t.task_class} · turn {t.index} · line {t.line} · {t.role}: "{t.quote}"'
        if used + len(entry) + 1 + 130 > limit:  # room for the "… and N more" line
            rest = turns[n - 1 :]
            kinds = ", ".join(
                f"{sum(1 for r in rest if r.task_class == k)} {k}(s)" for k in ("decision", "spec")
            )
            doubted = sum(1 for r in rest if r.task_class.endswith(UNSURE))
            if doubted:
                kinds += f", {doubted} in doubt"
            listed.append(f"… and {len(rest)} more frozen turn(s) ({kinds}), older: keep them verbatim too.")
            break
        listed.append(entry)
        used += len(entry) + 1
    if not turns:
        listed.append("(No decision or spec since the last compaction.)")
    return "\n".join(head + listed + tail)


# -- after ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Loss:
    turn: FrozenTurn
    text: str


@dataclass(frozen=True, slots=True)
class Restore:
    lost: tuple[Loss, ...]
    restored: tuple[Loss, ...]
    skipped: tuple[tuple[FrozenTurn, str], ...]  # not given back, and why
    checked: int


def lost_turns(ledger: Ledger, candidates: Sequence[FrozenTurn], summary_text: str) -> Restore:
    """Which candidates the summary lost, and which of those fit in RESTORE_LIMIT. A prompt the
    guard kept in doubt (`decision?`) is listed before a compaction but never given back after
    it: given back "still in force", a request made once could be carried out again."""
    candidates = [t for t in candidates if not t.task_class.endswith(UNSURE)]
    summary = Summary.of(summary_text)
    lost: list[Loss] = []
    restored: list[Loss] = []
    skipped: list[tuple[FrozenTurn, str]] = []
    room = RESTORE_LIMIT - len(restore_header(1))
    ordered = by_importance(candidates)
    held = ledger.texts  # the texts this call has read already (a first read)
    again = [t for t in ordered if t.digest not in held]
    found = turn_texts(ledger.path, ledger.format, [(t.line, t.offset, t.digest) for t in again], KEEP_KINDS)
    texts = dict(zip((t.index for t in again), found, strict=True))
    for t in ordered:
        text = held.get(t.digest) if t.digest in held else texts[t.index]
        if text is None:
            skipped.append((t, "not found again in the session file"))
            continue
        if survives(text, summary):
            continue
        loss = Loss(t, text)
        lost.append(loss)
        if len(content_words(text)) < MIN_CONTENT_WORDS:
            skipped.append((t, "too short to mean anything on its own"))
            continue
        block = restore_block(loss)
        if len(block) > room:
            skipped.append((t, f"does not fit in the {RESTORE_LIMIT:,}-character limit"))
            continue
        restored.append(loss)
        room -= len(block)
    return Restore(tuple(lost), tuple(restored), tuple(skipped), len(candidates))


def restore_header(n: int) -> str:
    return (
        f"TurnLens: the compaction summary left out {n} frozen turn(s) (decisions and specs). "
        "They are given back here word for word; treat them as still in force.\n"
    )


def restore_block(loss: Loss) -> str:
    t = loss.turn
    return f"\n[{t.task_class} · turn {t.index} · line {t.line} · {t.role}]\n{loss.text}\n"


def restore_context(result: Restore) -> str | None:
    if not result.restored:
        return None
    return restore_header(len(result.restored)) + "".join(restore_block(x) for x in result.restored)


def log_entry(result: Restore, event: str, session: str) -> dict[str, object]:
    def brief(loss: Loss) -> dict[str, object]:
        t = loss.turn
        return {"turn": t.index, "line": t.line, "class": t.task_class, "quote": quote(loss.text, 60)}

    return {
        "event": event,
        "session": session,
        "checked": result.checked,
        "lost": [brief(x) for x in result.lost],
        "restored": [brief(x) for x in result.restored],
        "skipped": [{"turn": t.index, "why": why} for t, why in result.skipped],
    }
