"""JSON with the position of every string value, so views can point inside a JSON document.

`json.loads` (C) parses; one regular-expression pass finds the string literals;
a walk in document order pairs them. Keys and values alternate exactly as the
text has them, so the n-th literal is the n-th string met in the walk. A
document whose walk and literals disagree (duplicate keys) raises SpanError.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, NamedTuple

_LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


class SpanError(ValueError):
    """The string literals of a document could not be paired with its values."""


class JStr(NamedTuple):
    """A decoded JSON string and the span of its characters (inside the quotes)."""

    text: str
    start: int
    end: int


def loads_spanned(text: str, base: int = 0) -> Any:
    """Parse `text`; every string value becomes a JStr with offsets shifted by `base`.

    Raises json.JSONDecodeError (a ValueError) for invalid JSON and SpanError as above.
    """
    obj = json.loads(text)
    literals = _LITERAL.finditer(text)
    out = _walk(obj, literals, base)
    if next(literals, None) is not None:
        raise SpanError("string literals left over (duplicate keys?)")
    return out


def _walk(value: Any, literals: Iterator[re.Match[str]], base: int) -> Any:
    if isinstance(value, str):
        m = next(literals, None)
        if m is None:
            raise SpanError("fewer string literals than strings")
        return JStr(value, base + m.start() + 1, base + m.end() - 1)
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if next(literals, None) is None:
                raise SpanError("fewer string literals than keys")
            out[key] = _walk(item, literals, base)
        return out
    if isinstance(value, list):
        return [_walk(item, literals, base) for item in value]
    return value


def text_of(value: Any) -> str | None:
    """The decoded text of a JStr (None for anything else)."""
    return value.text if isinstance(value, JStr) else None


def plain(value: Any) -> str | None:
    """The text of a spanned or plain string (None for anything else)."""
    return value.text if isinstance(value, JStr) else value if isinstance(value, str) else None


def decoded_json(value: Any) -> Any:
    """A JSON value written into a string (tool-call arguments): decoded where it parses."""
    text = plain(value)
    if text is None:
        return value
    try:
        return json.loads(text)
    except ValueError:
        return text


_DECODER = json.JSONDecoder()


def raw_decode_spanned(text: str, idx: int) -> tuple[Any, int]:
    """The JSON value that starts at `idx` of `text`, spanned (offsets into `text`), and where it
    ends: a reader of a long array parses one element at a time, holding one element's tree.

    Raises json.JSONDecodeError (a ValueError) and SpanError as `loads_spanned` does.
    """
    obj, end = _DECODER.raw_decode(text, idx)
    literals = _LITERAL.finditer(text, idx, end)
    out = _walk(obj, literals, 0)
    if next(literals, None) is not None:
        raise SpanError("string literals left over (duplicate keys?)")
    return out, end
