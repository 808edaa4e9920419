"""Anthropic Messages JSON: top-level system, content strings and blocks."""

from __future__ import annotations

import json

import pytest

from tests.formats.conftest import check_spans, read
from turnlens.pipeline.formats import FormatOptions, NotATranscript, get_format

REQUEST = "anthropic/messages-refactor.json"


def test_units_of_a_request() -> None:
    r = read(REQUEST, "anthropic")
    assert r.shape() == [
        ("system", "system"),
        ("system", "system"),
        ("user", "prompt"),
        ("assistant", "thinking"),
        ("assistant", "reply"),
        ("assistant", "tool_call"),
        ("tool", "tool_result"),  # tool_result blocks arrive in user messages
        ("user", "prompt"),
        ("assistant", "reply"),  # redacted_thinking passed over
        ("tool", "tool_result"),  # a string tool result
    ]
    assert (
        r.units[2].text
        == 'Can you make fetch_all() retry on 503? Keep it under 20 lines.\nThe "backoff" must be exponential.'
    )
    assert r.units[5].text == "read_file: src/fetch.py"
    assert r.units[7].text == "Voilà le fichier 👍"
    check_spans(r, anchors={6: "read_file"})


def test_unknown_block_is_reported_once_with_its_line() -> None:
    r = read(REQUEST, "anthropic")
    (problem,) = r.split.problems
    assert "hologram" in problem.message
    assert '"hologram"' in r.text.splitlines()[problem.line - 1]


def test_system_string_and_a_response_object() -> None:
    fmt = get_format("anthropic")
    request = json.dumps({"system": "Be brief.", "messages": [{"role": "user", "content": "hi"}]})
    assert [(u.role, u.text) for u in fmt.split(request, FormatOptions()).units] == [
        ("system", "Be brief."),
        ("user", "hi"),
    ]
    response = json.dumps(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": "Hello"}],
            "stop_reason": "end_turn",
        }
    )
    assert [(u.kind, u.text) for u in fmt.split(response, FormatOptions()).units] == [("reply", "Hello")]


def test_other_json_is_refused() -> None:
    with pytest.raises(NotATranscript):
        get_format("anthropic").split('{"model": "claude-x"}', FormatOptions())


def test_a_tool_result_is_read_with_its_call() -> None:
    messages = [
        {"role": "user", "content": "Why does the build fail?"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "tu1", "name": "bash", "input": {"command": "cat build.log"}},
                {"type": "tool_use", "id": "tu2", "name": "bash", "input": {"command": "npm run build"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "tu2", "content": "Build failed: 1 error"},
                {
                    "type": "tool_result",
                    "tool_use_id": "tu1",
                    "content": [{"type": "text", "text": "line 1"}],
                },
                {"type": "tool_result", "tool_use_id": "tu9", "content": "no call"},
            ],
        },
    ]
    units = get_format("anthropic").split(json.dumps({"messages": messages}), FormatOptions()).units
    assert [(u.text, u.call) for u in units if u.kind == "tool_result"] == [
        ("Build failed: 1 error", "bash: npm run build"),
        ("line 1", "bash: cat build.log"),
        ("no call", None),
    ]
