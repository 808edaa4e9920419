"""Bad input in session files: each problem said once with its line; the rest is still read."""

from __future__ import annotations

import json

import pytest

from tests.formats.conftest import fixture
from turnlens.pipeline.formats import FormatOptions, get_format
from turnlens.pipeline.formats import jsonl as jsonl_module

JSONL = {
    "codex": "codex/rollout-2026-03-*.jsonl",
    "gemini-jsonl": "gemini/session-*.jsonl",
    "openai-jsonl": "openai/finetune-support.jsonl",
    "claude-code": "claude-code/3a7c9e10-*.jsonl",
    "copilot-cli": "copilot-cli/session-state/*/events.jsonl",
    "sharegpt-jsonl": "sharegpt/variants.jsonl",
}
JSON = {
    "chatgpt": "chatgpt/conversations.json",
    "gemini": "gemini/session-*.json",
    "openai": "openai/chat-weather-tool.json",
    "anthropic": "anthropic/messages-refactor.json",
    "claude-ai": "claude-ai/conversations.json",
    "gemini-logs": "gemini-logs/logs.json",
    "sharegpt": "sharegpt/sharegpt.json",
}


def _texts(fmt: str, text: str) -> tuple[list[str], list[tuple[int, str, str]]]:
    split = get_format(fmt).split(text, FormatOptions())
    return [u.text for u in split.units], [(p.line, p.severity, p.message) for p in split.problems]


def _baseline(fmt: str) -> tuple[list[str], list[str]]:
    lines = fixture(JSONL[fmt]).read_text(encoding="utf-8").splitlines()
    units, _ = _texts(fmt, "\n".join(lines) + "\n")
    return lines, units


@pytest.mark.parametrize("fmt", sorted(JSONL))
def test_invalid_json_binary_and_cut_lines_each_reported_once(fmt: str) -> None:
    lines, units = _baseline(fmt)
    _, before = _texts(fmt, "\n".join(lines) + "\n")
    bad = [
        *lines[:1],
        '{"type": "response_item", "payload": {"type": ',  # invalid JSON (line 2)
        *lines[1:2],
        "\x00\x01\x02binary\x00junk\x7f",  # binary (line 4)
        *lines[2:],
        lines[-1][: len(lines[-1]) // 2],  # still being written (the last line)
    ]
    got, problems = _texts(fmt, "\n".join(bad))
    # a cut copy of the last line reads nothing; everything else is read as before
    assert got == units
    new = [p for p in problems if (p[0], p[2]) not in {(q[0] + (2 if q[0] > 1 else 0), q[2]) for q in before}]
    assert [(line, severity) for line, severity, _ in new] == [
        (2, "warning"),
        (4, "warning"),
        (len(bad), "info"),
    ]
    assert "not valid JSON" in new[0][2]
    assert "binary" in new[1][2]
    assert "incomplete" in new[2][2]


@pytest.mark.parametrize("fmt", sorted(JSONL))
def test_a_line_over_the_limit_is_passed_over(fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    lines, units = _baseline(fmt)
    monkeypatch.setattr(jsonl_module, "MAX_LINE_CHARS", 50_000)
    huge = json.dumps({"type": "user", "blob": "x" * 60_000})
    got, problems = _texts(fmt, "\n".join([*lines[:1], huge, *lines[1:]]) + "\n")
    assert got == units
    over = [p for p in problems if "passed over (limit" in p[2]]
    assert [(p[0], p[1]) for p in over] == [(2, "warning")]


def test_a_long_message_line_is_read_whole() -> None:
    long_text = "word " * 200_000
    line = {
        "type": "response_item",
        "payload": {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": long_text}],
        },
    }
    units, problems = _texts("codex", json.dumps(line) + "\n")
    assert units == [long_text] and problems == []


@pytest.mark.parametrize("fmt", sorted(JSON))
def test_cut_json_document_is_one_problem_with_its_line(fmt: str) -> None:
    text = fixture(JSON[fmt]).read_text(encoding="utf-8")
    cut = text[: len(text) * 2 // 3]
    units, problems = _texts(fmt, cut)
    ((line, severity, message),) = problems
    assert severity == "warning" and "ends early" in message
    assert line == cut.rstrip().count("\n") + 1
    if fmt == "chatgpt":  # an export is read conversation by conversation: the first is whole
        assert units == _texts(fmt, text)[0][:8]
    else:
        assert units == []


@pytest.mark.parametrize("fmt", sorted(JSON))
def test_invalid_and_binary_json_documents_are_reported(fmt: str) -> None:
    text = fixture(JSON[fmt]).read_text(encoding="utf-8")
    broken = text.replace('"content', '"content" "', 1) if '"content' in text else text.replace(":", "", 1)
    units, problems = _texts(fmt, broken)
    ((line, _, message),) = problems
    assert units == [] and "not valid JSON" in message and line >= 1
    units, problems = _texts(fmt, "\x00\x00\x00" + text)
    assert units == [] and "binary" in problems[0][2]
