"""workspace/executeCommand: classify (uri+range, text), plan, reload; code actions round-trip."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from .conftest import change_doc, open_doc, pos, rng, wait_diagnostics
from .docs import LF_SESSION

URI = "file:///work/session.md"
DOC = types.TextDocumentIdentifier(uri=URI)


async def run(client: LanguageClient, command: str, *args: object) -> object:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command, arguments=list(args))
    )


async def test_commands_are_advertised(client: LanguageClient) -> None:
    caps = client.init_result.capabilities  # type: ignore[attr-defined]
    assert caps is not None and caps.execute_command_provider is not None
    assert {"turnlens.classify", "turnlens.plan", "turnlens.reload"} <= set(
        caps.execute_command_provider.commands
    )


async def test_classify_text(client: LanguageClient) -> None:
    result = await run(client, "turnlens.classify", {"text": "APPROVED — ship it"})
    assert isinstance(result, dict)
    assert result["class"] == "decision" and result["max_ratio"] == 5 and result["frozen"] == "true"
    from turnlens.api import classify

    assert result["scores"] == classify("APPROVED — ship it").scores
    assert {"phase", "effort", "source", "reason"} <= set(result["route"])
    assert any(s["rule"] == "decision.caps" for s in result["signals"])


async def test_classify_selection_by_uri_and_range(client: LanguageClient) -> None:
    open_doc(client, URI, LF_SESSION)
    await wait_diagnostics(client, URI, version=1)
    result = await run(
        client,
        "turnlens.classify",
        {"uri": URI, "range": {"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 44}}},
    )
    assert isinstance(result, dict)
    assert result["class"] == "spec"
    assert result["range"] == {"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 44}}
    whole = await run(client, "turnlens.classify", {"uri": URI})
    assert isinstance(whole, dict) and whole["range"]["start"] == {"line": 0, "character": 0}


async def test_classify_bad_arguments_are_invalid_params(client: LanguageClient) -> None:
    with pytest.raises(JsonRpcException):
        await run(client, "turnlens.classify", {"uri": "file:///not/open.md"})
    with pytest.raises(JsonRpcException):
        await run(client, "turnlens.classify", 42)
    assert isinstance(await run(client, "turnlens.classify", {"text": "still answering"}), dict)


async def test_plan_command(client: LanguageClient) -> None:
    open_doc(client, URI, LF_SESSION)
    await wait_diagnostics(client, URI, version=1)
    result = await run(client, "turnlens.plan", {"uri": URI, "budget": 100})
    assert isinstance(result, dict)
    assert result["verdict"] == "FITS" and result["n_turns"] == 3
    assert [t["class"] for t in result["plan"]] == ["decision", "spec", "chitchat"]
    assert result["plan"][0]["applied_ratio"] == 1
    assert result["total_plan_tokens"] <= 100


async def test_reload_command(client: LanguageClient) -> None:
    open_doc(client, URI, LF_SESSION)
    await wait_diagnostics(client, URI, version=1)
    result = await run(client, "turnlens.reload")
    assert result == {"reloaded": True, "documents": 1}


async def actions_at(client: LanguageClient, line: int) -> list[types.CodeAction]:
    got = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=DOC,
            range=rng((line, 0), (line, 0)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    return [a for a in (got or []) if isinstance(a, types.CodeAction)]


async def apply(client: LanguageClient, action: types.CodeAction, text: str, version: int) -> str:
    """Apply the action's edit locally and send it to the server as the editor would."""
    assert action.edit is not None and action.edit.changes is not None
    (edit,) = action.edit.changes[URI]
    lines = text.split("\n")
    offset = sum(len(line) + 1 for line in lines[: edit.range.start.line]) + edit.range.start.character
    new_text = text[:offset] + edit.new_text + text[offset:]
    change_doc(client, URI, version, edit.new_text, edit.range)
    return new_text


def titled(actions: list[types.CodeAction], title: str) -> types.CodeAction:
    return next(a for a in actions if a.title == title)


async def test_code_action_pin_class_round_trip(client: LanguageClient) -> None:
    open_doc(client, URI, LF_SESSION)
    await wait_diagnostics(client, URI, version=1)
    actions = await actions_at(client, 4)
    await apply(client, titled(actions, "TurnLens: pin this turn as decision"), LF_SESSION, 2)
    diags = await wait_diagnostics(client, URI, version=2)
    assert [(d.data or {})["class"] for d in diags] == ["decision", "spec", "decision"]
    assert "pinned" in diags[2].message


async def test_code_action_ignore_turn_and_file(client: LanguageClient) -> None:
    open_doc(client, URI, LF_SESSION)
    await wait_diagnostics(client, URI, version=1)
    text = await apply(
        client, titled(await actions_at(client, 2), "TurnLens: ignore this turn"), LF_SESSION, 2
    )
    assert [(d.data or {})["class"] for d in await wait_diagnostics(client, URI, version=2)] == [
        "decision",
        "chitchat",
    ]
    await apply(client, titled(await actions_at(client, 0), "TurnLens: ignore this file"), text, 3)
    assert await wait_diagnostics(client, URI, version=3) == []


async def test_code_action_route_directive(client: LanguageClient) -> None:
    open_doc(client, URI, "Why does the importer's retry loop fail only on CI? Find the cause.\n")
    await wait_diagnostics(client, URI, version=1)
    action = titled(await actions_at(client, 0), "TurnLens: route this prompt to apply (/route apply)")
    await apply(client, action, "", 2)
    diags = await wait_diagnostics(client, URI, version=2)
    assert diags[0].data["route"]["phase"] == "apply"
    assert diags[0].data["route"]["source"] == "directive"


async def test_code_action_split_turn(client: LanguageClient) -> None:
    text = "APPROVED — ship it\nthanks!\n"
    open_doc(client, URI, text)
    assert len(await wait_diagnostics(client, URI, version=1)) == 1
    await apply(client, titled(await actions_at(client, 1), "TurnLens: split the turn here"), text, 2)
    diags = await wait_diagnostics(client, URI, version=2)
    assert [(d.data or {})["class"] for d in diags] == ["decision", "chitchat"]


async def test_out_of_order_and_unopened_changes_are_ignored(client: LanguageClient) -> None:
    open_doc(client, URI, LF_SESSION)
    await wait_diagnostics(client, URI, version=1)
    change_doc(client, "file:///work/never-opened.md", 5, "x")
    change_doc(client, URI, 1, "APPROVED\n")  # not newer than the open version
    result = await run(client, "turnlens.classify", {"uri": URI})
    assert isinstance(result, dict) and result["words"] == 13
    hover = await client.text_document_hover_async(types.HoverParams(text_document=DOC, position=pos(0, 0)))
    assert hover is not None
