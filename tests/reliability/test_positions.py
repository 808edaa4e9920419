"""Every range the server sends is valid in the negotiated encoding and points at
the unit it describes: converted back to text with an independent converter, it
starts at the unit's first non-blank character (diagnostics, lenses, hints, hover)
or covers exactly the unit (command arguments, classify results)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.conftest import _capabilities, open_doc, start, wait_diagnostics
from turnlens.api import classify_unit
from turnlens.lsp.features import code_lens, diagnostics, inlay_hints
from turnlens.lsp.server import TurnLensServer
from turnlens.lsp.textdoc import Document
from turnlens.pipeline.formats.turns import split_units
from turnlens.pipeline.units import Unit

from . import positions
from .conftest import property_settings
from .strategies import documents
from .test_incremental import _json, _open

URI = "file:///work/positions.md"
DOC = (
    "  \t APPROVED — ship it 🚀 👩\u200d💻\r\n"
    "---TURN---\r\n"
    "\r\n"
    "   ```python\r\n def f(x): return 'e\u0301'\r\n```\r\n"
    "---TURN---\n"
    "中文 SPEC-120 AC-03 \U0001f600 with new handler\rsecond line after a lone CR\n"
    "---TURN---\n"
    "<!-- turnlens: ignore -->\nAPPROVED but ignored\n"
    "---TURN---\n"
    "\n\n   thanks! 🙏 e\u0301 \U00010348"
)


def _first_line_end(text: str, unit: Unit) -> int:
    """Offset of the end of the line holding the unit's first non-blank character."""
    starts = positions.line_starts(text)
    body = positions.lines(text)
    line = max(i for i, s in enumerate(starts) if s <= unit.content_start)
    return starts[line] + len(body[line])


def _pos(text: str, offset: int, encoding: str) -> types.Position:
    p = positions.position(text, offset, encoding)
    return types.Position(line=p["line"], character=p["character"])


@pytest.mark.parametrize("encoding", positions.ENCODINGS)
async def test_every_range_is_valid_and_points_at_its_unit(
    bare_client: LanguageClient, encoding: str
) -> None:
    client = bare_client
    await start(client, {"budget": 50}, capabilities=_capabilities([encoding]))
    negotiated = client.init_result.capabilities.position_encoding  # type: ignore[attr-defined]
    assert negotiated == encoding
    open_doc(client, URI, DOC)
    units = [u for u in split_units(DOC) if not u.ignored]
    assert len(units) == 4
    diags = await wait_diagnostics(client, URI, version=1)

    # diagnostics: on the first non-blank line of their unit, to its end
    assert len(diags) == len(units)
    for d, unit in zip(diags, units, strict=True):
        a, b = positions.range_offsets(DOC, d.range, encoding)
        assert a == unit.content_start, (d.range, unit)
        assert b == _first_line_end(DOC, unit)
        assert (d.data or {})["class"] == classify_unit(unit).task_class

    # code lenses: at the unit's first non-blank character; their argument covers the unit
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=URI))
    )
    assert lenses
    unit_lenses = [lens for lens in lenses if lens.command and lens.command.command == "turnlens.classify"]
    assert len(unit_lenses) == 2 * len(units)
    for lens in lenses:
        positions.range_offsets(DOC, lens.range, encoding)
    for lens in unit_lenses:
        a, _ = positions.range_offsets(DOC, lens.range, encoding)
        unit = next(u for u in units if u.content_start == a)
        assert lens.command is not None and lens.command.arguments
        arg: Any = lens.command.arguments[0]
        assert positions.range_offsets(DOC, arg["range"], encoding) == (unit.start, unit.end)

    # inlay hints: at the end of each unit's first non-blank line
    whole = types.Range(
        start=types.Position(line=0, character=0), end=types.Position(line=10_000, character=0)
    )
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(text_document=types.TextDocumentIdentifier(uri=URI), range=whole)
    )
    assert hints is not None
    assert [positions.offset(DOC, h.position, encoding) for h in hints] == [
        _first_line_end(DOC, u) for u in units
    ]

    for unit in units:
        inside = _pos(DOC, unit.content_start + 1, encoding)
        # hover anywhere in the unit: its range is the unit from its first non-blank character
        hover = await client.text_document_hover_async(
            types.HoverParams(text_document=types.TextDocumentIdentifier(uri=URI), position=inside)
        )
        assert hover is not None and hover.range is not None
        assert positions.range_offsets(DOC, hover.range, encoding) == (unit.content_start, unit.end)

        # classify the unit's range: the same text comes back, with the same range
        rng = {
            "start": positions.position(DOC, unit.start, encoding),
            "end": positions.position(DOC, unit.end, encoding),
        }
        result: Any = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="turnlens.classify", arguments=[{"uri": URI, "range": rng}])
        )
        assert positions.range_offsets(DOC, result["range"], encoding) == (unit.start, unit.end)
        assert result["class"] == classify_unit(unit).task_class

        # code actions: plain edits at valid positions
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=URI),
                range=types.Range(start=inside, end=inside),
                context=types.CodeActionContext(diagnostics=[]),
            )
        )
        assert actions
        for action in actions:
            assert isinstance(action, types.CodeAction) and action.edit is not None
            assert action.edit.changes is not None
            for edit in action.edit.changes[URI]:
                positions.range_offsets(DOC, edit.range, encoding)


@given(documents, st.sampled_from(positions.ENCODINGS), st.data())
@property_settings(100)
def test_document_positions_round_trip(text: str, encoding: str, data: st.DataObject) -> None:
    """The server's position conversions agree with the independent ones, both ways."""
    doc = Document("file:///p.md", text, 1, encoding=encoding)
    for _ in range(8):
        o = positions.snap(text, data.draw(st.integers(0, len(text))))
        p = doc.position_at(o)
        assert {"line": p.line, "character": p.character} == positions.position(text, o, encoding)
        assert doc.offset_at(p) == o
    for line, body in enumerate(positions.lines(text)):
        end = doc.line_end_position(line)
        assert end.character == positions.code_units(body, encoding)


def _check_views(text: str, encoding: str) -> None:
    """Diagnostics, lenses and hints of `text`, built by the server's own code, in process."""
    ls = TurnLensServer()
    state = _open(ls, "file:///p.md", text, encoding)
    ls.analyze(state)
    units = [r.unit for r in state.results if not r.unit.ignored]
    diags = _json(diagnostics.build(state))
    assert len(diags) == len(units)
    for d, unit in zip(diags, units, strict=True):
        a, b = positions.range_offsets(text, d["range"], encoding)
        assert (a, b) == (unit.content_start, _first_line_end(text, unit)), (d["range"], unit)
    for lens in _json(code_lens.build(state)):
        a, _ = positions.range_offsets(text, lens["range"], encoding)
        for arg in lens["command"].get("arguments") or []:
            if "range" in arg:
                unit = next(u for u in units if u.content_start == a)
                assert positions.range_offsets(text, arg["range"], encoding) == (unit.start, unit.end)
    hints = [positions.offset(text, h["position"], encoding) for h in _json(inlay_hints.build(state))]
    assert hints == [_first_line_end(text, u) for u in units]


@given(documents, st.sampled_from(positions.ENCODINGS))
@property_settings(100)
def test_view_ranges_point_at_their_units(text: str, encoding: str) -> None:
    _check_views(text, encoding)


# A regression: diagnostics once found a turn's first line by looking for LF only, so a lone CR
# (an LSP line break) put the range past the end of its line, or on the wrong line.
@pytest.mark.parametrize(
    "text", ["first line\rsecond line", "\r\r  hello there\n", "a\n---TURN---\n\rAPPROVED\rmore"]
)
def test_lone_cr_line_breaks(text: str) -> None:
    for encoding in positions.ENCODINGS:
        _check_views(text, encoding)
