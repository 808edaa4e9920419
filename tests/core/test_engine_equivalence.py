"""The fast engine agrees with `score_plain`, the line-by-line reference semantics.

Texts are built from an alphabet of rule fragments (the literals the engine's
pre-check looks for, in several cases, plus hand-picked pieces for the rules
without literals), line breaks of every kind, accents, the Turkish i's, `ß`,
emoji and NUL, so that every shortcut of the fast path is exercised.
"""

from __future__ import annotations

import re
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turnlens.classifier import classify
from turnlens.core import engine
from turnlens.core.engine import score, score_plain
from turnlens.core.literals import fold, required_literals
from turnlens.core.rules import Rule, RulePack, builtin_pack, parse_pack

PACKS = ("reference", "default")

HAND_PICKED = [
    "yes",
    "no",
    "sí",
    "ok",
    "thanks",
    "Gracias",
    "hola ",
    "hi",
    "history",
    "SPEC-1",
    "SE-29",
    "CASE-12",
    "AC-3",
    "PBI-7",
    "---",
    "```",
    "+++ a",
    "--- a/x.py",
    "diff --git a b",
    "@@ -1 +1 @@",
    "def f(",
    "class A:",
    "  const x = 1",
    "Error: ",
    "ValueError",
    "PASS: ",
    "G6 PASS",
    "score: 9",
    "# ",
    "## h",
    "- ",
    "* ",
    "  - ",
    "[PASS]",
    "FAILED ",
    "✅ ",
    "❌",
    "$ ls",
    ">>> 1",
    "x.py:3:1: E501",
    "Found 2 errors",
    "3 passed, 1 failed",
    "nit: ",
    "7/10",
    "L12: ",
    "SELECT 1",
    "UPDATE t SET",
    "@app.route(",
    "};",
    "{",
    "}",
    "Merge it.",
    "Approved. Push",
    "let's go with",
    "vamos con",
    "Decision: ",
    "No.",
    "hold off",
    "?",
    "Scenario: ",
    "  Given ",
    "MUST",
    "Requirements:",
    "Expected: ",
    "MOB-12: X",
    "import os",
    "from a import b",
    "npm ERR!",
    "panic: ",
    "  ^^^^",
    "  at f (a.js:1:2)",
    '  File "a.py", line 1',
    "For context,",
    "that's why",
    "word ",
    "words ",
]
NOISE = [
    " ",
    "  ",
    "\t",
    "\n",
    "\n",
    "\r\n",
    "\r",
    "\n\n",
    "é",
    "ñ",
    "É",
    "ı",
    "İ",
    "ß",
    "ẞ",
    "ſ",
    "\u212a",
    "🚀",
    "👍🏽",
    "\x00",
    "\u0301",
    "\u2028",
    "—",
    ":",
    ".",
    "!",
    "(",
    "=",
    "/",
    "0",
    "42",
]


SEPARATORS = [" ", " ", "", "\n", "\r\n", "\r", "\t", ": ", ". "]


@cache
def fragments(pack_name: str) -> tuple[str, ...]:
    """Hand-picked pieces and every pre-check literal of the pack, in three cases."""
    pieces: set[str] = set(HAND_PICKED)
    for rule in builtin_pack(pack_name).rules:
        found = required_literals(rule.pattern, rule.ignore_case) if rule.pattern else None
        for lit in found[0] if found else ():
            pieces |= {lit, lit.upper(), lit.title()}
    return tuple(sorted(pieces))


@cache
def turkish(pack_name: str) -> tuple[str, ...]:
    """Literals with `İ` / `ı` in place of i: Python matches them as `i` ignoring case, RE2 does not."""
    variants = set()
    for f in fragments(pack_name):
        if "i" in f.lower():
            variants |= {f.replace("i", "İ"), f.upper().replace("I", "ı")}
    return tuple(sorted(variants))


def texts(pack_name: str) -> st.SearchStrategy[str]:
    piece = st.one_of(
        st.sampled_from(fragments(pack_name)), st.sampled_from(NOISE), st.sampled_from(turkish(pack_name))
    )
    pairs = st.tuples(piece, st.sampled_from(SEPARATORS)).map("".join)
    return st.lists(pairs, max_size=30).map("".join)


def _line_regex(rule: Rule) -> re.Pattern[str]:
    assert rule.pattern is not None and rule.engine == "re"
    return re.compile(rule.pattern, re.IGNORECASE if rule.ignore_case else 0)


def _plain_signals(text: str, pack: RulePack) -> dict[str, int]:
    """rule id -> first (1-based) line it matches, 0 for bound-only rules; by brute force."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text[: len(text) - 1 if text.endswith("\n") else len(text)].split("\n") if text else []
    out: dict[str, int] = {}
    for rule in pack.rules:
        if score_plain(text, [rule], pack.categories)[rule.category] == 0:
            continue
        if rule.pattern is None:
            out[rule.id] = 0
        else:
            rx = _line_regex(rule)
            out[rule.id] = next(n for n, line in enumerate(lines, 1) if rx.search(line))
    return out


@pytest.mark.parametrize("pack_name", PACKS)
def test_small_sets_and_the_regrouped_sets_give_the_same_answers(pack_name: str) -> None:
    """A matcher built for little text (a one-shot run) uses sets of COLD_SET_PATTERNS and
    regroups them into sets of SET_PATTERNS after REGROUP_BYTES: the answers never change."""
    base = builtin_pack(pack_name)
    pack = RulePack(base.name, base.categories, base.rules, base.fallback)
    matcher = engine._matcher(pack)
    samples = [t for frags in (fragments(pack_name), turkish(pack_name)) for t in frags]
    text = "\n".join(samples)
    matcher._maybe_build(engine.SET_AFTER_BYTES)
    assert matcher._group == engine.COLD_SET_PATTERNS
    assert len(matcher.set.sets) > 1
    small = [score(t, pack, explain=True) for t in [*samples, text]]
    filler = "x " * (engine.REGROUP_BYTES // 2 + 1)
    score(filler, pack)
    assert matcher._group == engine.SET_PATTERNS
    assert all(len(indices) <= engine.SET_PATTERNS for _, indices in matcher.set.sets)
    assert [score(t, pack, explain=True) for t in [*samples, text]] == small
    for t in [*samples, text]:
        assert score(t, pack).scores == score_plain(t, pack.rules, pack.categories)


@pytest.mark.parametrize("pack_name", PACKS)
def test_the_batch_path_regroups_small_sets_and_forgets_what_it_keyed_by_them(pack_name: str) -> None:
    """`classify_rules_many` and `score_many` (a transcript at once) also move from the small
    sets to sets of SET_PATTERNS once the matcher has read REGROUP_BYTES, and their cache of
    answers by set hits starts again (its keys were the small sets' local indices)."""
    from turnlens.core.classify import _batch, classify_rules, classify_rules_many, score_many

    base = builtin_pack(pack_name)
    pack = RulePack(base.name, base.categories, base.rules, base.fallback)
    matcher = engine._matcher(pack)
    samples = [t for frags in (fragments(pack_name), turkish(pack_name)) for t in frags]
    matcher._maybe_build(engine.SET_AFTER_BYTES)
    assert matcher._group == engine.COLD_SET_PATTERNS
    expected = [classify_rules(t, pack) for t in samples]
    passes = [score(t, pack) for t in samples]
    assert classify_rules_many(samples, pack) == expected
    before = _batch(pack, matcher)
    assert before.answers
    filler = ["x " * 4096] * (engine.REGROUP_BYTES // 8192 + 1)
    classify_rules_many(filler, pack)
    assert matcher._group == engine.SET_PATTERNS
    after = _batch(pack, matcher)
    assert after is not before and after.generation == matcher.generation
    assert classify_rules_many(samples, pack) == expected
    assert score_many(samples, pack) == passes


def test_a_long_running_process_starts_with_full_sets(monkeypatch: pytest.MonkeyPatch) -> None:
    """After `prefer_memory` (the language server) a matcher built on a short text already has
    sets of SET_PATTERNS: no regrouping later, in the middle of a refinement."""
    for name in ("SET_MAX_MEM", "RULE_MAX_MEM", "COLD_SET_PATTERNS"):
        monkeypatch.setattr(engine, name, getattr(engine, name))  # restored after the test
    monkeypatch.setattr(engine, "_MATCHERS", {})  # the other tests' matchers stay as they are
    engine.prefer_memory()
    base = builtin_pack("default")
    pack = RulePack(base.name, base.categories, base.rules, base.fallback)
    matcher = engine._matcher(pack)
    matcher._maybe_build(engine.SET_AFTER_BYTES)
    assert matcher._group == engine.SET_PATTERNS
    generation = matcher.generation
    score("x " * (engine.REGROUP_BYTES // 2 + 1), pack)
    assert matcher.generation == generation


def test_builtin_rules_have_non_zero_weights() -> None:
    # _plain_signals tells a fired rule by its score; a zero weight would hide it.
    assert all(r.weight != 0 for name in PACKS for r in builtin_pack(name).rules)


def _pack_on(pack_name: str, path: str) -> RulePack:
    """The built-in pack with its RE2 sets built ("set"), or a copy of it that scores short
    texts on the Python path ("python"): both paths must give the plain answers."""
    pack = builtin_pack(pack_name)
    if path == "set":
        engine._matcher(pack)._maybe_build(engine.SET_AFTER_BYTES)
        assert engine._matcher(pack).set is not None
        return pack
    return RulePack(pack.name, pack.categories, pack.rules, pack.fallback)


@pytest.mark.parametrize("path", ["set", "python"])
@pytest.mark.parametrize("pack_name", PACKS)
@settings(max_examples=200, deadline=None, database=None)
@given(data=st.data())
def test_fast_engine_agrees_with_score_plain(pack_name: str, path: str, data: st.DataObject) -> None:
    text = data.draw(texts(pack_name))
    pack = _pack_on(pack_name, path)
    fast = score(text, pack, explain=True)
    assert fast.scores == score_plain(text, pack.rules, pack.categories)
    assert {s.rule: s.line for s in fast.signals} == _plain_signals(text, pack)


@pytest.mark.parametrize("pack_name", PACKS)
@settings(max_examples=100, deadline=None, database=None)
@given(data=st.data())
def test_lf_crlf_and_cr_texts_classify_the_same(pack_name: str, data: st.DataObject) -> None:
    text = data.draw(texts(pack_name))
    pack = builtin_pack(pack_name)
    lf = text.replace("\r", "")
    want = classify(lf, pack)
    for variant in (lf.replace("\n", "\r\n"), lf.replace("\n", "\r")):
        got = classify(variant, pack)
        assert (got.task_class, got.scores, got.words, got.lines) == (
            want.task_class,
            want.scores,
            want.words,
            want.lines,
        )


@pytest.mark.parametrize(
    "text",
    ["COMMİT now", "APPROVİNG", "approvİng", "ACCEPTANCE CRİTERİA", "lgtm\nİ", "GRACİAS", "aprobadı"],
)
@pytest.mark.parametrize("pack_name", PACKS)
def test_turkish_i_regressions(pack_name: str, text: str) -> None:
    pack = builtin_pack(pack_name)
    assert score(text, pack).scores == score_plain(text, pack.rules, pack.categories)


def test_fold_keeps_every_case_insensitive_match() -> None:
    assert fold("COMMİT") == "commit"
    assert fold("lgtı") == "lgti"
    assert fold("Straße") == "strasse" == fold("STRASSE")
    assert fold("\u212a") == "k"


USER_RULES = """
[[rule]]
id = "u.start"
category = "review"
weight = 1
pattern = '\\Afoo'

[[rule]]
id = "u.ahead"
category = "code"
weight = 1
pattern = 'foo(?=\\s)'

[[rule]]
id = "u.behind"
category = "spec"
weight = 1
pattern = '(?<=\\s)foo'
"""


@pytest.mark.parametrize("text", ["bar\nfoo", "foo\nbar", "foo bar\nfoo", "x foo", "foo", "\nfoo \n"])
def test_anchors_and_lookaround_never_see_past_a_line(text: str) -> None:
    pack = parse_pack(USER_RULES, "look.toml", base=builtin_pack("reference"))
    assert score(text, pack).scores == score_plain(text, pack.rules, pack.categories)


def test_user_rule_with_start_anchor_matches_each_line_on_re2() -> None:
    body = "[[rule]]\nid = 'u.start'\ncategory = 'review'\nweight = 4\npattern = '\\Afoo'\n"
    pack = parse_pack(body, "u.toml", base=builtin_pack("reference"), strict=False, user=True)
    assert not pack.warnings and pack.rule("u.start").engine == "re2"  # type: ignore[union-attr]
    assert (
        score("bar\nfoo", pack).scores["review"]
        == 4
        == score_plain("bar\nfoo", pack.rules, pack.categories)["review"]
    )


@settings(max_examples=100, deadline=None, database=None)
@given(text=texts("default"))
def test_user_rules_on_re2_agree_with_score_plain(text: str) -> None:
    pack = _user_pack()
    assert score(text, pack).scores == score_plain(text, pack.rules, pack.categories)


@cache
def _user_pack() -> RulePack:
    rules = """
[[rule]]
id = "u.words"
category = "decision"
weight = 3
ignore_case = true
pattern = '\\b(lgtm|ship it|aprobado)\\b'

[[rule]]
id = "u.line"
category = "spec"
weight = 2
pattern = '^[A-Z]+-[0-9]+:'

[[rule]]
id = "u.end"
category = "review"
weight = 2
pattern = 'PASS[ \\t]*$'

[[rule]]
id = "u.accent"
category = "chitchat"
weight = 1
ignore_case = true
pattern = 'gracias|straße|ıi'
"""
    pack = parse_pack(rules, "user.toml", base=builtin_pack("default"), strict=False, user=True)
    assert not pack.warnings
    return pack
