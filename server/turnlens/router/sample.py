"""The text a classifier sees: the whole prompt, or its head and tail.

The start of a prompt says what is asked and the end is what was typed last
(often the actual request after a paste), so a long prompt keeps both.
Python strings index by code point, so a cut never splits an emoji or any
other astral character into a lone surrogate.
"""

from __future__ import annotations


def sample(text: str, max_cp: int = 2000, head: int = 500, tail: int = 1500) -> str:
    """The trimmed text when it has at most `max_cp` code points, else its first
    `head` and last `tail` code points, joined as they are (SPEC §5)."""
    trimmed = text.strip()
    if len(trimmed) <= max_cp:
        return trimmed
    start = trimmed[:head] if head > 0 else ""
    end = trimmed[len(trimmed) - tail :] if tail > 0 else ""
    return start + end
