"""What editors other than VS Code rely on: pushed settings, visible command results,
short diagnostic codes, quiet stderr, and a `turnlens serve` that explains itself."""

from __future__ import annotations

import asyncio
import json
import os
import pty
import subprocess
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import (
    SERVER,
    _capabilities,
    open_doc,
    publishes,
    start,
    wait_diagnostics,
    wait_for,
)
from .docs import LF_SESSION

URI = "file:///work/session.md"
LATER = "file:///work/later.md"
ERROR = types.DiagnosticSeverity.Error
HINT = types.DiagnosticSeverity.Hint


def push_only() -> types.ClientCapabilities:
    """A client that cannot answer workspace/configuration (ALE, vim-lsp, older clients)."""
    caps = _capabilities()
    assert caps.workspace is not None
    caps.workspace.configuration = False
    return caps


def push(client: LanguageClient, settings: Any) -> None:
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=settings))


def severities(diags: list[types.Diagnostic]) -> set[int]:
    return {int(d.severity or 0) for d in diags}


async def latest(client: LanguageClient, uri: str, want: set[int]) -> list[types.Diagnostic]:
    """Wait until the newest publish for `uri` has exactly the severities `want`."""

    def ok() -> list[types.Diagnostic] | None:
        got = publishes(client, uri)
        if got and got[-1].diagnostics and severities(list(got[-1].diagnostics)) == want:
            return list(got[-1].diagnostics)
        return None

    return await wait_for(ok)  # type: ignore[no-any-return]


# -- settings pushed with didChangeConfiguration --------------------------------------------


@pytest.mark.parametrize(
    "payload",
    [
        {"turnlens": {"debounceMs": 0, "diagnostics": {"severity": "error"}}},
        {"debounceMs": 0, "diagnostics": {"severity": "error"}},  # without the section wrapper
    ],
    ids=["wrapped", "bare"],
)
async def test_settings_pushed_before_open_apply_to_documents_opened_later(
    bare_client: LanguageClient, payload: dict[str, Any]
) -> None:
    await start(bare_client, capabilities=push_only())
    push(bare_client, payload)
    open_doc(bare_client, URI, LF_SESSION)
    diags = await wait_diagnostics(bare_client, URI, version=1)
    assert len(diags) == 3 and severities(diags) == {ERROR}


async def test_settings_pushed_after_open_apply_now_and_to_later_documents(
    bare_client: LanguageClient,
) -> None:
    await start(bare_client, capabilities=push_only())
    open_doc(bare_client, URI, LF_SESSION)
    assert severities(await wait_diagnostics(bare_client, URI, version=1)) == {HINT}
    push(bare_client, {"turnlens": {"debounceMs": 0, "diagnostics": {"severity": "error"}}})
    assert len(await latest(bare_client, URI, {ERROR})) == 3
    open_doc(bare_client, LATER, "thanks!\n")
    assert severities(await wait_diagnostics(bare_client, LATER, version=1)) == {ERROR}


async def test_a_later_push_replaces_the_earlier_one(bare_client: LanguageClient) -> None:
    await start(bare_client, capabilities=push_only())
    push(bare_client, {"turnlens": {"debounceMs": 0, "diagnostics": {"severity": "error"}}})
    push(bare_client, {"turnlens": {"debounceMs": 0, "diagnostics": {"severity": "warning"}}})
    open_doc(bare_client, URI, LF_SESSION)
    diags = await wait_diagnostics(bare_client, URI, version=1)
    assert severities(diags) == {types.DiagnosticSeverity.Warning}


async def test_null_settings_mean_pull_again(bare_client: LanguageClient) -> None:
    await start(bare_client)  # this client answers workspace/configuration
    open_doc(bare_client, URI, LF_SESSION)
    assert severities(await wait_diagnostics(bare_client, URI, version=1)) == {HINT}
    bare_client.set_configuration({"debounceMs": 0, "diagnostics": {"severity": "error"}}, section="turnlens")
    push(bare_client, None)
    assert len(await latest(bare_client, URI, {ERROR})) == 3
    open_doc(bare_client, LATER, "thanks!\n")
    assert severities(await wait_diagnostics(bare_client, LATER, version=1)) == {ERROR}


async def test_a_pulled_answer_beats_an_earlier_push(bare_client: LanguageClient) -> None:
    await start(bare_client, {"diagnostics": {"severity": "warning"}})
    push(bare_client, {"turnlens": {"diagnostics": {"severity": "error"}}})
    open_doc(bare_client, URI, LF_SESSION)
    diags = await wait_diagnostics(bare_client, URI, version=1)
    assert severities(diags) == {types.DiagnosticSeverity.Warning}


async def test_pushed_settings_cannot_choose_a_model_back_end(bare_client: LanguageClient) -> None:
    await start(bare_client, capabilities=push_only())
    push(bare_client, {"turnlens": {"debounceMs": 0, "router": {"backend": "openai", "model": "x"}}})
    open_doc(bare_client, URI, LF_SESSION)
    assert len(await wait_diagnostics(bare_client, URI, version=1)) == 3
    await wait_for(lambda: any("user settings only" in m.message for m in bare_client.log_messages))


# -- command results where the user can see them ---------------------------------------------


async def run(client: LanguageClient, command: str, *args: object) -> Any:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command, arguments=list(args))
    )


async def test_classify_result_is_shown_as_a_message(client: LanguageClient) -> None:
    open_doc(client, URI, LF_SESSION)
    diags = await wait_diagnostics(client, URI, version=1)
    result = await run(client, "turnlens.classify", {"uri": URI, "range": json_range(diags[1].range)})
    assert result["class"] == (diags[1].data or {})["class"]  # the JSON is still the answer
    message = await wait_for(lambda: next(iter(client.messages), None))
    assert message.type == types.MessageType.Info
    assert "\n" not in message.message  # one line: some editors show only a message's last line
    line = diags[1].range.start.line + 1
    assert message.message.startswith(f"TurnLens line {line}: {result['class']} ≤{result['max_ratio']}:1")
    assert len(message.message) <= 60
    # the details go to the log: the summary, the scores, the rules with document line numbers
    details = await wait_for(
        lambda: [m for m in client.log_messages if m.message.startswith("TurnLens line")]
    )
    lines = details[-1].message.splitlines()
    assert lines[0].startswith(message.message + " (")
    assert lines[0].endswith(f" · {result['words']} words · {result['verdict']}")
    assert lines[1].startswith("scores: ") and f"{result['class']} " in lines[1]
    fired = [s for s in result["signals"] if s["class"] == result["class"]]
    assert lines[2] == "rules: " + ", ".join(
        f"{s['rule']} (+{s['weight']}, line {diags[1].range.start.line + s['line']})" for s in fired
    )


async def test_plan_result_is_shown_as_a_message(client: LanguageClient) -> None:
    open_doc(client, URI, LF_SESSION)
    await wait_diagnostics(client, URI, version=1)
    result = await run(client, "turnlens.plan", {"uri": URI, "budget": 100})
    message = await wait_for(lambda: next(iter(client.messages), None))
    assert message.message == f"TurnLens plan: {result['message']}"
    details = await wait_for(
        lambda: [
            m
            for m in client.log_messages
            if m.message == message.message or m.message.startswith(message.message + "\n")
        ]
    )
    lines = details[-1].message.splitlines()
    assert len(lines) == 1 + result["n_turns"]
    assert [line.split(":")[0] for line in lines[1:]] == [f"turn {t['turn']}" for t in result["plan"]]


async def test_json_only_per_call(client: LanguageClient) -> None:
    result = await run(client, "turnlens.classify", {"text": "thanks!", "format": "json"})
    assert isinstance(result, dict) and "class" in result
    await run(client, "turnlens.reload")  # a round trip: a message sent before it has arrived
    assert client.messages == []


async def test_json_only_for_the_session(bare_client: LanguageClient) -> None:
    await start(bare_client, initialization_options={"commandResults": "json"})
    open_doc(bare_client, URI, LF_SESSION)
    await wait_diagnostics(bare_client, URI, version=1)
    assert (await run(bare_client, "turnlens.plan", {"uri": URI}))["n_turns"] == 3
    assert "class" in await run(bare_client, "turnlens.classify", {"uri": URI})
    await run(bare_client, "turnlens.reload")
    assert bare_client.messages == []


def json_range(r: types.Range) -> dict[str, Any]:
    return {
        "start": {"line": r.start.line, "character": r.start.character},
        "end": {"line": r.end.line, "character": r.end.character},
    }


# -- diagnostic codes -----------------------------------------------------------------------


async def test_diagnostic_code_is_short_and_links_to_the_class_docs(client: LanguageClient) -> None:
    open_doc(client, URI, LF_SESSION)
    diags = await wait_diagnostics(client, URI, version=1)
    from turnlens.lsp.features.diagnostics import CLASS_CODES

    for d in diags:
        cls = (d.data or {})["class"]
        assert d.code == CLASS_CODES[cls] and d.code != cls
        assert d.message.startswith(cls)
        assert d.code_description is not None
        assert d.code_description.href.startswith("file://")
        assert d.code_description.href.split("#")[0].endswith("/docs/classes.md")
    assert len({d.code for d in diags}) == len({(d.data or {})["class"] for d in diags})
    page = (Path(__file__).resolve().parents[2] / "docs" / "classes.md").read_text(encoding="utf-8")
    for cls, code in CLASS_CODES.items():
        assert f"`{code}` {cls}" in page


# -- logging and `turnlens serve` itself -----------------------------------------------------


def _frame(payload: dict[str, Any]) -> bytes:
    body = json.dumps(payload).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode() + body


def _session(*extra: str) -> tuple[str, list[dict[str, Any]]]:
    """Run a whole LSP session against `turnlens serve`; return its stderr and its messages."""
    frames = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": URI, "languageId": "markdown", "version": 1, "text": "hi\n"}},
        },
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    done = subprocess.run(
        [*SERVER, *extra],
        input=b"".join(_frame(f) for f in frames),
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    messages = []
    out = done.stdout
    while out:
        head, _, rest = out.partition(b"\r\n\r\n")
        length = int(head.split(b"Content-Length:")[1].split(b"\r\n")[0])
        messages.append(json.loads(rest[:length]))
        out = rest[length:]
    return done.stderr.decode(), messages


def test_stderr_is_quiet_by_default_and_info_goes_to_the_client() -> None:
    stderr, messages = _session()
    assert stderr == ""
    logs = [m["params"] for m in messages if m.get("method") == "window/logMessage"]
    assert any("starting" in p["message"] and p["type"] == types.MessageType.Info for p in logs)


def test_log_level_flag_turns_stderr_up() -> None:
    stderr, _ = _session("--log-level", "info")
    assert "INFO turnlens: TurnLens" in stderr


def test_serve_on_a_terminal_says_what_it_is() -> None:
    main, sub = pty.openpty()
    proc = subprocess.Popen([*SERVER], stdin=sub, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(sub)
    try:
        first = proc.stderr.readline().decode() if proc.stderr else ""
    finally:
        os.write(main, b"\x04")
        proc.communicate(timeout=10)
        os.close(main)
    assert "Language Server Protocol" in first and "docs/editors" in first


async def test_tcp_port_zero_prints_the_bound_port() -> None:
    proc = await asyncio.create_subprocess_exec(
        *SERVER, "--tcp", "127.0.0.1:0", stderr=asyncio.subprocess.PIPE, stdin=asyncio.subprocess.DEVNULL
    )
    try:
        assert proc.stderr is not None
        line = (await asyncio.wait_for(proc.stderr.readline(), 20)).decode().strip()
        assert line.startswith("turnlens serve: listening on 127.0.0.1:")
        port = int(line.rsplit(":", 1)[1])
        assert port > 0
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(
            _frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
        )
        await writer.drain()
        answer: dict[str, Any] = {}
        while answer.get("id") != 1:  # log messages may come first
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 20)
            answer = json.loads(await reader.readexactly(int(head.split(b":")[1].split(b"\r\n")[0])))
        assert answer["result"]["serverInfo"]["name"] == "turnlens"
        writer.close()
    finally:
        proc.kill()
        await proc.wait()


# -- a lens request that arrives while the document's settings are being pulled ---------------


async def test_code_lenses_asked_right_after_open_are_not_empty(client: LanguageClient) -> None:
    # Neovim asks for lenses as soon as it attaches a buffer, before the server has its settings;
    # an empty answer would stay until the next edit.
    open_doc(client, URI, LF_SESSION)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=URI))
    )
    turns = {d.range.start.line for d in await wait_diagnostics(client, URI, version=1)}
    assert lenses and {lens.range.start.line for lens in lenses} == turns
