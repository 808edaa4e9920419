"""The hooks' digests (session keys, prompt digests, a session file's head) are the same
whichever implementation makes them: ledgers written before stay readable."""

from __future__ import annotations

import hashlib
import random

from turnlens.agents import hashes


def test_digests_equal_hashlib() -> None:
    rng = random.Random(3)
    for size in (0, 1, 55, 56, 64, 1000, 70_000):
        data = rng.randbytes(size)
        assert hashes.sha1_hex(data) == hashlib.sha1(data).hexdigest()
        assert hashes.sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_without_the_builtin_modules_hashlib_answers() -> None:
    made = hashes._builtin((("_turnlens_no_such_module", "sha256"),), "sha256")
    assert made(b"abc").hexdigest() == hashlib.sha256(b"abc").hexdigest()


def test_the_submit_hook_and_the_ledger_digest_prompts_alike() -> None:
    from turnlens.agents.ledger import digest

    for text in ("", "ultrathink", "naïve ☃ \ud800 lone surrogate", "x" * 10_000):
        assert hashes.text_digest(text) == digest(text)
        assert len(digest(text)) == 20
