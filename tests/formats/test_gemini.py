"""Gemini CLI sessions: the JSON record and its JSON Lines log (rewritten messages, rewinds)."""

from __future__ import annotations

import json

from tests.formats.conftest import check_spans, fixture, read
from turnlens.pipeline.formats import FormatOptions, get_format

JSON = "gemini/session-*.json"
JSONL = "gemini/session-*.jsonl"


def test_units_of_a_session_record() -> None:
    r = read(JSON, "gemini")
    assert r.shape() == [
        ("system", "system"),  # info
        ("user", "prompt"),
        ("assistant", "thinking"),
        ("assistant", "reply"),
        ("assistant", "tool_call"),
        ("tool", "tool_result"),
        ("assistant", "reply"),
        ("user", "prompt"),
        ("system", "system"),  # error
    ]
    assert r.split.title == "Fix the flaky date test"


def test_decoded_text_and_spans_of_a_session_record() -> None:
    r = read(JSON, "gemini")
    thought = r.units[2]
    assert thought.text == (
        "Locating the week helper\n"
        "The failure depends on the weekday, so the helper probably counts from Sunday."
    )
    check_spans(
        r,
        anchors={
            3: "The failure depends on the weekday, so the helper probably counts from Sunday.",
            5: "read_file",
        },
    )
    assert r.units[1].text.startswith('The test "parses_iso_week" fails on Mondays only.\n')
    assert r.units[4].text == "read_file: /home/dev/cal/src/week.ts"
    assert r.units[7].text == "Merci, c'est réglé ! 🎉"  # \u00e9 and a surrogate pair in the file


def test_unknown_message_type_is_reported_with_its_line() -> None:
    r = read(JSON, "gemini")
    ((problem),) = r.split.problems
    assert "compression" in problem.message
    assert r.text.splitlines()[problem.line - 1].strip() == '"type": "compression",'


def test_log_keeps_the_last_writing_of_a_message_and_honours_rewind() -> None:
    r = read(JSONL, "gemini-jsonl")
    assert r.shape() == [
        ("user", "prompt"),
        ("assistant", "tool_call"),
        ("tool", "tool_result"),
        ("assistant", "thinking"),
        ("assistant", "reply"),
        ("user", "prompt"),
    ]
    # the tool call was written twice (line 3 running, line 4 with its result): read once, from line 4
    assert [u.line for u in r.units] == [2, 4, 4, 5, 5, 9]
    texts = [u.text for u in r.units]
    assert "no, also include tests/" not in texts  # rewound
    assert "Searching tests/ too." not in texts
    assert texts[-1] == "Thanks, that's all. ¡Gracias!"
    assert r.split.title == "TODO comments in src"
    check_spans(r, anchors={2: "search_file_content", 4: "Two files, one TODO each."})
    assert r.split.problems == []


def test_set_with_messages_replaces_the_history() -> None:
    lines = [
        {"sessionId": "s", "projectHash": "p", "startTime": "t"},
        {"id": "a", "type": "user", "content": "old prompt"},
        {"$set": {"messages": [{"id": "b", "type": "user", "content": "kept prompt"}]}},
        {"id": "c", "type": "gemini", "content": "reply"},
    ]
    text = "\n".join(json.dumps(x) for x in lines)
    units = get_format("gemini-jsonl").split(text, FormatOptions()).units
    assert [(u.text, u.line) for u in units] == [("kept prompt", 3), ("reply", 4)]


def test_gemini_reads_the_jsonl_form_too() -> None:
    text = fixture(JSONL).read_text(encoding="utf-8")
    by_json = get_format("gemini").split(text, FormatOptions())
    by_lines = get_format("gemini-jsonl").split(text, FormatOptions())
    assert by_json.units == by_lines.units


def test_times_models_and_tokens_the_session_records() -> None:
    from tests.formats.conftest import read

    info = read("gemini/session-*.json", "gemini").split.info
    assert info is not None and info.models == ["gemini-2.5-pro"]
    assert info.usage["input"] == 5120 and info.usage["reasoning"] == 96
    assert info.usage["output"] == 210 + 96  # thoughts are output too
    assert info.to_json()["started"] == "2026-03-15T10:00:02Z"
    lines = read("gemini/session-*.jsonl", "gemini-jsonl")
    assert lines.split.info is not None and lines.split.info.started is not None
    assert all(u.time is not None for u in lines.units if u.role in ("user", "assistant"))


def test_a_tool_result_is_read_with_its_call() -> None:
    units = (
        get_format("gemini")
        .split(
            fixture("gemini/session-2026-03-15T10-00-a1b2c3d4.json").read_text(encoding="utf-8"),
            FormatOptions(),
        )
        .units
    )
    pairs = [(units[i - 1], u) for i, u in enumerate(units) if u.kind == "tool_result"]
    assert pairs and all(u.call == call.text and call.kind == "tool_call" for call, u in pairs)
