"""Push diagnostics: one per turn, on its first non-blank line."""

from __future__ import annotations

from lsprotocol import types

from turnlens.lsp import labels
from turnlens.lsp.documents import DocState
from turnlens.lsp.server import TurnLensServer

SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}


def build(state: DocState) -> list[types.Diagnostic]:
    settings = state.settings
    doc = state.doc
    if state.too_large and settings.enable:
        return [
            types.Diagnostic(
                range=types.Range(start=types.Position(line=0, character=0), end=doc.line_end_position(0)),
                message=f"TurnLens: this document has {len(doc.text):,} characters, over the "
                f"turnlens.maxDocumentSize limit of {settings.max_document_size:,}; it is not analysed.",
                severity=types.DiagnosticSeverity.Information,
                source="turnlens",
                code="too-large",
            )
        ]
    if state.silent or not settings.diagnostics or settings.severity == "off":
        return []
    severity = SEVERITY[settings.severity]
    out = []
    for r in state.results:
        if r.unit.ignored:
            continue
        start = doc.position_at(r.unit.content_start)
        data = {**r.classification.to_json(explain=True), "route": r.route.to_json(), "turn": r.unit.index}
        out.append(
            types.Diagnostic(
                range=types.Range(start=start, end=doc.line_end_position(start.line)),
                message=labels.diagnostic_message(r),
                severity=severity,
                source="turnlens",
                code=r.classification.task_class,
                data=data,
            )
        )
    return out


def publish(ls: TurnLensServer, state: DocState) -> None:
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=state.doc.uri, version=state.doc.version, diagnostics=build(state))
    )


def register(server: TurnLensServer) -> None:
    server.listeners.append(publish)
