"""Every size of the benchmark's size sweep (tests/bench/sweep.py) gets the plain answer.

The sweep times `turnlens classify --stdin` on one text of 200 B to 5 MB; a fresh process
scores a short text on the Python path and a long one through the RE2 sets it builds for
it. Here each size is scored as that process would (a fresh matcher), and by the real
command, and compared with the line-by-line `score_plain`. Not timed.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.bench import sweep
from turnlens.classifier import classify, classify_many
from turnlens.core import engine
from turnlens.core.engine import count_lines, count_words, score, score_plain
from turnlens.core.rules import RulePack, builtin_pack
from turnlens.pipeline.formats.turns import split_units

SIZES = sweep.SIZES


def _fresh(pack_name: str) -> RulePack:
    """The built-in pack as a new object: a matcher that has seen nothing, as in a new process."""
    pack = builtin_pack(pack_name)
    return RulePack(pack.name, pack.categories, pack.rules, pack.fallback)


@pytest.fixture(scope="module")
def texts() -> dict[int, str]:
    return {size: sweep.sweep_input(size).decode("utf-8") for size in SIZES}


@pytest.mark.parametrize("pack_name", ["default", "reference"])
@pytest.mark.parametrize("size", SIZES, ids=[f"{s}B" for s in SIZES])
def test_one_text_of_every_sweep_size_agrees(texts: dict[int, str], size: int, pack_name: str) -> None:
    text = texts[size]
    pack = _fresh(pack_name)
    fast = score(text, pack)
    # a short text stays on the Python path, a long one builds the sets, as in one process
    assert (engine._matcher(pack).set is not None) == (size >= engine.SET_FOR_TEXT_BYTES)
    assert fast.scores == score_plain(text, pack.rules, pack.categories)
    assert (fast.words, fast.lines) == (count_words(text), count_lines(text))


@pytest.mark.parametrize("size", SIZES, ids=[f"{s}B" for s in SIZES])
def test_the_command_agrees_at_every_sweep_size(texts: dict[int, str], size: int) -> None:
    text = texts[size]
    out = subprocess.run(
        [sys.executable, "-m", "turnlens", "classify", "--stdin", "--json"],
        input=text.encode("utf-8"),
        capture_output=True,
        check=True,
    )
    got = json.loads(out.stdout)
    pack = builtin_pack("default")
    assert got["scores"] == score_plain(text, pack.rules, pack.categories)
    assert (got["words"], got["lines"]) == (count_words(text), count_lines(text))


def test_every_turn_of_the_500_kb_sweep_text_agrees(texts: dict[int, str]) -> None:
    """Turn by turn through the sets (built once, as for a transcript), as `check` and the server do."""
    pack = builtin_pack("default")
    units = split_units(texts[500_000])
    assert len(units) > 500
    bad = []
    for u in units:
        fast = score(u.text, pack)
        if fast.scores != score_plain(u.text, pack.rules, pack.categories):
            bad.append(u.index)
    assert engine._matcher(pack).set is not None
    assert not bad, f"{len(bad)} of {len(units)} turns disagree, e.g. {bad[:5]}"


@pytest.mark.parametrize("size", SIZES[1:], ids=[f"{s}B" for s in SIZES[1:]])
def test_classify_many_agrees_turn_by_turn_at_every_sweep_size(texts: dict[int, str], size: int) -> None:
    """The batch path (`classify_many`, what the throughput benchmark times) gives exactly the
    one-text answers on every turn of every sweep text, with LF and CRLF line breaks."""
    pack = builtin_pack("default")
    turns = [u.text for u in split_units(texts[size])]
    for variant in (turns, [t.replace("\n", "\r\n") for t in turns]):
        assert classify_many(variant, pack) == [classify(t, pack) for t in variant]
