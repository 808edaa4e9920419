"""Codex CLI rollouts: roles, kinds, prompts counted once, the effort each turn ran with."""

from __future__ import annotations

import json

from tests.formats.conftest import check_spans, read
from turnlens.pipeline.formats import FormatOptions, get_format

MODERN = "codex/rollout-2026-03-*.jsonl"
LEGACY = "codex/rollout-2025-*.jsonl"


def test_units_roles_and_kinds_of_a_rollout() -> None:
    r = read(MODERN, "codex")
    assert r.shape() == [
        ("system", "system"),  # developer message (permissions)
        ("system", "system"),  # <environment_context>, not typed by the user
        ("user", "prompt"),
        ("assistant", "thinking"),
        ("assistant", "tool_call"),
        ("tool", "tool_result"),
        ("assistant", "reply"),
        ("user", "prompt"),
        ("assistant", "tool_call"),  # custom tool call (apply_patch)
        ("tool", "tool_result"),
        ("assistant", "reply"),
        ("system", "summary"),  # compacted
        ("user", "prompt"),
        ("assistant", "reply"),
    ]


def test_prompt_reply_and_reasoning_that_arrive_twice_count_once() -> None:
    units = read(MODERN, "codex").units
    prompts = [u.text for u in units if u.kind == "prompt"]
    assert prompts == [
        "Refactor the tokenizer in src/lexer.rs and keep the public API.\n"
        'Acceptance criteria: all tests pass, no new "unsafe" blocks.',
        "¿Puedes añadir pruebas para la entrada vacía? 🙏",
        "LGTM, ship it",  # written as an event first, then as a response item
    ]
    replies = [u.text for u in units if u.kind == "reply"]
    assert len(replies) == len(set(replies)) == 3
    assert [u.line for u in units if u.kind == "thinking"] == [8]


def test_effort_used_comes_from_the_turn_context_of_its_turn() -> None:
    units = read(MODERN, "codex").units
    used = [(u.line, u.effort_used) for u in units if u.kind == "prompt"]
    # turn 1 writes its turn_context after the prompt (older Codex), turn 2 before it,
    # turn 3 after a compaction
    assert used == [(4, "high"), (17, "medium"), (26, "low")]
    assert all(u.effort_used is None for u in units if u.kind != "prompt")


def test_decoded_text_and_exact_spans() -> None:
    r = read(MODERN, "codex")
    check_spans(
        r,
        anchors={
            5: "shell",
            6: json.loads(r.text.splitlines()[10])["payload"]["output"],
            9: "apply_patch",
        },
    )
    by_line = {u.line: u for u in r.units}
    assert "café test is green ✅" in by_line[12].text  # \u00e9 and \u2705 in the file
    assert by_line[10].text.startswith('shell: {"command": ["rg", "-n", "fn next_token", "src"]')
    assert by_line[11].text == "src/lexer.rs:42:    pub fn next_token(&mut self) -> Token {\n"
    assert by_line[19].text.startswith("apply_patch: *** Begin Patch\n*** Update File: tests/lexer.rs")
    assert by_line[23].text.startswith("Summary so far:")


def test_replacement_history_of_a_compaction_is_not_read_again() -> None:
    units = read(MODERN, "codex").units
    assert sum(u.text.startswith("Refactor the tokenizer") for u in units) == 1


def test_unknown_line_type_is_reported_once_with_its_line() -> None:
    problems = read(MODERN, "codex").split.problems
    assert [(p.line, p.severity) for p in problems] == [(29, "info")]
    assert "world_state" in problems[0].message


def test_older_rollouts_without_the_envelope() -> None:
    r = read(LEGACY, "codex")
    assert r.shape() == [
        ("user", "prompt"),
        ("assistant", "thinking"),
        ("assistant", "tool_call"),
        ("tool", "tool_result"),
        ("assistant", "reply"),
        ("user", "prompt"),
    ]
    assert r.units[3].text == "def retry(fn):\n    time.sleep(delay)\n"
    assert r.units[-1].text == "ok"
    assert r.split.problems == []
    check_spans(r, anchors={3: "shell", 4: json.loads(r.text.splitlines()[5])["output"]})


def test_the_same_prompt_typed_in_two_turns_counts_twice() -> None:
    lines = [
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "continue"}],
            },
        },
        {"type": "event_msg", "payload": {"type": "user_message", "message": "continue"}},
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Step 1 done."}],
            },
        },
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "continue"}],
            },
        },
        {"type": "event_msg", "payload": {"type": "user_message", "message": "continue"}},
    ]
    text = "\n".join(json.dumps(x) for x in lines) + "\n"
    units = get_format("codex").split(text, FormatOptions()).units
    assert [(u.kind, u.text, u.line) for u in units] == [
        ("prompt", "continue", 1),
        ("reply", "Step 1 done.", 3),
        ("prompt", "continue", 4),
    ]


def test_hidden_kinds_are_left_out() -> None:
    r = read(MODERN, "codex", FormatOptions(hide_kinds=("thinking", "tool_call")))
    assert {u.kind for u in r.units} == {"system", "prompt", "tool_result", "reply", "summary"}
    assert [u.index for u in r.units] == list(range(1, 12))


def test_streamed_units_equal_the_split() -> None:
    from turnlens.pipeline.formats.jsonl import text_lines

    r = read(MODERN, "codex")
    fmt = get_format("codex")
    streamed = list(fmt.stream(text_lines(r.text), FormatOptions(), []))  # type: ignore[attr-defined]
    assert streamed == r.units


IDE = "codex/rollout-2026-04-10T*.jsonl"


def test_image_wrappers_and_ide_context_are_injected_not_prompts() -> None:
    r = read(IDE, "codex")
    assert r.shape() == [
        ("system", "injected"),  # the IDE's context before "My request for Codex"
        ("user", "prompt"),  # what was typed after it
        ("system", "injected"),  # <image name=[Image #1]>
        ("system", "injected"),  # </image>
        ("assistant", "thinking"),
        ("assistant", "tool_call"),  # web search
        ("assistant", "tool_call"),  # a page opened
        ("assistant", "tool_call"),  # a pattern looked for in it
        ("assistant", "tool_call"),  # shell
        ("tool", "tool_result"),
        ("assistant", "reply"),
        ("system", "injected"),  # "# Files mentioned by the user"
        ("user", "prompt"),
        ("assistant", "tool_call"),  # apply_patch
        ("tool", "tool_result"),  # two text parts: one output
        ("assistant", "reply"),
    ]
    prompts = [u for u in r.units if u.kind == "prompt"]
    assert [u.text for u in prompts] == [
        "Make the coupon expiry check inclusive and explain why the screenshot shows the old total",
        "añade un test para el día de caducidad",
    ]
    assert [u.effort_used for u in prompts] == ["xhigh", "medium"]
    context = r.units[0]
    assert context.text.startswith("# Context from my IDE setup:") and "My request" not in context.text
    assert (context.start, context.end) == (r.units[1].start, r.units[1].end)  # one string, two units


def test_web_search_actions_each_become_a_tool_call() -> None:
    r = read(IDE, "codex")
    calls = [u.text for u in r.units if u.kind == "tool_call"][:3]
    assert calls == [
        "web_search: python date comparison inclusive end date",
        "web_open: https://docs.python.org/3/library/datetime.html",
        "web_find: date.today in https://docs.python.org/3/library/datetime.html",
    ]
    anchors = {
        6: "python date comparison inclusive end date",
        7: "https://docs.python.org/3/library/datetime.html",
    }
    for i, want in {**anchors, 8: "date.today"}.items():
        assert r.literal(r.units[i - 1]) == want


def test_an_output_in_several_parts_is_one_result() -> None:
    r = read(IDE, "codex")
    results = [u for u in r.units if u.kind == "tool_result"]
    assert len(results) == len(
        [u for u in r.units if u.kind == "tool_call" and u.text.startswith(("shell", "apply"))]
    )
    assert results[-1].text == "Success. Updated the following files:\n\nM tests/test_cart.py"


def test_recorded_tokens_model_and_times() -> None:
    info = read(IDE, "codex").split.info
    assert info is not None
    # token_count events are running totals: the last is the session's; cached input apart
    assert dict(info.usage) == {"input": 5400, "cache_read": 16000, "output": 690, "reasoning": 300}
    assert info.usage_source == "token_count"
    assert info.recorded_tokens == 21400 + 690
    assert info.models == ["gpt-5-codex"]
    assert info.session_id == "0199a6c4-2b7e-7d10-8f3a-4c5d6e7f8091"
    data = info.to_json()
    assert (data["started"], data["ended"]) == ("2026-04-10T07:58:12Z", "2026-04-10T08:03:27Z")


def test_xhigh_is_an_effort_the_router_answers_so_agreement_can_reach_all() -> None:
    from turnlens.pipeline.analyze import analyze
    from turnlens.pipeline.profile import Profile
    from turnlens.pipeline.stats import session_stats
    from turnlens.router.settings import parse_router_settings

    text = read(IDE, "codex").text
    default = session_stats(analyze(text, Profile(format="codex")))
    assert default.effort_pairs[("high", "xhigh")] == 1 and default.effort_agreement == 0.5
    settings, problems = parse_router_settings({"phases": {"plan": "xhigh", "reflect": "xhigh"}})
    assert problems == []
    tuned = session_stats(analyze(text, Profile(format="codex", router=settings)))
    assert dict(tuned.effort_pairs) == {("xhigh", "xhigh"): 1, ("medium", "medium"): 1}
    assert tuned.effort_agreement == 1.0


def test_each_output_is_read_with_its_call() -> None:
    """An output carries the call whose call_id it answers (evidence for its class), even when
    two calls run side by side and answer in the other order."""
    units = read(MODERN, "codex").units
    calls = [u.text for u in units if u.kind == "tool_call"]
    results = [u for u in units if u.kind == "tool_result"]
    assert [u.call for u in results] == calls
    lines = [
        {
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "exec_command",
                "arguments": json.dumps({"cmd": "cat a.md"}),
                "call_id": "c1",
            },
        },
        {
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "exec_command",
                "arguments": json.dumps({"cmd": "npm test"}),
                "call_id": "c2",
            },
        },
        {
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "c2", "output": "2 passed"},
        },
        {
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "c1", "output": "# A"},
        },
        {
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "c9", "output": "late"},
        },
    ]
    text = "".join(json.dumps(line) + "\n" for line in lines)
    got = get_format("codex").split(text, FormatOptions()).units
    assert [(u.text, u.call) for u in got if u.kind == "tool_result"] == [
        ("2 passed", "exec_command: npm test"),
        ("# A", "exec_command: cat a.md"),
        ("late", None),  # its call is not in the file
    ]


def test_answers_to_request_user_input_are_a_decision() -> None:
    """Codex returns the person's answers to `request_user_input` as JSON by question: read with
    the call that asked, they are the person's decision."""
    from turnlens.pipeline.analyze import analyze
    from turnlens.pipeline.profile import Profile

    asked = {"questions": [{"id": "db", "header": "Database", "question": "Which database?", "options": []}]}
    answers = {"answers": {"db": {"answers": ["SQLite (Recommended)"]}}}
    lines = [
        {
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "request_user_input",
                "arguments": json.dumps(asked),
                "call_id": "a1",
            },
        },
        {
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "a1", "output": json.dumps(answers)},
        },
    ]
    text = "".join(json.dumps(line) + "\n" for line in lines)
    results = analyze(text, Profile(format="codex")).results
    assert [(r.unit.kind, r.classification.task_class) for r in results] == [
        ("tool_call", "context"),
        ("tool_result", "decision"),
    ]
