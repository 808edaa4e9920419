"""Hover in the format the client reads: Markdown where it renders Markdown, plain text for
clients that put plain text first (terminal editors that would show Markdown raw)."""

from __future__ import annotations

import re

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import open_doc, pos, start, wait_diagnostics
from .docs import LF_SESSION

URI = "file:///work/session.md"
DOC = types.TextDocumentIdentifier(uri=URI)


def caps(formats: list[types.MarkupKind]) -> types.ClientCapabilities:
    base = pytest_lsp.client_capabilities("visual-studio-code")
    assert base.text_document is not None
    base.text_document.hover = types.HoverClientCapabilities(content_format=formats)
    return base


async def hover_of_spec_turn(client: LanguageClient) -> types.MarkupContent:
    open_doc(client, URI, LF_SESSION)
    await wait_diagnostics(client, URI, version=1)
    hover = await client.text_document_hover_async(types.HoverParams(text_document=DOC, position=pos(2, 5)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    return hover.contents


async def test_markdown_client_gets_markdown_without_needless_escapes(bare_client: LanguageClient) -> None:
    await start(bare_client, capabilities=caps([types.MarkupKind.Markdown, types.MarkupKind.PlainText]))
    content = await hover_of_spec_turn(bare_client)
    assert content.kind == types.MarkupKind.Markdown
    text = content.value
    assert "**spec**" in text and "| class | probability | rule score |" in text
    # words of the text that pushed the answer, each with its line — no raw n-gram keys
    pushed = text.split("What pushed it toward spec:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert pushed and all(re.fullmatch(r"- `[^`]+` — line \d+ \([+-]\d+\.\d\d\)", p) for p in pushed), pushed
    assert "‹" not in text and "rule score spec" not in text
    assert "Runner-up: " in text
    # punctuation that cannot start markup is left alone
    assert "\\:" not in text and "\\(" not in text and "\\-" not in text and "\\." not in text


async def test_plain_text_client_gets_plain_text(bare_client: LanguageClient) -> None:
    await start(bare_client, capabilities=caps([types.MarkupKind.PlainText, types.MarkupKind.Markdown]))
    content = await hover_of_spec_turn(bare_client)
    assert content.kind == types.MarkupKind.PlainText
    text = content.value
    assert "**" not in text and "`" not in text and "|" not in text and "\\" not in text, text
    assert text.startswith("TurnLens · turn 2 of 3: spec — compress ≤3:1, frozen ('SKIP')")
    assert re.search(r"^spec ←\s+\d+%\s+5$", text, re.M), text  # the table as aligned columns
    assert re.search(r"^  \+3 spec — 'spec\.ticket' — line 3: 'SPEC-120' \(model [+-]\d\.\d\d\)$", text, re.M)
    assert "Route: " in text


THREAD = "Thanks for the report.\n---TURN---\nClosing as a duplicate of #88.\n---TURN---\n我也是\n"


async def test_a_turn_settled_by_its_words_says_so(bare_client: LanguageClient) -> None:
    """A thread message that says a triage outcome or is only a +1 (turnlens.core.outcomes):
    the class comes from its words, and the hover names them."""
    await start(bare_client, capabilities=caps([types.MarkupKind.PlainText, types.MarkupKind.Markdown]))
    open_doc(bare_client, URI, THREAD)
    diags = await wait_diagnostics(bare_client, URI, version=1)
    classes = {d.range.start.line: d.data["class"] for d in diags}
    assert classes.get(2) == "decision" and classes.get(4) == "chitchat", classes
    for line, because in ((2, "a triage outcome"), (4, "a +1")):
        hover = await bare_client.text_document_hover_async(
            types.HoverParams(text_document=DOC, position=pos(line, 1))
        )
        assert hover is not None and isinstance(hover.contents, types.MarkupContent)
        text = hover.contents.value
        assert "Settled by its words:" in text and because in text, text
