"""Workspace setting values that used to stop analysis, code actions on text the last analysis
has not seen, rules files that change, and lone-CR documents (issue #15, defects 4, 6, 7, 11
and the double separator search).

Each test here failed before its fix; docs/security.md names them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from turnlens.pipeline.formats import turns

from . import positions
from .conftest import Spawn, report
from .rawlsp import RawServer, cpu_seconds, server_env

SLOW = r"(?:[\s\S]{1,1000})+z"
BAD_VALUES: dict[str, dict[str, Any]] = {
    "separator-surrogate": {"turnSeparator": "\ud800"},
    "separator-slow": {"turnSeparator": SLOW},
    "separator-huge": {"turnSeparator": "x" * 100_000},
    "exclude-surrogate": {"exclude": ["\ud800*.md"]},
    "exclude-huge": {"exclude": ["?" * 200_000]},
    "exclude-many": {"exclude": [f"never-{i}/*.md" for i in range(5000)]},
    "rules-file-long-name": {"rules": {"file": "r" * 300 + ".toml"}},
    "rules-file-nul": {"rules": {"file": "bad\x00name.toml"}},
    "rules-file-no-home": {"rules": {"file": "~no-such-user-tl/rules.toml"}},
}


async def _open_and_wait(server: RawServer, uri: str, text: str, timeout: float = 10) -> list[dict[str, Any]]:
    server.open(uri, text)
    return await server.wait_diagnostics(uri, 1, timeout=timeout)


async def test_bad_setting_values_fall_back_with_one_message(spawn: Spawn, tmp_path: Path) -> None:
    server = await spawn()
    await server.initialize(folders=[str(tmp_path)])
    took = {}
    for name, value in BAD_VALUES.items():
        server.config = {"debounceMs": 0, **value}
        uri = (tmp_path / f"{name}.md").as_uri()
        text = "APPROVED — ship it\n---TURN---\nthanks!\n" + (
            "lorem ipsum " * 90_000 if "slow" in name else ""
        )
        started = cpu_seconds(server.proc.pid)
        diags = await _open_and_wait(server, uri, text)
        took[name] = cpu_seconds(server.proc.pid) - started
        assert [d["data"]["class"] for d in diags][:1] == ["decision"] and len(diags) == 2, (name, diags)
        assert took[name] < 3, (name, took[name])  # the server's CPU seconds, not wall time
    report(
        "bad setting values, server CPU time to diagnostics: "
        + ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in took.items())
    )
    logs = [p["message"] for p in server.notifications("window/logMessage")]
    for key in ("turnSeparator", "exclude", "rules.file"):
        assert any(f"turnlens.{key}" in m for m in logs), (key, logs)
    assert "Traceback" not in server.stderr_text(), server.stderr_text()[-3000:]


def test_cli_separator_that_is_not_utf8_exits_2_with_one_line(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("hello\n", encoding="utf-8")
    for argv in (
        [b"check", b"--separator", b"TURN\xe9", os.fsencode(doc)],
        [b"check", b"--separator", SLOW.encode(), os.fsencode(doc)],
    ):
        done = subprocess.run(
            [os.fsencode(sys.executable), b"-m", b"turnlens", *argv],
            capture_output=True,
            timeout=60,
            env=server_env(),
        )
        err = done.stderr.decode("utf-8", "replace")
        assert done.returncode == 2, err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        assert "separator" in err


def test_a_slow_separator_is_refused() -> None:
    with pytest.raises(turns.SeparatorError, match="too costly"):
        turns.compile_separator(SLOW)


def test_a_full_split_searches_for_separators_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = turns.separator_lines

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[1:])
        return real(*args, **kwargs)

    monkeypatch.setattr(turns, "separator_lines", counting)
    text = "a\n---TURN---\nb\n" * 50
    split = turns.TURNS.split(text, turns.FormatOptions(separator="---TURN---"))
    assert len(split.units) == 51
    assert len(calls) == 1, calls


# -- lone CR: a line break like any other ------------------------------------------------------------


def test_a_separator_after_a_lone_cr_splits() -> None:
    units = turns.split_units("first turn\r---TURN---\rsecond turn\r---TURN---\r\nthird")
    assert [u.text for u in units] == ["first turn\r", "second turn\r", "third"]


def _apply(text: str, edit: dict[str, Any], encoding: str = "utf-16") -> str:
    start, end = positions.range_offsets(text, edit["range"], encoding)
    return text[:start] + edit["newText"] + text[end:]


def _actions(answer: dict[str, Any], title: str) -> list[dict[str, Any]]:
    return [a for a in answer["result"] if a["title"].startswith(title)]


async def _code_actions(server: RawServer, uri: str, line: int, character: int = 0) -> dict[str, Any]:
    at = {"line": line, "character": character}
    return await server.request(
        "textDocument/codeAction",
        {"textDocument": {"uri": uri}, "range": {"start": at, "end": at}, "context": {"diagnostics": []}},
    )


async def test_split_here_works_in_a_lone_cr_document(spawn: Spawn) -> None:
    server = await spawn()
    await server.initialize()
    uri = "file:///work/lone-cr.md"
    text = "please look at the export job\rit drops rows at midnight\rand the totals are off"
    diags = await _open_and_wait(server, uri, text)
    assert len(diags) == 1
    (split,) = _actions(await _code_actions(server, uri, 1), "TurnLens: split the turn here")
    (edit,) = split["edit"]["changes"][uri]
    new_text = _apply(text, edit)
    server.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": new_text}]},
    )
    diags = await server.wait_diagnostics(uri, 2)
    assert len(diags) == 2, (new_text, diags)
    # a cursor past the end: the action stays inside the 3-line document
    for action in _actions(await _code_actions(server, uri, 40), "TurnLens: split the turn here"):
        (edit,) = action["edit"]["changes"][uri]
        assert edit["range"]["start"]["line"] <= 3, edit


# -- code actions on text the last analysis has not seen (onSave / manual) -----------------------------


@pytest.mark.parametrize("mode", ["onSave", "manual"])
async def test_code_actions_after_an_unsaved_edit_land_on_the_right_turn(spawn: Spawn, mode: str) -> None:
    server = await spawn(config={"debounceMs": 0, "analyze": mode})
    await server.initialize()
    uri = f"file:///work/stale-{mode}.md"
    text = "APPROVED — ship it\n---TURN---\nthanks for the help\n"
    server.open(uri, text)
    if mode == "manual":
        await server.request(
            "workspace/executeCommand", {"command": "turnlens.classify", "arguments": [{"uri": uri}]}
        )
        await server.request("workspace/executeCommand", {"command": "turnlens.reload", "arguments": []})
    await server.wait_diagnostics(uri, 1)
    top = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}
    server.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"range": top, "text": "one\ntwo\nthree\n"}],
        },
    )
    current = "one\ntwo\nthree\n" + text
    answer = await _code_actions(server, uri, 5, 2)  # inside "thanks for the help"
    pins = _actions(answer, "TurnLens: pin this turn as decision")
    assert pins, answer
    (edit,) = pins[0]["edit"]["changes"][uri]
    assert edit["range"]["start"] == {"line": 5, "character": 0}, edit
    after = _apply(current, edit)
    assert after.splitlines()[5:7] == ["<!-- turnlens: class=decision -->", "thanks for the help"], after
    assert server.diagnostics(uri, 2) is None  # nothing was published for the unsaved text


# -- rules files that change ----------------------------------------------------------------------------


def _write_rules(folder: Path, cls: str, bump: float) -> None:
    path = folder / ".turnlens.toml"
    path.write_text(
        f"[[rule]]\nid = 'marker'\nclass = '{cls}'\nweight = 20\npattern = 'ZEBRA-MARKER'\n", encoding="utf-8"
    )
    stamp = time.time() + bump  # a different mtime even on a coarse file system
    os.utime(path, (stamp, stamp))


async def _codes_when(server: RawServer, uri: str, task_class: str) -> None:
    def seen() -> bool:
        found = server.diagnostics(uri)
        return bool(found) and found[0]["data"]["class"] == task_class

    await server.wait_for(seen, timeout=10)


async def test_an_edited_rules_file_is_used_after_save_and_when_watched(spawn: Spawn, tmp_path: Path) -> None:
    _write_rules(tmp_path, "spec", 0)
    server = await spawn()
    caps = {
        "workspace": {
            "configuration": True,
            "workspaceFolders": True,
            "didChangeWatchedFiles": {"dynamicRegistration": True},
        }
    }
    await server.initialize(folders=[str(tmp_path)], capabilities=caps)
    uri = (tmp_path / "prompt.md").as_uri()
    await _open_and_wait(server, uri, "ZEBRA-MARKER and a few more words here\n")
    await _codes_when(server, uri, "spec")
    # edited, then the document is saved: the new rules apply
    _write_rules(tmp_path, "review", 5)
    server.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    await _codes_when(server, uri, "review")
    # edited while the document sits untouched: the watcher's notification is enough
    registrations = [r for r in server.answered_requests if r["method"] == "client/registerCapability"]
    watchers = [
        w
        for r in registrations
        for reg in r["params"]["registrations"]
        if reg["method"] == "workspace/didChangeWatchedFiles"
        for w in reg["registerOptions"]["watchers"]
    ]
    assert any(".turnlens.toml" in w["globPattern"] for w in watchers), registrations
    _write_rules(tmp_path, "decision", 10)
    server.notify(
        "workspace/didChangeWatchedFiles",
        {"changes": [{"uri": (tmp_path / ".turnlens.toml").as_uri(), "type": 2}]},
    )
    await _codes_when(server, uri, "decision")


def test_an_unreadable_rules_folder_leaves_the_built_in_pack(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """In process (the tests may run as root, who reads everything): the folder refuses a stat."""
    from lsprotocol import types

    from turnlens.lsp.server import TurnLensServer
    from turnlens.lsp.settings import parse_settings

    locked = tmp_path / "locked"
    real_stat = os.stat

    def refusing(path: Any, *args: Any, **kwargs: Any) -> Any:
        if str(path).startswith(str(locked)):
            raise PermissionError(13, "Permission denied", str(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", refusing)
    ls = TurnLensServer()
    said: list[str] = []
    monkeypatch.setattr(ls, "say_once", lambda message, *a: said.append(message))
    state = ls.open_document(
        types.TextDocumentItem(uri=(tmp_path / "a.md").as_uri(), language_id="markdown", version=1, text="hi")
    )
    settings, _ = parse_settings({"rules": {"file": str(locked / "rules.toml")}})
    ls.apply_settings(state, settings)
    assert state.pack is not None and state.pack.name == "default"
    assert any("turnlens.rules.file" in m and "ermission denied" in m for m in said), said
