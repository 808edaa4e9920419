"""On every fixture, the prompts counted are the prompts written to the agent: text a client
injected, slash commands and their output are kinds of their own (never routed)."""

from __future__ import annotations

import pytest

from tests.formats.conftest import FIXTURES
from turnlens.pipeline.analyze import analyze
from turnlens.pipeline.profile import Profile
from turnlens.pipeline.stats import session_stats

PROMPTS = {  # fixture → prompts in it, counted by hand
    "aider/.aider.chat.history.md": 4,  # `/add` typed at Aider's prompt is one (route: slash)
    "aider/fences/.aider.chat.history.md": 4,
    "anthropic/messages-refactor.json": 2,
    "chatgpt/conversations.json": 3,
    "claude-ai/conversations.json": 3,  # the attached file is not one
    "claude-code/3a7c9e10-5b2d-4f61-8e0a-1c2d3e4f5a6b.jsonl": 3,  # one is a Task sidechain's prompt
    "claude-code/8f41c2d0-6a7b-4e3c-9d12-5b6a7c8d9e0f.jsonl": 3,  # of 16 units: 4 injected, 4 commands
    "claude-code/8f41c2d0-6a7b-4e3c-9d12-5b6a7c8d9e0f/subagents/agent-a7f3c901.jsonl": 1,  # the parent's task
    "claude-code/summaries-only.jsonl": 0,
    "codex/rollout-2025-05-02T14-03-11-0b8e6d2a-19c4-4f7e-8a53-6c1d2e3f4a5b.jsonl": 2,
    "codex/rollout-2026-03-14T09-30-00-5f0c2b1e-7a41-4c55-9d0e-2b8f6a1c3d77.jsonl": 3,
    "codex/rollout-2026-04-10T07-58-12-0199a6c4-2b7e-7d10-8f3a-4c5d6e7f8091.jsonl": 2,  # 4 wrappers are not
    "copilot-cli/session-state/5b1f0c2e-93d4-4a8e-b7f1-0e2d3c4b5a69/events.jsonl": 2,
    "gemini/session-2026-03-15T10-00-a1b2c3d4.json": 2,
    "gemini/session-2026-03-16T08-12-e5f6a7b8.jsonl": 2,
    "gemini-logs/logs.json": 3,  # and one /memory command
    "markdown-chat/.specstory/history/2025-06-01_10-00Z-login-loop.md": 2,
    "markdown-chat/chatgpt-exporter.md": 2,
    "markdown-chat/claude-export.md": 2,
    "markdown-chat/headings.md": 2,
    "markdown-chat/labels.md": 2,
    "markdown-chat/transcripts/2026-01-12-rate-limiter.md": 1,
    "openai/chat-weather-tool.json": 2,
    "openai/finetune-support.jsonl": 3,
    "openai/requests-log.jsonl": 2,
    "prompt-file/.claude/commands/fix-issue.md": 1,
    "prompt-file/.github/prompts/security-review.prompt.md": 1,
    "prompt-file/AGENTS.md": 1,
    "sharegpt/sharegpt.json": 5,
    "sharegpt/variants.jsonl": 2,
}


def test_every_fixture_is_counted() -> None:
    on_disk = {p.relative_to(FIXTURES).as_posix() for p in FIXTURES.rglob("*") if p.is_file()}
    assert on_disk == set(PROMPTS)


@pytest.mark.parametrize("rel", sorted(PROMPTS))
def test_prompts_are_the_prompts_written(rel: str) -> None:
    path = FIXTURES / rel
    analyzed = analyze(path.read_text(encoding="utf-8"), Profile(), path=str(path))
    stats = session_stats(analyzed)
    assert stats.by_kind.get("prompt", 0) == PROMPTS[rel]
    # every prompt is routed, and nothing else a session file holds is
    assert stats.prompts == PROMPTS[rel] + stats.by_kind.get("text", 0)
