"""A long document: the rules' quick labels first, then the model's, refined between requests.

The server publishes a document whose new text is long (over `QUICK_OVER_CHARS`) twice at
the same version: first with provisional labels (the rules' answers, routes pending), then,
once the model has read every turn, with the final ones, which are what a full analysis
gives. Requests answered meanwhile agree with the final labels for the turn they look at,
and an edit meanwhile never lets labels of the older text be published after it.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.bench.workloads import transcript
from turnlens.lsp.server import QUICK_OVER_CHARS
from turnlens.pipeline.analyze import analyze

from .conftest import change_doc, open_doc, pos, publishes, rng, wait_for

URI = "file:///work/long-session.md"
TEXT = transcript(3 * QUICK_OVER_CHARS // 2)


def labels_of(params: types.PublishDiagnosticsParams) -> list[tuple[int, str, str | None, str]]:
    """(turn, class, effort, route source) of each turn's diagnostic."""
    out = []
    for d in params.diagnostics:
        data: Any = d.data
        out.append((data["turn"], data["class"], data["route"]["effort"], data["route"]["source"]))
    return out


def expected(text: str) -> list[tuple[int, str, str | None, str]]:
    """What one full analysis of `text` gives (the CLI's and the API's road)."""
    return [
        (r.unit.index, r.classification.task_class, r.route.effort, r.route.source)
        for r in analyze(text).results
        if not r.unit.ignored
    ]


def provisional(params: types.PublishDiagnosticsParams) -> int:
    return sum(1 for d in params.diagnostics if (d.data or {}).get("provisional"))


def final_publish(client: LanguageClient, uri: str, version: int) -> types.PublishDiagnosticsParams | None:
    for p in publishes(client, uri):
        if p.version == version and p.diagnostics and not provisional(p):
            return p
    return None


async def test_quick_labels_first_then_the_models_equal_to_a_full_analysis(client: LanguageClient) -> None:
    open_doc(client, URI, TEXT)
    final = await wait_for(lambda: final_publish(client, URI, 1), timeout=120)
    first = publishes(client, URI)[0]
    assert first.version == 1
    n = len(expected(TEXT))
    assert len(first.diagnostics) == n == len(final.diagnostics)
    # the first publish: the rules' answers, each marked and said to be provisional
    assert provisional(first) >= n - 1  # the turn being written may be refined before it
    marked = [d for d in first.diagnostics if (d.data or {}).get("provisional")]
    assert all("provisional" in d.message for d in marked)
    assert all(d.data["route"]["source"] == "pending" for d in marked)  # type: ignore[index]
    # the final publish: the model's answers, the same as a full analysis of the text
    assert labels_of(final) == expected(TEXT)
    assert not any("provisional" in d.message for d in final.diagnostics)
    # the model changed some of the rules' answers: the quick ones were really replaced
    assert labels_of(first) != labels_of(final)
    # nothing is published after the final labels of this version
    assert publishes(client, URI)[-1] is final


async def test_hover_lens_and_hints_during_refinement_agree_with_the_final_labels(
    client: LanguageClient,
) -> None:
    open_doc(client, URI, TEXT)
    await wait_for(lambda: publishes(client, URI), timeout=60)
    middle = TEXT.count("\n") // 2
    # asked while the model may still be reading: each is answered
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=URI), position=pos(middle, 0))
    )
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=URI))
    )
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=URI), range=rng((0, 0), (middle + 200, 0))
        )
    )
    assert hover is not None and lenses and hints
    final = await wait_for(lambda: final_publish(client, URI, 1), timeout=120)
    by_line = {d.range.start.line: d for d in final.diagnostics}
    # the hover gave the final answer for its turn (a provisional one is refined first)
    assert hover.range is not None
    turn = max(line for line in by_line if line <= hover.range.start.line + 1)
    shown = by_line[turn].data["class"]  # type: ignore[index]
    assert f"**{shown}**" in hover.contents.value  # type: ignore[union-attr]
    assert "provisional" not in hover.contents.value  # type: ignore[union-attr]
    # lenses and hints asked meanwhile: a label each, final or marked provisional
    for lens in lenses:
        assert lens.command is not None and lens.command.title
    assert all(isinstance(h.label, str) and h.label for h in hints)
    # asked again after the final publish: nothing provisional is left, and they agree with it
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=URI))
    )
    titles = [lens.command.title for lens in lenses if lens.command is not None]
    assert titles and not any("provisional" in t for t in titles)
    by_start: dict[int, str] = {}
    for lens in lenses:  # the class lens comes first on its line, then the route's
        if lens.command is not None:
            by_start.setdefault(lens.range.start.line, lens.command.title)
    for line, d in by_line.items():
        assert by_start[line].startswith(d.data["class"])  # type: ignore[index]


async def test_an_edit_during_refinement_publishes_no_stale_labels(client: LanguageClient) -> None:
    open_doc(client, URI, TEXT)
    await wait_for(lambda: publishes(client, URI), timeout=60)
    # a new first turn, typed while the model reads the rest
    inserted = "Please review this diff and tell me what could break before we merge it.\n---TURN---\n"
    change_doc(client, URI, 2, inserted, rng((0, 0), (0, 0)))
    edited = inserted + TEXT
    final = await wait_for(lambda: final_publish(client, URI, 2), timeout=120)
    assert labels_of(final) == expected(edited)
    seen = publishes(client, URI)
    after_edit = seen[next(i for i, p in enumerate(seen) if p.version == 2) :]
    assert all(p.version == 2 for p in after_edit)  # nothing of version 1 after version 2
    assert after_edit[-1] is final


async def test_plan_command_reports_on_the_final_labels(client: LanguageClient) -> None:
    open_doc(client, URI, TEXT)
    await wait_for(lambda: publishes(client, URI), timeout=60)
    answer = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="turnlens.plan", arguments=[{"uri": URI, "budget": 1000}])
    )
    classes = [t["class"] for t in answer["plan"]]
    assert classes == [c for _, c, _, _ in expected(TEXT)]
    # the command settled the document: its final labels are published at once
    final = final_publish(client, URI, 1) or await wait_for(lambda: final_publish(client, URI, 1), timeout=60)
    assert [c for _, c, _, _ in labels_of(final)] == classes


async def test_a_short_document_is_labelled_by_the_model_at_once(client: LanguageClient) -> None:
    text = transcript(QUICK_OVER_CHARS // 4)
    open_doc(client, URI, text)
    await wait_for(lambda: publishes(client, URI), timeout=60)
    first = publishes(client, URI)[0]
    assert provisional(first) == 0
    assert labels_of(first) == expected(text)
