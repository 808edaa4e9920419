"""Load: 50 open documents × 200 rapid edits (1,250 edits a second, 25 a second per
document, with a pause now and then that lets every debounce fire at once). The server
answers every hover of the storm, in the order asked, none lost and none an error (their
latency is reported, not asserted: a loaded machine is slow, not wrong; speed is measured
by tests/bench), every document ends on diagnostics
that match its final text, and its memory comes back to its baseline once the
documents are closed.

One storm (a module-scoped fixture) serves the four tests. The baseline is taken after
a warm-up (every feature, then a 20-round storm of the same kind, closed) so that what
the server builds once and keeps (RE2 sets are compiled after some 100 KB of scored
text) is in it: growth after that means a leak.

The pace is what the server sustains on a loaded 2-core box with margin: pygls reads
stdin through a worker thread, three thread hops a message, and tops out near
3,000 messages a second here; at 2,000 edits a second a hiccup turns into a backlog.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types

from turnlens.lsp.features import diagnostics
from turnlens.lsp.server import TurnLensServer

from . import positions
from .conftest import report
from .rawlsp import RawServer, rss_kib
from .test_incremental import _json

pytestmark = pytest.mark.asyncio(loop_scope="module")

N_DOCS = 50
N_EDITS = 200
ROUND_S = 0.04  # 50 edits every 40 ms: 1,250 edits a second, 25 a second per document
SEED = 7
TURNS = [
    "APPROVED — ship it 🚀",
    "Implementing SPEC-120 AC-03 with the new handler",
    "```python\ndef f(x):\n    return x * 2\n```",
    "thanks! 🙏",
    "FAIL: 3 tests broken in the billing suite, see the log below",
    "Traceback (most recent call last):\n  File 'x.py', line 3\nValueError: bad",
    "# Notes\n- the cache is per unit\n- edits re-score one turn\n" + "context words here " * 12,
    "please design the schema for invoices and the trade-offs of each option",
    "ultrathink: why does the scheduler drop jobs after midnight?",
    "rename the module and bump the version",
    "中文 e\u0301 \U0001f600 mixed text with a CRLF\r\nsecond line",
]
WORDS = [
    "APPROVED ",
    "merge ",
    "SPEC-9 ",
    "FAIL: ",
    "thanks ",
    "🚀",
    "\n",
    "\n---TURN---\n",
    "```\n",
    "x",
    " ",
    "é",
]


def _document(rnd: random.Random) -> str:
    return "\n---TURN---\n".join(rnd.choice(TURNS) for _ in range(rnd.randint(15, 30))) + "\n"


def _edit(rnd: random.Random, text: str) -> tuple[dict[str, Any], str]:
    a = positions.snap(text, rnd.randint(0, len(text)))
    roll = rnd.random()
    if roll < 0.65 or not text:
        b, new = a, rnd.choice(WORDS)
    elif roll < 0.9:
        b, new = positions.snap(text, min(len(text), a + rnd.randint(1, 10))), ""
    else:
        b, new = positions.snap(text, min(len(text), a + rnd.randint(1, 40))), rnd.choice(WORDS)
    rng = {"start": positions.position(text, a, "utf-16"), "end": positions.position(text, b, "utf-16")}
    return {"range": rng, "text": new}, text[:a] + new + text[b:]


def _expected(uri: str, text: str, version: int) -> list[Any]:
    """The diagnostics of `text` analysed from scratch, by the server's own code, in process."""
    ls = TurnLensServer()
    state = ls.open_document(
        types.TextDocumentItem(uri=uri, language_id="markdown", version=version, text=text)
    )
    state.settings_ready = True
    ls.analyze(state)
    return list(_json(diagnostics.build(state)))


def _without_reasons(diagnostics: list[Any] | None) -> list[Any] | None:
    """The diagnostics with each route's free-text reason left out."""
    if diagnostics is None:
        return None
    out = json.loads(json.dumps(diagnostics))
    for d in out:
        d.get("data", {}).get("route", {}).pop("reason", None)
    return list(out)


async def _warm_up(server: RawServer) -> None:
    """Touch every feature, then run a small storm of the same kind and close its documents,
    so that whatever the server builds once and keeps (compiled RE2 sets, caches warmed to
    their steady size) exists before the baseline is read."""
    uri = "file:///work/warm-up.md"
    big = "\n---TURN---\n".join(
        f"turn {i}: please design the schema for invoices and explain the trade-offs. " * 30
        for i in range(80)
    )
    server.open(uri, "\n---TURN---\n".join(TURNS) + "\n---TURN---\n" + big)
    await server.wait_diagnostics(uri, 1, timeout=30)
    doc = {"textDocument": {"uri": uri}}
    await server.request("textDocument/hover", {**doc, "position": {"line": 0, "character": 1}})
    await server.request("textDocument/codeLens", doc)
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": 999, "character": 0}}
    await server.request("textDocument/inlayHint", {**doc, "range": whole})
    await server.request("textDocument/codeAction", {**doc, "range": whole, "context": {"diagnostics": []}})
    await server.request(
        "workspace/executeCommand", {"command": "turnlens.classify", "arguments": [{"uri": uri}]}
    )
    server.notify("textDocument/didClose", doc)
    await _storm(server, random.Random(SEED + 1), "warm-up", rounds=20)
    await asyncio.sleep(0.3)


async def _storm(
    server: RawServer, rnd: random.Random, name: str, rounds: int, result: Storm | None = None
) -> None:
    """Open N_DOCS documents, edit each `rounds` times (hovering once a round), check the final
    diagnostics, close them all."""
    uris = [f"file:///work/{name}/doc-{i:02d}.md" for i in range(N_DOCS)]
    texts = {uri: _document(rnd) for uri in uris}
    for uri in uris:
        server.open(uri, texts[uri])
    await server.wait_for(lambda: all(server.diagnostics(u, 1) is not None for u in uris), timeout=30)
    if result is not None:
        result.opened_kib = rss_kib(server.proc.pid)
    hovers: list[int] = []
    others: list[int] = []
    started = time.monotonic()
    for round_ in range(rounds):
        round_started = time.monotonic()
        version = round_ + 2
        for uri in uris:
            change, texts[uri] = _edit(rnd, texts[uri])
            server.notify(
                "textDocument/didChange",
                {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
            )
        target = rnd.choice(uris)
        at = positions.position(texts[target], rnd.randint(0, len(texts[target])), "utf-16")
        hovers.append(
            server.send_request("textDocument/hover", {"textDocument": {"uri": target}, "position": at})
        )
        if round_ % 10 == 0:
            others.append(server.send_request("textDocument/codeLens", {"textDocument": {"uri": target}}))
        # now and then the typing stops long enough for every debounce to fire at once
        pause = 0.2 if round_ % 50 == 49 else ROUND_S
        await asyncio.sleep(max(0.0, pause - (time.monotonic() - round_started)))
    if result is not None:
        result.seconds = time.monotonic() - started
        result.peak_kib = rss_kib(server.proc.pid)
    for msg_id in hovers + others:
        answer = await server.wait_response(msg_id, timeout=60)
        assert "result" in answer, answer
    final = rounds + 1
    await server.wait_for(lambda: all(server.diagnostics(u, final) is not None for u in uris), timeout=30)
    if result is not None:
        result.latencies_ms = [server.latency(i) * 1000 for i in hovers]
        result.hovers_answered = sum(1 for i in hovers if i in server.received_at)
        arrival = sorted(hovers, key=lambda i: server.received_at[i])
        result.hovers_in_order = arrival == hovers
        for uri in uris:
            published = server.diagnostics(uri, final)
            expected = _expected(uri, texts[uri], final)
            if published != expected:
                result.mismatched_exact.append(uri)
            if _without_reasons(published) != _without_reasons(expected):
                result.mismatched.append(uri)
    for uri in uris:
        server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    await server.request(
        "textDocument/hover", {"textDocument": {"uri": uris[0]}, "position": {"line": 0, "character": 0}}
    )


@dataclass
class Storm:
    latencies_ms: list[float] = field(default_factory=list)
    baseline_kib: int = 0
    opened_kib: int = 0
    peak_kib: int = 0
    after_kib: int = 0
    mismatched: list[str] = field(default_factory=list)  # ignoring the wording of route reasons
    mismatched_exact: list[str] = field(default_factory=list)
    seconds: float = 0.0
    hovers_answered: int = 0
    hovers_in_order: bool = False

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies_ms)
        return ordered[max(0, int(len(ordered) * q) - 1)]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def storm() -> AsyncIterator[Storm]:
    server = await RawServer.spawn(config={"debounceMs": 150})
    result = Storm()
    try:
        await server.initialize()
        await _warm_up(server)
        result.baseline_kib = rss_kib(server.proc.pid)
        await _storm(server, random.Random(SEED), "storm", N_EDITS, result)
        await asyncio.sleep(0.5)
        result.after_kib = rss_kib(server.proc.pid)
        assert await server.shutdown_and_exit() == 0
    finally:
        await server.close()
    report(
        f"storm {N_DOCS} docs x {N_EDITS} edits in {result.seconds:.1f} s: hover p50 {result.percentile(0.5):.1f} ms, "
        f"p95 {result.percentile(0.95):.1f} ms, max {max(result.latencies_ms):.1f} ms over {len(result.latencies_ms)} hovers"
    )
    growth = (result.after_kib - result.baseline_kib) / result.baseline_kib * 100
    report(
        f"server RSS: baseline {result.baseline_kib / 1024:.1f} MiB, {N_DOCS} docs open {result.opened_kib / 1024:.1f} MiB, "
        f"end of storm {result.peak_kib / 1024:.1f} MiB, after closing {result.after_kib / 1024:.1f} MiB ({growth:+.1f} %)"
    )
    yield result


async def test_every_hover_is_answered_in_order_during_the_storm(storm: Storm) -> None:
    assert len(storm.latencies_ms) == N_EDITS
    assert storm.hovers_answered == N_EDITS  # none lost (and each a result: checked in _storm)
    assert storm.hovers_in_order  # not starved behind edits: answered in the order asked


async def test_every_document_ends_on_its_final_text(storm: Storm) -> None:
    assert storm.mismatched == []


# Regression test for a bug this suite found (since fixed): with explain=False, core.engine.score()
# returns the rules that fired in no fixed order (RE2-set order once the set is built, pack order
# before), so a route's reason lists the same rules in an order that depends on what the process
# scored before.
async def test_results_do_not_depend_on_the_servers_history(storm: Storm) -> None:
    assert storm.mismatched_exact == []


# Regression test for a bug this suite found (since fixed): pygls keeps, for ever, the future of every
# notification run through a generator handler (TurnLensProtocol's didOpen/didChange/didClose) in
# protocol._request_futures: about 2 KB per edit.
async def test_memory_returns_to_baseline_after_closing(storm: Storm) -> None:
    assert storm.after_kib <= storm.baseline_kib * 1.10, (
        f"RSS {storm.after_kib / 1024:.1f} MiB after closing, baseline {storm.baseline_kib / 1024:.1f} MiB"
    )
