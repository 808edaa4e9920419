"""A misbehaving model back end on 127.0.0.1 (loopback only), for fault tests.

A tiny HTTP/1.1 responder on `asyncio.start_server`, in a thread of its own (so
that nothing it does, like building a huge body, stalls the event loop a test is
measuring), that speaks just enough of the OpenAI chat-completions shape. `mode` says what it does with the next
requests: answer a label, hang, answer late, fail with 500, answer garbage,
send a huge body, or fail with a 401 that echoes the API key back (as real
providers do). Every request is recorded, with the moment it arrived.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

MODES = ("label", "hang", "slow", "error500", "garbage", "huge", "echo401")


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class FakeModel:
    mode: str = "label"
    answer: str = "design"
    delay: float = 1.0  # `slow`: seconds before answering
    huge_bytes: int = 64 << 20  # `huge`: size of the body (a valid answer, padded)
    echo_pad: int = 0  # `echo401`: characters of message before the echoed key
    requests: list[Seen] = field(default_factory=list)
    port: int = 0
    _server: asyncio.Server | None = None
    _handlers: set[asyncio.Task[None]] = field(default_factory=set)
    _closing: asyncio.Event | None = None
    _loop: asyncio.AbstractEventLoop | None = None
    _thread: threading.Thread | None = None
    _huge: bytes = b""

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def count(self) -> int:
        return len(self.requests)

    def start(self) -> FakeModel:
        """Serve on 127.0.0.1 (an ephemeral port) from a background thread."""
        ready = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(ready,), name="fake-model", daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("the fake model server did not start")
        return self

    def _run(self, ready: threading.Event) -> None:
        loop = self._loop = asyncio.new_event_loop()
        self._closing = asyncio.Event()

        async def serve() -> None:
            self._server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
            self.port = self._server.sockets[0].getsockname()[1]
            ready.set()
            assert self._closing is not None
            await self._closing.wait()
            self._server.close()
            for task in list(self._handlers):
                task.cancel()
            await asyncio.gather(*self._handlers, return_exceptions=True)

        try:
            loop.run_until_complete(serve())
        finally:
            loop.close()

    def close(self) -> None:
        if self._loop is not None and self._closing is not None and not self._loop.is_closed():
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._closing.set)
        if self._thread is not None:
            self._thread.join(10)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            while await self._one(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass
        finally:
            self._handlers.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        request_line = await reader.readline()
        if not request_line:
            return False
        headers: dict[str, str] = {}
        while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        path = request_line.decode("latin-1").split()[1]
        self.requests.append(Seen(path, headers, body, time.monotonic()))
        mode = self.mode
        if mode == "hang":
            assert self._closing is not None
            await self._closing.wait()
            return False
        if mode == "slow":
            await asyncio.sleep(self.delay)
            mode = "label"
        if mode == "label":
            answer = {"choices": [{"index": 0, "message": {"role": "assistant", "content": self.answer}}]}
            await _send(writer, 200, json.dumps(answer).encode())
        elif mode == "error500":
            await _send(writer, 500, b'{"error": {"message": "the model is on fire"}}')
        elif mode == "garbage":
            await _send(writer, 200, b"\x00\xff<html>\xfe not json at all")
        elif mode == "huge":
            if len(self._huge) < self.huge_bytes:
                pad = b"x" * self.huge_bytes
                self._huge = b'{"choices": [{"message": {"content": "design"}}], "pad": "' + pad + b'"}'
            await _send(writer, 200, self._huge)
        elif mode == "echo401":
            key = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
            pad = "x" * self.echo_pad + " " if self.echo_pad else ""
            message = {
                "error": {"message": f"{pad}Incorrect API key provided: {key}", "code": "invalid_api_key"}
            }
            await _send(writer, 401, json.dumps(message).encode())
        else:  # pragma: no cover - a typo in a test
            raise ValueError(mode)
        return True


async def _send(writer: asyncio.StreamWriter, status: int, body: bytes) -> None:
    reason = {200: "OK", 401: "Unauthorized", 500: "Internal Server Error"}[status]
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    writer.write(head.encode("ascii") + body)
    await writer.drain()
