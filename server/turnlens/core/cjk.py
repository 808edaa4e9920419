"""Chinese, Japanese and Korean write words without spaces between them.

Counting a text's words by its spaces makes a long CJK sentence one "word"; the learned
features, the shape of a text and the rules that look at a prompt's length all count such a
text the same way here, so that they agree on what "short" means.
"""

from __future__ import annotations

from turnlens.core.prebuilt import compile_re

# the ideographs and kana: each is a token of its own for the learned features, so that their
# word bigrams are the script's two-character words ("合并", "回滚")
CJK_RANGES = ((0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF))
# the characters a text's length in words counts by two (`text_words`): CJK and Hangul
WORD_CJK_RANGES = (*CJK_RANGES, (0xAC00, 0xD7AF))
_CJK_CHAR = compile_re(  # compiled ahead: ~2 ms with `re`
    "[" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in WORD_CJK_RANGES) + "]"
)


def text_words(words: int, region_text: str) -> int:
    """How long the text is in words, Chinese, Japanese and Korean included: whitespace
    words, plus one for each two CJK characters (scripts that write no spaces between words
    would otherwise make a long sentence one "word")."""
    if region_text.isascii():
        return words
    return words + len(_CJK_CHAR.findall(region_text)) // 2
