"""Incremental edits lose nothing: after any sequence of edits, what the server shows
for the final version is what a from-scratch analysis of the final text shows.

In process, hypothesis drives the server's own document model and analysis (the
`Document.apply` → `TurnLensServer.analyze` path a didChange takes, with the
debounce firing at random moments) against a fresh server that only ever saw the
final text. Against a real server process, fixed random edit sequences go over
stdio and the final published diagnostics are compared with the diagnostics of
the final text opened fresh.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types
from lsprotocol.converters import get_converter
from pytest_lsp import LanguageClient

from turnlens.lsp.features import code_lens, diagnostics, inlay_hints
from turnlens.lsp.server import TurnLensServer
from turnlens.lsp.textdoc import Document
from turnlens.pipeline.formats.turns import split_units

from . import positions
from .conftest import property_settings
from .strategies import BREAKS, documents, pieces

_CONVERTER = get_converter()


def _json(value: Any) -> Any:
    return _CONVERTER.unstructure(value)


def _open(ls: TurnLensServer, uri: str, text: str, encoding: str, version: int = 1) -> Any:
    state = ls.open_document(
        types.TextDocumentItem(uri=uri, language_id="markdown", version=version, text=text)
    )
    state.doc.encoding = encoding
    state.settings_ready = True
    return state


def _views(state: Any) -> dict[str, Any]:
    units = [
        (r.unit.index, r.unit.start, r.unit.end, r.unit.text, r.unit.pin, r.unit.ignored)
        for r in state.results
    ]
    classes = [r.classification.to_json(explain=True) for r in state.results]
    routes = [r.route.to_json() for r in state.results]
    return {
        "units": units,
        "classes": classes,
        "routes": routes,
        "diagnostics": _json(diagnostics.build(state)),
        "lenses": _json(code_lens.build(state)),
        "hints": _json(inlay_hints.build(state)),
    }


def _range(text: str, a: int, b: int, encoding: str) -> types.Range:
    start = positions.position(text, a, encoding)
    end = positions.position(text, b, encoding)
    return types.Range(
        start=types.Position(line=start["line"], character=start["character"]),
        end=types.Position(line=end["line"], character=end["character"]),
    )


insert_text = st.one_of(
    pieces,
    st.sampled_from([*BREAKS, "\n---TURN---\n", "---TURN---\n", "\n---TURN---", "\r\n---TURN---\r\n"]),
    st.lists(pieces, max_size=6).map("".join),
    documents,
)


@given(st.data())
@property_settings(80)
def test_edits_in_process_end_on_a_from_scratch_analysis(data: st.DataObject) -> None:
    encoding = data.draw(st.sampled_from(positions.ENCODINGS), label="encoding")
    text = data.draw(documents, label="initial")
    ls = TurnLensServer()
    state = _open(ls, "file:///edited.md", text, encoding)
    ls.analyze(state)
    shadow = text
    version = 1
    for _ in range(data.draw(st.integers(1, 10), label="versions")):
        version += 1
        changes: list[types.TextDocumentContentChangeEvent] = []
        for _ in range(data.draw(st.integers(1, 3), label="changes")):
            if data.draw(st.integers(0, 9)) == 0:
                shadow = data.draw(documents, label="whole")
                changes.append(types.TextDocumentContentChangeWholeDocument(text=shadow))
                continue
            a = positions.snap(shadow, data.draw(st.integers(0, len(shadow)), label="start"))
            span = st.one_of(st.integers(a, min(len(shadow), a + 3)), st.integers(a, len(shadow)))
            b = positions.snap(shadow, data.draw(span, label="end"))
            new = data.draw(insert_text, label="text")
            changes.append(
                types.TextDocumentContentChangePartial(range=_range(shadow, a, b, encoding), text=new)
            )
            shadow = shadow[:a] + new + shadow[b:]
        state.doc.apply(changes, version)
        assert state.doc.text == shadow
        if data.draw(st.booleans(), label="debounce fires"):
            ls.analyze(state)
    ls.analyze(state)

    fresh_ls = TurnLensServer()
    fresh = _open(fresh_ls, "file:///edited.md", shadow, encoding, version)
    fresh_ls.analyze(fresh)
    assert list(state.doc.line_starts()) == list(Document(fresh.doc.uri, shadow, version).line_starts())
    assert _views(state) == _views(fresh)
    assert [r.unit.text for r in state.results] == [u.text for u in split_units(shadow)]


# -- against a real server process --------------------------------------------------------

SEED_DOC = (
    "APPROVED — ship it 🚀\r\n"
    "---TURN---\r\n"
    "```python\r\ndef f(x):\r\n    return x\r\n```\r\n"
    "---TURN---\n"
    "Implementing SPEC-120 AC-03 with new handler, é\u0301 and 中文\n"
    "---TURN---\n"
    "thanks! 🙏\n"
)
WORDS = [
    "APPROVED ",
    "merge ",
    "SPEC-9 ",
    "FAIL: ",
    "thanks",
    "🚀",
    "e\u0301",
    "\n",
    "\r\n",
    "\n---TURN---\n",
    "```\n",
    "Traceback (most recent call last):\n",
    "# Heading\n",
    "- item\n",
    "ultrathink ",
    "<!-- turnlens: ignore -->\n",
    "\t",
    "中",
]


def _random_edits(seed: int, text: str, n: int) -> tuple[list[tuple[types.Range, str]], str]:
    """`n` edits of a document (as LSP UTF-16 ranges against the text of their moment)."""
    rnd = random.Random(seed)
    edits = []
    for _ in range(n):
        a = positions.snap(text, rnd.randint(0, len(text)))
        roll = rnd.random()
        if roll < 0.6:  # typing
            b, new = a, rnd.choice(WORDS)
        elif roll < 0.85:  # deleting
            b, new = positions.snap(text, min(len(text), a + rnd.randint(1, 12))), ""
        else:  # replacing a selection
            b, new = positions.snap(text, min(len(text), a + rnd.randint(1, 30))), rnd.choice(WORDS)
        edits.append((_range(text, a, b, "utf-16"), new))
        text = text[:a] + new + text[b:]
    return edits, text


def _comparable(diags: Sequence[types.Diagnostic]) -> list[Any]:
    return [_json(d) for d in diags]


async def test_edit_sequences_over_stdio_end_on_a_from_scratch_analysis(bare_client: LanguageClient) -> None:
    from tests.lsp.conftest import open_doc, publishes, start, wait_for

    client = bare_client
    await start(client, {"debounceMs": 5})
    final_texts = {}
    final_versions = {}
    for seed in range(6):
        uri = f"file:///work/edited-{seed}.md"
        open_doc(client, uri, SEED_DOC)
        edits, final = _random_edits(seed, SEED_DOC, 120)
        for version, (rng, new) in enumerate(edits, start=2):
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    content_changes=[types.TextDocumentContentChangePartial(range=rng, text=new)],
                )
            )
        final_texts[uri] = final
        final_versions[uri] = len(edits) + 1

    def last(uri: str) -> types.PublishDiagnosticsParams | None:
        got = publishes(client, uri)
        return got[-1] if got and got[-1].version == final_versions.get(uri, -1) else None

    await wait_for(lambda: all(last(uri) for uri in final_texts), timeout=20)
    for uri, final in final_texts.items():
        fresh_uri = uri.replace("edited-", "fresh-")
        final_versions[fresh_uri] = 1
        open_doc(client, fresh_uri, final)
    await wait_for(lambda: all(last(uri.replace("edited-", "fresh-")) for uri in final_texts), timeout=20)
    for uri, final in final_texts.items():
        edited = last(uri)
        fresh = last(uri.replace("edited-", "fresh-"))
        assert edited is not None and fresh is not None
        assert _comparable(edited.diagnostics) == _comparable(fresh.diagnostics), uri
        # and both are the core's answer for the final text
        live = [u for u in split_units(final) if not u.ignored]
        assert len(edited.diagnostics) == len(live)
        from turnlens.api import classify_unit

        assert [(d.data or {})["class"] for d in edited.diagnostics] == [
            classify_unit(u).task_class for u in live
        ]
        # versions only ever go up
        versions = [p.version or 0 for p in publishes(client, uri)]
        assert versions == sorted(versions), versions
