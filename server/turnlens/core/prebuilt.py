"""Python `re` patterns of TurnLens's own packs, compiled ahead of time.

`re` compiles in pure Python: the 20-odd pack patterns a 2 KB prompt's literals let through
cost a one-shot run (a hook, `turnlens classify`) more than everything it does with them.
What `re`'s compiler makes of a pattern depends only on the pattern, its flags and the
Python minor version, so the shipped packs' patterns are compiled once, when the packs
change, and stored per Python version (packs/sre-3.X.json; regenerate with
`python -m tests.core.test_sre_cache`). `compile_re` hands the stored program to
`_sre.compile` — exactly the call `re.compile` ends with — and gets the same Pattern.
A one-shot run reads the table from the one-shot bundle (core/data.py: the same programs, raw,
without JSON); this module never imports `re` unless a pattern is missing from the table.

The tables are TurnLens's own packaged data, never a user's file, and `_sre.compile`
validates every program it is given. A pattern not in the table, another interpreter, a
table of another regex engine version or one that does not load: `re.compile`, as before.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # neither `typing` nor `re` on the one-shot path (see core/record.py)
if TYPE_CHECKING:
    import re
    from typing import Any

# `re`'s flag values (re.IGNORECASE, re.MULTILINE), the same in every Python 3
IGNORECASE = 2
MULTILINE = 8
# the flags the engine compiles rule patterns with
RULE_FLAGS = (0, IGNORECASE, MULTILINE, IGNORECASE | MULTILINE)

_TABLE: dict[str, list[Any]] | None = None


def table_name(version: tuple[int, int] | None = None) -> str:
    major, minor = version or sys.version_info[:2]
    return f"sre-{major}.{minor}.json"


def _table() -> dict[str, list[Any]]:
    global _TABLE
    if _TABLE is None:
        _TABLE = {}
        if sys.implementation.name != "cpython":
            return _TABLE
        import _sre  # type: ignore[import-not-found]

        from turnlens.core.data import bundled, read_packaged

        raw = bundled("sre")  # the one-shot bundle: the programs as bytes, no JSON
        try:
            if raw is not None and raw["magic"] == _sre.MAGIC and raw["codesize"] == _sre.CODESIZE:
                patterns = raw["patterns"]
                if isinstance(patterns, dict):
                    _TABLE = patterns
                    return _TABLE
        except (KeyError, TypeError):
            pass
        import json

        try:
            raw = json.loads(read_packaged("turnlens.core.packs", table_name()))
            if raw["magic"] == _sre.MAGIC and raw["codesize"] == _sre.CODESIZE:
                patterns = raw["patterns"]
                if isinstance(patterns, dict):
                    _TABLE = patterns
        except (OSError, ValueError, KeyError, TypeError):
            pass
    return _TABLE


def key(pattern: str, flags: int) -> str:
    return f"{int(flags)}:{pattern}"


def compile_re(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, from the stored program where there is one."""
    entry = _table().get(key(pattern, flags))
    if entry is not None:
        try:
            return _from_entry(pattern, entry)
        except (ValueError, TypeError, RuntimeError, IndexError, OverflowError):
            pass  # a table that does not fit this interpreter: compile as usual
    import re

    return re.compile(pattern, flags)


def _from_entry(pattern: str, entry: list[Any]) -> re.Pattern[str]:
    import _sre  # type: ignore[import-not-found]

    final_flags, groups, groupindex, indexgroup, packed = entry
    if isinstance(packed, bytes) and sys.byteorder == "little":  # the bundle's: raw, little-endian
        code = memoryview(packed).cast("I").tolist()
    else:
        code = _unpacked(packed)
    compiled: re.Pattern[str] = _sre.compile(
        pattern, int(final_flags), code, int(groups), dict(groupindex), tuple(indexgroup)
    )
    return compiled


def _unpacked(packed: str | bytes) -> list[int]:
    """A JSON table's program (zlib, then base64) or, on a big-endian machine, the bundle's."""
    import zlib
    from array import array

    code = array("I")
    if isinstance(packed, bytes):
        code.frombytes(packed)
    else:
        import binascii

        try:
            code.frombytes(zlib.decompress(binascii.a2b_base64(packed)))
        except zlib.error as exc:
            raise ValueError(f"a stored program that does not unpack: {exc}") from None
    if sys.byteorder != "little":  # pragma: no cover - the tables are little-endian
        code.byteswap()
    return code.tolist()


def build(patterns: list[tuple[str, int]]) -> dict[str, Any]:
    """The table for this interpreter: what `re.compile` passes to `_sre.compile`, per
    pattern (standard library only, so that any installed Python can make its own)."""
    import _sre  # type: ignore[import-not-found]
    import binascii
    import zlib
    from array import array
    from re import _compiler, _parser  # type: ignore[attr-defined]

    out: dict[str, list[Any]] = {}
    for pattern, flags in sorted(set(patterns)):
        parsed = _parser.parse(pattern, flags)
        code = array("I", _compiler._code(parsed, flags))
        if sys.byteorder != "little":  # pragma: no cover
            code.byteswap()
        state = parsed.state
        indexgroup: list[str | None] = [None] * state.groups
        for name, i in state.groupdict.items():
            indexgroup[i] = name
        packed = binascii.b2a_base64(zlib.compress(code.tobytes(), 9), newline=False).decode("ascii")
        out[key(pattern, flags)] = [
            flags | state.flags,
            state.groups - 1,
            dict(state.groupdict),
            indexgroup,
            packed,
        ]
    return {
        "about": "Python `re` programs of the shipped packs' patterns, see turnlens/core/prebuilt.py",
        "python": f"{sys.version_info[0]}.{sys.version_info[1]}",
        "magic": _sre.MAGIC,
        "codesize": _sre.CODESIZE,
        "patterns": out,
    }
