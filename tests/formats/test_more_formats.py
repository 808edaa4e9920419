"""claude.ai exports, Gemini CLI's prompt log, Copilot CLI sessions and ShareGPT datasets:
what each unit is, where it points, and what the file records about the session."""

from __future__ import annotations

from tests.formats.conftest import check_spans, read
from turnlens.pipeline.analyze import analyze
from turnlens.pipeline.formats import detect
from turnlens.pipeline.profile import Profile
from turnlens.pipeline.stats import session_stats


def _prompts(r: object) -> int:
    return sum(1 for u in r.units if u.kind == "prompt")  # type: ignore[attr-defined]


def test_claude_ai_export_reads_blocks_attachments_and_old_text_messages() -> None:
    r = read("claude-ai/conversations.json", "claude-ai")
    assert r.shape() == [
        ("system", "injected"),  # the attached file's extracted text: not typed
        ("user", "prompt"),
        ("assistant", "thinking"),
        ("assistant", "tool_call"),
        ("tool", "tool_result"),  # two text parts, one result
        ("assistant", "reply"),
        ("user", "prompt"),
        ("user", "prompt"),  # an older export: `text` only
        ("assistant", "reply"),
    ]
    assert _prompts(r) == 3
    assert r.units[4].text == "False\n\n(ran in 2 ms)"
    # blocks are read, not the flattened `text` that repeats them
    assert sum("The check uses" in u.text for u in r.units) == 1
    check_spans(r, anchors={4: "repl", 5: "False"})
    assert r.split.title is None  # two conversations: no one title
    info = r.split.info
    assert info is not None and info.to_json()["started"] == "2025-11-20T08:00:00Z"


def test_claude_ai_export_is_told_from_a_chatgpt_export_of_the_same_name() -> None:
    r = read("claude-ai/conversations.json", "claude-ai")
    assert detect("/exports/conversations.json", r.text).name == "claude-ai"
    chatgpt = read("chatgpt/conversations.json", "chatgpt")
    assert detect("/exports/conversations.json", chatgpt.text).name == "chatgpt"


def test_gemini_prompt_log_holds_prompts_and_commands() -> None:
    r = read("gemini-logs/logs.json", "gemini-logs")
    assert r.shape() == [("user", "prompt"), ("user", "command"), ("user", "prompt"), ("user", "prompt")]
    assert r.units[1].text.startswith("/memory add")
    check_spans(r)
    assert all(u.time is not None for u in r.units)
    stats = session_stats(analyze(r.text, Profile(format="gemini-logs")))
    assert stats.prompts == 3  # the command is not routed


def test_copilot_cli_events() -> None:
    r = read("copilot-cli/session-state/*/events.jsonl", "copilot-cli")
    assert r.shape() == [
        ("system", "system"),  # folder trust notice
        ("user", "prompt"),
        ("assistant", "thinking"),
        ("assistant", "reply"),
        ("assistant", "tool_call"),  # from the message's toolRequests (its execution_start is the same call)
        ("tool", "tool_result"),
        ("assistant", "tool_call"),  # only in tool.execution_start
        ("tool", "tool_result"),  # an error message
        ("assistant", "reply"),
        ("user", "prompt"),
        ("assistant", "reply"),
    ]
    assert (
        r.units[1].text == "Add a /healthz endpoint that reports the database status"
    )  # not transformedContent
    assert r.units[4].text == "view: /home/li/api/src/routes.ts"
    check_spans(r, anchors={5: "view", 7: "bash"})
    # each result is read with the call its toolCallId answers
    assert [u.call for u in r.units if u.kind == "tool_result"] == [r.units[4].text, r.units[6].text]
    info = r.split.info
    assert info is not None
    assert info.session_id == "5b1f0c2e-93d4-4a8e-b7f1-0e2d3c4b5a69"
    assert info.models == ["claude-sonnet-4.5"]
    assert dict(info.usage) == {"input": 16800, "output": 322, "cache_read": 12200}
    assert info.to_json()["ended"] == "2026-02-20T14:02:03Z"


def test_sharegpt_strict_and_variants() -> None:
    r = read("sharegpt/sharegpt.json", "sharegpt")
    assert r.shape() == [
        ("system", "system"),
        ("user", "prompt"),
        ("assistant", "reply"),
        ("user", "prompt"),
        ("assistant", "reply"),
        ("system", "system"),  # a `system` field beside the turns
        ("user", "prompt"),  # `user` / `assistant` speakers
        ("assistant", "reply"),
        ("user", "prompt"),
        ("assistant", "tool_call"),  # function_call
        ("tool", "tool_result"),  # observation
        ("assistant", "reply"),
        ("user", "prompt"),  # `conversation` of `role` / `content`
        ("assistant", "reply"),
    ]
    check_spans(r)
    ((line, message),) = [(p.line, p.message) for p in r.split.problems]
    assert "unknown speaker 'narrator'" in message and r.text.splitlines()[line - 1].strip().startswith(
        '"role"'
    )
    lines = read("sharegpt/variants.jsonl", "sharegpt-jsonl")
    assert lines.shape() == [("user", "prompt"), ("assistant", "reply")] * 2
    assert [(p.line, p.severity) for p in lines.split.problems] == [(3, "info")]
    check_spans(lines)


def test_sharegpt_is_not_claimed_for_openai_messages() -> None:
    r = read("openai/chat-weather-tool.json", "openai")
    assert detect("chat.json", r.text).name == "openai"
