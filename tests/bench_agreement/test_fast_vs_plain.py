"""The fast scorer (`score`: one RE2-set pass) agrees with the plain line-by-line one
(`score_plain`) on the benchmark workloads: every unit of a ~200 KB generated transcript,
the 2 KB prompts, under both built-in packs, with LF and CRLF line breaks.

Not timed: the benchmarks (tests/bench/run.py) time these scorers; this proves that what
they time gives the same answers.
"""

from __future__ import annotations

import re

import pytest

from tests.bench import workloads
from turnlens.core.engine import count_lines, count_words, score, score_plain
from turnlens.core.rules import builtin_pack
from turnlens.pipeline.formats.turns import split_units
from turnlens.pipeline.units import Unit

SIZE = 200_000
PACKS = ("default", "reference")


@pytest.fixture(scope="module")
def transcript() -> workloads.Workload:
    return workloads.transcript_workload(SIZE)


@pytest.fixture(scope="module")
def units(transcript: workloads.Workload) -> list[Unit]:
    return split_units(transcript.text)


def test_the_generator_is_deterministic() -> None:
    fresh = workloads.transcript_workload.__wrapped__(SIZE)
    assert fresh.text == workloads.transcript_workload(SIZE).text
    assert workloads.prompts_2kb.__wrapped__() == workloads.prompts_2kb()


def test_the_workload_has_every_kind_of_turn(transcript: workloads.Workload, units: list[Unit]) -> None:
    assert set(transcript.kinds) == {kind for kind, _ in workloads.KINDS} | {"non-ascii"}
    assert transcript.nbytes >= SIZE
    assert len(units) == transcript.nturns
    for u in units:
        assert transcript.text[u.start : u.end] == u.text
    non_ascii = sum(not u.text.isascii() for u in units) / len(units)
    assert 0.03 < non_ascii < 0.12, non_ascii
    assert re.search(r"[\u4e00-\u9fff]", transcript.text)  # CJK
    assert re.search(r"[\U0001F300-\U0001FAFF]", transcript.text)  # emoji
    assert re.search(r"[áéíóúñ¿¡]", transcript.text)  # accents


def _disagreements(texts: list[str], pack_name: str) -> list[str]:
    pack = builtin_pack(pack_name)
    out = []
    for text in texts:
        fast = score(text, pack)
        plain = score_plain(text, pack.rules, pack.categories)
        if fast.scores != plain or (fast.words, fast.lines) != (count_words(text), count_lines(text)):
            out.append(f"{text[:80]!r}: fast {fast.scores} plain {plain}")
    return out


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize("pack_name", PACKS)
def test_fast_and_plain_agree_on_every_unit(units: list[Unit], pack_name: str, newline: str) -> None:
    texts = [u.text.replace("\n", newline) for u in units]
    bad = _disagreements(texts, pack_name)
    assert not bad, f"{len(bad)} of {len(texts)} units disagree, e.g. " + "\n".join(bad[:5])


@pytest.mark.parametrize("pack_name", PACKS)
def test_fast_and_plain_agree_on_the_2kb_prompts(pack_name: str) -> None:
    assert not _disagreements(list(workloads.prompts_2kb()), pack_name)


@pytest.mark.parametrize("pack_name", PACKS)
def test_explained_signals_point_at_a_matching_line(units: list[Unit], pack_name: str) -> None:
    """With `explain`, each fired pattern rule names a line on which it matches on its own."""
    pack = builtin_pack(pack_name)
    checked = 0
    for u in units[::4]:
        result = score(u.text, pack, explain=True)
        assert result.scores == score(u.text, pack).scores
        lines = u.text.split("\n")
        for signal in result.signals:
            rule = pack.rule(signal.rule)
            assert rule is not None
            if rule.pattern is None:
                continue
            flags = re.IGNORECASE if rule.ignore_case else 0
            assert re.search(rule.pattern, lines[signal.line - 1], flags), (signal, lines[signal.line - 1])
            checked += 1
    assert checked > 100
