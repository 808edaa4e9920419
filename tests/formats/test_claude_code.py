"""Claude Code sessions: blocks, sidechains, meta lines, compaction, summaries."""

from __future__ import annotations

import json

import pytest

from tests.formats.common import ask_user_question
from tests.formats.conftest import check_spans, read
from turnlens.pipeline.formats import FormatOptions, get_format

SESSION = "claude-code/3a7c9e10-*.jsonl"


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


VSCODE = "claude-code/8f41c2d0-*.jsonl"
AGENT = "claude-code/8f41c2d0-*/subagents/agent-*.jsonl"


def test_text_the_client_added_and_commands_are_kinds_of_their_own() -> None:
    r = read(VSCODE, "claude-code")
    assert r.shape() == [
        ("system", "injected"),  # <ide_opened_file>
        ("system", "injected"),  # <ide_selection>
        ("user", "prompt"),  # what the person typed, in the same message
        ("assistant", "thinking"),
        ("assistant", "tool_call"),  # Task
        ("tool", "tool_result"),  # report + agentId footer: one result
        ("user", "prompt"),  # typed while the agent worked: a queued_command attachment
        ("assistant", "reply"),
        ("user", "command"),  # /model sonnet
        ("system", "command"),  # its output
        ("system", "injected"),  # <system-reminder>
        ("user", "prompt"),
        ("assistant", "reply"),
        ("system", "injected"),  # [Request interrupted by user]
        ("user", "command"),  # `!` shell input
        ("system", "command"),  # its output
    ]
    prompts = [u.text for u in r.units if u.kind == "prompt"]
    assert prompts == [
        "Why does this branch skip the discount on the day a coupon expires?",
        "also check the tests for the same bug",
        "Bitte füge den Testfall für das Ablaufdatum hinzu 🧪",
    ]
    check_spans(r, anchors={5: "Task", 6: r.literal(r.units[5])})


def test_a_tool_result_in_several_blocks_is_one_unit_anchored_on_its_first() -> None:
    r = read(VSCODE, "claude-code")
    (result,) = [u for u in r.units if u.kind == "tool_result"]
    assert result.text.startswith("Two comparisons:") and result.text.endswith("if needed)")
    assert "\n\nagentId: a7f3c901" in result.text
    assert r.literal(result).startswith("Two comparisons:") and "agentId" not in r.literal(result)
    calls = [u for u in r.units if u.kind == "tool_call"]
    assert len(calls) == 1


def test_summaries_of_other_sessions_are_no_units_and_no_title() -> None:
    r = read(VSCODE, "claude-code")
    assert all(u.kind != "summary" for u in r.units)
    assert r.split.title is None
    notes = [p for p in r.split.problems if "other sessions" in p.message]
    assert [(p.line, p.severity) for p in notes] == [(1, "info")]
    only = read("claude-code/summaries-only.jsonl", "claude-code")
    assert only.units == [] and only.split.title is None
    assert "2 summary line(s) of other sessions" in only.split.problems[0].message


def test_a_summary_of_this_session_stays_its_title() -> None:
    r = read(SESSION, "claude-code")
    assert r.units[0].kind == "summary" and r.split.title == "Split the config loader"


def test_recorded_usage_models_times_and_session() -> None:
    info = read(VSCODE, "claude-code").split.info
    assert info is not None
    # three API calls; the first is written as two lines that repeat its usage: counted once
    assert dict(info.usage) == {"input": 26, "cache_write": 6300, "cache_read": 47300, "output": 446}
    assert info.usage_source == "message.usage"
    assert info.recorded_tokens == 26 + 6300 + 47300 + 446
    assert info.models == ["claude-opus-4-1-20250805", "claude-sonnet-4-5-20250929"]
    assert info.to_json()["started"] == "2026-04-02T08:15:00Z"
    assert info.to_json()["ended"] == "2026-04-02T08:22:41Z"
    assert info.session_id == "8f41c2d0-6a7b-4e3c-9d12-5b6a7c8d9e0f" and info.parent_session is None
    old = read(SESSION, "claude-code").split.info
    assert old is not None and old.sidechain_units == 2  # a Task sidechain inside the file


def test_a_sub_agent_file_names_its_parent_session() -> None:
    r = read(AGENT, "claude-code")
    assert r.shape() == [
        ("user", "prompt"),
        ("assistant", "tool_call"),
        ("tool", "tool_result"),
        ("assistant", "reply"),
    ]
    info = r.split.info
    assert info is not None
    assert info.parent_session == "8f41c2d0-6a7b-4e3c-9d12-5b6a7c8d9e0f"
    assert info.session_id == "a7f3c901"
    assert info.models == ["claude-haiku-4-5-20251001"]
    assert info.usage["input"] == 6600 and info.usage["output"] == 108


def test_units_carry_the_time_of_their_line() -> None:
    r = read(VSCODE, "claude-code")
    assert all(u.time is not None for u in r.units)
    times = [u.time for u in r.units]
    assert times == sorted(times)  # type: ignore[type-var]


def test_units_wait_for_a_summary_s_leaf_within_a_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """A streamed session is never held whole: past the bound, a summary still waiting for its
    leaf is taken as another session's, and every unit still comes, in order."""
    from turnlens.pipeline.formats import FormatOptions, get_format
    from turnlens.pipeline.formats import claude_code as module

    lines = ['{"type":"summary","summary":"Old title","leafUuid":"u-40"}']
    for i in range(1, 41):
        lines.append(
            json.dumps(
                {
                    "type": "user",
                    "uuid": f"u-{i}",
                    "sessionId": "s",
                    "message": {"role": "user", "content": f"prompt number {i} " * 5},
                }
            )
        )
    text = "\n".join(lines) + "\n"
    whole = get_format("claude-code").split(text, FormatOptions())
    assert whole.units[0].kind == "summary" and whole.title == "Old title" and len(whole.units) == 41
    monkeypatch.setattr(module, "MAX_HELD_CHARS", 500)
    bounded = get_format("claude-code").split(text, FormatOptions())
    assert [u.text for u in bounded.units] == [u.text for u in whole.units[1:]]
    assert bounded.title is None


def test_stats_name_a_task_sidechain_inside_the_file() -> None:
    from turnlens.pipeline.analyze import analyze
    from turnlens.pipeline.profile import Profile
    from turnlens.pipeline.stats import session_stats

    stats = session_stats(analyze(read(SESSION, "claude-code").text, Profile(format="claude-code")))
    assert stats.to_json()["sidechain_units"] == 2 and stats.parent_session is None


def test_each_tool_result_is_read_with_its_call() -> None:
    """A result carries the call its `tool_use_id` answers: calls made side by side may be
    answered in any order; a result whose call is not in the file has none."""

    def line(kind: str, content: list[dict[str, object]]) -> str:
        return (
            json.dumps({"type": kind, "message": {"role": kind, "content": content}, "sessionId": "s"}) + "\n"
        )

    text = (
        line(
            "assistant",
            [
                {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "cat docs/RELEASE.md"}},
                {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "npm test"}},
            ],
        )
        + line("user", [{"type": "tool_result", "tool_use_id": "t2", "content": "Tests: 2 passed"}])
        + line(
            "user",
            [{"type": "tool_result", "tool_use_id": "t1", "content": "# Release\nTags MUST be signed."}],
        )
        + line("user", [{"type": "tool_result", "tool_use_id": "gone", "content": "orphan"}])
    )
    units = get_format("claude-code").split(text, FormatOptions()).units
    assert [(u.text, u.call) for u in units if u.kind == "tool_result"] == [
        ("Tests: 2 passed", "Bash: npm test"),
        ("# Release\nTags MUST be signed.", "Bash: cat docs/RELEASE.md"),
        ("orphan", None),
    ]
    assert all(u.call is None for u in units if u.kind != "tool_result")


def test_the_persons_answers_are_kept_as_decisions() -> None:
    """The agent asks with AskUserQuestion and hands over its plan with ExitPlanMode; the client
    returns the person's pick and approval as the tools' results. Read with their calls, those
    results are decisions (frozen: a guarded compaction keeps them); the plan is spec."""
    from turnlens.agents.guard import frozen_classes
    from turnlens.pipeline.analyze import analyze
    from turnlens.pipeline.profile import Profile

    def line(kind: str, content: list[dict[str, object]]) -> str:
        return (
            json.dumps({"type": kind, "message": {"role": kind, "content": content}, "sessionId": "s"}) + "\n"
        )

    question = ask_user_question(
        "Where should uploads go?",
        "Storage",
        ("S3", "One bucket per tenant"),
        ("Local disk", "Simpler, one server only"),
    )
    plan = "# Uploads\n1. Presigned S3 URLs per tenant.\n2. Remove the local /uploads folder."
    text = (
        line("user", [{"type": "text", "text": "add file uploads to the profile page"}])
        + line("assistant", [{"type": "tool_use", "id": "q1", "name": "AskUserQuestion", "input": question}])
        + line(
            "user",
            [
                {
                    "type": "tool_result",
                    "tool_use_id": "q1",
                    "content": 'User has answered your questions: "Where should uploads go?"="S3". '
                    "You can now continue with the user's answers in mind.",
                }
            ],
        )
        + line(
            "assistant", [{"type": "tool_use", "id": "p1", "name": "ExitPlanMode", "input": {"plan": plan}}]
        )
        + line(
            "user",
            [
                {
                    "type": "tool_result",
                    "tool_use_id": "p1",
                    "content": "User has approved your plan. You can now start coding.\n\n## Approved Plan:\n"
                    + plan,
                }
            ],
        )
    )
    results = analyze(text, Profile(format="claude-code")).results
    got = [(r.unit.kind, r.classification.task_class) for r in results]
    assert got == [
        ("prompt", got[0][1]),
        ("tool_call", "context"),  # the question: the agent asks
        ("tool_result", "decision"),  # the pick
        ("tool_call", "spec"),  # the plan handed over
        ("tool_result", "decision"),  # its approval
    ]
    frozen = frozen_classes()
    assert all(r.classification.task_class in frozen for r in results[2:])
