"""Hypothesis strategies for hostile documents: every kind of line break, separators
that almost match, rule triggers, directives, NUL, BOM, emoji, combining marks and
lone surrogates, plus arbitrary code points."""

from __future__ import annotations

import re

from hypothesis import strategies as st

TRIGGERS = [
    # turn separators, real and almost
    "---TURN---",
    "---TURN---  ",
    "---TURN---\t",
    "---TURN---\r",
    " ---TURN---",
    "---TURN--- x",
    "---turn---",
    # words and lines the rule packs react to
    "---",
    "--- a/x.py",
    "+++ b/x.py",
    "diff --git a/x b/x",
    "@@ -1,2 +1,2 @@",
    "```",
    "```python",
    "APPROVED — ship it",
    "lgtm",
    "merge",
    "decision: yes",
    "SPEC-120",
    "AC-03",
    "CASE-12",
    "status: draft",
    "acceptance criteria",
    "FAIL: 3 broken",
    "G6 BATS tests PASS: 227/227",
    "VERDICT:",
    "score: 9",
    "Traceback (most recent call last):",
    "Error: boom",
    "segmentation fault",
    "def f(x):",
    "const a = 1",
    "# Heading",
    "- bullet",
    "* item",
    "thanks!",
    "ok",
    "sí",
    "hola",
    "history",
    "yes.",
    # router triggers
    "/route plan",
    "/route off",
    "/route nonsense",
    "/effort high",
    "/effort huge",
    "/compact",
    "effort: low",
    "ultrathink",
    "think hard",
    "think   really\thard",
    "please design the schema and the trade-offs",
    "rename the file and bump the version",
    # inline directives
    "<!-- turnlens: ignore -->",
    "<!-- turnlens: class=spec -->",
    "<!-- turnlens: ignore-file -->",
    "<!-- turnlens: bogus=1 -->",
    # hostile code points
    "\x00",
    "\ufeff",
    "\u2028",
    "\u0085",
    "\x0b\x0c\x1c",
    "e\u0301",
    "🚀",
    "👩\u200d💻",
    "\ud800",
    "\udfff",
    "\ud83d",
    "İı",
    "ǅ",
    "ß",
    "  ",
    "\t",
    "a" * 200,
    "word " * 30,
]
BREAKS = ["\n", "\r\n", "\r", "\n\n", "\r\n\r\n", "\n\r"]

# any code point, surrogates included
any_text = st.text(st.characters(exclude_categories=()), max_size=24)

pieces = st.one_of(st.sampled_from(TRIGGERS), any_text, st.sampled_from(BREAKS))
_soup = st.lists(pieces, max_size=40).map("".join)

# line by line, so that separator lines (and turns) are common
SEPARATOR_LINES = ["---TURN---", "---TURN---  ", "---TURN---\t", " ---TURN---", "---turn---", "---"]
_line = st.one_of(
    st.sampled_from(SEPARATOR_LINES),
    st.lists(st.one_of(st.sampled_from(TRIGGERS), any_text), max_size=4).map("".join),
)
_lines = st.lists(st.tuples(_line, st.sampled_from(["\n", "\n", "\n", "\r\n", "\r", ""])), max_size=30).map(
    lambda rows: "".join(line + brk for line, brk in rows)
)
documents = st.one_of(_soup, _lines)

# the same, with `\n` as the only line break (for LF ⇄ CRLF comparisons)
_lf_triggers = [t for t in TRIGGERS if "\r" not in t]
lf_pieces = st.one_of(
    st.sampled_from(_lf_triggers),
    any_text.map(lambda s: s.replace("\r", "")),
    st.sampled_from(["\n", "\n\n"]),
)
lf_documents = st.one_of(
    st.lists(lf_pieces, max_size=40).map("".join),
    _lines.map(lambda t: t.replace("\r", "")),
)

SEPARATORS = ["---TURN---", "^---TURN---$", "^### Turn [0-9]+$", "<turn>", "=+", "(?:User|Assistant):"]
separators = st.sampled_from(SEPARATORS)


def reference_stretches(text: str, separator: str) -> list[tuple[int, int]]:
    """What split_units must return, worked out independently, line by line.

    A separator line is a whole line (LF-terminated; a CR before the LF belongs to
    the line break) that is the separator followed by blanks; a lone CR ends a line too,
    as in LSP. The text between separator lines is a stretch; a unit is a stretch that
    is not empty or blank.
    """
    lines_of = re.sub(r"\r(?!\n)", "\n", text)  # same length: offsets carry over
    core = separator.removeprefix("^")
    if core.endswith("$") and not core.endswith("\\$"):
        core = core[:-1]
    rx = re.compile(rf"(?:{core})[ \t]*\r?")
    stretches = []
    start = 0
    pos = 0
    for line in lines_of.split("\n"):
        line_end = pos + len(line)
        if rx.fullmatch(line):
            stretches.append((start, pos))
            start = min(line_end + 1, len(text))
        pos = line_end + 1
    stretches.append((start, len(text)))
    return [(a, b) for a, b in stretches if text[a:b] and not text[a:b].isspace()]
