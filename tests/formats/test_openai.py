"""OpenAI chat messages: JSON documents, fine-tuning files and request logs."""

from __future__ import annotations

import json

import pytest

from tests.formats.conftest import check_spans, read
from turnlens.pipeline.formats import FormatOptions, NotATranscript, get_format


def test_chat_json_with_tool_calls() -> None:
    r = read("openai/chat-weather-tool.json", "openai")
    assert r.shape() == [
        ("system", "system"),
        ("user", "prompt"),
        ("assistant", "tool_call"),
        ("tool", "tool_result"),
        ("assistant", "reply"),
        ("user", "prompt"),  # text part kept, image part passed over
    ]
    assert r.units[1].text == "Will it rain in São Paulo tomorrow? Answer in one line 🌧️"
    assert r.units[2].text == 'get_forecast: {"city": "São Paulo", "days": 1}'
    assert r.units[4].text == 'Yes: showers after 3 pm (12.5 mm), per the "get_forecast" service.'
    check_spans(r, anchors={3: "get_forecast"})
    (problem,) = r.split.problems
    assert "narrator" in problem.message and problem.line == 11


def test_bare_array_and_completion_response() -> None:
    fmt = get_format("openai")
    bare = json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
    assert [(u.role, u.text) for u in fmt.split(bare, FormatOptions()).units] == [
        ("user", "hi"),
        ("assistant", "hello"),
    ]
    completion = json.dumps(
        {
            "id": "c",
            "object": "chat.completion",
            "choices": [{"message": {"role": "assistant", "content": "4"}}],
        }
    )
    assert [(u.kind, u.text) for u in fmt.split(completion, FormatOptions()).units] == [("reply", "4")]


def test_reasoning_content_and_legacy_function_call() -> None:
    doc = json.dumps(
        {
            "messages": [
                {"role": "user", "content": "2+2?"},
                {"role": "assistant", "reasoning_content": "Add them.", "content": "4"},
                {
                    "role": "assistant",
                    "content": None,
                    "function_call": {"name": "calc", "arguments": '{"expr": "2+2"}'},
                },
                {"role": "function", "name": "calc", "content": "4"},
            ]
        }
    )
    units = get_format("openai").split(doc, FormatOptions()).units
    assert [(u.kind, u.text) for u in units] == [
        ("prompt", "2+2?"),
        ("thinking", "Add them."),
        ("reply", "4"),
        ("tool_call", "calc: 2+2"),
        ("tool_result", "4"),
    ]


def test_fine_tuning_file_reads_every_example() -> None:
    r = read("openai/finetune-support.jsonl", "openai-jsonl")
    assert len(r.units) == 11
    assert [u.line for u in r.units if u.kind == "prompt"] == [1, 2, 3]
    assert r.units[4].text == "¿Cómo cambio la región?"
    assert r.units[7].text == 'Which flag prints JSON?\nI tried --json and got "unknown flag".'
    assert r.units[8].text == "search_docs: output format flag"
    check_spans(r, anchors={9: "search_docs"})
    (problem,) = r.split.problems
    assert problem.line == 4 and problem.severity == "info"


def test_request_log_counts_a_resent_conversation_once() -> None:
    r = read("openai/requests-log.jsonl", "openai-jsonl")
    assert [(u.line, u.role, u.kind) for u in r.units] == [
        (1, "system", "system"),
        (1, "user", "prompt"),
        (1, "assistant", "reply"),  # the response of request 1
        (2, "user", "prompt"),  # request 2 re-sends request 1 and its answer: only the new prompt
        (2, "assistant", "reply"),
    ]
    check_spans(r)


def test_openai_reads_jsonl_when_given_lines() -> None:
    text = (read("openai/finetune-support.jsonl", "openai-jsonl")).text
    assert (
        get_format("openai").split(text, FormatOptions()).units
        == get_format("openai-jsonl").split(text, FormatOptions()).units
    )


@pytest.mark.parametrize(
    "doc",
    [
        '{"messages": {"hello": "Bonjour"}}',
        '{"compilerOptions": {}}',
        "[1, 2, 3]",
        '{"messages": [{"id": 1}]}',
    ],
)
def test_json_that_holds_no_chat_is_refused(doc: str) -> None:
    with pytest.raises(NotATranscript, match="not a transcript"):
        get_format("openai").split(doc, FormatOptions())


def test_a_tool_message_is_read_with_its_call() -> None:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "shell", "arguments": json.dumps({"command": "ls src"})},
    }
    messages = [
        {"role": "user", "content": "What is in src?"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "app.py\nutil.py"},
        {"role": "tool", "tool_call_id": "call_x", "content": "stray"},
    ]
    for fmt, text in (
        ("openai", json.dumps({"messages": messages})),
        ("openai-jsonl", json.dumps({"messages": messages}) + "\n"),
    ):
        units = get_format(fmt).split(text, FormatOptions()).units
        assert [(u.text, u.call) for u in units if u.kind == "tool_result"] == [
            ("app.py\nutil.py", "shell: ls src"),
            ("stray", None),
        ], fmt
