"""Code actions on a turn: route directive, pin or ignore it, split it here.

Every action is a plain workspace edit the client applies; the core reads the
inserted comments, so `turnlens check` and the editor agree.
"""

from __future__ import annotations

from lsprotocol import types

from turnlens.core.classes import CLASS_NAMES
from turnlens.lsp.server import TurnLensServer
from turnlens.pipeline.formats import get_format

PHASES = ("plan", "reflect", "implement", "apply")
KIND = types.CodeActionKind.RefactorRewrite


def _insert(uri: str, pos: types.Position, text: str) -> types.WorkspaceEdit:
    return types.WorkspaceEdit(
        changes={uri: [types.TextEdit(range=types.Range(start=pos, end=pos), new_text=text)]}
    )


def register(server: TurnLensServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[KIND], resolve_provider=False),
    )
    def code_action(ls: TurnLensServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        state = ls.documents.get(params.text_document.uri)
        if state is None or not state.settings.code_actions or not state.settings.enable:
            return None
        # offsets of the text as it is now (in onSave / manual mode the last analysis may be older)
        results = ls.current_results(state)
        doc = state.doc
        uri = doc.uri
        cursor = doc.offset_at(params.range.start)
        result = state.unit_at(cursor, results)
        actions: list[types.CodeAction] = []
        fmt = get_format(state.format_name)
        if not results or result is None or not fmt.comments:
            return actions  # a JSON session cannot hold a comment or a directive
        unit, c, route = result.unit, result.classification, result.route
        top = doc.position_at(unit.content_start)
        line_start = types.Position(line=top.line, character=0)
        first_line = doc.line_text(top.line)
        if not result.unit.ignored:
            if first_line.lstrip().startswith("/route "):
                pass  # a directive is already there: editing it is the user's call
            else:
                for phase in PHASES:
                    if phase == route.phase:
                        continue
                    actions.append(
                        types.CodeAction(
                            title=f"TurnLens: route this prompt to {phase} (/route {phase})",
                            kind=KIND,
                            edit=_insert(uri, line_start, f"/route {phase}\n"),
                        )
                    )
            if not c.pinned:
                for name in CLASS_NAMES:
                    title = f"TurnLens: pin this turn as {name}" + (
                        " (its class now)" if name == c.task_class else ""
                    )
                    actions.append(
                        types.CodeAction(
                            title=title,
                            kind=KIND,
                            edit=_insert(uri, line_start, f"<!-- turnlens: class={name} -->\n"),
                            is_preferred=name == c.task_class,
                        )
                    )
            actions.append(
                types.CodeAction(
                    title="TurnLens: ignore this turn",
                    kind=KIND,
                    edit=_insert(uri, line_start, "<!-- turnlens: ignore -->\n"),
                )
            )
        # above the first unit rather than on line 1: a prompt file's frontmatter must stay first
        first = doc.position_at(results[0].unit.content_start).line
        actions.append(
            types.CodeAction(
                title="TurnLens: ignore this file",
                kind=KIND,
                edit=_insert(
                    uri, types.Position(line=first, character=0), "<!-- turnlens: ignore-file -->\n"
                ),
            )
        )
        separator = fmt.split_marker(ls.profile_of(state).options)
        cursor_line = doc.position_at(cursor).line  # a cursor past the end stays in the document
        if separator is not None and cursor_line > top.line:
            actions.append(
                types.CodeAction(
                    title="TurnLens: split the turn here",
                    kind=KIND,
                    edit=_insert(uri, types.Position(line=cursor_line, character=0), f"{separator}\n"),
                )
            )
        return actions
