"""The classifier's sample: whole up to 2000 code points, else first 500 + last 1500."""

from __future__ import annotations

from turnlens.router.sample import sample


def _no_lone_surrogate(text: str) -> bool:
    text.encode("utf-8")  # raises on a lone surrogate
    return not any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def test_exactly_2000_code_points_is_sent_whole() -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(2000))
    assert sample(text) == text


def test_2001_code_points_is_head_and_tail() -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(2001))
    out = sample(text)
    assert out == text[:500] + text[-1500:]
    assert len(out) == 2000


def test_trimmed_before_counting() -> None:
    text = "  \n" + "x" * 2000 + "\n\n  "
    assert sample(text) == "x" * 2000


def test_emoji_count_as_one_code_point() -> None:
    text = "😀" * 2000  # 4000 UTF-16 units, 2000 code points
    assert sample(text) == text


def test_astral_characters_at_the_cut_points_are_never_split() -> None:
    text = "a" * 499 + "😀🎉" + "b" * 1000 + "𝄞𠜎" + "c" * 1499  # cut points land on astral characters
    out = sample(text)
    assert out == text[:500] + text[-1500:]
    assert out[499] == "😀" and out[500] == "𠜎"
    assert _no_lone_surrogate(out)


def test_all_astral_text_above_the_limit() -> None:
    text = "".join(chr(0x1F600 + i % 80) for i in range(5000))
    out = sample(text)
    assert len(out) == 2000 and _no_lone_surrogate(out)
    assert out[:500] == text[:500] and out[500:] == text[-1500:]


def test_combining_marks_are_counted_as_code_points() -> None:
    text = "e\u0301" * 1000  # 2000 code points, 1000 graphemes
    assert sample(text) == text


def test_custom_sizes() -> None:
    text = "0123456789" * 3
    assert sample(text, max_cp=10, head=3, tail=4) == "012" + "6789"
    assert sample(text, max_cp=10, head=0, tail=5) == "56789"
