"""Code lenses, inlay hints, hover and the status notification."""

from __future__ import annotations

import re

from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import open_doc, pos, start, wait_diagnostics, wait_for
from .docs import CRLF_SESSION, LF_SESSION, UTF16_LINE0_END

URI = "file:///work/session.md"
DOC = types.TextDocumentIdentifier(uri=URI)


async def lenses(client: LanguageClient) -> list[types.CodeLens]:
    return list(await client.text_document_code_lens_async(types.CodeLensParams(text_document=DOC)) or [])


async def hints(client: LanguageClient, last_line: int = 100) -> list[types.InlayHint]:
    params = types.InlayHintParams(
        text_document=DOC, range=types.Range(start=pos(0, 0), end=pos(last_line, 0))
    )
    return list(await client.text_document_inlay_hint_async(params) or [])


async def test_code_lens_titles(client: LanguageClient) -> None:
    open_doc(client, URI, CRLF_SESSION)
    await wait_diagnostics(client, URI, version=1)
    got = await lenses(client)
    titles = [(lens.range.start.line, lens.command.title) for lens in got if lens.command]
    assert (0, "decision · ≤5:1 · frozen (SKIP)") in titles
    assert (2, "code · ≤10:1 · partly frozen (COMPRESS_LIMITED)") in titles
    assert (7, "chitchat · ≤80:1 · compressible (COMPRESS)") in titles
    route_titles = [t for line, t in titles if line == 2 and "classify" not in t]
    assert any(t.startswith(("effort ", "no route")) for t in route_titles)
    assert all(lens.command and lens.command.command == "turnlens.classify" for lens in got)


async def test_plan_lens_when_budget_set(bare_client: LanguageClient) -> None:
    await start(bare_client, {"budget": 5})
    open_doc(bare_client, URI, LF_SESSION)
    await wait_diagnostics(bare_client, URI, version=1)
    got = await lenses(bare_client)
    plan = [lens for lens in got if lens.command and lens.command.command == "turnlens.plan"]
    assert len(plan) == 1 and plan[0].range.start.line == 0
    # 4 + 6 words frozen (ratio 1), "thanks!" 1 word → 11 words → 14 tokens, 9 over a budget of 5
    assert plan[0].command is not None
    assert plan[0].command.title == "Session plan: OVERFLOW · 14 of 5 tokens · 3 turns · 9 over"


async def test_code_lens_toggle(bare_client: LanguageClient) -> None:
    await start(bare_client, {"codeLens": {"enable": False}})
    open_doc(bare_client, URI, LF_SESSION)
    await wait_diagnostics(bare_client, URI, version=1)
    assert await lenses(bare_client) == []
    bare_client.set_configuration({"debounceMs": 0}, section="turnlens")
    bare_client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    assert await wait_for_lenses(bare_client)


async def wait_for_lenses(client: LanguageClient) -> list[types.CodeLens]:
    import asyncio

    for _ in range(200):
        got = await lenses(client)
        if got:
            return got
        await asyncio.sleep(0.02)
    return []


async def test_inlay_hints_at_end_of_first_lines(client: LanguageClient) -> None:
    open_doc(client, URI, CRLF_SESSION)
    await wait_diagnostics(client, URI, version=1)
    got = await hints(client)
    assert [(h.position.line, h.position.character) for h in got] == [(0, UTF16_LINE0_END), (2, 9), (7, 13)]
    assert isinstance(got[0].label, str) and got[0].label.startswith("decision ≤5:1 · ")
    assert got[0].padding_left is True
    assert await hints(client, last_line=1) == got[:1]


async def test_inlay_hints_toggle(bare_client: LanguageClient) -> None:
    await start(bare_client, {"inlayHints": {"enable": False}})
    open_doc(bare_client, URI, LF_SESSION)
    await wait_diagnostics(bare_client, URI, version=1)
    assert await hints(bare_client) == []


async def test_hover_explains_scores_rules_and_route(client: LanguageClient) -> None:
    open_doc(client, URI, LF_SESSION)
    await wait_diagnostics(client, URI, version=1)
    hover = await client.text_document_hover_async(types.HoverParams(text_document=DOC, position=pos(2, 5)))
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    text = hover.contents.value
    assert "turn 2 of 3" in text and "**spec**" in text
    assert "Model: **" in text and "| class | probability | rule score |" in text
    assert re.search(r"\| \*\*spec\*\* \| \d+% \| 5 \|", text), text
    assert "What pushed it toward spec:" in text
    assert re.search(r"`spec\.ticket` — line 3: `SPEC-120` \(model [+-]\d\.\d\d\)", text), text
    assert "**Route:**" in text
    assert hover.range is not None and hover.range.start.line == 2


async def test_hover_toggle(bare_client: LanguageClient) -> None:
    await start(bare_client, {"hover": {"enable": False}})
    open_doc(bare_client, URI, LF_SESSION)
    await wait_diagnostics(bare_client, URI, version=1)
    hover = await bare_client.text_document_hover_async(
        types.HoverParams(text_document=DOC, position=pos(0, 1))
    )
    assert hover is None


async def test_status_notification_for_the_last_turn(client: LanguageClient) -> None:
    open_doc(client, URI, LF_SESSION)
    status = await wait_for(lambda: [s for s in client.statuses if s.uri == URI])  # type: ignore[attr-defined]
    last = status[-1]
    assert last.version == 1 and last.units == 3
    # pygls hands custom notifications over as namedtuples; `class` (a keyword) becomes `_2`
    assert last._asdict()["_2"] == "chitchat"
    assert last.paused is False
    assert last.source is not None
