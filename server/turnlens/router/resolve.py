"""Resolution of one prompt to a route, in the exact order of SPEC §5.

Pure and synchronous: steps 1–5 (off, directive/slash, explicit effort, keyword,
short) never need a model, so the language server can show them at once; the
classifier step is either the embedded labeler (here) or a model call
(`turnlens.router.service.Router`). Every route says why, in words a user can
act on, and carries the signals that fired.
"""

from __future__ import annotations

from turnlens.core.engine import Signal, normalize_newlines
from turnlens.core.prebuilt import IGNORECASE, MULTILINE, compile_re
from turnlens.core.record import Record
from turnlens.router.labeler import Labeling, label_text
from turnlens.router.sample import sample
from turnlens.router.vocabulary import DEFAULTS, FrozenMap, fold, vocabulary

TYPE_CHECKING = False  # `typing` (and the `re` it imports) stays off the one-shot path
if TYPE_CHECKING:
    import re
    from collections.abc import Iterable
    from typing import Any, Final

    # `RouterSettings` or the defaults (`vocabulary.DEFAULTS`: what a call without settings
    # uses, the same values without the dataclass's import cost)
    from turnlens.router.vocabulary import RouteSettings as RouterSettings

SOURCES: Final = (
    "off",
    "directive",
    "slash",
    "explicit",
    "keyword",
    "short",
    "paused",
    "classifier",
    "fallback",
)

_ROUTE_LINE = compile_re(r"^/route(?:[ \t]+(\S+))?(?:[ \t]|$)")
_EFFORT_LINE = compile_re(r"^[ \t]*/effort[ \t]+(\S+)[ \t]*$", MULTILINE)
_FRONTMATTER_END = compile_re(r"^(?:---|\.\.\.)[ \t]*$", MULTILINE)
_FRONTMATTER_EFFORT = compile_re(
    r"""^effort[ \t]*:[ \t]*["']?([A-Za-z]+)["']?[ \t]*(?:#.*)?$""", MULTILINE | IGNORECASE
)


class Route(Record):
    """The router's answer for one prompt. `effort is None` means no route. (A frozen record:
    equality, hash and repr as a frozen dataclass of these fields.)"""

    _fields = ("phase", "effort", "label", "source", "reason", "signals", "confidence")
    __slots__ = _fields
    phase: str | None
    effort: str | None
    label: str | None
    source: str
    reason: str
    signals: tuple[Signal, ...]
    # the embedded labeler's probability for `label` (None: no labeler answered)
    confidence: float | None

    def __init__(
        self,
        phase: str | None,
        effort: str | None,
        label: str | None,
        source: str,
        reason: str,
        signals: tuple[Signal, ...] = (),
        confidence: float | None = None,
    ) -> None:
        values = (phase, effort, label, source, reason, signals, confidence)
        for name, value in zip(self._fields, values, strict=True):
            object.__setattr__(self, name, value)

    @property
    def routed(self) -> bool:
        return self.effort is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "effort": self.effort,
            "label": self.label,
            "source": self.source,
            "reason": self.reason,
            "signals": [s.to_json() for s in self.signals],
            "confidence": None if self.confidence is None else round(self.confidence, 4),
        }

    def describe(self) -> str:
        """One line: `plan high (keyword)`, `high (explicit)`, `none (classifier: chat)`, `none (short)`."""
        where = f"{self.source}: {self.label}" if self.label else self.source
        if self.effort is None:
            return f"none ({where})"
        if self.phase is None:
            return f"{self.effort} ({where})"
        return f"{self.phase} {self.effort} ({where})"


def _signal(rule: str, category: str, line: int, text: str, description: str) -> Signal:
    return Signal(rule, category, 0, line, text, description)


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _no_route(
    source: str,
    reason: str,
    signals: tuple[Signal, ...] = (),
    label: str | None = None,
    confidence: float | None = None,
) -> Route:
    return Route(None, None, label, source, reason, signals, confidence)


def _to_phase(
    phase: str, settings: RouterSettings, source: str, why: str, signals: tuple[Signal, ...]
) -> Route:
    """A phase → its effort; a phase whose effort is unset gives no route (and says so)."""
    effort = settings.effort_for(phase)
    if effort is None:
        return _no_route(source, f"{why} → {phase}, but {phase} has no effort set → no route", signals)
    return Route(phase, effort, None, source, f"{why} → {phase} → effort {effort}", signals)


def _directive(first_line: str, settings: RouterSettings, line: int = 1) -> Route | None:
    m = _ROUTE_LINE.match(first_line)
    if m is None:
        return None
    arg = (m.group(1) or "").lower()
    shown = m.group(0).strip()
    if arg == "off":
        sig = _signal("router.directive", "off", line, shown, "a /route directive")
        return _no_route("directive", f"/route off on line {line} → no route for this prompt", (sig,))
    if arg in settings.phases:
        sig = _signal("router.directive", arg, line, shown, "a /route directive")
        return _to_phase(arg, settings, "directive", f"/route {arg} on line {line}", (sig,))
    phases = ", ".join([*settings.phases, "off"])
    what = f"{arg!r} is not a phase" if arg else "no phase given"
    return _no_route("slash", f"/route: {what} (expected {phases}) → treated as a slash command, no route")


def _after_frontmatter(trimmed: str) -> int:
    """Where the prompt starts after a leading YAML frontmatter block (0: there is none)."""
    if not trimmed.startswith("---\n"):
        return 0
    end = _FRONTMATTER_END.search(trimmed, 4)
    if end is None:
        return 0
    nl = trimmed.find("\n", end.end())
    return len(trimmed) if nl < 0 else nl + 1


def _explicit(trimmed: str, settings: RouterSettings) -> Route | None:
    """`effort:` in YAML frontmatter, else an `/effort <level>` line, anywhere."""
    efforts = vocabulary().efforts
    if trimmed.startswith("---\n"):
        end = _FRONTMATTER_END.search(trimmed, 4)
        if end is not None:
            m = _FRONTMATTER_EFFORT.search(trimmed, 4, end.start())
            if m is not None and m.group(1).lower() in efforts:
                level = m.group(1).lower()
                line = _line_of(trimmed, m.start())
                sig = _signal("router.effort", level, line, m.group(0).strip(), "effort: in frontmatter")
                return Route(
                    None, level, None, "explicit", f"effort: {level} in the frontmatter (line {line})", (sig,)
                )
    for m in _EFFORT_LINE.finditer(trimmed):
        level = m.group(1).lower()
        if level in efforts:
            line = _line_of(trimmed, m.start())
            sig = _signal("router.effort", level, line, m.group(0).strip(), "an /effort line")
            return Route(None, level, None, "explicit", f"/effort {level} on line {line}", (sig,))
    return None


_KEYWORD_REGEX: dict[FrozenMap[str], tuple[re.Pattern[str], frozenset[str]] | None] = {}


def _keyword_regex(keywords: FrozenMap[str]) -> tuple[re.Pattern[str], frozenset[str]] | None:
    """One regex for all phrases, and their first words (a cheap pre-check: most prompts have
    none); the last few sets of keywords are kept compiled."""
    if keywords in _KEYWORD_REGEX:
        return _KEYWORD_REGEX[keywords]
    found = None
    if keywords:
        firsts = frozenset(phrase.split()[0] for phrase in keywords)
        found = compile_re(keyword_pattern(keywords), IGNORECASE), firsts
    if len(_KEYWORD_REGEX) >= 32:
        _KEYWORD_REGEX.clear()
    _KEYWORD_REGEX[keywords] = found
    return found


# what `re.escape` escapes (the same in every Python 3.7+): the phrases need no `re` import
_SPECIAL = {i: "\\" + chr(i) for i in b"()[]{}?*+-|^$\\.&~# \t\n\r\v\f"}


def keyword_pattern(keywords: Iterable[str]) -> str:
    """The regex source for these phrases, longest first (the defaults' is compiled ahead)."""
    phrases = sorted(keywords, key=len, reverse=True)
    body = "|".join(r"\s+".join(w.translate(_SPECIAL) for w in phrase.split()) for phrase in phrases)
    return rf"(?<!\w)(?:{body})(?!\w)"


def _keyword(trimmed: str, settings: RouterSettings) -> Route | None:
    compiled = _keyword_regex(settings.keywords)
    if compiled is None:
        return None
    rx, firsts = compiled
    folded = fold(trimmed)  # the case folding `re` uses (`ı`, `İ` match `i`)
    if not any(word in folded for word in firsts):
        return None
    vocab = vocabulary()
    best: tuple[int, str, re.Match[str]] | None = None
    for m in rx.finditer(trimmed):
        phrase = " ".join(fold(m.group(0)).split())
        phase = settings.keywords.get(phrase)
        if phase is None:
            continue
        rank = vocab.phase_rank(phase)
        if best is None or rank < best[0]:
            best = (rank, phase, m)
    if best is None:
        return None
    _, phase, m = best
    line = _line_of(trimmed, m.start())
    sig = _signal("router.keyword", phase, line, m.group(0), "a thinking keyword")
    return _to_phase(phase, settings, "keyword", f'keyword "{m.group(0)}" on line {line}', (sig,))


# `<!-- turnlens: … -->` lines that pin or silence a turn sit above its first line;
# the prompt starts after them, so a `/route` directive under a pin still counts.
_LEADING_DIRECTIVES = compile_re(
    r"\A(?:[ \t]*<!--[ \t]*turnlens:[^\n]*-->[ \t]*(?:\n|\Z)|[ \t]*\n)+", IGNORECASE
)


def resolve_early(text: str, settings: RouterSettings | None = None) -> Route | None:
    """Steps 1–5 of SPEC §5 (no classifier needed), or None: go on to the classifier."""
    s = settings or DEFAULTS
    if not s.enable:
        return _no_route("off", "the router is turned off (turnlens.router.enable = false)")
    trimmed = _LEADING_DIRECTIVES.sub("", normalize_newlines(text)).strip()
    # a prompt file's first line is the first line after its frontmatter (and the pins under it)
    fm = _after_frontmatter(trimmed)
    body = trimmed
    if fm:
        rest = trimmed[fm:]
        body = _LEADING_DIRECTIVES.sub("", rest).lstrip()
        fm += len(rest) - len(body)
    first_line = body.split("\n", 1)[0]
    directive = _directive(first_line, s, _line_of(trimmed, fm))
    if directive is not None:
        return directive
    if body.startswith("/"):
        # An `/effort <level>` first line is step 3's explicit effort, not a slash command.
        efforts = vocabulary().efforts
        m = _EFFORT_LINE.match(first_line)
        if m is None or m.group(1).lower() not in efforts:
            command = first_line.split()[0]
            why = "a slash command"
            if m is not None:
                why = f"{m.group(1)!r} is not an effort ({', '.join(efforts)}), so a slash command"
            return _no_route("slash", f"{command} on line {_line_of(trimmed, fm)}: {why} → no route")
    explicit = _explicit(trimmed, s)
    if explicit is not None:
        return explicit
    keyword = _keyword(trimmed, s)
    if keyword is not None:
        return keyword
    if len(trimmed) < s.min_length:
        n = _width(trimmed)
        if n < s.min_length:
            return _no_route(
                "short", f"{n} character{'s' if n != 1 else ''} (under {s.min_length}) → too short to route"
            )
    return None


# Chinese and Japanese characters and Korean syllables (not emoji, also wide on screen)
_CJK = "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002ffff]"


_CJK_RE: list[re.Pattern[str]] = []


def _cjk() -> re.Pattern[str]:
    """Compiled on first non-ASCII text (its ranges take milliseconds to compile)."""
    if not _CJK_RE:
        import re

        _CJK_RE.append(re.compile(_CJK))
    return _CJK_RE[0]


def _width(text: str) -> int:
    """Length in Latin-letter equivalents: a Chinese, Japanese or Korean character counts as
    three, about what it holds (`提交并推送`, five characters, is "commit and push", 15)."""
    if text.isascii():
        return len(text)
    return len(text) + 2 * len(_cjk().findall(text))


def route_from_label(
    label: str | None,
    settings: RouterSettings,
    source: str,
    said: str,
    signals: tuple[Signal, ...] = (),
    confidence: float | None = None,
) -> Route:
    """Step 7's tail: label → phase → effort. `said` is who labelled it and on what evidence."""
    if label is None:
        return _no_route(source, f"{said} → no label → no route", signals)
    if label not in settings.labels:
        return _no_route(source, f"{said} → unknown label {label!r} → no route", signals)
    phase = settings.phase_for(label)
    if phase is None:
        return _no_route(source, f"{said} → {label} gets no route", signals, label, confidence)
    effort = settings.effort_for(phase)
    if effort is None:
        return _no_route(
            source,
            f"{said} → {label} → {phase}, but {phase} has no effort set → no route",
            signals,
            label,
            confidence,
        )
    return Route(phase, effort, label, source, f"{said} → {phase} → effort {effort}", signals, confidence)


def label_offline(text: str, settings: RouterSettings, *, explain: bool = True) -> Labeling:
    """The embedded labeler on the sample the classifier would see. `label_model` may be a
    model or a ready scorer (the optional encoder engine)."""
    model: Any = settings.label_model
    scorer: Any = None
    if model is not None and hasattr(model, "predict_explained"):
        scorer, model = model, None
    elif model is None and settings.labeler == "encoder":
        from turnlens.learn.encoder import packaged_scorer

        scorer = packaged_scorer()  # None without its package: the n-gram model answers
    return label_text(
        sample(text, settings.sample_max, settings.sample_head, settings.sample_tail),
        explain=explain,
        model=model,
        scorer=scorer,
    )


def rules_route(
    text: str, settings: RouterSettings, source: str, prefix: str = "", *, explain: bool = True
) -> Route:
    """The embedded labeler's route, with `prefix` saying why it is the one answering.

    The labeler always names a label; one less sure than `router.minConfidence` gives no
    route, and the reason says so.
    """
    labeling = label_offline(text, settings, explain=explain)
    said = f"{prefix}embedded labeler: {labeling.explain()}"
    if labeling.engine == "model" and labeling.confidence < settings.min_confidence:
        return _no_route(
            source,
            f"{said} → less sure than router.minConfidence {settings.min_confidence:.0%} → no route",
            labeling.signals,
            label=labeling.label,
            confidence=labeling.confidence,
        )
    confidence = labeling.confidence if labeling.engine == "model" else None
    return route_from_label(labeling.label, settings, source, said, labeling.signals, confidence)


def paused_route(text: str, settings: RouterSettings, why: str, *, explain: bool = True) -> Route:
    """Step 6: the model back end is paused."""
    if settings.fallback == "rules":
        return rules_route(text, settings, "fallback", f"{why}; ", explain=explain)
    return _no_route("paused", f"{why}; fallback is none → no route")


def resolve_offline(
    text: str, settings: RouterSettings | None = None, *, paused: bool = False, explain: bool = True
) -> Route:
    """The whole resolution with the embedded labeler as the classifier (sync, no I/O).

    With a model back end in `settings` this answers what the fallback would
    (source `fallback`, or no route when `fallback` is `none`): the model is
    never called from here. `paused` says the model back end is paused (step 6).
    Without `explain` the fired rules are named but not located (cheaper, for bulk use).
    """
    s = settings or DEFAULTS
    early = resolve_early(text, s)
    if early is not None:
        return early
    if paused:
        return paused_route(text, s, "classifier: paused", explain=explain)
    if not s.uses_model:
        return rules_route(text, s, "classifier", explain=explain)
    if s.fallback == "rules":
        return rules_route(
            text, s, "fallback", f"the {s.backend} back end is not called offline; ", explain=explain
        )
    return _no_route(
        "fallback", f"the {s.backend} back end is not called offline and fallback is none → no route"
    )
