"""Push diagnostics: one per turn, on its first non-blank line.

A transcript can hold thousands of turns and every edit republishes them all,
so each turn's diagnostic is kept as a ready JSON fragment next to its
classification; a publish only works out the line numbers and joins strings.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from lsprotocol import types

from turnlens.lsp import labels
from turnlens.lsp.documents import DocState
from turnlens.lsp.server import TurnLensServer
from turnlens.lsp.textdoc import Document
from turnlens.pipeline.analyze import UnitResult
from turnlens.pipeline.units import ASIDE_KINDS

SEVERITY = {
    "error": types.DiagnosticSeverity.Error.value,
    "warning": types.DiagnosticSeverity.Warning.value,
    "information": types.DiagnosticSeverity.Information.value,
    "hint": types.DiagnosticSeverity.Hint.value,
}


# A short code per class, stable across releases, so the message (which starts with the class)
# is not repeated by clients that print `source [code]: message`. The order is the tie-break order.
CLASS_CODES = {
    "decision": "TL1",
    "spec": "TL2",
    "code": "TL3",
    "review": "TL4",
    "context": "TL5",
    "chitchat": "TL6",
}
UNKNOWN_CODE = "TL0"


@cache
def class_docs() -> dict[str, str] | None:
    """`codeDescription` pointing at the class docs, when they sit next to the package
    (a checkout or an editable install); a wheel has no docs to point at."""
    page = Path(__file__).resolve().parents[4] / "docs" / "classes.md"
    if not page.is_file():
        return None
    return {"href": page.as_uri() + "#what-counts-as-each-class"}


def diagnostic_code(task_class: str) -> str:
    return CLASS_CODES.get(task_class, UNKNOWN_CODE)


class _Fragment:
    """What a turn's diagnostic looks like wherever the turn sits in the document."""

    __slots__ = ("body", "end_char", "rel_line", "result", "start_char")

    def __init__(self, r: UnitResult, severity: int, doc: Document, body: str | None = None) -> None:
        self.result = r
        self.body = _body(r, severity) if body is None else body
        unit = r.unit
        text = unit.text
        lead = unit.content_start - unit.start
        # LSP line breaks are LF, CRLF and a lone CR
        breaks = list(_BREAK.finditer(text, 0, lead))
        self.rel_line = len(breaks)
        line_start = breaks[-1].end() if breaks else 0
        stop = _LINE_END.search(text, lead)
        first_line = text[line_start : stop.start() if stop else len(text)]
        self.start_char = doc.units(text[line_start:lead])
        self.end_char = doc.units(first_line)


def _body(r: UnitResult, severity: int, *, slim: bool = False) -> str:
    """A diagnostic's members after "range", up to (not including) the closing brace of its
    `data`, so that the turn number can follow. `slim` leaves out what differs from turn to
    turn (counts, scores): a provisional answer's body is then shared by all its alike."""
    route = r.route.to_json()
    route.pop("signals", None)
    body: dict[str, Any] = {
        "severity": severity,
        "message": labels.diagnostic_message(r),
        "source": "turnlens",
        "code": diagnostic_code(r.classification.task_class),
    }
    docs = class_docs()
    if docs is not None:
        body["codeDescription"] = docs
    if r.unit.kind in ASIDE_KINDS:  # injected text, a command: editors draw it faded
        body["tags"] = [types.DiagnosticTag.Unnecessary.value]
    data = r.classification.to_json()
    if slim:
        for name in ("words", "lines", "scores", "confidence"):
            data.pop(name, None)
    data["route"] = route
    if r.provisional:  # the rules' quick answer: the model's replaces it shortly
        data["provisional"] = True
    if r.unit.role is not None:
        data.update(role=r.unit.role, kind=r.unit.kind)
    return json.dumps(body)[1:-1] + ',"data":' + json.dumps(data)[:-1]


_BREAK = re.compile(r"\r\n|\r|\n")
_LINE_END = re.compile(r"[\r\n]")


def fragments(state: DocState) -> list[str]:
    """The diagnostics of a document as JSON object strings."""
    out: list[str] = []
    for _ in fragments_in_steps(state, out):
        pass
    return out


# results a step of `fragments_in_steps` turns into diagnostics (~1.5 µs each)
STEP_RESULTS = 2_000


def fragments_in_steps(state: DocState, out: list[str]) -> Iterator[None]:
    """`fragments(state)` into `out`, yielding after every `STEP_RESULTS` results: the
    publish once a long document's labels are final runs between requests, not in one
    stretch of ~20 ms (the document must not change meanwhile: the caller checks)."""
    settings = state.settings
    doc = state.doc
    if state.too_large and settings.enable:
        end = doc.line_end_position(0)
        out.append(
            json.dumps(
                {
                    "range": {
                        "start": {"line": 0, "character": 0},
                        "end": {"line": end.line, "character": end.character},
                    },
                    "message": f"TurnLens: this document has {len(doc.text):,} characters, over the "
                    f"turnlens.maxDocumentSize limit of {settings.max_document_size:,}; it is not analysed.",
                    "severity": types.DiagnosticSeverity.Information.value,
                    "source": "turnlens",
                    "code": "too-large",
                }
            )
        )
        return
    if state.silent or not settings.diagnostics or settings.severity == "off":
        return
    severity = SEVERITY[settings.severity]
    cache: dict[tuple[int, int, str | None, bool], _Fragment] = state.payloads
    fresh: dict[tuple[int, int, str | None, bool], _Fragment] = {}
    shared: dict[tuple[Any, ...], str] = {}
    line_of = doc.line_of
    text = doc.text
    for i, r in enumerate(state.results):
        if i and not i % STEP_RESULTS:
            yield
        unit = r.unit
        if unit.ignored:
            continue
        key = (id(r.classification), id(r.route), unit.effort_used, r.provisional)
        frag = cache.get(key)
        # equal classification objects mean equal unit texts (the analysis cache is keyed by text)
        if frag is None or frag.result.classification is not r.classification:
            body = None
            if r.provisional:  # thousands of quick answers on open: one body per alike answer
                c = r.classification
                alike = (
                    c.task_class,
                    c.pinned,
                    c.overridden_by,
                    id(r.route),
                    unit.role,
                    unit.kind,
                    unit.effort_used,
                )
                body = shared.get(alike)
                if body is None:
                    body = shared[alike] = _body(r, severity, slim=True)
            frag = _Fragment(r, severity, doc, body)
        fresh[key] = frag
        if unit.start and text[unit.start - 1] not in "\n\r":
            # a message inside a line (a JSON string): its own span on that line
            first_end = _LINE_END.search(text, unit.start, unit.end)
            rng = doc.range_at(unit.content_start, first_end.start() if first_end else unit.end)
            start_line, start_char = rng.start.line, rng.start.character
            end_line, end_char = rng.end.line, rng.end.character
        else:
            start_line = end_line = line_of(unit.start) + frag.rel_line
            start_char, end_char = frag.start_char, frag.end_char
        out.append(
            f'{{"range":{{"start":{{"line":{start_line},"character":{start_char}}},'
            f'"end":{{"line":{end_line},"character":{end_char}}}}},{frag.body},"turn":{unit.index}}}}}'
        )
    state.payloads = fresh
    out.extend(_problems(state))


_PROBLEM_SEVERITY = {
    "warning": types.DiagnosticSeverity.Warning.value,
    "info": types.DiagnosticSeverity.Information.value,
}


def _problems(state: DocState) -> list[str]:
    """What the format's reader passed over (a bad line, a cut last line), on its line."""
    doc = state.doc
    out = []
    for problem in state.problems:
        line = max(0, problem.line - 1)
        if line >= len(doc.line_starts()):
            continue
        end = doc.line_end_position(line)
        out.append(
            json.dumps(
                {
                    "range": {
                        "start": {"line": line, "character": 0},
                        "end": {"line": end.line, "character": end.character},
                    },
                    "message": f"TurnLens: {problem.message}",
                    "severity": _PROBLEM_SEVERITY.get(problem.severity, 2),
                    "source": "turnlens",
                    "code": "format",
                }
            )
        )
    return out


def build(state: DocState) -> list[dict[str, Any]]:
    """The diagnostics as JSON values (for tests and tools)."""
    return [json.loads(f) for f in fragments(state)]


def publish(ls: TurnLensServer, state: DocState) -> None:
    ls.send_json(_message(state, fragments(state)))


def publish_in_steps(ls: TurnLensServer, state: DocState) -> Iterator[None]:
    """`publish`, its diagnostics made a step at a time (see `fragments_in_steps`)."""
    out: list[str] = []
    yield from fragments_in_steps(state, out)
    yield  # the message (~6 MB for 5 MB of text: joined, encoded, written) in a step of its own
    ls.send_json(_message(state, out))


def _message(state: DocState, diagnostics: list[str]) -> str:
    head = (
        '{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":'
        f'{json.dumps(state.doc.uri)},"version":{json.dumps(state.doc.version)},"diagnostics":['
    )
    # one join: a 5 MB document's diagnostics are ~6 MB of JSON, each copy of it ~1 ms
    return "".join((head, ",".join(diagnostics), "]}}"))


def prepare(ls: TurnLensServer, state: DocState, refined: list[UnitResult]) -> None:
    """Build the diagnostics of answers the model just gave, a slice at a time, so that the
    publish once all are final does not build thousands at once."""
    settings = state.settings
    if state.silent or not settings.diagnostics or settings.severity == "off":
        return
    severity = SEVERITY[settings.severity]
    payloads = state.payloads
    for r in refined:
        key = (id(r.classification), id(r.route), r.unit.effort_used, False)
        payloads[key] = _Fragment(r, severity, state.doc)


def register(server: TurnLensServer) -> None:
    server.listeners.append(publish)
    server.stagers[publish] = publish_in_steps
    server.preparers.append(prepare)
