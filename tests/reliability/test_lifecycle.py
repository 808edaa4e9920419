"""The client vanishes: when its stdin closes or the client process is killed, the
server exits within a second. `exit` after `shutdown` exits 0; without it, 1
(the LSP rule, so an editor can tell a crash from a clean stop)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import textwrap
import time
from pathlib import Path

import pytest

from .conftest import Spawn, report
from .rawlsp import RawServer, server_env

URI = "file:///work/lifecycle.md"
# An edit waits for this debounce (10 minutes) when the server is told to go: exiting must not
# wait for it. The waits below (30 s) only keep a broken server from hanging the suite; the
# figures are reported, not asserted (a loaded machine is slow, not wrong).
LONG_DEBOUNCE_MS = 600_000
EXIT_GUARD_S = 30


async def _busy(server: RawServer) -> None:
    """An initialised server with an open document and an edit still waiting for its debounce."""
    await server.initialize()
    server.open(URI, "APPROVED — ship it\n---TURN---\nthanks!\n")
    await server.wait_diagnostics(URI, 1)
    server.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": "hello again"}]},
    )


async def test_server_exits_when_stdin_closes(spawn: Spawn) -> None:
    server = await spawn(config={"debounceMs": LONG_DEBOUNCE_MS})
    await _busy(server)
    await server.request(
        "textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 0, "character": 0}}
    )
    assert server.proc.stdin is not None
    started = time.monotonic()
    server.proc.stdin.close()
    await asyncio.wait_for(server.proc.wait(), EXIT_GUARD_S)  # not the 10-minute debounce
    elapsed = time.monotonic() - started
    report(f"exit after stdin closed: {elapsed * 1000:.0f} ms (code {server.proc.returncode})")


WRAPPER = textwrap.dedent(
    """
    import json, subprocess, sys, time
    server = subprocess.Popen(
        [sys.executable, "-m", "turnlens", "serve"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": {"processId": None, "rootUri": None, "capabilities": {}}}).encode()
    server.stdin.write(b"Content-Length: %d\\r\\n\\r\\n" % len(body) + body)
    server.stdin.flush()
    length = 0
    while (line := server.stdout.readline()) not in (b"\\r\\n", b""):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    server.stdout.read(length)
    print(server.pid, flush=True)
    time.sleep(60)
    """
)


def _gone(pid: int) -> bool:
    """Exited: no such process, or a zombie waiting for its new parent to reap it."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
async def test_server_exits_when_the_client_is_killed() -> None:
    client = await asyncio.create_subprocess_exec(
        sys.executable, "-c", WRAPPER, stdout=asyncio.subprocess.PIPE, env=server_env()
    )
    assert client.stdout is not None
    server_pid = int(await asyncio.wait_for(client.stdout.readline(), 30))
    try:
        assert not _gone(server_pid)
        started = time.monotonic()
        client.send_signal(signal.SIGKILL)
        await client.wait()
        while not _gone(server_pid) and time.monotonic() - started < EXIT_GUARD_S:
            await asyncio.sleep(0.005)
        elapsed = time.monotonic() - started
        report(f"exit after the client was killed: {elapsed * 1000:.0f} ms")
        assert _gone(server_pid), "the server outlived its client"
    finally:
        if not _gone(server_pid):
            os.kill(server_pid, signal.SIGKILL)


async def test_exit_after_shutdown_exits_0(spawn: Spawn) -> None:
    server = await spawn(config={"debounceMs": LONG_DEBOUNCE_MS})
    await _busy(server)
    await server.request("shutdown")
    # after shutdown, requests are not served any more, but exit is
    started = time.monotonic()
    server.notify("exit")
    code = await server.wait_exit(EXIT_GUARD_S)  # not the 10-minute debounce
    elapsed = time.monotonic() - started
    report(f"exit after shutdown: {elapsed * 1000:.0f} ms, code {code}")
    assert code == 0


# Regression test for a bug this suite found (since fixed): pygls swallows the SystemExit(1) of `exit`
# without `shutdown` and run_server() returns 0, so `turnlens serve` always exits 0.
async def test_exit_without_shutdown_exits_1(spawn: Spawn) -> None:
    server = await spawn(config={"debounceMs": LONG_DEBOUNCE_MS})
    await _busy(server)
    started = time.monotonic()
    server.notify("exit")
    code = await server.wait_exit(EXIT_GUARD_S)  # not the 10-minute debounce
    elapsed = time.monotonic() - started
    report(f"exit without shutdown: {elapsed * 1000:.0f} ms, code {code}")
    assert code == 1
