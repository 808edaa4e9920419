"""Shared helpers: the fixtures beside these tests, and the checks every text format must pass."""

from __future__ import annotations

from pathlib import Path

from turnlens.pipeline.units import Unit

FIXTURES = Path(__file__).parent / "fixtures"
NEARMISS_TEXT = Path(__file__).parent / "nearmiss-text"  # Markdown and text that only looks like a chat


def fixture(rel: str) -> tuple[str, str]:
    """(path, text) of a fixture; the text is read with its line breaks as written."""
    path = FIXTURES / rel
    with path.open(encoding="utf-8", newline="") as f:
        return str(path), f.read()


def assert_verbatim(document: str, units: list[Unit]) -> None:
    """Every unit is the document's own slice, numbered 1…n, in document order."""
    for n, unit in enumerate(units, start=1):
        assert unit.index == n
        assert document[unit.start : unit.end] == unit.text
        assert unit.text == unit.text.strip() or unit.text[:1] in " \t"
    starts = [u.start for u in units]
    assert starts == sorted(starts)


def shape(units: list[Unit]) -> list[tuple[str | None, str | None]]:
    return [(u.role, u.kind) for u in units]


def to_crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def ask_user_question(question: str, header: str, *options: tuple[str, str]) -> dict[str, object]:
    """The input of a Claude Code `AskUserQuestion` call: one question, its (label,
    description) options, a single pick."""
    choices = [{"label": label, "description": about} for label, about in options]
    return {"questions": [{"question": question, "header": header, "multiSelect": False, "options": choices}]}
