"""JSON with the position of every string value, so views can point inside a JSON document.

`json.loads` (C) parses; one regular-expression pass finds the string literals;
a walk in document order pairs them. Keys and values alternate exactly as the
text has them, so the n-th literal is the n-th string met in the walk. A
document whose walk and literals disagree (duplicate keys) raises SpanError.

Bounds: the literal pattern's repeats are possessive, so matching a string keeps no
backtracking state (a plain alternation kept ~120 bytes per character: an 18 MB string
needed 2 GB); what a parse holds is the text, the decoded values and their spans. Values
nest at most MAX_DEPTH deep: a deeper one raises TooDeep (a ValueError), never
RecursionError, so every reader reports it as one bad line or document.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, NamedTuple

from turnlens.core.prebuilt import compile_re

# possessive repeats: no backtracking state is kept per character of a string
_LITERAL = compile_re(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"', re.DOTALL)

#: how deep arrays and objects may nest in a session file (real ones stay under 20)
MAX_DEPTH = 200


_DECODER = json.JSONDecoder()
_SPACE = compile_re(r"[ \t\n\r]*")
#: a byte-order mark some editors write at the start of a file: not content
BOM = "\ufeff"
# `"\ud800"` is valid JSON, but a lone surrogate is no character: UTF-8 cannot encode it, so
# Parquet, HTML and the terminal refuse it. Decoded strings carry U+FFFD in its place.
_LONE_SURROGATE = compile_re(r"[\ud800-\udfff]")  # `re` reads the escapes: the same class


def clean(text: str) -> str:
    """`text` with any lone surrogate replaced by U+FFFD (the same object when there is none)."""
    if text.isascii() or _LONE_SURROGATE.search(text) is None:
        return text
    return _LONE_SURROGATE.sub("\ufffd", text)


class SpanError(ValueError):
    """The string literals of a document could not be paired with its values."""


class TooDeep(ValueError):
    """JSON nested deeper than MAX_DEPTH: read as a bad value, not walked (a walk would
    overflow Python's stack)."""

    def __init__(self, end: int | None = None) -> None:
        super().__init__(f"nested deeper than {MAX_DEPTH} levels")
        self.end = end  # where the value ends, when it was parsed whole


def loads(text: str) -> Any:
    """`json.loads` that raises TooDeep, never RecursionError, for a value nested too deep."""
    try:
        obj = json.loads(text)
    except RecursionError:
        raise TooDeep from None
    if text.count("[") + text.count("{") > MAX_DEPTH:  # fewer brackets cannot nest deeper
        _check_depth(obj)
    return obj


def raw_decode(text: str, idx: int) -> tuple[Any, int]:
    """The plain JSON value that starts at `idx` and where it ends; TooDeep as `loads`."""
    try:
        obj, end = _DECODER.raw_decode(text, idx)
    except RecursionError:
        raise TooDeep from None
    try:
        _check_depth(obj)
    except TooDeep:
        raise TooDeep(end) from None
    return obj, end


def _check_depth(obj: Any) -> None:
    """TooDeep when `obj` nests deeper than MAX_DEPTH (walked without recursion)."""
    stack = [(obj, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            value = value.values()
        elif not isinstance(value, list):
            continue
        if depth >= MAX_DEPTH:
            raise TooDeep
        stack.extend((item, depth + 1) for item in value if isinstance(item, (dict, list)))


class JStr(NamedTuple):
    """A decoded JSON string and the span of its characters (inside the quotes)."""

    text: str
    start: int
    end: int


def loads_spanned(text: str, base: int = 0) -> Any:
    """Parse `text`; every string value becomes a JStr with offsets shifted by `base`.

    Raises json.JSONDecodeError (a ValueError) for invalid JSON, SpanError as above and
    TooDeep. A byte-order mark at the start is passed over (offsets still count it).
    """
    start = 0
    try:
        if text.startswith(BOM):
            start = _SPACE.match(text, 1).end()  # type: ignore[union-attr]
            obj, end = _DECODER.raw_decode(text, start)
            if _SPACE.match(text, end).end() != len(text):  # type: ignore[union-attr]
                raise json.JSONDecodeError("Extra data", text, end)
        else:
            obj = json.loads(text)
    except RecursionError:
        raise TooDeep from None
    literals = _LITERAL.finditer(text, start)
    try:
        out = _walk(obj, literals, base, 0)
    except SpanError:
        _check_depth(obj)  # too deep wins: a caller falls back to the plain value on SpanError
        raise
    if next(literals, None) is not None:
        raise SpanError("string literals left over (duplicate keys?)")
    return out


def _walk(value: Any, literals: Iterator[re.Match[str]], base: int, depth: int) -> Any:
    if isinstance(value, str):
        m = next(literals, None)
        if m is None:
            raise SpanError("fewer string literals than strings")
        return JStr(clean(value), base + m.start() + 1, base + m.end() - 1)
    if isinstance(value, dict):
        if depth >= MAX_DEPTH:
            raise TooDeep
        out = {}
        for key, item in value.items():
            if next(literals, None) is None:
                raise SpanError("fewer string literals than keys")
            out[key] = _walk(item, literals, base, depth + 1)
        return out
    if isinstance(value, list):
        if depth >= MAX_DEPTH:
            raise TooDeep
        return [_walk(item, literals, base, depth + 1) for item in value]
    return value


def text_of(value: Any) -> str | None:
    """The decoded text of a JStr (None for anything else)."""
    return value.text if isinstance(value, JStr) else None


def plain(value: Any) -> str | None:
    """The text of a spanned or plain string (None for anything else)."""
    return value.text if isinstance(value, JStr) else clean(value) if isinstance(value, str) else None


def decoded_json(value: Any) -> Any:
    """A JSON value written into a string (tool-call arguments): decoded where it parses."""
    text = plain(value)
    if text is None:
        return value
    try:
        return loads(text)
    except ValueError:  # TooDeep too: kept as text
        return text


def raw_decode_spanned(text: str, idx: int) -> tuple[Any, int]:
    """The JSON value that starts at `idx` of `text`, spanned (offsets into `text`), and where it
    ends: a reader of a long array parses one element at a time, holding one element's tree.

    Raises json.JSONDecodeError (a ValueError), SpanError and TooDeep as `loads_spanned` does;
    a TooDeep whose value was parsed whole carries `end`, where the value ends.
    """
    try:
        obj, end = _DECODER.raw_decode(text, idx)
    except RecursionError:
        raise TooDeep from None
    literals = _LITERAL.finditer(text, idx, end)
    try:
        try:
            out = _walk(obj, literals, 0, 0)
        except SpanError:
            _check_depth(obj)
            raise
    except TooDeep:
        raise TooDeep(end) from None  # the value is whole: a reader of an array can go on after it
    if next(literals, None) is not None:
        raise SpanError("string literals left over (duplicate keys?)")
    return out, end
