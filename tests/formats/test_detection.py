"""Auto-detection on every fixture, and on files that only look like chats."""

from __future__ import annotations

import pytest

from turnlens.cli import main
from turnlens.pipeline.formats import FormatOptions, NotATranscript, detect, get_format

from .common import FIXTURES, NEARMISS_TEXT, fixture

MARKDOWN_DIRS = ("aider", "markdown-chat", "prompt-file")

EXPECTED = {
    "aider/.aider.chat.history.md": "aider",
    "aider/fences/.aider.chat.history.md": "aider",
    "markdown-chat/.specstory/history/2025-06-01_10-00Z-login-loop.md": "markdown-chat",
    "markdown-chat/chatgpt-exporter.md": "markdown-chat",
    "markdown-chat/claude-export.md": "markdown-chat",
    "markdown-chat/headings.md": "markdown-chat",
    "markdown-chat/labels.md": "markdown-chat",
    "markdown-chat/transcripts/2026-01-12-rate-limiter.md": "markdown-chat",
    "prompt-file/.claude/commands/fix-issue.md": "prompt-file",
    "prompt-file/.github/prompts/security-review.prompt.md": "prompt-file",
    "prompt-file/AGENTS.md": "prompt-file",
}

# what a folder walk of the fixtures finds (it skips folders whose name starts with a dot)
WALKED = {
    name: fmt
    for name, fmt in EXPECTED.items()
    if not any(part.startswith(".") for part in name.split("/")[:-1])
}

NEAR_MISSES = ["README.md", "notes.md", "post.md", "session.txt"]  # plain notes stay plain text


def test_every_fixture_is_listed() -> None:
    on_disk = {
        p.relative_to(FIXTURES).as_posix()
        for d in MARKDOWN_DIRS
        for p in (FIXTURES / d).rglob("*")
        if p.is_file()
    }
    assert on_disk == set(EXPECTED)
    assert sorted(p.name for p in NEARMISS_TEXT.iterdir()) == sorted(NEAR_MISSES)


@pytest.mark.parametrize("rel", sorted(EXPECTED))
def test_detected_format(rel: str) -> None:
    path, doc = fixture(rel)
    assert detect(path, doc).name == EXPECTED[rel]


@pytest.mark.parametrize("name", NEAR_MISSES)
def test_near_miss_files_are_plain_text(name: str) -> None:
    path = NEARMISS_TEXT / name
    assert detect(str(path), path.read_text(encoding="utf-8")).name == "turns"


@pytest.mark.parametrize(
    "doc",
    [
        "## User\n\nThe user profile page.\n",
        "## User\n\nfields\n\n## Assistant\n\nthe bot\n",  # one exchange: a README's two sections
        "**User:** admin\n**Assistant:** none\n",
        "## User\n## User\n## User\n",
        "```\n## User\nhi\n## Assistant\nhello\n## User\nbye\n```\n",  # all inside a fence
        "## Users\n\na\n\n## Assistants\n\nb\n\n## Users\n\nc\n",
        "# aider chat is great\n\n#### not a prompt\n",
    ],
)
def test_near_misses_stay_plain_text(doc: str) -> None:
    assert detect("notes.md", doc).name == "turns"
    assert detect(None, doc).name == "turns"


def test_a_chat_in_a_non_markdown_file_is_not_claimed() -> None:
    doc = "## User\n\na\n\n## Assistant\n\nb\n\n## User\n\nc\n"
    assert detect("chat.md", doc).name == "markdown-chat"
    assert detect("chat.py", doc).name == "turns"


@pytest.mark.parametrize(
    ("fmt", "message"), [("aider", "not an Aider chat history"), ("markdown-chat", "not a Markdown chat")]
)
def test_a_format_asked_for_refuses_text_that_is_not_its_own(fmt: str, message: str) -> None:
    path = NEARMISS_TEXT / "post.md"
    with pytest.raises(NotATranscript, match=message):
        get_format(fmt).split(path.read_text(encoding="utf-8"), FormatOptions())
    assert get_format(fmt).split("\n\n", FormatOptions()).units == []  # empty is not wrong, just empty


def test_the_cli_reports_a_refused_format_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["plan", "--from", "aider", "--session", str(NEARMISS_TEXT / "notes.md"), "--budget", "100"])
    assert code == 2
    assert "not an Aider chat history" in capsys.readouterr().err
