"""JSON Lines reading: which line counts as the last one (a cut last line is a note, not an error)."""

from __future__ import annotations

from turnlens.pipeline.formats.jsonl import text_lines


def test_the_last_non_blank_line_is_last_whatever_blanks_follow() -> None:
    text = '{"a": 1}\r\n\n{"b": 2}\r\n  \n\t\n'
    assert [(n, off, line, last) for n, off, line, last in text_lines(text)] == [
        (1, 0, '{"a": 1}', False),
        (3, 11, '{"b": 2}', True),
    ]


def test_without_a_final_break_and_with_text_after_blank_lines() -> None:
    assert [last for *_, last in text_lines('{"a": 1}\n\n{"b"')] == [False, True]
    assert [last for *_, last in text_lines('{"a": 1}')] == [True]
    assert list(text_lines("\n \n")) == []
