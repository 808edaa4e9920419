"""The router's keyword regex escapes phrases with its own table (no `re` import on the
one-shot path); it must escape exactly what `re.escape` escapes, on every character."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from turnlens.router.resolve import _SPECIAL, keyword_pattern


def test_the_table_escapes_each_ascii_and_some_other_characters_as_re_escape_does() -> None:
    for ch in [chr(i) for i in range(128)] + ["é", "ß", "—", "中", "😀", "\u00a0"]:
        assert ch.translate(_SPECIAL) == re.escape(ch), repr(ch)


@given(st.text(max_size=40))
def test_any_word_is_escaped_as_re_escape_does(word: str) -> None:
    assert word.translate(_SPECIAL) == re.escape(word)


@given(
    st.lists(
        st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1), min_size=1, max_size=5
    )
)
def test_each_phrase_matches_itself_with_any_whitespace_between_words(phrases: list[str]) -> None:
    phrases = [p for p in phrases if p.split()]
    if not phrases:
        return
    pattern = re.compile(keyword_pattern(phrases), re.IGNORECASE)
    for phrase in phrases:
        assert pattern.search("  ".join(phrase.split()))
