"""Hostile session files against every reader: deep nesting, lone surrogates, a byte-order mark.

A session file is data someone else may have written. Whatever it holds, a reader reports what
it cannot read once, reads the rest, and never lets a Python error (RecursionError,
UnicodeEncodeError) escape to the command line, the server or a batch run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.formats.common import FIXTURES
from turnlens.pipeline.analyze import analyze
from turnlens.pipeline.formats.jsonspan import MAX_DEPTH

from .conftest import Spawn

DEEP = "[" * 900 + "]" * 900  # a value only 900 deep: Python's walk of it used to overflow

JSONL_FIXTURES = [
    "claude-code/3a7c9e10-5b2d-4f61-8e0a-1c2d3e4f5a6b.jsonl",
    "codex/rollout-2026-03-14T09-30-00-5f0c2b1e-7a41-4c55-9d0e-2b8f6a1c3d77.jsonl",
    "gemini/session-2026-03-16T08-12-e5f6a7b8.jsonl",
    "openai/finetune-support.jsonl",
    "openai/requests-log.jsonl",
]
DOC_FIXTURES = [
    "chatgpt/conversations.json",
    "gemini/session-2026-03-15T10-00-a1b2c3d4.json",
    "anthropic/messages-refactor.json",
    "openai/chat-weather-tool.json",
]


def _texts(path: str, text: str) -> list[str]:
    return [r.unit.text for r in analyze(text, path=path).results]


def _with_deep_line(text: str) -> str:
    """The session with a record nested 900 deep after its first line."""
    first, _, rest = text.partition("\n")
    return f'{first}\n{{"type": "user", "deep": {DEEP}}}\n{rest}'


@pytest.mark.parametrize("rel", JSONL_FIXTURES)
def test_a_too_deep_line_is_one_problem_and_the_rest_is_read(rel: str) -> None:
    path = str(FIXTURES / rel)
    text = (FIXTURES / rel).read_text(encoding="utf-8")
    analyzed = analyze(_with_deep_line(text), path=path)
    assert [r.unit.text for r in analyzed.results] == _texts(path, text)
    deep = [p for p in analyzed.problems if "nested deeper" in p.message]
    assert len(deep) == 1 and deep[0].line == 2, analyzed.problems


def test_a_too_deep_conversation_is_passed_over_and_the_others_are_read() -> None:
    path = str(FIXTURES / "chatgpt/conversations.json")
    conversations = json.loads(Path(path).read_text(encoding="utf-8"))
    good = json.dumps(conversations)
    deep = dict(conversations[0], title="deep", extra=json.loads("[" * 300 + "]" * 300))
    hostile = json.dumps([deep, *conversations])
    analyzed = analyze(hostile, path=path)
    assert [r.unit.text for r in analyzed.results] == _texts(path, good)
    assert sum("nested deeper" in p.message for p in analyzed.problems) == 1


@pytest.mark.parametrize("rel", DOC_FIXTURES)
@pytest.mark.parametrize("depth", [MAX_DEPTH + 5, 900, 5000])
def test_a_too_deep_document_is_one_problem_not_a_crash(rel: str, depth: int) -> None:
    path = str(FIXTURES / rel)
    obj = json.loads((FIXTURES / rel).read_text(encoding="utf-8"))
    text = json.dumps(obj)
    nested = "[" * depth + "]" * depth
    # the deep value inside the first object (or array item) of the document
    hostile = text.replace("{", '{"deep": ' + nested + ", ", 1)
    analyzed = analyze(hostile, path=path)
    assert sum("nested deeper" in p.message for p in analyzed.problems) == 1, analyzed.problems


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "turnlens", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env=env,
    )


def test_check_goes_on_after_a_too_deep_file(tmp_path: Path) -> None:
    src = FIXTURES / JSONL_FIXTURES[0]
    text = src.read_text(encoding="utf-8")
    (tmp_path / "a-deep.jsonl").write_text(_with_deep_line(text), encoding="utf-8")
    (tmp_path / "b-deep.json").write_text('{"messages": ' + "[" * 5000 + "]" * 5000 + "}")
    (tmp_path / "c-good.jsonl").write_text(text, encoding="utf-8")
    done = _cli("check", str(tmp_path))
    assert "Traceback" not in done.stderr and done.returncode in (0, 1), done.stderr
    assert "c-good.jsonl" in done.stdout + done.stderr
    assert "nested deeper" in done.stdout + done.stderr
    for command in (
        ["stats", str(tmp_path / "a-deep.jsonl")],
        ["classify", "--input", str(tmp_path / "b-deep.json")],
    ):
        done = _cli(*command)
        assert "Traceback" not in done.stderr and done.returncode in (0, 1, 2), done.stderr


@pytest.mark.parametrize("rel", [JSONL_FIXTURES[0], *DOC_FIXTURES])
def test_a_byte_order_mark_at_the_start_is_skipped(rel: str) -> None:
    path = str(FIXTURES / rel)
    text = (FIXTURES / rel).read_text(encoding="utf-8")
    plain = analyze(text, path=path)
    marked = analyze("\ufeff" + text, path=path)
    assert marked.format == plain.format
    assert [r.unit.text for r in marked.results] == [r.unit.text for r in plain.results]
    assert [p.message for p in marked.problems] == [p.message for p in plain.problems]
    # spans still point at the unit's own characters: one further on, past the mark
    assert [(r.unit.start, r.unit.end) for r in marked.results] == [
        (r.unit.start + 1, r.unit.end + 1) for r in plain.results
    ]


def test_a_byte_order_mark_is_skipped_in_a_streamed_session(tmp_path: Path) -> None:
    from turnlens.userfiles import jsonl_lines

    src = FIXTURES / JSONL_FIXTURES[0]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + src.read_bytes())
    first = next(iter(jsonl_lines(path)))
    assert first[1] == 1 and first[2].startswith("{")
    done = _cli("check", str(path))
    assert "not valid JSON" not in done.stdout + done.stderr, done.stdout + done.stderr


async def test_server_publishes_diagnostics_and_a_session_map_for_a_too_deep_session(
    spawn: Spawn, tmp_path: Path
) -> None:
    text = _with_deep_line((FIXTURES / JSONL_FIXTURES[0]).read_text(encoding="utf-8"))
    server = await spawn()
    await server.initialize(folders=[str(tmp_path)])
    uri = (tmp_path / "deep.jsonl").as_uri()
    server.open(uri, text, language="jsonl")
    diags = await server.wait_diagnostics(uri, timeout=30)
    units = [d for d in diags if d.get("code") != "format"]
    assert len(units) == len(_texts(str(FIXTURES / JSONL_FIXTURES[0]), text)) > 0
    assert any("nested deeper" in d["message"] and d["range"]["start"]["line"] == 1 for d in diags), diags
    answer = await server.request("turnlens/sessionMap", {"uri": uri}, timeout=30)
    assert "result" in answer and len(answer["result"]["map"]["units"]) == len(units), answer
    assert "Traceback" not in server.stderr_text(), server.stderr_text()[-3000:]
