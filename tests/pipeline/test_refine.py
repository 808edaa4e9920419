"""UnitCache's quick answers and their refinement: the same results as one full analysis."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from tests.bench.workloads import transcript
from turnlens.pipeline.analyze import PENDING, UnitCache, UnitResult, analyze
from turnlens.pipeline.profile import Profile

TEXT = transcript(60_000)


def answers(results: tuple[UnitResult, ...]) -> list[tuple[str, object, object, bool]]:
    return [(r.unit.text, r.classification, r.route, r.provisional) for r in results]


def test_quick_answers_are_the_rules_and_marked_provisional() -> None:
    cache = UnitCache()
    quick = cache.analyze(TEXT, Profile(), quick_over=1000).results
    assert quick and all(r.provisional for r in quick)
    assert all(r.classification.engine == "rules" for r in quick)
    assert all(r.route is PENDING for r in quick if r.route.source != "role")
    assert len(cache.pending) == len({r.unit.text for r in quick})


def test_refined_slice_by_slice_equals_a_full_analysis() -> None:
    cache = UnitCache()
    cache.analyze(TEXT, Profile(), quick_over=1000)
    slices = 0
    while cache.pending:
        done = cache.refine(4_000)
        assert done and all(not r.provisional for r in done)
        slices += 1
    assert slices > 3  # bounded slices, not one pass
    assert answers(cache.results()) == answers(analyze(TEXT).results)


def test_refine_takes_the_given_units_first_and_at_least_one() -> None:
    cache = UnitCache()
    results = cache.analyze(TEXT, Profile(), quick_over=1000).results
    last = cache.key_of(results[-1].unit)
    assert last is not None
    done = cache.refine(0, (last,))
    assert [r.unit for r in done] == [results[-1].unit]
    assert last not in cache.pending
    now = cache.results()
    assert not now[-1].provisional and now[0].provisional
    assert cache.result_of(results[-1].unit, last) == now[-1]


def test_an_edit_keeps_what_was_refined_and_what_is_still_pending() -> None:
    cache = UnitCache()
    cache.analyze(TEXT, Profile(), quick_over=1000)
    cache.refine(20_000)
    left = len(cache.pending)
    assert left > 0
    edited = "A new first turn.\n---TURN---\n" + TEXT
    # a small edit: the new turn is answered by the model at once, the rest keep their state
    cache.analyze(edited, Profile(), edit=(0, len(TEXT)), quick_over=1000)
    assert len(cache.pending) == left
    assert not cache.results()[0].provisional
    while cache.pending:
        cache.refine(50_000)
    assert answers(cache.results()) == answers(analyze(edited).results)


def test_below_the_threshold_the_model_answers_at_once() -> None:
    cache = UnitCache()
    results = cache.analyze(TEXT, Profile(), quick_over=len(TEXT)).results
    assert not cache.pending and not any(r.provisional for r in results)
    assert answers(results) == answers(analyze(TEXT).results)


@pytest.fixture
def passes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the rule passes `classify_many` runs itself (`score_many` calls)."""
    import turnlens.classifier as classifier
    from turnlens.core.classify import score_many

    runs: list[int] = []

    def counted(texts: Any, pack: Any) -> Any:
        out = score_many(texts, pack)
        runs.append(len(out))
        return out

    monkeypatch.setattr(classifier, "score_many", counted)
    return runs


def test_refining_reuses_the_quick_answers_rule_pass(passes: list[int]) -> None:
    """The quick answers came from the rule pass the model reads too: refining does not run
    it again (and answers as one full analysis does, which runs it)."""
    cache = UnitCache()
    cache.analyze(TEXT, Profile(), quick_over=1000)
    while cache.pending:
        cache.refine(20_000)
    assert passes == []
    assert answers(cache.results()) == answers(analyze(TEXT).results)
    assert passes  # the full analysis ran its own


def test_quick_answers_of_another_pack_are_scored_again(passes: list[int]) -> None:
    from turnlens.core.rules import builtin_pack, with_model

    cache = UnitCache()
    profile = Profile()
    cache.analyze(TEXT, profile, quick_over=1000)
    cache.refine(4_000)
    other = replace(profile, pack=with_model(builtin_pack("default"), profile.pack.model))
    assert other.pack is not profile.pack
    # a small edit with another pack object: the pending quick answers stay (same texts)
    cache.analyze(TEXT + "\n", other, edit=(len(TEXT), 0), quick_over=1000)
    while cache.pending:
        cache.refine(50_000)
    assert passes
    assert answers(cache.results()) == answers(analyze(TEXT + "\n", other).results)
