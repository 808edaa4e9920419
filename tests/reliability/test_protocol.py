"""Malformed protocol traffic: invalid JSON, unknown methods, wrong parameter types,
positions past the end, edits to unopened documents and out-of-order versions get
a JSON-RPC error or are ignored, and the server keeps answering.

These tests write raw `Content-Length` framed bytes to `python -m turnlens serve`
(see rawlsp.py): no LSP client library would send most of this.
"""

from __future__ import annotations

import json
from typing import Any

from .conftest import Spawn
from .rawlsp import RawServer, encode, frame

URI = "file:///work/protocol.md"
TEXT = (
    "hello there, how are you\n---TURN---\nAPPROVED — ship it 🚀\n---TURN---\nImplementing SPEC-120 AC-03\n"
)

GARBAGE: dict[str, bytes] = {
    "invalid JSON": frame(b"{not json"),
    "truncated JSON": frame(b'{"jsonrpc": "2.0", "id": 77, "method": "textDocument/hov'),
    "a JSON array": frame(b"[1, 2, 3]"),
    "a JSON number": frame(b"42"),
    "JSON null": frame(b"null"),
    "invalid UTF-8": frame(b'{"jsonrpc": "2.0", "method": "x", "params": "\xff\xfe"}'),
    "no jsonrpc member": frame(b'{"id": 99, "method": "textDocument/hover"}'),
    "jsonrpc 1.0": frame(b'{"jsonrpc": "1.0", "id": 98, "method": "shutdown"}'),
    "unknown header": b"X-Junk: yes\r\n" + encode({"jsonrpc": "2.0", "method": "$/nothing"}),
    "empty body": frame(b""),
    "deeply nested": frame(b"[" * 50_000 + b"]" * 50_000),
    "a huge string": frame(
        json.dumps({"jsonrpc": "2.0", "method": "$/x", "params": "x" * 2_000_000}).encode()
    ),
}


def _hover(line: int, character: int, uri: str = URI) -> dict[str, Any]:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}


def _change(version: Any, changes: Any, uri: str = URI) -> dict[str, Any]:
    return {"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}


def _whole(line0: int, line1: int) -> dict[str, Any]:
    return {"start": {"line": line0, "character": 0}, "end": {"line": line1, "character": 0}}


async def _still_answers(server: RawServer, after: str) -> None:
    answer = await server.request("textDocument/hover", _hover(2, 3), timeout=5)
    assert "result" in answer and answer["result"] is not None, f"after {after}: {answer}"
    assert "decision" in answer["result"]["contents"]["value"], after


async def test_garbage_bytes_are_ignored_and_the_server_keeps_answering(spawn: Spawn) -> None:
    server = await spawn()
    await server.initialize()
    server.open(URI, TEXT)
    await server.wait_diagnostics(URI, 1)
    for name, data in GARBAGE.items():
        server.write(data)
        await _still_answers(server, name)
    assert await server.shutdown_and_exit() == 0


async def test_bad_requests_get_errors_or_safe_answers(spawn: Spawn) -> None:
    server = await spawn()
    await server.initialize()
    server.open(URI, TEXT)
    await server.wait_diagnostics(URI, 1)

    async def error_of(method: str, params: Any) -> dict[str, Any]:
        answer = await server.request(method, params, timeout=5)
        assert "error" in answer, (method, params, answer)
        await _still_answers(server, f"{method} {params}")
        error: dict[str, Any] = answer["error"]
        return error

    async def result_of(method: str, params: Any) -> Any:
        answer = await server.request(method, params, timeout=5)
        assert "result" in answer, (method, params, answer)
        await _still_answers(server, f"{method} {params}")
        return answer["result"]

    assert (await error_of("unknown/method", {"a": 1}))["code"] == -32601
    assert (await error_of("$/unknownRequest", {}))["code"] == -32601
    args: list[Any]
    for args in (
        ["x"],
        [],
        [{"uri": 5}],
        [{"uri": URI, "range": "bad"}],
        [{"text": 5}],
        [{"uri": "file:///no.md"}],
    ):
        error = await error_of(
            "workspace/executeCommand", {"command": "turnlens.classify", "arguments": args}
        )
        assert error["code"] == -32602, args
    for args in (
        [{"uri": URI, "budget": -1}],
        [{"uri": URI, "budget": "big"}],
        [{"uri": URI, "budget": True}],
    ):
        error = await error_of("workspace/executeCommand", {"command": "turnlens.plan", "arguments": args})
        assert error["code"] == -32602, args
    await error_of("workspace/executeCommand", {"command": "turnlens.nope", "arguments": []})

    # positions past the end: clamped, answered
    assert (await result_of("textDocument/hover", _hover(999, 999))) is not None
    assert (await result_of("textDocument/hover", _hover(0, 10_000))) is not None
    assert isinstance(
        await result_of("textDocument/inlayHint", {"textDocument": {"uri": URI}, "range": _whole(0, 10**9)}),
        list,
    )
    actions = await result_of(
        "textDocument/codeAction",
        {"textDocument": {"uri": URI}, "range": _whole(500, 900), "context": {"diagnostics": []}},
    )
    assert isinstance(actions, list)
    far = {"start": {"line": 999, "character": 99}, "end": {"line": 0, "character": 0}}
    classified = await result_of(
        "workspace/executeCommand",
        {"command": "turnlens.classify", "arguments": [{"uri": URI, "range": far}]},
    )
    assert classified["words"] == len(TEXT.split())
    # documents that are not open: nothing to say
    for method, params in (
        ("textDocument/hover", _hover(0, 0, "file:///not-open.md")),
        ("textDocument/codeLens", {"textDocument": {"uri": "file:///not-open.md"}}),
        ("textDocument/codeLens", {"textDocument": {"uri": 5}}),  # read as the string "5"
        ("textDocument/inlayHint", {"textDocument": {"uri": "file:///not-open.md"}, "range": _whole(0, 1)}),
    ):
        assert await result_of(method, params) in (None, [])


async def test_bad_notifications_are_ignored_and_change_nothing(spawn: Spawn) -> None:
    server = await spawn()
    await server.initialize()
    server.open(URI, TEXT)
    await server.wait_diagnostics(URI, 1)
    before = server.diagnostics(URI, 1)
    bad: list[tuple[str, Any]] = [
        ("textDocument/didChange", _change(2, [{"text": "x"}], "file:///not-open.md")),
        ("textDocument/didChange", _change(0, [{"text": "an out-of-order version"}])),
        ("textDocument/didChange", _change(1, [{"text": "the same version again"}])),
        ("textDocument/didChange", _change("x", 5)),
        ("textDocument/didChange", {"textDocument": {"uri": URI}}),
        ("textDocument/didClose", {"textDocument": {"uri": "file:///never-opened.md"}}),
        ("textDocument/didSave", {"textDocument": {"uri": "file:///never-opened.md"}}),
        ("textDocument/didOpen", {"textDocument": {"uri": "file:///half.md"}}),
        ("$/cancelRequest", {"id": 12345}),
        ("$/setTrace", {"value": "verbose"}),
        ("unknown/notification", {"x": 1}),
        ("workspace/didChangeConfiguration", {"settings": 42}),
        ("workspace/didChangeWatchedFiles", {"changes": "nope"}),
    ]
    for method, params in bad:
        server.notify(method, params)
        await _still_answers(server, f"{method} {params}")
    # nothing above changed the document: no new version was published, the text is the same
    assert server.diagnostics(URI) == before
    result = await server.request(
        "workspace/executeCommand", {"command": "turnlens.classify", "arguments": [{"uri": URI}]}
    )
    assert result["result"]["words"] == len(TEXT.split())

    # an edit past the end is clamped to the end; a stale one after it is ignored
    server.notify(
        "textDocument/didChange",
        _change(
            5,
            [
                {
                    "range": {"start": {"line": 99, "character": 0}, "end": {"line": 120, "character": 5}},
                    "text": "THE END",
                }
            ],
        ),
    )
    server.notify("textDocument/didChange", _change(4, [{"text": "stale"}]))
    final = TEXT + "THE END"
    edited = await server.wait_diagnostics(URI, 5)
    server.open("file:///work/fresh.md", final)
    fresh = await server.wait_diagnostics("file:///work/fresh.md", 1)
    assert edited == fresh
    versions = [
        p["version"] for p in server.notifications("textDocument/publishDiagnostics") if p["uri"] == URI
    ]
    assert versions == sorted(versions) and 4 not in versions
    assert await server.shutdown_and_exit() == 0


# Regression test for a bug this suite found (since fixed): a request whose params cannot be read
# (wrong types, negative positions, null) gets no response at all: pygls raises while decoding it and
# only logs; the client waits for ever.
async def test_requests_with_unreadable_params_get_an_error_response(spawn: Spawn) -> None:
    server = await spawn()
    await server.initialize()
    server.open(URI, TEXT)
    await server.wait_diagnostics(URI, 1)
    ids = [
        server.send_request("textDocument/hover", _hover("zero", 1)),  # type: ignore[arg-type]
        server.send_request("textDocument/hover", _hover(-1, -5)),
        server.send_request("textDocument/hover", None),
        server.send_request("textDocument/hover", [1, 2]),
        server.send_request("unknown/method"),  # JSON-RPC lets a request leave out `params`
    ]
    # messages are read in order: once a later request is answered, the earlier ones were handled
    await _still_answers(server, "unreadable requests")
    unanswered = [i for i in ids if server.response(i) is None]
    assert not unanswered, f"{len(unanswered)} of {len(ids)} requests got no response at all"
    for i in ids:
        response = server.response(i)
        assert response is not None and "error" in response
        assert response["error"]["code"] in (-32602, -32603)
