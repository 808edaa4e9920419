"""Markdown transcripts in the editor: an Aider history and a Markdown chat, end to end."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import change_doc, open_doc, rng, wait_diagnostics


def cls(d: types.Diagnostic) -> str:
    """The class a turn's diagnostic names (its `code` is the short class code)."""
    return str((d.data or {})["class"])


FIXTURES = Path(__file__).parent.parent / "formats" / "fixtures"
AIDER_URI = "file:///work/demo/.aider.chat.history.md"
CHAT_URI = "file:///work/demo/notes/db-migration.md"


def _read(rel: str) -> str:
    with (FIXTURES / rel).open(encoding="utf-8", newline="") as f:
        return f.read()


def _utf16(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


async def _actions(client: LanguageClient, uri: str, line: int) -> list[types.CodeAction]:
    got = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=rng((line, 0), (line, 0)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    return [a for a in (got or []) if isinstance(a, types.CodeAction)]


def _apply(uri: str, action: types.CodeAction, text: str) -> tuple[str, types.TextEdit]:
    assert action.edit is not None and action.edit.changes is not None
    (edit,) = action.edit.changes[uri]
    lines = text.split("\n")
    offset = sum(len(line) + 1 for line in lines[: edit.range.start.line]) + edit.range.start.character
    return text[:offset] + edit.new_text + text[offset:], edit


async def test_aider_history_diagnostics_sit_on_each_turn(client: LanguageClient) -> None:
    doc = _read("aider/.aider.chat.history.md")
    open_doc(client, AIDER_URI, doc)
    diags = await wait_diagnostics(client, AIDER_URI, version=1)
    assert [(d.range.start.line, d.range.start.character, d.data["role"]) for d in diags] == [
        (3, 2, "tool"),
        (7, 5, "user"),
        (9, 2, "tool"),
        (11, 5, "user"),
        (14, 0, "assistant"),
        (27, 2, "tool"),
        (31, 5, "user"),
        (33, 0, "assistant"),
        (37, 5, "user"),
        (39, 0, "assistant"),
    ]
    lines = doc.split("\n")
    # the prompt's range covers its first line's text after `#### ` (UTF-16: the emoji is 2 units)
    assert diags[3].range.end == types.Position(line=11, character=_utf16(lines[11]))
    assert cls(diags[6]) == "decision" and "pinned" in diags[6].message
    assert cls(diags[4]) == "code"
    assert [d.data["kind"] for d in diags if d.data["role"] == "tool"] == ["tool_result"] * 3
    assert all(d.data["route"]["source"] == "role" for d in diags if d.data["role"] != "user")


async def test_aider_code_actions_pin_a_prompt(client: LanguageClient) -> None:
    doc = _read("aider/.aider.chat.history.md")
    open_doc(client, AIDER_URI, doc)
    before = await wait_diagnostics(client, AIDER_URI, version=1)
    assert cls(before[8]) != "spec"
    actions = await _actions(client, AIDER_URI, 37)  # the Japanese prompt
    titles = {a.title for a in actions}
    assert "TurnLens: pin this turn as spec" in titles and "TurnLens: ignore this turn" in titles
    assert "TurnLens: split the turn here" not in titles  # Aider has no turn separator
    pin = next(a for a in actions if a.title == "TurnLens: pin this turn as spec")
    new_text, edit = _apply(AIDER_URI, pin, doc)
    assert edit.range.start == types.Position(line=37, character=0)
    change_doc(client, AIDER_URI, 2, edit.new_text, edit.range)
    after = await wait_diagnostics(client, AIDER_URI, version=2)
    assert len(after) == len(before)
    assert cls(after[8]) == "spec" and after[8].range.start.line == 38
    assert [cls(d) for d in after[:8]] == [cls(d) for d in before[:8]]
    assert new_text.split("\n")[37] == "<!-- turnlens: class=spec -->"


async def test_markdown_chat_diagnostics_and_actions(client: LanguageClient) -> None:
    doc = _read("markdown-chat/headings.md")
    open_doc(client, CHAT_URI, doc)
    diags = await wait_diagnostics(client, CHAT_URI, version=1)
    assert [(d.range.start.line, d.data["role"], d.data["kind"]) for d in diags] == [
        (4, "user", "prompt"),
        (8, "assistant", "reply"),
        (21, "user", "prompt"),
        (25, "assistant", "reply"),
    ]
    assert diags[1].range.start.character == 0
    assert diags[0].data["route"]["source"] != "role" and diags[1].data["route"]["source"] == "role"
    actions = await _actions(client, CHAT_URI, 21)
    ignore = next(a for a in actions if a.title == "TurnLens: ignore this turn")
    _, edit = _apply(CHAT_URI, ignore, doc)
    change_doc(client, CHAT_URI, 2, edit.new_text, edit.range)
    after = await wait_diagnostics(client, CHAT_URI, version=2)
    assert [d.range.start.line for d in after] == [4, 8, 26]
    # editing inside one turn changes that turn's diagnostic only
    line = doc.split("\n")[25]
    change_doc(client, CHAT_URI, 3, "The service MUST", rng((26, 0), (26, len("Then"))))
    third = await wait_diagnostics(client, CHAT_URI, version=3)
    assert [d.data for d in third[:2]] == [d.data for d in after[:2]]
    assert cls(after[2]) == "context" and cls(third[2]) == "spec" and line.startswith("Then")


async def test_prompt_file_hover_points_at_the_frontmatter_effort(client: LanguageClient) -> None:
    uri = "file:///work/demo/.github/prompts/security-review.prompt.md"
    doc = _read("prompt-file/.github/prompts/security-review.prompt.md")
    open_doc(client, uri, doc)
    (diag,) = await wait_diagnostics(client, uri, version=1)
    assert diag.range.start.line == 7  # the body's first line, under the frontmatter and a blank line
    assert diag.data["route"]["effort"] == "high" and diag.data["route"]["source"] == "explicit"
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=8, character=3)
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "line 5: `effort: high`" in hover.contents.value  # the frontmatter's own line
    assert hover.range is not None and hover.range.start.line == 7


async def test_aider_prompt_of_several_lines_hover_names_document_lines(client: LanguageClient) -> None:
    """A several-line Aider prompt is scored without its `#### ` markers, and the hover's rules
    still point at the document's lines (the text keeps the lines it was written on)."""
    doc = (
        "# aider chat started at 2025-06-01 09:00:00\n\n"
        "#### Add a retry to the upload client.  \n"
        "####   \n"
        "#### The client MUST NOT drop a chunk, and it must retry at most 3 times.  \n\n"
        "Sure.\n"
    )
    open_doc(client, AIDER_URI, doc)
    diags = await wait_diagnostics(client, AIDER_URI, version=1)
    assert [(d.range.start.line, d.data["role"]) for d in diags] == [(2, "user"), (6, "assistant")]
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=AIDER_URI),
            position=types.Position(line=2, character=8),
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    text = hover.contents.value
    assert "####" not in text
    assert "line 5" in text and "message line" not in text  # MUST NOT is on the document's line 5


async def test_a_specstory_history_shows_each_part_of_an_agent_turn(client: LanguageClient) -> None:
    """A SpecStory agent turn's parts get a mark each, with the part's kind: a shell call is code
    whatever it runs; the person's prompts keep their route, the agent's parts get none."""
    uri = "file:///work/demo/.specstory/history/2026-01-03_12-46Z-export-bug.md"
    doc = (
        "<!-- Generated by SpecStory -->\n\n_**User (2026-01-03 12:46Z)**_\n\n"
        "the CSV export is empty since Monday, fix it\n\n---\n\n"
        "_**Agent (model gpt-5, mode Agent)**_\n\n"
        "<think><details><summary>Thought Process</summary>\nThe date filter may drop today.\n"
        "</details></think>\n\n---\n\nLet me run the tests first.\n\n---\n\n"
        '<tool-use data-tool-type="shell" data-tool-name="run_terminal_cmd">\n<details><summary>Tool use: '
        "**run_terminal_cmd** • Run command: pytest -q</summary>\n\n```bash\npytest -q\n```\n</details>\n"
        "</tool-use>\n\n---\n\nFixed: the filter now keeps today's rows.\n\n---\n"
    )
    open_doc(client, uri, doc)
    diags = await wait_diagnostics(client, uri, version=1)
    lines = doc.split("\n")
    assert [(lines[d.range.start.line][:12], d.data["kind"]) for d in diags] == [
        ("the CSV expo", "prompt"),
        ("<think><deta", "thinking"),
        ("Let me run t", "reply"),
        ("<tool-use da", "tool_call"),
        ("Fixed: the f", "reply"),
    ]
    assert cls(diags[3]) == "code"
    assert diags[0].data["route"]["source"] != "role"
    assert all(d.data["route"]["source"] == "role" for d in diags[1:])
