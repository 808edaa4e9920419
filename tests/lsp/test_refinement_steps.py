"""The refinement's last stretch in bounded steps, in process (no client): once the model has
read every turn of a long document, its results are set in one turn of the event loop and the
diagnostics are made a bounded number of results per turn, then sent in a turn of their own,
so a request never waits behind the whole publish. The message is the one a publish at once
makes; an edit between the steps stops it (the edit's analysis publishes its own)."""

from __future__ import annotations

import asyncio
import json
from itertools import pairwise
from typing import Any

import pytest
from lsprotocol import types

from tests.bench.workloads import transcript
from turnlens.lsp.documents import DocState
from turnlens.lsp.features import diagnostics
from turnlens.lsp.server import QUICK_OVER_CHARS, TurnLensServer, build_server
from turnlens.pipeline.analyze import analyze

URI = "file:///work/steps.md"
TEXT = transcript(3 * QUICK_OVER_CHARS // 2)
STEP = 40


def _server(sent: list[str]) -> TurnLensServer:
    server = build_server()
    server.send_json = sent.append  # type: ignore[method-assign,assignment]
    server.protocol.notify = lambda *a, **k: None  # type: ignore[method-assign]
    server.client_supports = lambda path: False  # type: ignore[method-assign]
    return server


def _open(server: TurnLensServer, text: str = TEXT) -> DocState:
    """Open and analyse `text` (in a running event loop: the refinement starts as a task)."""
    item = types.TextDocumentItem(uri=URI, language_id="markdown", version=1, text=text)
    state = server.open_document(item)
    state.settings_ready = True
    server.apply_settings(state, state.settings)
    server.analyze(state)
    return state


async def _refined_at_once(server: TurnLensServer) -> DocState:
    """A long document opened, its refinement task stopped and every answer refined now."""
    state = _open(server)
    assert state.refining is not None
    state.refining.cancel()
    await asyncio.sleep(0)
    state.cache.refine(1 << 40)
    server._set_results(state, state.cache.results())
    return state


def _diagnostics(body: str) -> list[dict[str, Any]]:
    message = json.loads(body)
    assert message["method"] == "textDocument/publishDiagnostics"
    return list(message["params"]["diagnostics"])


def _final(sent: list[str]) -> list[dict[str, Any]]:
    published = [_diagnostics(b) for b in sent if "publishDiagnostics" in b[:80]]
    assert published
    return published[-1]


@pytest.fixture
def small_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(diagnostics, "STEP_RESULTS", STEP)


def test_diagnostics_in_steps_are_those_made_at_once_and_bounded_per_step(small_steps: None) -> None:
    sent: list[str] = []
    server = _server(sent)
    state = asyncio.run(_refined_at_once(server))
    at_once = diagnostics.fragments(state)
    out: list[str] = []
    sizes = [len(out) for _ in diagnostics.fragments_in_steps(state, out)]
    assert out == at_once
    assert len(sizes) == (len(state.results) - 1) // STEP > 3
    assert all(b - a <= STEP for a, b in zip([0, *sizes], [*sizes, len(out)], strict=True))
    # the message: the publish at once's, made from the same diagnostics
    steps = diagnostics.publish_in_steps(server, state)
    taken = sum(1 for _ in steps)
    assert taken == len(sizes) + 1  # the message is joined and sent in a step of its own
    diagnostics.publish(server, state)
    assert sent[-1] == sent[-2]


def test_the_final_publish_after_refinement_comes_in_steps_and_equals_a_full_analysis(
    small_steps: None,
) -> None:
    sent: list[str] = []
    server = _server(sent)
    turn = [0]
    step_turns: list[int] = []  # the turn of the loop each step of the final publish ran in
    original = diagnostics.fragments_in_steps

    def counting(state: DocState, out: list[str]) -> Any:
        for _ in original(state, out):
            step_turns.append(turn[0])
            yield

    async def run() -> DocState:
        state = _open(server)
        diagnostics.fragments_in_steps = counting
        try:
            while state.refining is not None and not state.refining.done():
                await asyncio.sleep(0)
                turn[0] += 1
        finally:
            diagnostics.fragments_in_steps = original
        return state

    state = asyncio.run(run())
    assert len(step_turns) > 3
    assert all(a < b for a, b in pairwise(step_turns))  # one step a turn
    final = _final(sent)
    assert not any(d["data"].get("provisional") for d in final)
    want = [
        (r.unit.index, r.classification.task_class, r.route.effort)
        for r in analyze(TEXT).results
        if not r.unit.ignored
    ]
    got = [(d["data"]["turn"], d["data"]["class"], d["data"]["route"]["effort"]) for d in final]
    assert got == want and len(got) > 3 * STEP
    assert not state.cache.pending


def test_an_edit_between_the_steps_stops_the_staged_publish(small_steps: None) -> None:
    sent: list[str] = []
    server = _server(sent)

    async def run() -> tuple[bool, int]:
        state = await _refined_at_once(server)
        before = len(sent)
        telling = asyncio.ensure_future(server._tell_views_in_steps(state))
        for _ in range(3):
            await asyncio.sleep(0)
        change = types.TextDocumentContentChangePartial(
            range=types.Range(
                start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
            ),
            text="x",
        )
        state.doc.apply([change], 2)  # the document changed: what the steps were making is stale
        told = await telling
        return told, len(sent) - before

    told, published = asyncio.run(run())
    assert told is False
    assert published == 0
