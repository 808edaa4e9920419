"""One-document exports in the editor: a ChatGPT export's messages get diagnostics on their own
escaped text, an edit re-labels only the edited message, and hover finds the message."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from turnlens.pipeline.formats import FormatOptions, get_format

from .conftest import change_doc, open_doc, pos, rng, wait_diagnostics

EXPORT = Path(__file__).resolve().parent.parent / "formats" / "fixtures" / "chatgpt" / "conversations.json"
URI = "file:///work/export/conversations.json"


def _position(doc: str, offset: int) -> tuple[int, int]:
    """Line and UTF-16 column of a document offset, worked out here rather than by the server."""
    line = doc.count("\n", 0, offset)
    line_start = doc.rfind("\n", 0, offset) + 1
    return line, len(doc[line_start:offset].encode("utf-16-le")) // 2


async def test_each_message_of_an_export_gets_its_exact_range(client: LanguageClient) -> None:
    doc = EXPORT.read_text(encoding="utf-8")
    units = get_format("chatgpt").split(doc, FormatOptions()).units
    open_doc(client, URI, doc, language="json")
    diags = [d for d in await wait_diagnostics(client, URI, version=1) if d.code != "format"]
    assert len(diags) == len(units) == 14
    for d, unit in zip(diags, units, strict=True):
        # JSON strings hold no raw line break: each range is the whole literal, on one line
        assert d.range == rng(_position(doc, unit.start), _position(doc, unit.end)), unit.text
    # a literal with \u00e9, \u00ab and an emoji written as a surrogate pair (\ud83e\udd14)
    french = next(i for i, u in enumerate(units) if u.text.startswith("Quelle est la différence"))
    raw = doc[units[french].start : units[french].end]
    assert "\\u00e9" in raw and "\\ud83e\\udd14" in raw
    assert diags[french].range.end.character - diags[french].range.start.character == len(raw)
    assert [(d.data["role"], d.data["kind"]) for d in diags[:2]] == [
        ("user", "prompt"),
        ("assistant", "thinking"),
    ]


async def test_an_edit_inside_one_message_relabels_only_it(client: LanguageClient) -> None:
    doc = EXPORT.read_text(encoding="utf-8")
    open_doc(client, URI, doc, language="json")
    before = [d for d in await wait_diagnostics(client, URI, version=1) if d.code != "format"]
    target = "The divisor is 0 on the last line"
    line = doc.count("\n", 0, doc.index(target))
    col = doc.split("\n")[line].index(target)
    # message 7 is the assistant's reply (never a decision): a stated requirement makes it a spec
    change_doc(client, URI, 2, "The fix MUST keep the old API. ", rng((line, col), (line, col)))
    after = [d for d in await wait_diagnostics(client, URI, version=2) if d.code != "format"]
    changed = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a.data != b.data]
    assert changed == [7]
    assert after[7].data["class"] == "spec" and before[7].data["class"] != "spec"
    # later messages on other lines keep their ranges
    assert [d.range for d in after[8:]] == [d.range for d in before[8:]]


async def test_hover_inside_a_message_names_its_role_and_kind(client: LanguageClient) -> None:
    doc = EXPORT.read_text(encoding="utf-8")
    open_doc(client, URI, doc, language="json")
    await wait_diagnostics(client, URI, version=1)
    target = "Effet : ce qui est produit"
    line = doc.count("\n", 0, doc.index(target))
    col = doc.split("\n")[line].index(target) + 3
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=URI), position=pos(line, col))
    )
    assert hover is not None
    value = hover.contents.value if isinstance(hover.contents, types.MarkupContent) else str(hover.contents)
    assert "tool result" in value and "assistant" not in value


ROLLOUT = next((EXPORT.parent.parent / "codex").glob("rollout-2026-03-*.jsonl"))
ROLLOUT_URI = "file:///work/.codex/sessions/2026/03/14/" + ROLLOUT.name


async def test_codex_prompts_show_the_effort_used_beside_the_routed_one(client: LanguageClient) -> None:
    doc = ROLLOUT.read_text(encoding="utf-8")
    open_doc(client, ROLLOUT_URI, doc, language="jsonl")
    diags = [d for d in await wait_diagnostics(client, ROLLOUT_URI, version=1) if d.code != "format"]
    prompts = [d for d in diags if d.data["kind"] == "prompt"]
    assert [d.range.start.line for d in prompts] == [3, 16, 25]
    assert [d.message.rsplit(" · ", 1)[1] for d in prompts] == ["used high", "used medium", "used low"]
    assert all("used" not in d.message for d in diags if d.data["kind"] != "prompt")
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=ROLLOUT_URI),
            position=pos(3, prompts[0].range.start.character + 2),
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "**Effort used** (recorded in the session): high" in hover.contents.value


VSCODE_SESSION = EXPORT.parent.parent / "claude-code" / "8f41c2d0-6a7b-4e3c-9d12-5b6a7c8d9e0f.jsonl"


async def test_injected_text_and_commands_are_drawn_faded(client: LanguageClient) -> None:
    doc = VSCODE_SESSION.read_text(encoding="utf-8")
    uri = "file:///home/ana/.claude/projects/shop/8f41c2d0-6a7b-4e3c-9d12-5b6a7c8d9e0f.jsonl"
    open_doc(client, uri, doc, language="jsonl")
    diags = [d for d in await wait_diagnostics(client, uri, version=1) if d.code != "format"]
    faded = [d for d in diags if d.tags and types.DiagnosticTag.Unnecessary in d.tags]
    assert sorted({d.data["kind"] for d in faded}) == ["command", "injected"] and len(faded) == 8
    prompts = [d for d in diags if d.data["kind"] == "prompt"]
    assert len(prompts) == 3 and not any(d.tags for d in prompts)
    assert all(d.data["route"]["source"] == "role" for d in faded)  # never routed
