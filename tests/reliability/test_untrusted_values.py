"""Untrusted values that reach views, limits and files (issue #15): router sample caps and
odd numbers, rule descriptions and model text in hover, odd files and file names for `check`
and `eval`, and a client that closes the server's output.

Each test here failed before its fix; docs/security.md names them.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from turnlens.router import parse_router_settings
from turnlens.router.sample import sample
from turnlens.router.settings import DEFAULT

from .conftest import Spawn, report
from .rawlsp import server_env

SAMPLE_CAP = 2000  # code points: the most of a prompt a model back end is ever sent (docs/security.md)


def _turnlens(
    *args: str, stdin: str = "", cwd: Path | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "turnlens", *args],
        input=stdin.encode("utf-8"),
        capture_output=True,
        timeout=timeout,
        env=server_env(),
        cwd=cwd,
    )


def _err_lines(done: subprocess.CompletedProcess[bytes]) -> list[str]:
    text = done.stderr.decode("utf-8", "replace")
    assert "Traceback" not in text, text
    return text.strip().splitlines()


# -- defect 8: how much of a prompt may leave the machine ---------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        {"sampleMax": 50_107, "sampleHead": 10_000, "sampleTail": 40_000},
        {"sampleMax": 1_000_000},
        {"sampleHead": 1_500, "sampleTail": 1_500, "sampleMax": 3_000},
    ],
)
def test_no_setting_raises_the_sample_above_its_cap(raw: dict[str, Any]) -> None:
    settings, warnings = parse_router_settings(raw)
    assert warnings  # said once, not silently accepted
    prompt = "".join(chr(0x41 + i % 26) for i in range(100_000))
    sent = sample(prompt, settings.sample_max, settings.sample_head, settings.sample_tail)
    assert len(sent) <= SAMPLE_CAP


def test_a_workspace_may_lower_the_sample() -> None:
    settings, warnings = parse_router_settings({"sampleMax": 800, "sampleHead": 200, "sampleTail": 300})
    assert not warnings and (settings.sample_max, settings.sample_head, settings.sample_tail) == (
        800,
        200,
        300,
    )


def test_schema_states_the_sample_cap() -> None:
    from turnlens.lsp.settings import flat_leaves

    leaves = flat_leaves()
    for key in ("router.sampleMax", "router.sampleHead", "router.sampleTail"):
        assert leaves[key]["maximum"] == SAMPLE_CAP, key


# -- the cooldown overflow: one odd value costs its own key only ---------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(10**400, id="10^400"),
        pytest.param(-(10**400), id="-10^400"),
        float("inf"),
        float("nan"),
        "10",
    ],
)
def test_an_out_of_range_router_value_resets_only_its_key(value: Any) -> None:
    settings, warnings = parse_router_settings(
        {"cooldownMinutes": value, "timeoutMs": 1234, "fallback": "none"}
    )
    assert settings.timeout_ms == 1234 and settings.fallback == "none"
    assert settings.cooldown_minutes == DEFAULT.cooldown_minutes
    assert len(warnings) == 1 and "cooldownMinutes" in warnings[0], warnings


# -- defect 12: text from a rules file or a model server is not Markdown in hover ------------------------


async def test_rule_descriptions_are_escaped_in_hover(spawn: Spawn, tmp_path: Path) -> None:
    hostile = "![pixel](http://attacker.example/p.png?d=1) [click](http://attacker.example) <img src=x>"
    (tmp_path / ".turnlens.toml").write_text(
        "[[rule]]\n"
        "id = 'any.words'\n"
        "class = 'review'\n"
        "weight = 1\n"
        "min_words = 1\n"
        f"description = '''{hostile}\n# Heading\n| a | b |'''\n",
        encoding="utf-8",
    )
    uri = (tmp_path / "prompt.md").as_uri()
    server = await spawn()
    await server.initialize(folders=[str(tmp_path)])
    server.open(uri, "some words here\n")
    await server.wait_diagnostics(uri, 1)
    hover = await server.request(
        "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 1}}
    )
    value = hover["result"]["contents"]["value"]
    assert "any.words" in value and "pixel" in value  # the rule fired and is described
    assert "![" not in value and "](" not in value, value
    assert re.search(r"(?<!\\)<", value) is None, value  # every `<` escaped: no HTML
    assert not any(line.startswith(("#", "|")) and "Heading" in line for line in value.splitlines()), value


# -- defect 10: `eval` reads JSON Lines as JSON Lines --------------------------------------------------------


def test_eval_accepts_raw_line_separators_inside_json_strings(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    rows = [
        {"id": 1, "text": "APPROVED\u2028ship it", "label": "decision"},
        {"id": 2, "text": "thanks!\u0085bye", "label": "chitchat"},
        {"id": 3, "text": "see\x1cSPEC-120\x1d\x1e", "label": "spec"},
    ]
    corpus.write_text("\r\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    done = _turnlens("eval", "--corpus", str(corpus), "--json")
    assert done.returncode == 0, done.stderr
    assert [r["n"] for r in json.loads(done.stdout)] == [3, 3]


@pytest.mark.parametrize(
    "row", [{"text": 5, "label": "spec"}, {"text": "x", "label": ["spec"]}, {"text": None, "label": None}]
)
def test_eval_refuses_non_string_fields_with_one_line(tmp_path: Path, row: dict[str, Any]) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps(row) + "\n", encoding="utf-8")
    done = _turnlens("eval", "--corpus", str(corpus))
    assert done.returncode == 2
    (line,) = _err_lines(done)
    assert "corpus.jsonl:1" in line and "must be strings" in line


# -- defect 9: file names that are not UTF-8 -------------------------------------------------------------------


def test_check_reports_files_with_non_utf8_names(tmp_path: Path) -> None:
    folder = tmp_path / "names"
    folder.mkdir()
    bad = os.fsencode(folder) + b"/caf\xe9-\xff.md"
    with open(bad, "wb") as handle:
        handle.write("APPROVED — ship it\n".encode())
    (folder / "z-later.md").write_text("thanks!\n", encoding="utf-8")
    for fmt in ("text", "json"):
        done = _turnlens("check", "--format", fmt, str(folder))
        assert done.returncode == 0, done.stderr
        out = done.stdout.decode("utf-8")  # valid UTF-8 throughout
        assert "caf\ufffd-\ufffd.md" in out and "z-later.md" in out, out
        _err_lines(done)


# -- defect 5: `check` never blocks, never reads what it does not need -----------------------------------------


def test_check_skips_what_is_not_a_regular_file_or_too_large(tmp_path: Path) -> None:
    folder = tmp_path / "odd"
    folder.mkdir()
    os.mkfifo(folder / "a-fifo.md")
    (folder / "b-zero.md").symlink_to("/dev/zero")
    with (folder / "c-sparse.txt").open("wb") as handle:
        handle.truncate(2_000_000_000)
    with (folder / "d-huge.txt").open("wb") as handle:  # text, but over the 64 MB limit
        handle.write(b"word " * 14_000_000)
    (folder / "e-real.md").write_text("APPROVED — ship it\n", encoding="utf-8")
    started = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "turnlens", "check", str(folder), "--jobs", "1"],
            capture_output=True,
            timeout=20,
            env=server_env(),
            preexec_fn=_memory_limit,
        )
    except subprocess.TimeoutExpired:
        raise AssertionError("turnlens check still running after 20 s") from None
    took = time.monotonic() - started
    report(
        f"check over a FIFO, /dev/zero, a 2 GB sparse file, a 70 MB text and a real file: {took * 1000:.0f} ms"
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = _err_lines(done)
    assert len(lines) == 4, lines
    assert any("a-fifo.md" in w and "not a regular file" in w for w in lines), lines
    assert any("b-zero.md" in w and "not a regular file" in w for w in lines), lines
    assert any("c-sparse.txt" in w and "binary file skipped" in w for w in lines), lines
    assert any("d-huge.txt" in w and "larger than" in w for w in lines), lines
    assert b"e-real.md:1:1: decision" in done.stdout


def _memory_limit() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def test_classify_input_refuses_a_fifo_with_one_line(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.md")
    try:
        done = _turnlens("classify", "--input", str(tmp_path / "fifo.md"), timeout=20)
    except subprocess.TimeoutExpired:
        raise AssertionError("turnlens classify --input FIFO still blocked after 20 s") from None
    assert done.returncode == 2
    (line,) = _err_lines(done)
    assert "not a regular file" in line


# -- defect 13: the client closes the server's output -------------------------------------------------------------


async def test_server_exits_when_its_output_is_closed(spawn: Spawn) -> None:
    server = await spawn()
    await server.initialize()
    uri = "file:///work/out.md"
    server.open(uri, "APPROVED — ship it\n")
    await server.wait_diagnostics(uri, 1)
    transport: Any = server.proc._transport  # type: ignore[attr-defined]
    transport.get_pipe_transport(1).close()  # the editor stops reading; stdin stays open
    started = time.monotonic()
    for version in range(2, 12):  # each edit makes the server write diagnostics
        server.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": f"v{version}"}]},
        )
        await asyncio.sleep(0.05)
    try:
        code = await asyncio.wait_for(server.proc.wait(), 30)  # a hang guard, not a speed bound
    except TimeoutError:
        raise AssertionError("the server still runs 30 s after its output was closed") from None
    took = time.monotonic() - started
    await asyncio.sleep(0.2)
    stderr = server.stderr_text()
    report(f"server with its output closed: exited {code} after {took * 1000:.0f} ms")
    assert code == 1
    assert stderr.count("Traceback") == 0 and stderr.count("BrokenPipeError") <= 1, stderr[-3000:]
