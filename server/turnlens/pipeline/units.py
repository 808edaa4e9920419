"""A unit: one turn or message of a document, with where it sits in the document.

Every format produces these. For plain text `text == document[start:end]`; for
JSON formats `start:end` is the span of the string literal in the document and
`text` its decoded value, so views point at the message while scoring reads it.
Inline comments steer a unit where the format can hold them:
`<!-- turnlens: class=decision -->` pins its class, `<!-- turnlens: ignore -->`
silences it, `<!-- turnlens: ignore-file -->` silences the whole document.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

from turnlens.core.classes import CLASS_NAMES
from turnlens.core.prebuilt import compile_re
from turnlens.core.record import Record

ROLES: Final = ("user", "assistant", "tool", "system")
KINDS: Final = (
    "prompt",
    "reply",
    "tool_call",
    "tool_result",
    "thinking",
    "summary",
    "system",
    "injected",
    "command",
)
#: kinds a person did not type as a prompt, though they sit in the user's messages: text the
#: client added (an editor selection, a reminder, an image wrapper) and slash commands with
#: their output. Never routed; views show them faded and count them apart.
ASIDE_KINDS: Final = frozenset({"injected", "command"})

# The body of a `<!-- turnlens: … -->` comment: up to the first `-->` on its line, and never
# across another `<!--`. Possessive, and no two parts can match the same character, so each
# opener is tried once and scans only to the next opener or closer: linear in the text, where
# `[ \t]*(.*?)[ \t]*-->` backtracked cubically on `<!-- turnlens:` + spaces without a closer.
DIRECTIVE_BODY = r"(?:[^\n<-]++|<(?!!--)|-(?!->))*+"
_DIRECTIVE = compile_re(rf"<!--[ \t]*+turnlens:({DIRECTIVE_BODY})-->", re.IGNORECASE)
_BLANK_PREFIX = compile_re(r"[ \t\r\n\f\v]*")


class Unit(NamedTuple):
    """One turn or message; `index` counts from 1 among the units of a document.

    A named tuple rather than a dataclass: transcripts have thousands of turns
    and a tuple is several times cheaper to make. `role` and `kind` are None
    where the format does not say (plain text); `effort_used` is the reasoning
    effort the agent recorded for this prompt, where the file has it (Codex).
    """

    index: int  # type: ignore[assignment]  # shadows tuple.index, which nothing here uses
    start: int
    end: int
    text: str
    pin: str | None = None
    ignored: bool = False
    role: str | None = None
    kind: str | None = None
    effort_used: str | None = None
    line: int = 0  # 1-based line of `start` where the format knows it cheaply (JSONL), else 0
    # metadata kept out of scoring but read by the router (a prompt file's YAML frontmatter,
    # which may say `effort:`); it sits just before the unit's text in the document
    meta: str | None = None
    time: float | None = None  # when the file says the message was written (Unix seconds), else None
    # a tool result's call (its text as the unit of the call reads), where the file pairs them by
    # id: what the call ran is evidence for the result's class (turnlens.core.kinds)
    call: str | None = None

    @property
    def route_text(self) -> str:
        """What the router reads: the metadata (if any), then the text."""
        return self.text if self.meta is None else self.meta + self.text

    @property
    def content_start(self) -> int:
        """Offset of the first non-blank character (where views anchor).

        Only meaningful when the text is the document's own slice; for decoded
        text the span start is the anchor.
        """
        if self.end - self.start != len(self.text):
            return self.start
        m = _BLANK_PREFIX.match(self.text)
        return self.start + (m.end() if m else 0)


class Directives(Record):
    """What a unit's `<!-- turnlens: … -->` comments say (a frozen record)."""

    _fields = ("pin", "ignore", "ignore_file", "problems")
    __slots__ = _fields
    pin: str | None
    ignore: bool
    ignore_file: bool
    problems: tuple[str, ...]

    def __init__(
        self,
        pin: str | None = None,
        ignore: bool = False,
        ignore_file: bool = False,
        problems: tuple[str, ...] = (),
    ) -> None:
        object.__setattr__(self, "pin", pin)
        object.__setattr__(self, "ignore", ignore)
        object.__setattr__(self, "ignore_file", ignore_file)
        object.__setattr__(self, "problems", problems)


NO_DIRECTIVES: Final = Directives()


def parse_directives(text: str) -> Directives:
    """Read `<!-- turnlens: … -->` comments; unknown words are reported, not fatal."""
    if "<!--" not in text:
        return NO_DIRECTIVES
    pin: str | None = None
    ignore = ignore_file = False
    problems: list[str] = []
    for m in _DIRECTIVE.finditer(text):
        for word in m.group(1).replace(",", " ").split():
            key, _, value = word.partition("=")
            key = key.lower()
            if key == "ignore" and not value:
                ignore = True
            elif key == "ignore-file" and not value:
                ignore_file = True
            elif key == "class" and value.lower() in CLASS_NAMES:
                pin = value.lower()
            else:
                problems.append(f"unknown turnlens directive {word!r}")
    return Directives(pin, ignore, ignore_file, tuple(problems))
