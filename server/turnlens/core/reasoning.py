"""A turn read alone whose top shows it is an agent's reasoning.

A Markdown log or a message pasted from an agent's session keeps the agent's thinking, its
reply and its tool traces together in one turn. When such a turn opens with the reasoning,
it is the agent's working, not conversation: it is read as the `thinking` kind
(`turnlens.core.kinds`), which is context. This module stays small: the one-shot path
(`turnlens classify`, the hooks) imports it for every text the classes model reads.
"""

from __future__ import annotations

from turnlens.core.prebuilt import compile_re

# the reasoning as clients and exporters write it: `<think>` (DeepSeek R1, Cursor and SpecStory
# exports, often with `<details><summary>Thought Process`), `<thinking>`, an exporter's
# `<thinking-content-…>` tag, a ```thinking fence; past the `---` rules and `_****_` lines
# SpecStory writes between the parts of an agent's turn
_REASONING_OPENING = compile_re(
    r"\A(?:[ \t\r\n]*+(?:-{3,}+|_\*{4}+_)[ \t]*+\r?\n)*+[ \t\r\n]*+"
    r"(?:<think(?:ing)?+>|<thinking-content-[0-9a-f]{1,64}+>|(?:`{3,}+|~{3,}+)[ \t]*+thinking[ \t]*+\r?\n)"
)


def kind_of_text(text: str) -> str | None:
    """The kind a turn read alone shows at its top (None: a conversation turn): one that opens
    with the agent's reasoning is the agent's thinking, whatever follows it (the reply and tool
    traces of the same agent turn)."""
    return "thinking" if _REASONING_OPENING.match(text) else None
