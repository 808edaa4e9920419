"""Claude Code sessions: blocks, sidechains, meta lines, compaction, summaries."""

from __future__ import annotations

from tests.formats.conftest import check_spans, read

SESSION = "claude-code/*.jsonl"


def test_units_of_a_session() -> None:
    r = read(SESSION, "claude-code")
    assert r.shape() == [
        ("system", "summary"),  # summary line (the title)
        ("user", "prompt"),
        ("assistant", "thinking"),
        ("assistant", "reply"),
        ("assistant", "tool_call"),
        ("tool", "tool_result"),  # a tool result arrives as a user line
        ("user", "prompt"),  # sidechain (sub-agent) prompt
        ("assistant", "reply"),  # sidechain reply
        ("system", "system"),  # compact_boundary
        ("system", "summary"),  # isCompactSummary
        ("system", "system"),  # isMeta
        ("user", "prompt"),  # text block kept, image block passed over
    ]
    assert r.split.title == "Split the config loader"
    assert r.units[-1].text == '¡Perfecto! Ahora añade "tests" para schema.py — gracias 🙌'
    check_spans(r, anchors={5: "Read"})


def test_unknown_line_type_is_reported_once() -> None:
    r = read(SESSION, "claude-code")
    assert [(p.line, p.severity) for p in r.split.problems] == [(12, "info")]
