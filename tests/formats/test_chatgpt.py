"""ChatGPT exports: the active branch of every conversation, content types, spans."""

from __future__ import annotations

import json

from tests.formats.conftest import check_spans, read
from turnlens.pipeline.formats import FormatOptions, NotATranscript, get_format

EXPORT = "chatgpt/conversations.json"


def test_units_follow_the_active_branch_of_each_conversation_in_file_order() -> None:
    r = read(EXPORT, "chatgpt")
    assert r.shape() == [
        ("user", "prompt"),  # the edited prompt (u-1b), not the first version
        ("assistant", "thinking"),  # thoughts
        ("assistant", "thinking"),  # reasoning_recap
        ("assistant", "tool_call"),  # code sent to python
        ("tool", "tool_result"),  # execution_output
        ("assistant", "reply"),
        ("user", "prompt"),  # multimodal_text: the image part is passed over
        ("assistant", "reply"),
        ("system", "system"),  # custom instructions: profile
        ("system", "system"),  # custom instructions: instructions
        ("user", "prompt"),
        ("assistant", "tool_call"),  # code sent to the browser
        ("tool", "tool_result"),  # tether_quote
        ("assistant", "reply"),  # the kept reply, not the regenerated one
    ]
    texts = [u.text for u in r.units]
    assert "Write a function that checks if a year is a leap year" not in texts
    assert "A regenerated answer the user did not keep." not in texts
    assert (
        texts[0]
        == 'Write a Python function that checks leap years, with doctests.\nUse the "Gregorian" rules.'
    )
    assert texts[2] == "Thought for 6s"
    assert texts[4] == "False"
    assert texts[10] == "Quelle est la différence entre « effet » et « affect » ? 🤔"


def test_exact_spans_over_escapes() -> None:
    r = read(EXPORT, "chatgpt")
    check_spans(r)
    assert '\\"\\"\\"\\n' in r.text[r.units[5].start : r.units[5].end]  # a docstring, escaped


def test_unknown_content_type_is_reported_once_with_its_line() -> None:
    r = read(EXPORT, "chatgpt")
    (problem,) = r.split.problems
    assert "super_widget" in problem.message
    assert '"w-3"' in r.text.splitlines()[problem.line - 1]


def test_without_current_node_the_latest_child_is_followed() -> None:
    conversation = {
        "title": "t",
        "mapping": {
            "r": {"id": "r", "message": None, "parent": None, "children": ["u"]},
            "u": {"id": "u", "message": _msg("user", "first"), "parent": "r", "children": ["a1", "a2"]},
            "a1": {"id": "a1", "message": _msg("assistant", "older answer"), "parent": "u", "children": []},
            "a2": {"id": "a2", "message": _msg("assistant", "newer answer"), "parent": "u", "children": []},
        },
    }
    split = get_format("chatgpt").split(json.dumps([conversation]), FormatOptions())
    assert [u.text for u in split.units] == ["first", "newer answer"]
    assert split.title == "t"


def test_a_list_of_other_objects_is_refused() -> None:
    try:
        get_format("chatgpt").split('[{"name": "x"}]', FormatOptions())
    except NotATranscript as exc:
        assert "not a transcript" in str(exc)
    else:
        raise AssertionError("a list without mappings was read as a ChatGPT export")


def _msg(role: str, text: str) -> dict[str, object]:
    return {
        "author": {"role": role},
        "content": {"content_type": "text", "parts": [text]},
        "recipient": "all",
    }


def test_an_export_with_a_broken_conversation_keeps_the_ones_before() -> None:
    good = {
        "title": "a",
        "mapping": {"u": {"id": "u", "message": _msg("user", "kept"), "parent": None, "children": []}},
        "current_node": "u",
    }
    text = "[\n" + json.dumps(good) + ",\n" + '{"title": "b", "mapping": {"x": nope}}\n]'
    split = get_format("chatgpt").split(text, FormatOptions())
    assert [u.text for u in split.units] == ["kept"]
    ((problem),) = split.problems
    assert problem.line == 3 and "not valid JSON" in problem.message


def test_a_single_conversation_object_is_read() -> None:
    one = {
        "title": "solo",
        "mapping": {"u": {"id": "u", "message": _msg("user", "hello"), "parent": None, "children": []}},
        "current_node": "u",
    }
    split = get_format("chatgpt").split(json.dumps(one), FormatOptions())
    assert [u.text for u in split.units] == ["hello"] and split.title == "solo"


def test_hidden_kinds_are_left_out_and_the_rest_renumbered() -> None:
    r = read(EXPORT, "chatgpt", FormatOptions(hide_kinds=("thinking", "tool_call")))
    assert [u.kind for u in r.units].count("thinking") == 0
    assert len(r.units) == 14 - 2 - 2
    assert [u.index for u in r.units] == list(range(1, 11))
