"""The `initialize` answer given before pygls is imported (lsp/handshake.py), end to end.

A wrapper holds the import of `lsprotocol` until the test opens a gate: the answer arriving
while the gate is shut shows it came from the early path, and what the client sends meanwhile
waits in the pipe and must be answered, in order, once the server is built. First messages the
early path does not take get the answers the server gives without it (pygls run in-process on
the same messages: tests/lsp/test_initialize_cache.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.lsp.test_initialize_cache import pygls_answer, pygls_session
from turnlens.lsp import handshake

from .rawlsp import RawServer, encode, frame, server_env

URI = "file:///work/handshake.md"
TEXT = (
    "hello there, how are you\n---TURN---\nAPPROVED — ship it 🚀\n---TURN---\nImplementing SPEC-120 AC-03\n"
)

# `turnlens serve`, with the import of lsprotocol held until the file named by argv[1] exists
GATED = r"""
import os, runpy, sys, time
gate = sys.argv.pop(1)
class Gate:
    def find_spec(self, name, path=None, target=None):
        if name == "lsprotocol":
            deadline = time.monotonic() + 60
            while not os.path.exists(gate) and time.monotonic() < deadline:
                time.sleep(0.005)
            sys.meta_path.remove(self)
        return None
sys.meta_path.insert(0, Gate())
sys.argv = ["turnlens", "serve", *sys.argv[1:]]
runpy.run_module("turnlens", run_name="__main__", alter_sys=True)
"""

INIT_PARAMS: dict[str, Any] = {
    "processId": None,
    "rootUri": None,
    "capabilities": {
        "workspace": {"configuration": True},
        "general": {"positionEncodings": ["utf-8", "utf-16"]},
        "textDocument": {"synchronization": {"willSave": True, "didSave": True}},
    },
    "initializationOptions": {"debounceMs": 0},
}

Gated = Callable[[], Awaitable[tuple[RawServer, Path]]]


@pytest.fixture
async def gated(tmp_path: Path) -> AsyncIterator[Gated]:
    servers: list[RawServer] = []

    async def make() -> tuple[RawServer, Path]:
        gate = tmp_path / f"gate-{len(servers)}"
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            GATED,
            str(gate),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=server_env(),
        )
        server = RawServer(proc, {"debounceMs": 0})
        servers.append(server)
        return server, gate

    yield make
    for server in servers:
        await server.close()


def _initialize(msg_id: Any = 1, params: Any = None) -> bytes:
    return encode({"jsonrpc": "2.0", "id": msg_id, "method": "initialize", "params": params or INIT_PARAMS})


def _responses(server: RawServer, msg_id: Any) -> list[dict[str, Any]]:
    return [m for m in server.messages if m.get("id") == msg_id and "method" not in m]


async def test_initialize_is_answered_before_the_imports_then_the_session_works(gated: Gated) -> None:
    server, gate = await gated()
    server.write(_initialize("init"))
    answer = await server.wait_response("init", timeout=30)  # the gate is shut: no lsprotocol yet
    assert answer == pygls_answer(INIT_PARAMS, "init")
    assert answer["result"]["capabilities"]["positionEncoding"] == "utf-8"
    # sent while the server is still being built: they wait in the pipe
    server.notify("initialized", {})
    server.open(URI, TEXT)
    gate.touch()
    diagnostics = await server.wait_diagnostics(URI, 1, timeout=60)
    assert len(diagnostics) == 3
    hover = await server.request(
        "textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 2, "character": 3}}, 30
    )
    assert "decision" in hover["result"]["contents"]["value"]
    logs = [p["message"] for p in server.notifications("window/logMessage")]
    assert any("position encoding: utf-8" in m for m in logs), logs  # pygls negotiated the same
    assert await server.shutdown_and_exit(timeout=30) == 0
    assert len(_responses(server, "init")) == 1  # the server's own answer was not sent again
    assert "answered at start" not in server.stderr_text()


async def test_everything_sent_at_once_is_answered_in_order(gated: Gated) -> None:
    server, gate = await gated()
    hover = {"textDocument": {"uri": URI}, "position": {"line": 4, "character": 2}}
    server.write(
        _initialize("first")
        + encode({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        + encode(
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didOpen",
                "params": {
                    "textDocument": {"uri": URI, "languageId": "markdown", "version": 1, "text": TEXT}
                },
            }
        )
        + b"".join(
            encode({"jsonrpc": "2.0", "id": i, "method": "textDocument/hover", "params": hover})
            for i in range(2, 7)
        )
        + encode({"jsonrpc": "2.0", "id": 7, "method": "shutdown"})
        + encode({"jsonrpc": "2.0", "method": "exit"})
    )
    await server.wait_response("first", timeout=30)
    gate.touch()
    assert await server.wait_exit(timeout=60) == 0
    order = [m["id"] for m in server.messages if "id" in m and "method" not in m]
    assert order == ["first", 2, 3, 4, 5, 6, 7]
    for i in range(2, 7):  # answered (null or a hover: the document's settings may be pending)
        assert "result" in _responses(server, i)[0]


async def test_shutdown_and_exit_right_after_the_answer(gated: Gated) -> None:
    server, gate = await gated()
    server.write(_initialize("init"))
    await server.wait_response("init", timeout=30)
    shutdown = server.send_request("shutdown")
    server.notify("exit")
    gate.touch()
    assert (await server.wait_response(shutdown, timeout=60)) == {
        "jsonrpc": "2.0",
        "id": shutdown,
        "result": None,
    }
    assert await server.wait_exit(timeout=30) == 0
    assert len(_responses(server, "init")) == 1


async def test_the_client_leaving_before_the_server_is_built(gated: Gated) -> None:
    server, gate = await gated()
    server.write(_initialize("init"))
    await server.wait_response("init", timeout=30)
    assert server.proc.stdin is not None
    server.proc.stdin.close()
    gate.touch()
    assert await server.wait_exit(timeout=60) == 1  # LSP: exit without shutdown


FIRSTS: dict[str, list[bytes]] = {
    "invalid JSON": [frame(b"{not json")],
    "unreadable params": [_initialize(1, {"capabilities": {}, "processId": "seven"})],
    "params of a lenient type": [_initialize(1, {"capabilities": {"textDocument": {"hover": []}}})],
    "no params": [encode({"jsonrpc": "2.0", "id": 1, "method": "initialize"})],
    "not initialize": [encode({"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": {}})],
    "a notification": [encode({"jsonrpc": "2.0", "method": "initialized", "params": {}})],
    "jsonrpc 1.0": [encode({"jsonrpc": "1.0", "id": 1, "method": "initialize", "params": INIT_PARAMS})],
    "an unknown header first": [b"X-Junk: yes\r\n" + _initialize()],
    "an empty body": [frame(b"")],
}


@pytest.mark.parametrize("name", sorted(FIRSTS))
async def test_first_messages_the_early_path_leaves_get_todays_answers(spawn: Any, name: str) -> None:
    """Each is followed by an initialize the early path would take and a hover: every response
    is what pygls gives for the same messages in-process."""
    then = [
        json.loads(_initialize(2)[_initialize(2).index(b"\r\n\r\n") + 4 :]),
        {"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover", "params": {"textDocument": {"uri": URI}}},
    ]
    server = await spawn()
    server.write(b"".join(FIRSTS[name]) + b"".join(encode(m) for m in then))
    await server.wait_response(3, timeout=60)
    seen = {json.dumps(m, sort_keys=True) for m in server.messages if "id" in m and "method" not in m}
    firsts = []
    for data in FIRSTS[name]:
        body = data.partition(b"\r\n\r\n")[2]
        with contextlib.suppress(ValueError):
            firsts.append(json.loads(body))
    expected = {
        json.dumps(m, sort_keys=True)
        for m in pygls_session([*firsts, *then])
        if "id" in m and "method" not in m
    }
    assert seen == expected
    assert "answered at start" not in server.stderr_text()


def test_a_socket_for_stdin_takes_the_early_path(tmp_path: Path) -> None:
    """Editors built on libuv (VS Code, Neovim) give the server a socket pair, not a pipe."""
    gate = tmp_path / "gate"
    ours, theirs = socket.socketpair()
    with ours, theirs:
        proc = subprocess.Popen(
            [sys.executable, "-c", GATED, str(gate)],
            stdin=theirs.fileno(),
            stdout=theirs.fileno(),
            stderr=subprocess.PIPE,
            env=server_env(),
        )
        theirs.close()
        ours.settimeout(60)
        try:
            ours.sendall(_initialize())
            received = ours.recv(65536)  # the gate is shut: the early path answered
            gate.touch()
            ours.sendall(encode({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
            ours.sendall(encode({"jsonrpc": "2.0", "method": "exit"}))
            while chunk := ours.recv(65536):
                received += chunk
            assert proc.wait(60) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
            assert proc.stderr is not None
            stderr = proc.stderr.read().decode()
            proc.stderr.close()
    messages = []
    while received:
        head, _, rest = received.partition(b"\r\n\r\n")
        length = int(head.split(b"\r\n")[0].split(b":")[1])
        messages.append(json.loads(rest[:length]))
        received = rest[length:]
    responses = [m for m in messages if "id" in m and "method" not in m]
    assert [m["id"] for m in responses] == [1, 2]
    assert responses[0] == pygls_answer(INIT_PARAMS, 1)
    assert "answered at start" not in stderr


def _read_first_of(chunks: list[bytes], close: bool = True) -> tuple[bytes, bytes | None]:
    """handshake.read_first over a pipe the chunks are written to one by one, from a thread."""
    read_end, write_end = os.pipe()

    def writer() -> None:
        for chunk in chunks:
            os.write(write_end, chunk)
            time.sleep(0.001)  # separate reads, not a timing assertion
        if close:
            os.close(write_end)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        return handshake.read_first(read_end)
    finally:
        thread.join()
        os.close(read_end)
        if not close:
            os.close(write_end)


def test_a_first_message_in_pieces_is_read_whole_and_what_follows_is_kept() -> None:
    data = _initialize("a") + encode({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    first_len = len(_initialize("a"))
    pieces = [data[:5], data[5:20], data[20 : first_len - 3], data[first_len - 3 :]]
    consumed, body = _read_first_of(pieces)
    assert body == _initialize("a").partition(b"\r\n\r\n")[2]
    assert data.startswith(consumed) and len(consumed) >= first_len


@pytest.mark.parametrize(
    "data",
    [
        _initialize()[:-10],  # the client left mid-body
        b"Content-Length: 10\r\n",  # ... or mid-headers
        b"X" * (handshake.MAX_HEADER_BYTES + 100),  # no end of headers
        b"content-length: 2\r\n\r\n{}",  # not as pygls spells it
        b"Content-Length: %d\r\n\r\n" % (handshake.MAX_BODY_BYTES + 1),  # too long to take early
        b"Content-Length: 0\r\n\r\n",
        b"Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
        b"Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-16\r\n\r\n{}",
    ],
)
def test_first_bytes_left_to_the_server_are_all_handed_on(data: bytes) -> None:
    consumed, body = _read_first_of([data])
    assert body is None
    assert consumed == data


def test_without_its_data_the_early_path_leaves_the_answer_to_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken() -> dict[str, Any]:
        raise OSError("initialize.json is missing")

    monkeypatch.setattr(handshake, "data", broken)
    consumed, _ = _read_first_of([_initialize()])
    read_end, write_end = os.pipe()
    out_read, out_write = os.pipe()
    try:
        os.write(write_end, _initialize())
        shaken = handshake.answer_initialize(read_end, out_write)
        assert shaken.answer is None and shaken.consumed == consumed == _initialize()
        os.set_blocking(out_read, False)
        with pytest.raises(BlockingIOError):
            os.read(out_read, 1)  # nothing was written
    finally:
        for fd in (read_end, write_end, out_read, out_write):
            os.close(fd)
