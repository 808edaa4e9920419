"""A minimal LSP client over raw stdio, for tests that need what pytest-lsp hides.

It starts `python -m turnlens serve` with asyncio's subprocess API, frames and
unframes `Content-Length` messages itself (so a test can also write bytes that
are not valid JSON-RPC at all), answers the server's own requests
(`workspace/configuration` from `config`, anything else with null), records
every message and every byte of stderr, and can wait for the process to exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

SERVER = [sys.executable, "-m", "turnlens", "serve"]

# `turnlens serve` under a Python audit hook that reports, on stderr, every attempt to reach
# the network and every file opened for writing (or removed, renamed, created as a folder).
AUDIT_HOOK = r"""
import os, runpy, sys
NET = {"socket.connect", "socket.bind", "socket.getaddrinfo", "socket.sendto", "socket.sendmsg",
       "http.client.connect", "urllib.Request"}
FILES = {"os.remove", "os.rename", "os.mkdir", "os.rmdir", "os.truncate", "os.symlink", "os.link",
         "os.chmod", "os.utime", "shutil.rmtree", "shutil.copyfile", "shutil.move", "tempfile.mkstemp",
         "tempfile.mkdtemp"}
WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
def hook(event, args):
    if event in NET or event in FILES:
        sys.stderr.write(f"AUDIT {event} {args!r}\n")
    elif event == "open" and len(args) == 3:
        path, mode, flags = args
        if (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            mode is None and isinstance(flags, int) and flags & WRITE
        ):
            sys.stderr.write(f"AUDIT open {args!r}\n")
sys.addaudithook(hook)
sys.argv = ["turnlens", "serve", *sys.argv[1:]]
runpy.run_module("turnlens", run_name="__main__", alter_sys=True)
"""


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def encode(message: Mapping[str, Any]) -> bytes:
    return frame(json.dumps(message).encode("utf-8"))


def server_env(extra: Mapping[str, str] | None = None, *, home: str | None = None) -> dict[str, str]:
    """The test's environment (so the server imports the same `turnlens`), plus extras."""
    env = dict(os.environ)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if home is not None:
        env["HOME"] = home
        env["XDG_CACHE_HOME"] = str(Path(home) / ".cache")
        env["XDG_CONFIG_HOME"] = str(Path(home) / ".config")
    env.update(extra or {})
    return env


class RawServer:
    """One `turnlens serve` process and the messages it sent."""

    def __init__(self, proc: asyncio.subprocess.Process, config: Any) -> None:
        self.proc = proc
        self.config = config
        self.messages: list[dict[str, Any]] = []
        self.arrived: list[float] = []  # time.monotonic() of each message in `messages`
        self.stderr = bytearray()
        self.answered_requests: list[dict[str, Any]] = []
        self._ids = itertools.count(1)
        self.sent_at: dict[int, float] = {}
        self.received_at: dict[int | str, float] = {}
        self._waiters: dict[int | str, asyncio.Future[dict[str, Any]]] = {}
        self._tasks = [
            asyncio.ensure_future(self._read_stdout()),
            asyncio.ensure_future(self._read_stderr()),
        ]
        self.stdout_closed_at: float | None = None

    @classmethod
    async def spawn(
        cls,
        *args: str,
        config: Any = None,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        audit: bool = False,
    ) -> RawServer:
        command = [sys.executable, "-c", AUDIT_HOOK] if audit else SERVER
        proc = await asyncio.create_subprocess_exec(
            *command,
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=dict(env) if env is not None else server_env(),
        )
        return cls(proc, {"debounceMs": 0} if config is None else config)

    # -- reading ----------------------------------------------------------------------
    async def _read_stdout(self) -> None:
        out = self.proc.stdout
        assert out is not None
        try:
            while True:
                length = None
                while True:
                    line = await out.readline()
                    if not line:
                        return
                    if line in (b"\r\n", b"\n"):
                        break
                    name, _, value = line.decode("ascii").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                if length is None:
                    continue
                body = await out.readexactly(length)
                message = json.loads(body)
                self.messages.append(message)
                self.arrived.append(time.monotonic())
                if "method" in message and "id" in message:
                    self._answer(message)
                elif "id" in message and "method" not in message:
                    self.received_at[message["id"]] = time.monotonic()
                    waiter = self._waiters.pop(message["id"], None)
                    if waiter is not None and not waiter.done():
                        waiter.set_result(message)
        except (asyncio.IncompleteReadError, ConnectionError):
            return
        finally:
            self.stdout_closed_at = time.monotonic()

    async def _read_stderr(self) -> None:
        err = self.proc.stderr
        assert err is not None
        while chunk := await err.read(65536):
            self.stderr.extend(chunk)

    def _answer(self, request: dict[str, Any]) -> None:
        self.answered_requests.append(request)
        result: Any = None
        if request["method"] == "workspace/configuration":
            items = request.get("params", {}).get("items", [])
            result = [self.config if item.get("section") == "turnlens" else None for item in items]
        self.write(encode({"jsonrpc": "2.0", "id": request["id"], "result": result}))

    # -- writing ----------------------------------------------------------------------
    def write(self, data: bytes) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        if not stdin.is_closing():
            stdin.write(data)

    def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.write(encode(message))

    def send_request(self, method: str, params: Any = None) -> int:
        msg_id = next(self._ids)
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        self._waiters[msg_id] = asyncio.get_running_loop().create_future()
        self.sent_at[msg_id] = time.monotonic()
        self.write(encode(message))
        return msg_id

    def latency(self, msg_id: int) -> float:
        """Seconds from sending a request to reading its response."""
        return self.received_at[msg_id] - self.sent_at[msg_id]

    def response(self, msg_id: int | str) -> dict[str, Any] | None:
        for m in self.messages:
            if m.get("id") == msg_id and "method" not in m:
                return m
        return None

    async def request(self, method: str, params: Any = None, timeout: float = 10.0) -> dict[str, Any]:
        """Send a request; its whole response message (with `result` or `error`)."""
        msg_id = self.send_request(method, params)
        return await self.wait_response(msg_id, timeout)

    async def wait_response(self, msg_id: int | str, timeout: float = 10.0) -> dict[str, Any]:
        found = self.response(msg_id)
        if found is not None:
            return found
        waiter = self._waiters.get(msg_id)
        if waiter is None:
            waiter = self._waiters[msg_id] = asyncio.get_running_loop().create_future()
        try:
            return await asyncio.wait_for(asyncio.shield(waiter), timeout)
        except TimeoutError:
            if self.proc.returncode is not None:
                raise AssertionError(
                    f"the server exited ({self.proc.returncode}):\n{self.stderr_text()[-4000:]}"
                ) from None
            raise TimeoutError(f"no response to request {msg_id} within {timeout} s") from None

    async def wait_for(self, predicate: Callable[[], Any], timeout: float = 10.0) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"condition not met within {timeout} s")
            if self.proc.returncode is not None and self.stdout_closed_at is not None:
                value = predicate()
                if value:
                    return value
                raise AssertionError(f"the server exited ({self.proc.returncode}):\n{self.stderr_text()}")
            await asyncio.sleep(0.005)

    def notifications(self, method: str) -> list[Any]:
        return [m.get("params") for m in self.messages if m.get("method") == method and "id" not in m]

    def timed_notifications(self, method: str) -> list[tuple[float, Any]]:
        """(arrival time, params) of each notification of `method`."""
        return [
            (t, m.get("params"))
            for t, m in zip(self.arrived, self.messages, strict=True)
            if m.get("method") == method and "id" not in m
        ]

    def stderr_text(self) -> str:
        return self.stderr.decode("utf-8", "replace")

    def audit_events(self, prefix: str = "") -> list[str]:
        """What the audit hook reported (servers spawned with `audit=True`)."""
        return [
            line.removeprefix("AUDIT ")
            for line in self.stderr_text().splitlines()
            if line.startswith("AUDIT " + prefix)
        ]

    # -- session ----------------------------------------------------------------------
    async def initialize(
        self,
        init_options: Any = None,
        *,
        capabilities: Mapping[str, Any] | None = None,
        folders: list[str] | None = None,
    ) -> dict[str, Any]:
        caps: dict[str, Any] = (
            {"workspace": {"configuration": True, "workspaceFolders": True}}
            if capabilities is None
            else dict(capabilities)
        )
        params: dict[str, Any] = {
            "processId": os.getpid(),
            "rootUri": None,
            "capabilities": caps,
            "initializationOptions": init_options,
            "workspaceFolders": [{"uri": Path(f).as_uri(), "name": Path(f).name} for f in folders or []]
            or None,
        }
        answer = await self.request("initialize", params)
        assert "result" in answer, answer
        self.notify("initialized", {})
        return answer

    def open(self, uri: str, text: str, version: int = 1, language: str = "markdown") -> None:
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": language, "version": version, "text": text}},
        )

    def diagnostics(self, uri: str, version: int | None = None) -> list[dict[str, Any]] | None:
        """The last published diagnostics for `uri` (at `version`, when given)."""
        found = None
        for p in self.notifications("textDocument/publishDiagnostics"):
            if p["uri"] == uri and (version is None or p.get("version") == version):
                found = p["diagnostics"]
        return found

    async def wait_diagnostics(
        self, uri: str, version: int | None = None, timeout: float = 10.0
    ) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = (
            await self.wait_for(
                lambda: (d,) if (d := self.diagnostics(uri, version)) is not None else None, timeout
            )
        )[0]
        return found

    async def shutdown_and_exit(self, timeout: float = 5.0) -> int:
        await self.request("shutdown", None, timeout)
        self.notify("exit")
        return await self.wait_exit(timeout)

    async def wait_exit(self, timeout: float = 5.0) -> int:
        code = await asyncio.wait_for(self.proc.wait(), timeout)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.gather(*self._tasks, return_exceptions=True), 2.0)
        return code

    async def close(self) -> None:
        """Kill the process if a test left it running, and stop reading."""
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.proc.wait(), 5.0)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.proc.stdin is not None and not self.proc.stdin.is_closing():
            self.proc.stdin.close()


def rss_kib(pid: int) -> int:
    """Resident set size of a process, from /proc/<pid>/status (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) a process has used so far, from /proc/<pid>/stat (Linux).

    Tests bound this, not wall time, where a time bound is the behaviour: a busy machine
    stretches wall time, not the CPU a piece of work needs."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
