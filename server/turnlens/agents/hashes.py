"""SHA-1 and SHA-256 hex digests without importing `hashlib`.

`hashlib` loads OpenSSL's libcrypto when imported (~2.5 ms of every hook and status-line
process, which hash a path and a prompt or two). CPython's own implementations of the
two algorithms are small modules of their own, giving the same digests; where they are
missing (another interpreter), `hashlib` does the work.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _builtin(names: tuple[tuple[str, str], ...], fallback: str) -> Callable[[bytes], Any]:
    for module, name in names:
        try:
            found: Callable[[bytes], Any] = getattr(__import__(module), name)
            return found
        except (ImportError, AttributeError):
            continue
    import hashlib

    made: Callable[[bytes], Any] = getattr(hashlib, fallback)
    return made


_SHA1: Callable[[bytes], Any] | None = None
_SHA256: Callable[[bytes], Any] | None = None


def sha1_hex(data: bytes) -> str:
    global _SHA1
    if _SHA1 is None:
        _SHA1 = _builtin((("_sha1", "sha1"),), "sha1")
    return str(_SHA1(data).hexdigest())


def text_digest(text: str) -> str:
    """The short digest a ledger keeps of a prompt or turn (and the submit hook of its prompt)."""
    return sha1_hex(text.encode("utf-8", "surrogatepass"))[:20]


def sha256_hex(data: bytes) -> str:
    global _SHA256
    if _SHA256 is None:  # `_sha256` until Python 3.11, `_sha2` from 3.12
        _SHA256 = _builtin((("_sha2", "sha256"), ("_sha256", "sha256")), "sha256")
    return str(_SHA256(data).hexdigest())
