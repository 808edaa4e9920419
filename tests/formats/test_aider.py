"""Aider chat histories: prompts, tool output and replies, with exact spans."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turnlens.pipeline.analyze import analyze
from turnlens.pipeline.formats import FormatOptions, NotATranscript, Split, detect, get_format
from turnlens.pipeline.formats.aider import AIDER, split_history
from turnlens.pipeline.profile import Profile
from turnlens.pipeline.units import Unit

from .common import fixture, shape, to_crlf

HISTORY = "aider/.aider.chat.history.md"


def assert_spans(document: str, units: list[Unit]) -> None:
    """Every unit's span is where it is written, numbered 1…n in document order; a reply and a
    one-line prompt or output are the document's own slice, one of several lines is its lines
    without their `#### ` / `> ` markers and line-end spaces (as Aider reads its file back)."""
    for n, unit in enumerate(units, start=1):
        assert unit.index == n
        written = document[unit.start : unit.end]
        if unit.kind == "reply" or "\n" not in written:
            assert unit.text == written
            continue
        head, *rest = written.split("\n")
        marker = "####" if unit.kind == "prompt" else ">"
        lines = [head.rstrip()]
        for line in rest:
            assert line.startswith(marker), line
            lines.append(line[len(marker) :].removeprefix(" ").rstrip())
        assert unit.text == "\n".join(lines)
    starts = [u.start for u in units]
    assert starts == sorted(starts)


EXPECTED = [
    (
        "tool",
        "tool_result",
        "/usr/local/bin/aider --model sonnet\nAider v0.82.1\nGit repo: .git with 42 files",
    ),
    ("user", "prompt", "/add src/cart.py"),
    ("tool", "tool_result", "Added src/cart.py to the chat"),
    (
        "user",
        "prompt",
        "El total del carrito ignora el descuento 🛒\ncuando el cupón caduca hoy. Arréglalo.",
    ),
    (
        "assistant",
        "reply",
        "The coupon check compares dates with `<` so a coupon that ends today is treated as expired.\n\n"
        "src/cart.py\n```python\n<<<<<<< SEARCH\n    if coupon.expires < today:\n"
        "#### not a prompt: inside the fence\n> not tool output either\n=======\n"
        "    if coupon.expires <= today:\n>>>>>>> REPLACE\n```",
    ),
    (
        "tool",
        "tool_result",
        "Applied edit to src/cart.py\nCommit 3f2a9c1 fix: coupons that expire today still apply",
    ),
    ("user", "prompt", "looks right, ship it"),
    ("assistant", "reply", "Done — the commit is in place."),
    ("user", "prompt", "テストを追加して"),
    (
        "assistant",
        "reply",
        "```python\ndef test_coupon_expiring_today():\n    assert cart_total(items, coupon_today) == 90\n```",
    ),
]


def test_roles_kinds_texts_and_spans() -> None:
    _, doc = fixture(HISTORY)
    units = split_history(doc)
    assert len(units) == 10
    assert [(u.role, u.kind, u.text) for u in units] == EXPECTED
    assert_spans(doc, units)
    # a prompt's span starts after its `#### ` marker, a tool output's after `> `
    assert doc[units[1].start - 5 : units[1].start] == "#### "
    assert doc[units[2].start - 2 : units[2].start] == "> "
    assert units[1].start == doc.index("#### /add src/cart.py") + 5


def test_a_prompt_of_several_lines_reads_as_it_was_typed() -> None:
    """Aider writes each typed line as `#### ` + the line + two spaces: the prompt's text is the
    lines alone (no marker is read as a Markdown heading), its span the lines as written."""
    doc = (
        "#### Fix the login page:  \n####   \n#### - keep the session check  \n"
        "#### - add a role check for admins  \n\nDone.\n\n> Applied edit to login.tsx  \n"
        "> Commit 1a2b3c4 fix: role check  \n"
    )
    units = split_history(doc)
    assert [(u.kind, u.text) for u in units] == [
        ("prompt", "Fix the login page:\n\n- keep the session check\n- add a role check for admins"),
        ("reply", "Done."),
        ("tool_result", "Applied edit to login.tsx\nCommit 1a2b3c4 fix: role check"),
    ]
    assert doc[units[0].start : units[0].end].endswith("#### - add a role check for admins")
    assert units[0].content_start == units[0].start == len("#### ")
    assert_spans(doc, units)


def test_crlf_history_gives_the_same_turns() -> None:
    _, doc = fixture(HISTORY)
    crlf = to_crlf(doc)
    units = split_history(crlf)
    assert_spans(crlf, units)
    assert [u.text.replace("\r\n", "\n") for u in units] == [t for _, _, t in EXPECTED]
    assert not any(u.text.endswith("\r") for u in units)


def test_the_session_header_is_no_turn_and_no_fence_crosses_it() -> None:
    doc = (
        "# aider chat started at 2025-01-01 10:00:00\n\n#### write a fence\n\n"
        "```python\nprint('cut off')\n\n"  # the reply was interrupted: the fence never closes
        "# aider chat started at 2025-01-01 11:00:00\n\n#### next session 🌙\n\nok\n```\n"
    )
    units = split_history(doc)
    assert shape(units) == [
        ("user", "prompt"),
        ("assistant", "reply"),
        ("user", "prompt"),
        ("assistant", "reply"),
    ]
    assert units[2].text == "next session 🌙"
    assert units[3].text == "ok\n```"


def test_an_unclosed_fence_does_not_swallow_later_turns() -> None:
    doc = "#### show me\n\n```js\nconst a = 1\n\n> Tokens: 1k sent\n\n#### thanks\n"
    units = split_history(doc)
    assert [(u.role, u.text) for u in units] == [
        ("user", "show me"),
        ("assistant", "```js\nconst a = 1"),
        ("tool", "Tokens: 1k sent"),
        ("user", "thanks"),
    ]


def test_blank_lines_separate_prompts_and_empty_markers_are_skipped() -> None:
    doc = "#### one\n\n#### two\n####\n>\n> \n"
    units = split_history(doc)
    assert [(u.role, u.text) for u in units] == [("user", "one"), ("user", "two")]


def test_directives_pin_ignore_and_ignore_file() -> None:
    _, doc = fixture(HISTORY)
    units = split_history(doc)
    pinned = [u for u in units if u.pin]
    assert [(u.text, u.pin) for u in pinned] == [("looks right, ship it", "decision")]
    ignored = doc.replace("Done — the commit", "<!-- turnlens: ignore -->\nDone — the commit")
    after = split_history(ignored)
    assert [u.ignored for u in after].count(True) == 1
    assert next(u for u in after if u.ignored).text.startswith("<!-- turnlens: ignore -->\nDone")
    whole = split_history("<!-- turnlens: ignore-file -->\n" + doc)
    assert whole and all(u.ignored for u in whole)


def test_analysis_classifies_every_turn_and_routes_only_prompts() -> None:
    path, doc = fixture(HISTORY)
    result = analyze(doc, Profile(), path=path)
    assert result.format == "aider"
    assert len(result.results) == 10
    by_text = {r.unit.text: r for r in result.results}
    assert by_text["looks right, ship it"].classification.task_class == "decision"  # the pin
    assert by_text["/add src/cart.py"].route.source == "slash"  # an Aider command is no prompt to route
    assert all(r.route.source == "role" for r in result.results if r.unit.role != "user")
    reply = next(r for r in result.results if r.unit.text.startswith("The coupon check"))
    assert reply.classification.task_class == "code"


def test_hidden_kinds_are_left_out() -> None:
    _, doc = fixture(HISTORY)
    units = AIDER.split(doc, FormatOptions(hide_kinds=("tool_result",))).units
    assert [u.index for u in units] == list(range(1, 8))
    assert "tool" not in {u.role for u in units}


def test_detection_by_name_and_by_content() -> None:
    path, doc = fixture(HISTORY)
    assert detect(path, doc).name == "aider"
    assert detect(None, doc).name == "aider"  # the session header is distinctive
    assert detect("/home/me/project/.aider.chat.history.md", "").name == "aider"
    assert detect("notes.md", "#### a heading of level four\n\n> a quote\n").name == "turns"
    assert get_format("aider").comments is True
    assert get_format("aider").split_marker(FormatOptions()) is None


def test_resplit_equals_a_fresh_split() -> None:
    _, doc = fixture(HISTORY)
    first = AIDER.split(doc, FormatOptions())
    edited = doc.replace("ship it", "merge it")
    at = doc.index("ship it")
    again = AIDER.resplit(edited, FormatOptions(), first, (at, len(doc) - at - len("ship it")))
    assert again.units == AIDER.split(edited, FormatOptions()).units


PIECES = [
    "# aider chat started at 2025-01-01 10:00:00\n",
    "#### fix the parser  \n",
    "#### second line ✨  \n",
    "> Applied edit to a.py  \n",
    "\n",
    "The reply explains the change.\n",
    "```python\n",
    "```\n",
    "<!-- turnlens: class=spec -->\n",
    "<!-- turnlens: ignore -->\n",
    "> \n",
]


@given(
    st.lists(st.sampled_from(PIECES), max_size=30),
    st.lists(
        st.tuples(st.integers(0, 10_000), st.integers(0, 40), st.sampled_from(["", *PIECES, "x", "#"])),
        max_size=6,
    ),
    st.sampled_from([(), ("tool_result",)]),
)
@settings(max_examples=150, deadline=None)
def test_resplit_after_random_edits_equals_a_fresh_split(
    pieces: list[str], edits: list[tuple[int, int, str]], hidden: tuple[str, ...]
) -> None:
    options = FormatOptions(hide_kinds=hidden)
    text = "".join(pieces)

    def fresh(text: str) -> Split | None:
        try:
            return AIDER.split(text, options)
        except NotATranscript:  # text with no Aider line at all
            return None

    split = fresh(text)
    for at, cut, insert in edits:
        at = min(at, len(text))
        cut = min(cut, len(text) - at)
        new = text[:at] + insert + text[at + cut :]
        expected = fresh(new)
        edit = (at, len(text) - at - cut)
        if split is not None and expected is None:
            with pytest.raises(NotATranscript):
                AIDER.resplit(new, options, split, edit)
        if split is None or expected is None:
            split = expected  # nothing to re-split from, or nothing to get
        else:
            split = AIDER.resplit(new, options, split, edit)
            assert split.units == expected.units
        text = new


def test_an_edit_in_the_last_session_reuses_the_earlier_ones() -> None:
    _, doc = fixture(HISTORY)
    first = AIDER.split(doc, FormatOptions())
    edited = doc + "\n#### one more prompt\n"
    again = AIDER.resplit(edited, FormatOptions(), first, (len(doc), 0))
    assert again.units[-1].text == "one more prompt"
    # the first session's units are the very same objects: not read again, not even renumbered
    assert all(a is b for a, b in zip(again.units[:8], first.units[:8], strict=True))
    assert again.units[8] is not first.units[8]


FENCES = "aider/fences/.aider.chat.history.md"


def test_fences_that_do_not_follow_commonmark_never_swallow_a_prompt() -> None:
    """A fence inside a fence and a closing fence indented too far: each reply still ends at
    the next `#### ` line after a blank line, as Aider itself reads its file."""
    _, doc = fixture(FENCES)
    split = AIDER.split(doc, FormatOptions())
    units = split.units
    assert shape(units) == [
        ("tool", "tool_result"),
        ("user", "prompt"),
        ("assistant", "reply"),
        ("tool", "tool_result"),
        ("user", "prompt"),
        ("assistant", "reply"),
        ("tool", "tool_result"),
        ("user", "prompt"),
        ("assistant", "reply"),
        ("tool", "tool_result"),
        ("user", "prompt"),
        ("assistant", "reply"),
    ]
    assert [u.text for u in units if u.kind == "prompt"] == [
        "write a README section that shows how to run the linter",
        "now the same for the tests",
        "¿y el formateo? 🙂",
        "gracias",
    ]
    assert units[2].text.endswith(">>>>>>> REPLACE\n```")
    assert units[8].text.endswith("ruff format .\n    ```")
    assert_spans(doc, units)
    # each reply whose fence ran on is said once, at the prompt line that closed it
    lines = doc.splitlines()
    assert [(p.severity, lines[p.line - 1]) for p in split.problems] == [
        ("info", "#### now the same for the tests  "),
        ("info", "#### gracias  "),
    ]


def test_a_closed_fence_still_keeps_a_marker_line_that_follows_no_blank_line() -> None:
    doc = "#### show\n\n```md\nintro\n#### a heading in the block\n> a quote in it\n```\n\n#### next\n"
    units = split_history(doc)
    assert shape(units) == [("user", "prompt"), ("assistant", "reply"), ("user", "prompt")]
    assert "#### a heading in the block" in units[1].text
    assert AIDER.split(doc, FormatOptions()).problems == []
