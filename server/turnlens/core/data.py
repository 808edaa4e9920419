"""Reading TurnLens's own packaged data files (the only I/O the core does).

Plain file reads next to the package (`importlib.resources` costs more to import
than a short prompt takes to classify), and TOML parsed once ahead: the shipped
packs' parse trees are stored in packs/parsed.json, keyed by a checksum of their
text, because the pure-Python TOML parser is most of a one-shot run's time.
"""

from __future__ import annotations

import json
import os
import sys
import zlib
from typing import Any

_PARSED: dict[str, Any] | None = None


def read_packaged(package: str, filename: str) -> str:
    """The text of `filename` inside the (already importable) `package`."""
    __import__(package)
    module = sys.modules[package]
    folder = os.path.dirname(module.__file__ or "")
    with open(os.path.join(folder, filename), encoding="utf-8") as handle:
        return handle.read()


def text_key(text: str) -> str:
    data = text.encode("utf-8", "surrogatepass")
    return f"{zlib.crc32(data):08x}-{len(data)}"


def _parsed() -> dict[str, Any]:
    global _PARSED
    if _PARSED is None:
        try:
            _PARSED = json.loads(read_packaged("turnlens.core.packs", "parsed.json"))["tomls"]
        except (OSError, ValueError, KeyError, TypeError):
            _PARSED = {}
    return _PARSED


def parse_toml(text: str) -> dict[str, Any]:
    """`tomllib.loads(text)`, answered from the stored parse of a shipped file when it is one."""
    known = _parsed().get(text_key(text))
    if known is not None:
        return dict(known)
    import tomllib

    return tomllib.loads(text)
