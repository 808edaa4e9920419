"""Diagnostics: one per turn, exact ranges, severity, freshness."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import change_doc, open_doc, publishes, rng, start, wait_diagnostics, wait_for
from .docs import CRLF_SESSION, LF_SESSION, UTF16_LINE0_END

URI = "file:///work/session.md"


async def test_one_diagnostic_per_turn_with_exact_utf16_ranges(client: LanguageClient) -> None:
    open_doc(client, URI, CRLF_SESSION)
    diags = await wait_diagnostics(client, URI, version=1)
    assert [(d.data or {})["class"] for d in diags] == ["decision", "code", "chitchat"]
    assert [d.range.start.line for d in diags] == [0, 2, 7]
    first = diags[0]
    assert first.range == rng((0, 0), (0, UTF16_LINE0_END))
    assert first.severity == types.DiagnosticSeverity.Hint
    assert first.source == "turnlens"
    assert first.message.startswith("decision · ≤5:1 · frozen · ")
    assert "effort" in first.message or "no route" in first.message
    assert first.data["class"] == "decision" and first.data["frozen"] == "true"
    from turnlens.api import classify

    assert first.data["scores"] == classify("APPROVED — ship it 🚀\r\n").scores
    assert set(first.data["route"]) >= {"phase", "effort", "label", "source", "reason"}
    # "thanks! 🙏 é\u0301": 8 + 2 (emoji) + 1 + 2 (e + combining mark) = 13 UTF-16 units
    assert diags[2].range.end.character == 13


async def test_edit_publishes_only_for_the_new_version(client: LanguageClient) -> None:
    open_doc(client, URI, LF_SESSION)
    await wait_diagnostics(client, URI, version=1)
    # turn the last turn ("thanks!") into a review verdict
    change_doc(client, URI, 2, "FAIL: 3 tests broken", rng((4, 0), (4, 7)))
    diags = await wait_diagnostics(client, URI, version=2)
    assert [(d.data or {})["class"] for d in diags] == ["decision", "spec", "review"]
    assert all(p.version in (1, 2) for p in publishes(client, URI))
    assert [p.version for p in publishes(client, URI)] == sorted(p.version for p in publishes(client, URI))


async def test_burst_of_edits_ends_on_the_final_text(bare_client: LanguageClient) -> None:
    client = bare_client
    await start(client, {"debounceMs": 50})
    text = "hello there\n"
    open_doc(client, URI, text)
    await wait_diagnostics(client, URI, version=1)
    words = ["APPROVED", "merge", "it", "now", "please", "SPEC-9"]
    version = 1
    for i in range(50):
        version += 1
        word = words[i % len(words)] + " "
        line = text.split("\n")[0]
        change_doc(client, URI, version, word, rng((0, len(line)), (0, len(line))))
        text = line + word + "\n"
    diags = await wait_diagnostics(client, URI, version=version)
    versions = [p.version for p in publishes(client, URI)]
    assert versions == sorted(versions)
    assert len(versions) < 50  # debounced: far fewer publishes than edits
    from turnlens.api import classify

    assert [(d.data or {})["class"] for d in diags] == [classify(text).task_class]


@pytest.mark.parametrize("severity", ["error", "warning", "information", "hint"])
async def test_severity_setting(bare_client: LanguageClient, severity: str) -> None:
    await start(bare_client, {"diagnostics": {"severity": severity}})
    open_doc(bare_client, URI, LF_SESSION)
    diags = await wait_diagnostics(bare_client, URI, version=1)
    expected = {
        "error": types.DiagnosticSeverity.Error,
        "warning": types.DiagnosticSeverity.Warning,
        "information": types.DiagnosticSeverity.Information,
        "hint": types.DiagnosticSeverity.Hint,
    }[severity]
    assert diags and all(d.severity == expected for d in diags)


async def test_severity_off_publishes_nothing(bare_client: LanguageClient) -> None:
    await start(bare_client, {"diagnostics": {"severity": "off"}})
    open_doc(bare_client, URI, LF_SESSION)
    assert await wait_diagnostics(bare_client, URI, version=1) == []


async def test_size_limit_gives_one_information_diagnostic(bare_client: LanguageClient) -> None:
    await start(bare_client, {"maxDocumentSize": 50})
    open_doc(bare_client, URI, LF_SESSION * 3)
    diags = await wait_diagnostics(bare_client, URI, version=1)
    assert len(diags) == 1
    assert diags[0].severity == types.DiagnosticSeverity.Information
    assert diags[0].code == "too-large"
    assert "maxDocumentSize" in diags[0].message


async def test_exclude_globs(bare_client: LanguageClient) -> None:
    await start(bare_client, {"exclude": ["**/archive/**", "CHANGELOG.md"]})
    open_doc(bare_client, "file:///work/archive/old.md", LF_SESSION)
    open_doc(bare_client, "file:///work/CHANGELOG.md", LF_SESSION)
    open_doc(bare_client, URI, LF_SESSION)
    assert len(await wait_diagnostics(bare_client, URI, version=1)) == 3
    assert await wait_diagnostics(bare_client, "file:///work/archive/old.md", version=1) == []
    assert await wait_diagnostics(bare_client, "file:///work/CHANGELOG.md", version=1) == []


async def test_on_save_mode_waits_for_save(bare_client: LanguageClient) -> None:
    await start(bare_client, {"analyze": "onSave"})
    open_doc(bare_client, URI, "thanks!\n")
    assert [(d.data or {})["class"] for d in await wait_diagnostics(bare_client, URI, version=1)] == [
        "chitchat"
    ]
    change_doc(bare_client, URI, 2, "APPROVED — merge it\n")
    import asyncio

    await asyncio.sleep(0.3)
    assert [p.version for p in publishes(bare_client, URI)] == [1]
    bare_client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=URI))
    )
    assert [(d.data or {})["class"] for d in await wait_diagnostics(bare_client, URI, version=2)] == [
        "decision"
    ]


async def test_close_clears_diagnostics(client: LanguageClient) -> None:
    open_doc(client, URI, LF_SESSION)
    await wait_diagnostics(client, URI, version=1)
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=URI))
    )
    await wait_for(lambda: not publishes(client, URI)[-1].diagnostics)


async def test_toggle_diagnostics_off_by_configuration_change(bare_client: LanguageClient) -> None:
    await start(bare_client)
    open_doc(bare_client, URI, LF_SESSION)
    assert len(await wait_diagnostics(bare_client, URI, version=1)) == 3
    bare_client.set_configuration({"debounceMs": 0, "diagnostics": {"enable": False}}, section="turnlens")
    bare_client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await wait_for(lambda: not publishes(bare_client, URI)[-1].diagnostics)
