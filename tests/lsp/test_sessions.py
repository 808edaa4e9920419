"""Session files in the editor: a diagnostic on each message's own text inside the JSON."""

from __future__ import annotations

import json
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient

from turnlens.classifier import classify_unit
from turnlens.pipeline.analyze import UnitCache
from turnlens.pipeline.profile import Profile

from .conftest import change_doc, open_doc, pos, rng, wait_diagnostics

URI = "file:///work/.claude/projects/demo/session.jsonl"

PROMPT = 'Fix the "login" redirect — café 😀\nit loops after SSO'
REPLY = "Found it: `next` is not validated.\n\n```python\nreturn redirect(next)\n```"
RESULT = 'Traceback (most recent call last):\n  File "auth.py", line 12\nValueError: bad "next"'


def plain(value: Any) -> Any:
    """A JSON answer as dicts and lists (the client may hand back named tuples)."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def _line(obj: dict[str, object], *, ascii_only: bool) -> str:
    return json.dumps(obj, ensure_ascii=ascii_only)


def session() -> str:
    """Three messages; the prompt is written with \\u escapes (emoji as a surrogate pair)."""
    lines = [
        _line(
            {"type": "user", "message": {"role": "user", "content": PROMPT}, "uuid": "u1", "sessionId": "s"},
            ascii_only=True,
        ),
        _line(
            {
                "type": "assistant",
                "message": {"role": "assistant", "content": [{"type": "text", "text": REPLY}]},
                "uuid": "u2",
                "sessionId": "s",
            },
            ascii_only=False,
        ),
        _line(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "t", "content": RESULT}],
                },
                "uuid": "u3",
                "sessionId": "s",
            },
            ascii_only=False,
        ),
    ]
    return "\n".join(lines) + "\n"


def _utf16(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


def expected_range(doc: str, value: str, *, ascii_only: bool) -> types.Range:
    """Where the literal of `value` sits: from its first character to its first escaped line break."""
    literal = json.dumps(value, ensure_ascii=ascii_only)[1:-1]
    start = doc.index(literal)
    line = doc.count("\n", 0, start)
    col = start - (doc.rfind("\n", 0, start) + 1)
    line_text = doc.split("\n")[line]
    return rng((line, _utf16(line_text[:col])), (line, _utf16(line_text[: col + len(literal)])))


async def test_each_message_gets_a_diagnostic_on_its_escaped_text(client: LanguageClient) -> None:
    doc = session()
    open_doc(client, URI, doc, language="jsonl")
    diags = await wait_diagnostics(client, URI, version=1)
    assert [(d.data["role"], d.data["kind"]) for d in diags] == [
        ("user", "prompt"),
        ("assistant", "reply"),
        ("tool", "tool_result"),
    ]
    # the whole literal is on one document line: the range covers it, escapes and all
    assert diags[0].range == expected_range(doc, PROMPT, ascii_only=True)
    assert diags[1].range == expected_range(doc, REPLY, ascii_only=False)
    assert diags[2].range == expected_range(doc, RESULT, ascii_only=False)
    assert diags[2].data["class"] == "code"
    # only the user's prompt is routed
    assert diags[0].data["route"]["source"] != "role"
    assert [d.data["route"]["source"] for d in diags[1:]] == ["role", "role"]


async def test_an_edit_inside_one_message_relabels_that_message(client: LanguageClient) -> None:
    doc = session()
    open_doc(client, URI, doc, language="jsonl")
    before = await wait_diagnostics(client, URI, version=1)
    # replace the tool result's first word inside the JSON string with a review verdict
    line = doc.split("\n")[2]
    col = line.index("Traceback")
    change_doc(client, URI, 2, "FAIL: 3 checks broken.", rng((2, col), (2, col + len("Traceback"))))
    after = await wait_diagnostics(client, URI, version=2)
    assert [d.range for d in after[:2]] == [d.range for d in before[:2]]
    assert [d.data for d in after[:2]] == [d.data for d in before[:2]]
    assert after[2].data["words"] != before[2].data["words"]


async def test_a_cut_last_line_is_a_note_not_an_error(client: LanguageClient) -> None:
    doc = session() + '{"type": "user", "message": {"role": "user", "content": "half wri'
    open_doc(client, URI, doc, language="jsonl")
    diags = await wait_diagnostics(client, URI, version=1)
    notes = [d for d in diags if d.code == "format"]
    assert len(notes) == 1 and notes[0].range.start.line == 3
    assert notes[0].severity == types.DiagnosticSeverity.Information
    assert "incomplete" in notes[0].message
    assert len(diags) == 4


def test_only_the_edited_message_is_scored_again() -> None:
    doc = session()
    cache = UnitCache()
    profile = Profile()
    first = cache.analyze(doc, profile, path=URI)
    misses = cache.misses
    edited = doc.replace("Traceback (most", "Traceback (least", 1)
    prefix = doc.index("Traceback (most") + len("Traceback (")
    second = cache.analyze(edited, profile, edit=(prefix, len(doc) - prefix - len("most")), path=URI)
    assert cache.misses - misses == 1
    assert [r.classification for r in second.results[:2]] == [r.classification for r in first.results[:2]]


async def test_session_map_request_gives_each_message_with_its_range(client: LanguageClient) -> None:
    doc = session()
    open_doc(client, URI, doc, language="jsonl")
    diags = await wait_diagnostics(client, URI, version=1)
    answer = plain(
        await client.protocol.send_request_async("turnlens/sessionMap", {"uri": URI, "budget": 10})
    )
    data = answer["map"]
    units = data["units"]
    assert len(units) == len(diags) == 3
    assert [u["role"] for u in units] == ["user", "assistant", "tool"]
    # the test client turns JSON objects into named tuples, which rename the keyword `class`
    assert [u.get("class", u.get("_3")) for u in units] == [d.data["class"] for d in diags]
    # the unit's range spans its whole string literal; the diagnostic its first line
    first = units[0]["range"]
    assert (first["start"]["line"], first["start"]["character"]) == (
        diags[0].range.start.line,
        diags[0].range.start.character,
    )
    assert data["plan"]["verdict"] in ("FITS", "OVERFLOW")


async def test_session_map_command_writes_a_page(client: LanguageClient, tmp_path: object) -> None:
    doc = session()
    open_doc(client, URI, doc, language="jsonl")
    await wait_diagnostics(client, URI, version=1)
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="turnlens.sessionMap", arguments=[{"uri": URI}])
    )
    from pathlib import Path

    result = plain(result)
    page = Path(result["path"]).read_text(encoding="utf-8")
    assert result["units"] == 3 and "turnlens-data" in page and "Content-Security-Policy" in page


POLICY = (
    "# Release policy\n\nEvery release MUST be tagged and signed.\n"
    "The changelog SHALL list breaking changes first.\nAcceptance: CI is green on main."
)


def _tool_session(commands: list[str]) -> str:
    """One assistant message calling Bash once per command, then each call's result: the same
    Markdown document, answered in the reverse order."""
    uses = [
        {"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": c}}
        for i, c in enumerate(commands)
    ]
    lines = [{"type": "assistant", "message": {"role": "assistant", "content": uses}, "sessionId": "s"}]
    for i in reversed(range(len(commands))):
        block = {"type": "tool_result", "tool_use_id": f"t{i}", "content": POLICY}
        lines.append({"type": "user", "message": {"role": "user", "content": [block]}, "sessionId": "s"})
    return "".join(json.dumps(line) + "\n" for line in lines)


async def test_a_tool_result_is_shown_with_its_calls_evidence(client: LanguageClient) -> None:
    """The same document printed by `cat` is a file's content (code, not frozen), printed by a
    script it is left to the text, after `ls` it is a listing (context): the server reads each
    result with the call whose id it answers."""
    uri = "file:///work/.claude/projects/demo/calls.jsonl"
    open_doc(
        client, uri, _tool_session(["cat docs/RELEASE.md", "python render.py", "ls docs"]), language="jsonl"
    )
    diags = await wait_diagnostics(client, uri, version=1)
    results = [d for d in diags if d.data["kind"] == "tool_result"]
    assert len(results) == 3
    by_command = {0: "ls", 1: "python", 2: "cat"}  # answered in reverse order
    got = {by_command[i]: d.data["class"] for i, d in enumerate(results)}
    assert got["cat"] == "code" and got["ls"] == "context"
    # the script's output is the text's to decide, as it is without a call: here a spec
    alone = classify_unit(POLICY, "tool_result").task_class
    assert got["python"] == alone == "spec"
    # the hover says why: what the call ran, and the classes it leaves
    cat = results[2]
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=cat.range.start)
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "**Kind:** tool\\_result — its call ran cat: a file printed is a file's content → code" in (
        hover.contents.value
    )
    script = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=results[1].range.start
        )
    )
    assert script is not None and isinstance(script.contents, types.MarkupContent)
    assert (
        "a tool result is machine traffic, not conversation → spec, code, review, context"
        in script.contents.value
    )


async def test_a_prompt_settled_by_its_shape_says_so(client: LanguageClient) -> None:
    """A person's prompt of command lines is code, one of a few words that asks is a request
    (neither chitchat nor a review), and one that sets a standing rule is kept word for word
    (turnlens.core.prompt_shapes): the diagnostics carry the class, and the hover names the
    evidence."""
    prompts = ("npm start", "align the cards to the left", "answer in Korean from now on")
    doc = "\n".join(
        _line(
            {"type": "user", "message": {"role": "user", "content": text}, "uuid": f"u{i}", "sessionId": "s"},
            ascii_only=True,
        )
        for i, text in enumerate(prompts)
    )
    open_doc(client, URI, doc + "\n", language="jsonl")
    diags = await wait_diagnostics(client, URI, version=1)
    assert [d.data["kind"] for d in diags] == ["prompt", "prompt", "prompt"]
    assert diags[0].data["class"] == "code"
    assert diags[1].data["class"] not in ("chitchat", "review")
    assert diags[2].data["class"] in ("decision", "spec")
    because_of = ("nothing but shell command lines", "not chitchat or a review", "sets a standing rule")
    for diag, because in zip(diags, because_of, strict=True):
        start = diag.range.start
        hover = await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=URI),
                position=pos(start.line, start.character + 1),
            )
        )
        assert hover is not None and isinstance(hover.contents, types.MarkupContent)
        assert because in hover.contents.value, hover.contents.value
