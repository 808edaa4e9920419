"""Reading TurnLens's own packaged data files (the only I/O the core does).

Plain file reads next to the package (`importlib.resources` costs more to import
than a short prompt takes to classify), and TOML parsed once ahead: the shipped
packs' parse trees are stored in packs/parsed.json, keyed by a checksum of their
text, because the pure-Python TOML parser is most of a one-shot run's time.

A one-shot run reads none of the JSON caches either: `json` imports `re` (with `enum`,
`functools` and `collections`), several milliseconds before a short prompt's first rule.
`packs/oneshot-3.X.marshal` holds what those caches hold (and the shipped models' headers)
in `marshal`'s format, which the interpreter reads in C and always has loaded; it is
generated from the JSON caches by `python -m tests.core.test_oneshot_cache`, one per Python
version (it carries that version's prebuilt `re` programs). Without it (another
interpreter, a file that does not load) everything comes from the JSON caches, as before.
"""

from __future__ import annotations

import marshal
import os
import sys

TYPE_CHECKING = False  # `typing` stays off the one-shot path (see turnlens/core/record.py)
if TYPE_CHECKING:
    from typing import Any

_PARSED: dict[str, Any] | None = None
_BUNDLE: dict[str, Any] | None = None
BUNDLE_FORMAT = 1


def read_packaged(package: str, filename: str) -> str:
    """The text of `filename` inside the (already importable) `package`."""
    with open(packaged_path(package, filename), encoding="utf-8") as handle:
        return handle.read()


def packaged_path(package: str, filename: str) -> str:
    """Where `filename` inside the (already importable) `package` is."""
    __import__(package)
    module = sys.modules[package]
    return os.path.join(os.path.dirname(module.__file__ or ""), filename)


def bundle_name(version: tuple[int, int] | None = None) -> str:
    major, minor = version or sys.version_info[:2]
    return f"oneshot-{major}.{minor}.marshal"


def bundle() -> dict[str, Any]:
    """The one-shot bundle of this Python version (empty when there is none or it does not
    load): `tomls` (text → parse tree), `literals`, `translations`, `sre` and `headers`."""
    global _BUNDLE
    if _BUNDLE is None:
        _BUNDLE = {}
        if sys.implementation.name == "cpython":
            try:
                with open(packaged_path("turnlens.core.packs", bundle_name()), "rb") as handle:
                    raw = marshal.loads(handle.read())
                if isinstance(raw, dict) and raw.get("format") == BUNDLE_FORMAT:
                    _BUNDLE = raw
            except (OSError, ValueError, EOFError, TypeError):
                pass
    return _BUNDLE


def bundled(section: str) -> dict[str, Any] | None:
    """One section of the bundle, or None (then the JSON cache answers)."""
    found = bundle().get(section)
    return found if isinstance(found, dict) else None


def text_key(text: str) -> str:
    import zlib

    data = text.encode("utf-8", "surrogatepass")
    return f"{zlib.crc32(data):08x}-{len(data)}"


def _parsed() -> dict[str, Any]:
    global _PARSED
    if _PARSED is None:
        import json

        try:
            _PARSED = json.loads(read_packaged("turnlens.core.packs", "parsed.json"))["tomls"]
        except (OSError, ValueError, KeyError, TypeError):
            _PARSED = {}
    return _PARSED


def parse_toml(text: str) -> dict[str, Any]:
    """`tomllib.loads(text)`, answered from the stored parse of a shipped file when it is one."""
    tomls = bundled("tomls")
    known = tomls.get(text) if tomls is not None else None
    if known is None:
        known = _parsed().get(text_key(text))
    if known is not None:
        return dict(known)
    import tomllib

    return tomllib.loads(text)
