"""pytest-lsp fixtures: a real `turnlens serve` process over stdio per test."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

SERVER = [sys.executable, "-m", "turnlens", "serve"]
DEFAULTS: dict[str, Any] = {"debounceMs": 0}


def _capabilities(encodings: list[str] | None = None) -> types.ClientCapabilities:
    caps = pytest_lsp.client_capabilities("visual-studio-code")
    if encodings is not None:
        caps.general = types.GeneralClientCapabilities(position_encodings=encodings)
    return caps


def track(client: LanguageClient) -> None:
    """Record every publishDiagnostics (with its version) and every turnlens/status."""
    if hasattr(client, "published"):
        return
    published: list[types.PublishDiagnosticsParams] = []
    statuses: list[Any] = []
    client.published = published  # type: ignore[attr-defined]
    client.statuses = statuses  # type: ignore[attr-defined]
    features = client.protocol.fm.features
    original = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def on_publish(params: types.PublishDiagnosticsParams) -> None:
        published.append(params)
        original(params)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = on_publish

    @client.feature("turnlens/status")
    def on_status(params: Any) -> None:
        statuses.append(params)

    refreshes: list[str] = []
    client.refreshes = refreshes  # type: ignore[attr-defined]

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def on_lens_refresh(params: Any) -> None:
        refreshes.append("codeLens")

    @client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
    def on_hint_refresh(params: Any) -> None:
        refreshes.append("inlayHint")

    registrations: list[Any] = []
    client.registrations = registrations  # type: ignore[attr-defined]

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def on_register(params: Any) -> None:  # as an editor does: the server may watch files
        registrations.append(params)


async def start(client: LanguageClient, settings: dict[str, Any] | None = None, **init: Any) -> None:
    track(client)
    client.set_configuration({**DEFAULTS, **(settings or {})}, section="turnlens")
    client.init_result = await client.initialize_session(  # type: ignore[attr-defined]
        types.InitializeParams(
            capabilities=init.pop("capabilities", _capabilities()),
            initialization_options=init.pop("initialization_options", None),
            workspace_folders=[types.WorkspaceFolder(uri="file:///work", name="work")],
            **init,
        )
    )


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient) -> AsyncIterator[None]:
    await start(lsp_client)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def bare_client(lsp_client: LanguageClient) -> AsyncIterator[None]:
    """A client the test initialises itself (settings, encodings, options)."""
    yield
    if lsp_client.capabilities is not None:
        await lsp_client.shutdown_session()


def open_doc(
    client: LanguageClient, uri: str, text: str, version: int = 1, language: str = "markdown"
) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id=language, version=version, text=text)
        )
    )


def change_doc(
    client: LanguageClient,
    uri: str,
    version: int,
    text: str,
    rng: types.Range | None = None,
) -> None:
    change: types.TextDocumentContentChangeEvent
    if rng is None:
        change = types.TextDocumentContentChangeWholeDocument(text=text)
    else:
        change = types.TextDocumentContentChangePartial(range=rng, text=text)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[change],
        )
    )


def publishes(client: LanguageClient, uri: str) -> list[types.PublishDiagnosticsParams]:
    return [p for p in client.published if p.uri == uri]  # type: ignore[attr-defined]


async def wait_for(predicate: Callable[[], Any], timeout: float = 10.0) -> Any:
    """Poll until `predicate()` is truthy; its value is returned."""
    import asyncio

    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError("condition not met in time")
        await asyncio.sleep(0.01)


async def wait_diagnostics(
    client: LanguageClient, uri: str, version: int | None = None, timeout: float = 10.0
) -> list[types.Diagnostic]:
    """The diagnostics of the first publish for `uri` (at `version`, when given)."""

    def found() -> list[types.Diagnostic] | None:
        for p in publishes(client, uri):
            if version is None or p.version == version:
                return list(p.diagnostics)
        return None

    def wrapped() -> tuple[list[types.Diagnostic]] | None:
        got = found()
        return (got,) if got is not None else None

    return (await wait_for(wrapped, timeout))[0]  # type: ignore[no-any-return]


def pos(line: int, character: int) -> types.Position:
    return types.Position(line=line, character=character)


def rng(a: tuple[int, int], b: tuple[int, int]) -> types.Range:
    return types.Range(start=pos(*a), end=pos(*b))


Maker = Callable[..., Any]
