"""LSP positions worked out independently of the server (for checking its ranges).

Lines end at `\\r\\n`, `\\r` or `\\n` (LSP's rule); a column counts code units of
the negotiated encoding: UTF-16 units, UTF-8 bytes or code points (UTF-32).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Any

_BREAK = re.compile(r"\r\n|\r|\n")
ENCODINGS = ("utf-16", "utf-8", "utf-32")


def line_starts(text: str) -> list[int]:
    return [0, *(m.end() for m in _BREAK.finditer(text))]


def code_units(s: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(s.encode("utf-8", "surrogatepass"))
    if encoding == "utf-16":
        return sum(2 if ord(c) > 0xFFFF else 1 for c in s)
    return len(s)


def lines(text: str) -> list[str]:
    """The lines without their breaks."""
    starts = line_starts(text)
    out = []
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        out.append(text[start:end].rstrip("\r\n") if i + 1 < len(starts) else text[start:end])
    return out


def snap(text: str, offset: int) -> int:
    """An offset that has an LSP position (not between the CR and LF of a pair)."""
    if 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n":
        return offset - 1
    return offset


def position(text: str, offset: int, encoding: str) -> dict[str, int]:
    starts = line_starts(text)
    line = bisect_right(starts, offset) - 1
    return {"line": line, "character": code_units(text[starts[line] : offset], encoding)}


def offset(text: str, pos: Any, encoding: str) -> int:
    """The str index of a position that must be valid (raises AssertionError otherwise)."""
    line, character = _line_char(pos)
    all_lines = lines(text)
    assert 0 <= line < len(all_lines), f"line {line} is past the end ({len(all_lines)} lines)"
    body = all_lines[line]
    count = 0
    for i, ch in enumerate(body):
        if count == character:
            return line_starts(text)[line] + i
        count += code_units(ch, encoding)
        if count > character:
            raise AssertionError(f"character {character} of line {line} splits a code point")
    assert count == character, f"character {character} is past the end of line {line} ({count} units)"
    return line_starts(text)[line] + len(body)


def _line_char(pos: Any) -> tuple[int, int]:
    if isinstance(pos, dict):
        return int(pos["line"]), int(pos["character"])
    return int(pos.line), int(pos.character)


def range_offsets(text: str, rng: Any, encoding: str) -> tuple[int, int]:
    start = rng["start"] if isinstance(rng, dict) else rng.start
    end = rng["end"] if isinstance(rng, dict) else rng.end
    a, b = offset(text, start, encoding), offset(text, end, encoding)
    assert a <= b, f"range ends before it starts: {rng}"
    return a, b
