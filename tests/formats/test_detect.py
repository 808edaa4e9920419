"""Auto-detection: every fixture is claimed by its format (from content, and from a head only);
JSON that is no transcript is refused with a clear message."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.formats.conftest import FIXTURES, NEARMISS
from turnlens.pipeline.formats import NotATranscript, detect, plainly_one_text

EXPECTED = {
    "anthropic/messages-refactor.json": "anthropic",
    "chatgpt/conversations.json": "chatgpt",
    "claude-ai/conversations.json": "claude-ai",
    "copilot-cli/session-state/5b1f0c2e-93d4-4a8e-b7f1-0e2d3c4b5a69/events.jsonl": "copilot-cli",
    "gemini-logs/logs.json": "gemini-logs",
    "sharegpt/sharegpt.json": "sharegpt",
    "sharegpt/variants.jsonl": "sharegpt-jsonl",
    "claude-code/3a7c9e10-5b2d-4f61-8e0a-1c2d3e4f5a6b.jsonl": "claude-code",
    "claude-code/8f41c2d0-6a7b-4e3c-9d12-5b6a7c8d9e0f.jsonl": "claude-code",
    "claude-code/summaries-only.jsonl": "claude-code",
    "claude-code/8f41c2d0-6a7b-4e3c-9d12-5b6a7c8d9e0f/subagents/agent-a7f3c901.jsonl": "claude-code",
    "codex/rollout-2025-05-02T14-03-11-0b8e6d2a-19c4-4f7e-8a53-6c1d2e3f4a5b.jsonl": "codex",
    "codex/rollout-2026-03-14T09-30-00-5f0c2b1e-7a41-4c55-9d0e-2b8f6a1c3d77.jsonl": "codex",
    "codex/rollout-2026-04-10T07-58-12-0199a6c4-2b7e-7d10-8f3a-4c5d6e7f8091.jsonl": "codex",
    "gemini/session-2026-03-15T10-00-a1b2c3d4.json": "gemini",
    "gemini/session-2026-03-16T08-12-e5f6a7b8.jsonl": "gemini-jsonl",
    "openai/chat-weather-tool.json": "openai",
    "openai/finetune-support.jsonl": "openai-jsonl",
    "openai/requests-log.jsonl": "openai-jsonl",
}


def test_every_fixture_is_listed() -> None:
    json_fixtures = [p for p in FIXTURES.rglob("*") if p.suffix in (".json", ".jsonl")]
    assert sorted(str(p.relative_to(FIXTURES)) for p in json_fixtures) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_is_detected_by_name_and_content(name: str) -> None:
    path = FIXTURES / name
    text = path.read_text(encoding="utf-8")
    assert detect(str(path), text).name == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_is_detected_by_content_alone(name: str) -> None:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    assert detect(None, text).name == EXPECTED[name]
    assert (
        detect("renamed.txt.json" if name.endswith(".json") else "renamed.jsonl", text).name == EXPECTED[name]
    )


@pytest.mark.parametrize("name", sorted(EXPECTED))
@pytest.mark.parametrize("head", [4096, 900])
def test_fixture_is_detected_from_its_head(name: str, head: int) -> None:
    """Detection sees only the head of a large file (a JSON document cut mid-way)."""
    path = FIXTURES / name
    text = path.read_text(encoding="utf-8")
    from turnlens.pipeline.formats import get_format, names

    scores = {n: get_format(n).detect(str(path), text[:head]) for n in names()}
    assert max(scores, key=lambda n: scores[n]) == EXPECTED[name], scores


@pytest.mark.parametrize("path", sorted(NEARMISS.iterdir()), ids=lambda p: p.name)
def test_near_misses_are_not_transcripts(path: Path) -> None:
    with pytest.raises(NotATranscript, match=r"^not a transcript"):
        detect(str(path), path.read_text(encoding="utf-8"))


# -- the shortcut of a one-shot `classify --input` -------------------------------------------

_PIECES = [
    "fix the importer\n",
    "# Title\n",
    "## User\n",
    "**User:**",
    "__Assistant__",
    "> quoted\n",
    "#### add a flag\n",
    "# aider chat started at 2025-01-01 10:00:00\n",
    '{"role": "user"}\n',
    '[{"role": "user", "content": "x"}]',
    "   [1, 2]",
    "USER: hi\nASSISTANT: hello\n",
    "```python\nx = 1\n```\n",
    "---TURN---\n",
    "plain words ",
    "\n\n",
    "é漢字 ",
]
_PATHS = [
    None,
    "notes.md",
    "a.txt",
    "prompt.prompt.md",
    ".github/prompts/x.md",
    "x.json",
    "s.jsonl",
    "/h/.aider.chat.history.md",
    "log",
    "chat.markdown",
    "/h/.claude/p/s.jsonl",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join), st.sampled_from(_PATHS))
def test_plainly_one_text_never_hides_a_format(head: str, path: str | None) -> None:
    if plainly_one_text(path, head):
        assert detect(path, head).name in ("turns", "prompt-file")


def test_plainly_one_text_says_yes_to_a_plain_prompt() -> None:
    assert plainly_one_text("/tmp/p.txt", "thanks, that fixed it!\n")
    assert plainly_one_text(None, "Refactor the parser so it streams.\n\nIt must not block.")
    assert not plainly_one_text("p.md", "# aider chat started at 2025\n#### hi\n")
    assert not plainly_one_text("x.json", "[]")
