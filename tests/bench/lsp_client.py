"""A minimal LSP client over a subprocess's pipes, for timing `turnlens serve`.

Raw JSON-RPC: a reader thread stamps every message with `time.perf_counter()` as soon as
its body has been read (before it is parsed), so a latency is the server's work plus the
pipe, not this client's JSON decoding. Server requests are answered at once:
`workspace/configuration` with the given settings, anything else with `null`.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

SERVER = [sys.executable, "-m", "turnlens", "serve", "--log-level", "WARNING"]

Message = dict[str, Any]
# how TurnLens writes a publishDiagnostics; anything else is decoded in full
_PUBLISH_HEAD = re.compile(
    rb'\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"method"\s*:\s*"textDocument/publishDiagnostics"\s*,'
    rb'\s*"params"\s*:\s*\{\s*"uri"\s*:\s*("(?:[^"\\]|\\.)*")\s*,\s*"version"\s*:\s*(\d+|null)\s*,'
    rb'\s*"diagnostics"\s*:\s*\['
)


class LspClient:
    def __init__(self, settings: dict[str, Any], command: list[str] | None = None) -> None:
        self.settings = settings
        self.t_spawn = time.perf_counter()
        self.proc = subprocess.Popen(
            command or SERVER,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            bufsize=0,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in = self.proc.stdin
        self._out = io.BufferedReader(cast(io.RawIOBase, self.proc.stdout), buffer_size=1 << 16)
        self._lock = threading.Lock()
        self._cond = threading.Condition()
        self._next_id = 0
        self._responses: dict[int, tuple[float, Message]] = {}
        # uri -> list of (arrival time, version, number of diagnostics, how many provisional)
        self.published: dict[str, list[tuple[float, int | None, int, int]]] = {}
        # uri -> (arrival time, version) of each publish with diagnostics, none provisional
        # (kept whole: `wait_published` forgets older publishes as it goes)
        self.finals: dict[str, list[tuple[float, int | None]]] = {}
        self.closed = False
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()

    # -- wire ---------------------------------------------------------------------------------
    def _send(self, message: Message) -> float:
        body = json.dumps(message, ensure_ascii=False).encode("utf-8")
        data = b"Content-Length: %d\r\n\r\n" % len(body) + body
        with self._lock:
            t = time.perf_counter()
            self._in.write(data)
            self._in.flush()
        return t

    def _read_loop(self) -> None:
        out = self._out
        try:
            while True:
                length = -1
                while True:
                    line = out.readline()
                    if not line:
                        raise EOFError
                    line = line.strip()
                    if not line:
                        break
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                body = out.read(length)
                if len(body) < length:
                    raise EOFError
                arrived = time.perf_counter()
                if not self._publish_fast(arrived, body):
                    self._dispatch(arrived, json.loads(body))
        except (EOFError, OSError, ValueError):
            pass
        finally:
            with self._cond:
                self.closed = True
                self._cond.notify_all()

    def _publish_fast(self, arrived: float, body: bytes) -> bool:
        """Record a publishDiagnostics without decoding it all (a 5 MB document's carries
        thousands of diagnostics, and decoding them would slow the edit loop, not the latency)."""
        m = _PUBLISH_HEAD.match(body, 0, 4096)
        if m is None:
            return False
        uri = json.loads(m.group(1))
        version = None if m.group(2) == b"null" else int(m.group(2))
        count = body.count(b'"range"')
        provisional = body.count(b'"provisional": true')
        with self._cond:
            self.published.setdefault(uri, []).append((arrived, version, count, provisional))
            if count and not provisional:
                self.finals.setdefault(uri, []).append((arrived, version))
            self._cond.notify_all()
        return True

    def _dispatch(self, arrived: float, msg: Message) -> None:
        method = msg.get("method")
        if method is not None and "id" in msg:
            self._answer(msg)
            return
        if method == "textDocument/publishDiagnostics":
            params = msg["params"]
            diagnostics = params["diagnostics"]
            provisional = sum(1 for d in diagnostics if (d.get("data") or {}).get("provisional"))
            with self._cond:
                self.published.setdefault(params["uri"], []).append(
                    (arrived, params.get("version"), len(diagnostics), provisional)
                )
                if diagnostics and not provisional:
                    self.finals.setdefault(params["uri"], []).append((arrived, params.get("version")))
                self._cond.notify_all()
            return
        if method is None and "id" in msg:
            with self._cond:
                self._responses[msg["id"]] = (arrived, msg)
                self._cond.notify_all()

    def _answer(self, msg: Message) -> None:
        result: Any = None
        if msg["method"] == "workspace/configuration":
            items = msg["params"]["items"]
            result = [self.settings if it.get("section") == "turnlens" else None for it in items]
        self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})

    def _wait(self, ready: Callable[[], Any], timeout: float) -> Any:
        deadline = time.perf_counter() + timeout
        with self._cond:
            while True:
                value = ready()
                if value is not None:
                    return value
                left = deadline - time.perf_counter()
                if self.closed:
                    raise RuntimeError("the server closed its output")
                if left <= 0:
                    raise TimeoutError("no answer from the server in time")
                self._cond.wait(left)

    # -- LSP ------------------------------------------------------------------------------------
    def request(self, method: str, params: Any, timeout: float = 60.0) -> tuple[float, float, Message]:
        """(sent at, answered at, response)."""
        self._next_id += 1
        rid = self._next_id
        sent = self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        arrived, msg = self._wait(lambda: self._responses.pop(rid, None), timeout)
        if "error" in msg:
            raise RuntimeError(f"{method}: {msg['error']}")
        return sent, arrived, msg

    def notify(self, method: str, params: Any) -> float:
        return self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def initialize(self, root: Path) -> float:
        """initialize + initialized; returns the seconds from process spawn to the answer."""
        caps = {
            "workspace": {"configuration": True, "workspaceFolders": True},
            "textDocument": {
                "synchronization": {"didSave": True, "dynamicRegistration": False},
                "publishDiagnostics": {"versionSupport": True},
            },
        }
        params = {
            "processId": os.getpid(),
            "rootUri": root.as_uri(),
            "capabilities": caps,
            "initializationOptions": self.settings,
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
        }
        _, arrived, _ = self.request("initialize", params)
        self.notify("initialized", {})
        return arrived - self.t_spawn

    def ready(self, root: Path) -> float:
        """Wait until the server answers a request (a hover on a document that is not open):
        `initialize` may be answered before the server is built (see turnlens/lsp/handshake.py),
        and a figure that starts at a later message must not count the rest of its start-up.
        Returns the seconds from process spawn to that answer."""
        params = {
            "textDocument": {"uri": (root / "not-open.md").as_uri()},
            "position": {"line": 0, "character": 0},
        }
        _, arrived, _ = self.request("textDocument/hover", params)
        return arrived - self.t_spawn

    def open(self, uri: str, text: str, version: int = 1) -> float:
        return self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "markdown", "version": version, "text": text}},
        )

    def insert(self, uri: str, version: int, line: int, character: int, text: str) -> float:
        pos = {"line": line, "character": character}
        return self.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": {"start": pos, "end": pos}, "text": text}],
            },
        )

    def wait_published(self, uri: str, version: int, timeout: float = 120.0) -> tuple[float, int]:
        """(arrival time, number of diagnostics) of the first publish of `uri` at `version`."""

        def found() -> tuple[float, int] | None:
            for arrived, v, n, _ in self.published.get(uri, ()):
                if v == version:
                    return arrived, n
            return None

        result: tuple[float, int] = self._wait(found, timeout)
        with self._cond:  # forget older publishes: keeps the scan short
            self.published[uri] = [p for p in self.published.get(uri, ()) if (p[1] or 0) > version]
        return result

    def wait_final(self, uri: str, timeout: float = 120.0) -> tuple[float, int | None]:
        """(arrival time, version) of the first publish of `uri` with diagnostics and none of
        them provisional: the labels of a long document once the model has read it all."""

        def found() -> tuple[float, int | None] | None:
            finals = self.finals.get(uri)
            return finals[0] if finals else None

        result: tuple[float, int | None] = self._wait(found, timeout)
        return result

    def hover(self, uri: str, line: int, character: int = 0) -> float:
        """Seconds from sending a hover to its answer."""
        sent, arrived, _ = self.request(
            "textDocument/hover",
            {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}},
        )
        return arrived - sent

    def code_lens(self, uri: str) -> float:
        sent, arrived, _ = self.request("textDocument/codeLens", {"textDocument": {"uri": uri}})
        return arrived - sent

    def inlay_hints(self, uri: str, first: int, last: int) -> float:
        lines = {"start": {"line": first, "character": 0}, "end": {"line": last, "character": 0}}
        sent, arrived, _ = self.request(
            "textDocument/inlayHint", {"textDocument": {"uri": uri}, "range": lines}
        )
        return arrived - sent

    def rss_kib(self) -> tuple[int | None, int | None]:
        """(current, peak) resident set size of the server process in KiB, where known."""
        return process_rss_kib(self.proc.pid)

    def cpu_seconds(self) -> float | None:
        """CPU time (user + system) the server process has used so far, where known."""
        return process_cpu_seconds(self.proc.pid)

    def close(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(Exception):
                self.request("shutdown", None, timeout=10)
                self.notify("exit", None)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        with contextlib.suppress(OSError):
            self._in.close()
        self._reader.join(timeout=5)

    def __enter__(self) -> LspClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def process_rss_kib(pid: int) -> tuple[int | None, int | None]:
    """(VmRSS, VmHWM) from /proc on Linux; `ps` elsewhere (no peak)."""
    status = Path(f"/proc/{pid}/status")
    if status.exists():
        found: dict[str, int] = {}
        for line in status.read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0])
        return found.get("VmRSS"), found.get("VmHWM")
    try:
        out = subprocess.run(["ps", "-o", "rss=", "-p", str(pid)], capture_output=True, text=True, check=True)
        return int(out.stdout.strip()), None
    except (OSError, ValueError, subprocess.CalledProcessError):
        return None, None


def process_cpu_seconds(pid: int) -> float | None:
    """user + system CPU seconds of a live process, from /proc (Linux; clock-tick resolution)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
