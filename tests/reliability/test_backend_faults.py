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
from typing import Any

import pytest

from .conftest import Spawn, report
from .fakemodel import FakeModel
from .rawlsp import RawServer, rss_kib

URI = "file:///work/model.md"
TIMEOUT_MS = 300
# No test here asserts how long anything took (a loaded machine is slow, not wrong): a call is
# bounded when it ends in the fallback while the model is still hanging or not yet answering,
# and the views keep answering when hovers are answered while a call is out. Durations are
# reported.
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


async def _hover(server: RawServer) -> int:
    """A hover, answered with a result (its message id)."""
    msg_id = server.send_request(
        "textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 0, "character": 2}}
    )
    answer = await server.wait_response(msg_id, timeout=30)
    assert answer.get("result"), answer
    return msg_id


async def _hover_ms(server: RawServer) -> float:
    return server.latency(await _hover(server)) * 1000


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
        self.answered_during_call: list[int] = []  # hovers answered before each call ended

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
        hovers: list[int] = []
        while not (after := _statuses(self.server, self.version)[1:]):
            hovers.append(await _hover(self.server))
            await asyncio.sleep(0.02)
        ended, status = after[0]
        self.call_s.append(ended - arrived)
        self.hover_ms += [self.server.latency(h) * 1000 for h in hovers]
        self.answered_during_call.append(sum(1 for h in hovers if self.server.received_at[h] < ended))
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
    # the model never answers: each call ended (by its timeout), and hovers were answered meanwhile
    assert all(n >= 1 for n in d.answered_during_call), d.answered_during_call

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
    # `slow` answers after 1 s: a fallback (not the model's label) means the 300 ms timeout ended
    # the call first; meanwhile hovers were answered
    if mode == "slow":
        assert all(n >= 1 for n in d.answered_during_call), d.answered_during_call
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
    hovers = []
    while command not in server.received_at:  # hover until the command is answered
        hovers.append(await _hover(server))
        await asyncio.sleep(0.01)
    assert fake_model.count == 1
    answer = await server.wait_response(command, timeout=10)
    assert answer["result"]["route"]["source"] == "fallback"
    latencies = [server.latency(h) * 1000 for h in hovers]
    report(
        f"first model call: hover max {max(latencies):.0f} ms while it started "
        f"(p50 {statistics.median(latencies):.1f} ms; before it {max(warm):.1f} ms)"
    )
    # the model hangs for the 1 s timeout: hovers were answered while the command was out
    assert sum(1 for h in hovers if server.received_at[h] < server.received_at[command]) >= 1


def test_the_first_call_prepares_the_back_end_off_the_event_loop() -> None:
    """The first call's set-up (importing httpx, building the TLS context: 150 ms to 1 s) runs in
    a worker thread, so the event loop keeps answering meanwhile."""
    import threading

    from turnlens.router.service import Router
    from turnlens.router.settings import RouterSettings

    seen: dict[str, int] = {}

    class Backend:
        ready = False

        def prepare(self) -> None:
            seen["prepare"] = threading.get_ident()
            self.ready = True

        async def label(self, excerpt: str) -> str | None:
            seen["label"] = threading.get_ident()
            return "debug"

    settings = RouterSettings(backend="openai", endpoint="http://127.0.0.1:9/v1", model="m")
    router = Router(settings, backend_factory=lambda s, env: Backend(), env={})

    async def main() -> None:
        seen["loop"] = threading.get_ident()
        await router.route(PROMPT.format(n=1))

    asyncio.run(main())
    assert seen["label"] == seen["loop"] and seen["prepare"] != seen["loop"], seen
