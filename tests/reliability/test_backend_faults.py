"""A model back end that hangs, answers late, fails with 500, answers garbage or sends
a huge body: every call ends within its timeout, the pause engages after the failure
limit (`turnlens/status` says `paused`), hover and lenses keep answering from the last
result meanwhile, and nothing blocks the event loop.

The model is a real HTTP server on 127.0.0.1 (fakemodel.py); the language server is a
real process started with the back end in its initializationOptions, as an editor
does from user settings.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

import pytest

from .conftest import Spawn, report
from .fakemodel import FakeModel
from .rawlsp import RawServer, rss_kib

URI = "file:///work/model.md"
TIMEOUT_MS = 300
GRACE_S = 0.25  # scheduling slack on a loaded 2-core CI machine
PROMPT = "APPROVED — ship it\n---TURN---\nplease look into why the nightly export drops rows, version {n}\n"


def _init(model: FakeModel, **router: Any) -> dict[str, Any]:
    return {
        "router": {
            "backend": "openai",
            "endpoint": model.endpoint,
            "model": "m",
            "timeoutMs": TIMEOUT_MS,
            **router,
        }
    }


def _statuses(server: RawServer, version: int) -> list[tuple[float, dict[str, Any]]]:
    return [
        (t, p)
        for t, p in server.timed_notifications("turnlens/status")
        if p["uri"] == URI and p["version"] == version
    ]


async def _hover_ms(server: RawServer) -> float:
    msg_id = server.send_request(
        "textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 0, "character": 2}}
    )
    answer = await server.wait_response(msg_id, timeout=10)
    assert answer.get("result"), answer
    return server.latency(msg_id) * 1000


async def _lenses(server: RawServer) -> list[dict[str, Any]]:
    answer = await server.request("textDocument/codeLens", {"textDocument": {"uri": URI}}, timeout=10)
    lenses: list[dict[str, Any]] = answer["result"]
    assert lenses, answer
    return lenses


class Driver:
    """Edits the prompt (the last turn, which the model routes) and times each model call."""

    def __init__(self, server: RawServer, model: FakeModel) -> None:
        self.server = server
        self.model = model
        self.version = 1
        self.hover_ms: list[float] = []
        self.call_s: list[float] = []

    async def open(self) -> None:
        self.server.open(URI, PROMPT.format(n=1))
        await self.server.wait_diagnostics(URI, 1)

    async def edit(self) -> None:
        self.version += 1
        self.server.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": URI, "version": self.version},
                "contentChanges": [{"text": PROMPT.format(n=self.version)}],
            },
        )
        await self.server.wait_for(lambda: _statuses(self.server, self.version), timeout=10)

    async def failing_call(self) -> dict[str, Any]:
        """Edit, let the model get the request, check hover while it is out, and wait for the
        call to end; the status that follows is returned."""
        seen = self.model.count
        await self.edit()
        await self.server.wait_for(lambda: self.model.count > seen, timeout=10)
        arrived = self.model.requests[-1].at
        while not (after := _statuses(self.server, self.version)[1:]):
            self.hover_ms.append(await _hover_ms(self.server))
            await asyncio.sleep(0.02)
        ended, status = after[0]
        self.call_s.append(ended - arrived)
        return status


async def test_hanging_model_pauses_while_views_keep_answering(spawn: Spawn, fake_model: FakeModel) -> None:
    fake_model.mode = "hang"
    server = await spawn()
    await server.initialize(_init(fake_model))
    d = Driver(server, fake_model)
    await d.open()
    for n in range(3):
        status = await d.failing_call()
        assert status["source"] == "fallback", status  # the rules labeler answers instead
        assert status["paused"] is (n == 2), status
        assert await _lenses(server)
    assert all(s < TIMEOUT_MS / 1000 + GRACE_S for s in d.call_s), d.call_s

    # paused: no more calls, the views still answer, and they say why
    before = fake_model.count
    await d.edit()
    await asyncio.sleep(0.5)
    assert fake_model.count == before
    status = _statuses(server, d.version)[-1][1]
    assert status["paused"] is True and status["effort"] is not None
    hover = await server.request(
        "textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 2, "character": 5}}
    )
    assert "paused" in hover["result"]["contents"]["value"]
    titles = [lens["command"]["title"] for lens in await _lenses(server)]
    assert any("fallback" in t for t in titles), titles

    # reload clears the pause: the next prompt goes to the model again
    answer = await server.request("workspace/executeCommand", {"command": "turnlens.reload", "arguments": []})
    assert answer["result"]["reloaded"] is True
    await d.edit()
    await server.wait_for(lambda: fake_model.count > before, timeout=5)
    report(
        f"hanging model: calls ended after {', '.join(f'{s * 1000:.0f}' for s in d.call_s)} ms "
        f"(timeout {TIMEOUT_MS} ms); hover during the hangs p50 {statistics.median(d.hover_ms):.1f} ms, "
        f"max {max(d.hover_ms):.1f} ms over {len(d.hover_ms)}"
    )
    assert max(d.hover_ms) < 250
    assert await server.shutdown_and_exit() == 0


@pytest.mark.parametrize("mode", ["slow", "error500", "garbage"])
async def test_failing_model_is_bounded_and_pauses(spawn: Spawn, fake_model: FakeModel, mode: str) -> None:
    fake_model.mode = "label"
    fake_model.delay = 1.0  # `slow`: answers after the timeout
    server = await spawn()
    await server.initialize(_init(fake_model))
    d = Driver(server, fake_model)
    await d.open()
    # a healthy answer first: the model's label routes the prompt
    await server.wait_for(lambda: len(_statuses(server, 1)) >= 2, timeout=10)
    status = _statuses(server, 1)[-1][1]
    assert status["source"] == "classifier" and status["phase"] == "plan", status  # design → plan

    fake_model.mode = mode
    for n in range(3):
        status = await d.failing_call()
        assert status["source"] == "fallback", status
        assert status["paused"] is (n == 2), status
    report(
        f"{mode} model: calls ended after {', '.join(f'{s * 1000:.0f}' for s in d.call_s)} ms; "
        f"hover meanwhile max {max(d.hover_ms, default=0):.1f} ms"
    )
    assert all(s < TIMEOUT_MS / 1000 + GRACE_S for s in d.call_s), d.call_s
    assert max(d.hover_ms, default=0) < 250
    assert await _lenses(server)


# Regression test for a bug this suite found (since fixed): a model's answer has no size cap: a 64 MB
# answer is read and parsed whole on the event loop (calls overrun the timeout, hovers stall) and
# leaves the server about 170 MB larger.
async def test_huge_answer_is_refused_without_stall_or_bloat(spawn: Spawn, fake_model: FakeModel) -> None:
    """64 MB for a one-word label: refused like garbage, without stalling or bloating the server."""
    server = await spawn()
    await server.initialize(_init(fake_model))
    d = Driver(server, fake_model)
    await d.open()
    await server.wait_for(lambda: len(_statuses(server, 1)) >= 2, timeout=10)
    baseline = rss_kib(server.proc.pid)
    fake_model.mode = "huge"
    statuses = [await d.failing_call() for _ in range(3)]
    await asyncio.sleep(0.3)
    after = rss_kib(server.proc.pid)
    report(
        f"huge ({fake_model.huge_bytes >> 20} MB) answers: calls ended after "
        f"{', '.join(f'{s * 1000:.0f}' for s in d.call_s)} ms; hover meanwhile max {max(d.hover_ms, default=0):.1f} ms; "
        f"RSS {baseline / 1024:.1f} -> {after / 1024:.1f} MiB; sources {[s['source'] for s in statuses]}"
    )
    assert all(s < TIMEOUT_MS / 1000 + GRACE_S for s in d.call_s), d.call_s
    assert max(d.hover_ms, default=0) < 250
    assert after < baseline + 20 * 1024, f"RSS {baseline / 1024:.0f} -> {after / 1024:.0f} MiB"
    assert await _lenses(server)
    assert [s["source"] for s in statuses] == ["fallback"] * 3
    assert statuses[-1]["paused"] is True


# Regression test for a bug this suite found (since fixed): the first model call imports httpx and
# builds its TLS context (certifi bundle) on the event loop, stalling every request for ~150 ms
# (unloaded) to ~1 s (loaded 2-core box).
async def test_first_model_call_does_not_block_the_event_loop(spawn: Spawn, fake_model: FakeModel) -> None:
    fake_model.mode = "hang"
    server = await spawn()
    await server.initialize(_init(fake_model, timeoutMs=1000))
    server.open(URI, "hello\n")  # too short to route: no model call yet
    await server.wait_diagnostics(URI, 1)
    warm = [await _hover_ms(server) for _ in range(5)]
    command = server.send_request(
        "workspace/executeCommand",
        {"command": "turnlens.classify", "arguments": [{"text": PROMPT.format(n=1)}]},
    )
    latencies = []
    started = time.monotonic()
    while time.monotonic() - started < 0.6:
        latencies.append(await _hover_ms(server))
        await asyncio.sleep(0.01)
    assert fake_model.count == 1
    answer = await server.wait_response(command, timeout=10)
    assert answer["result"]["route"]["source"] == "fallback"
    report(
        f"first model call: hover max {max(latencies):.0f} ms while it started "
        f"(p50 {statistics.median(latencies):.1f} ms; before it {max(warm):.1f} ms)"
    )
    assert max(latencies) < 100
