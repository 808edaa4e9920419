"""Test helpers of the router tests: a fake monotonic clock and a real HTTP model server.

The server is a small HTTP/1.1 responder on 127.0.0.1 (port 0) built on
`asyncio.start_server`, so back-end tests exercise httpx, sockets and timeouts
for real. It records every request and answers in the shape the path asks for
(`/chat/completions` → OpenAI, `/messages` → Anthropic).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def corpus_dir() -> Path:
    env = os.environ.get("TURNLENS_CORPUS_DIR")
    return Path(env) if env else REPO.parent / "shared" / "corpus"


class FakeClock:
    """Monotonic seconds that only move when a test says so."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class ModelServer:
    """What the server does for the next requests, and what it saw."""

    host: str = "127.0.0.1"
    port: int = 0
    mode: str = "label"  # label | garbage | notjson | error500 | error401 | hang | slow
    answer: str = "design"  # the text of the model's answer in `label` mode
    delay: float = 0.0  # `slow` mode: answer after this many seconds
    requests: list[Request] = field(default_factory=list)
    release: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def base(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def count(self) -> int:
        return len(self.requests)

    def reply_text(self, request: Request) -> str:
        """The label to answer: `LABEL=<x>` in the prompt wins over `answer` (for late-answer tests)."""
        m = re.search(r"LABEL=(\w+)", json.dumps(request.body))
        return m.group(1) if m else self.answer


def _shape(path: str, text: str) -> dict[str, Any]:
    if path.endswith("/messages"):
        return {
            "id": "msg_test",
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
        }
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
    }


async def _read_request(reader: asyncio.StreamReader) -> Request | None:
    line = await reader.readline()
    if not line:
        return None
    method, path, _ = line.decode("latin-1").split(" ", 2)
    headers: dict[str, str] = {}
    while True:
        raw = await reader.readline()
        if raw in (b"\r\n", b"\n", b""):
            break
        name, _, value = raw.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    data = await reader.readexactly(length) if length else b""
    try:
        body: Any = json.loads(data) if data else None
    except ValueError:
        body = data.decode("utf-8", "replace")
    return Request(method, path, headers, body)


def _response(status: int, body: bytes, content_type: str = "application/json") -> bytes:
    reason = {200: "OK", 401: "Unauthorized", 500: "Internal Server Error"}[status]
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body


async def _handle(server: ModelServer, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        request = await _read_request(reader)
        if request is None:
            return
        server.requests.append(request)
        mode = server.mode
        if mode == "hang":
            await server.release.wait()
            return
        if mode == "slow":
            await asyncio.sleep(server.delay)
        if mode in ("label", "slow"):
            payload = json.dumps(_shape(request.path, server.reply_text(request))).encode()
            writer.write(_response(200, payload))
        elif mode == "garbage":
            payload = json.dumps(_shape(request.path, "Well, it is a banana, I think!")).encode()
            writer.write(_response(200, payload))
        elif mode == "notjson":
            writer.write(_response(200, b"<html>oops</html>", "text/html"))
        elif mode == "error401":
            key = request.headers.get("x-api-key") or request.headers.get("authorization", "")
            payload = json.dumps({"error": {"message": f"Incorrect API key provided: {key}"}}).encode()
            writer.write(_response(401, payload))
        else:
            writer.write(_response(500, b'{"error": "boom"}'))
        await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        writer.close()


async def serve() -> AsyncIterator[ModelServer]:
    state = ModelServer()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _handle(state, reader, writer)

    server = await asyncio.start_server(handle, state.host, 0)
    state.port = server.sockets[0].getsockname()[1]
    try:
        yield state
    finally:
        state.release.set()
        server.close()
        await server.wait_closed()
