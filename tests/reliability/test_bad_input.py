"""Bad input: any string goes through the core and the router without an exception,
units partition the text exactly, and CRLF text classifies like LF text.

Property-based (hypothesis, derandomized) plus fixed regressions for the inputs
that have broken language servers before: 100 KB lines, NUL, lone surrogates,
every line-break convention at once.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import turnlens
from turnlens.api import classify_unit
from turnlens.core.classes import CLASS_NAMES
from turnlens.core.rules import builtin_pack, parse_pack
from turnlens.pipeline.formats.turns import split_units
from turnlens.router import SOURCES, parse_router_settings, resolve_offline, sample
from turnlens.router.settings import vocabulary

from .conftest import property_settings
from .strategies import documents, lf_documents, reference_stretches, separators

ROUTER_VARIANTS: dict[str, dict[str, Any]] = {
    "default": {},
    "off": {"enable": False},
    "fallback-none": {"fallback": "none"},
    "model-offline": {"backend": "openai", "endpoint": "http://127.0.0.1:9/v1", "model": "m"},
    "model-offline-none": {"backend": "openai", "model": "m", "fallback": "none"},
}
ROUTER_SETTINGS = {name: parse_router_settings(raw)[0] for name, raw in ROUTER_VARIANTS.items()}


def _summary(c: Any) -> tuple[Any, ...]:
    return (c.task_class, c.max_ratio, c.frozen, c.verdict, c.words, c.lines, dict(c.scores))


def _check_classification(text: str) -> None:
    c = turnlens.classify(text, explain=True)
    assert c.task_class in CLASS_NAMES
    data = c.to_json(explain=True)
    assert set(data) >= {"class", "max_ratio", "frozen", "words", "lines", "scores"}
    assert data["frozen"] in ("true", "partial", "false")
    assert data["words"] == len(text.split())
    json.dumps(data)  # serialisable as the server sends it (lone surrogates are escaped)


def _check_route(text: str) -> None:
    efforts = vocabulary().efforts
    for name, settings in ROUTER_SETTINGS.items():
        for paused in (False, True):
            route = resolve_offline(text, settings, paused=paused)
            assert route.source in SOURCES, (name, route)
            assert route.effort is None or route.effort in efforts, (name, route)
            json.dumps(route.to_json())
            assert isinstance(route.describe(), str)


def _check_units(text: str, separator: str) -> None:
    units = split_units(text, separator)
    spans = [(u.start, u.end) for u in units]
    assert spans == reference_stretches(text, separator)
    for i, u in enumerate(units):
        assert text[u.start : u.end] == u.text
        assert u.index == i + 1
        assert u.text and not u.text.isspace()
        assert u.start <= u.content_start < u.end
        if i:
            assert units[i - 1].end <= u.start  # ordered and disjoint


@given(documents)
@property_settings(100)
def test_core_and_router_accept_any_string(text: str) -> None:
    _check_classification(text)
    _check_units(text, "---TURN---")
    _check_route(text)
    s = sample(text)
    assert s == s.strip() or not s or len(text.strip()) > 2000
    for budget in (0, 1, 10**9):
        session = turnlens.plan(text, budget)
        assert len(session.turns) == len(split_units(text))
        assert session.fits == (session.total_plan_tokens <= budget)
        json.dumps(session.to_json())


@given(st.text(st.characters(exclude_categories=()), max_size=200))
@property_settings(120)
def test_arbitrary_code_points(text: str) -> None:
    _check_classification(text)
    _check_units(text, "---TURN---")
    _check_route(text)


@given(documents, separators)
@property_settings(150)
def test_units_partition_the_text_exactly(text: str, separator: str) -> None:
    _check_units(text, separator)


@given(lf_documents)
@property_settings(100)
def test_crlf_classifies_like_lf(text: str) -> None:
    crlf = text.replace("\n", "\r\n")
    assert _summary(turnlens.classify(crlf)) == _summary(turnlens.classify(text))
    lf_units = split_units(text)
    crlf_units = split_units(crlf)
    assert [u.text.replace("\r\n", "\n") for u in crlf_units] == [u.text for u in lf_units]
    for a, b in zip(lf_units, crlf_units, strict=True):
        assert (a.pin, a.ignored) == (b.pin, b.ignored)
        assert _summary(classify_unit(b)) == _summary(classify_unit(a))
    if len(crlf.strip()) <= 2000:  # past that the sample is cut by code points, which CRs shift
        la, lb = resolve_offline(text), resolve_offline(crlf)
        assert (la.phase, la.effort, la.label, la.source) == (lb.phase, lb.effort, lb.label, lb.source)


@given(st.text(st.characters(exclude_categories=()), max_size=3000), st.integers(0, 2500))
@property_settings(150)
def test_sample_is_head_and_tail_by_code_point(text: str, max_cp: int) -> None:
    head, tail = max_cp // 4, max_cp - max_cp // 4
    s = sample(text, max_cp, head, tail)
    trimmed = text.strip()
    if len(trimmed) <= max_cp:
        assert s == trimmed
    else:
        assert s == trimmed[:head] + (trimmed[len(trimmed) - tail :] if tail else "")
        assert len(s) == max_cp
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return
    s.encode("utf-8")  # a valid text never gets a lone surrogate from the cut


# -- fixed regressions ---------------------------------------------------------------------

HUGE_LINE = "APPROVED " * 11_200  # one 100 KB line
REGRESSIONS = {
    "100KB line": HUGE_LINE,
    "100KB line of emoji": "🚀" * 50_000,
    "100KB of a": "a" * 100_000 + "!",
    "100KB line then turns": HUGE_LINE + "\n---TURN---\nthanks!\n---TURN---\n" + "```\n" + "x" * 100_000,
    "NULs": "\x00" * 1000 + "\nAPPROVED\x00ship it\n---TURN---\n\x00",
    "mixed breaks": "a\r\nb\rc\n---TURN---\r\nSPEC-1\r---TURN---\rthanks\n\r\n---TURN---\n\r",
    "only separators": "---TURN---\n" * 500,
    "separator without break at the end": "hello there\n---TURN---",
    "lone surrogates": "\ud800 APPROVED \udfff\n---TURN---\n\ud83d\ude80\ud83d",
    "bom and line separators": "\ufeffhello\u2028world\u2029---TURN---\u0085x",
    "empty": "",
    "blank": " \t\r\n\x0b\x0c",
    "many tiny turns": "x\n---TURN---\n" * 2000,
    "deep directives": "<!-- turnlens: class=spec -->" * 2000,
}


@pytest.mark.parametrize("name", REGRESSIONS)
def test_regressions_are_handled_quickly(name: str) -> None:
    text = REGRESSIONS[name]
    started = time.process_time()
    _check_classification(text)
    _check_units(text, "---TURN---")
    _check_route(text)
    turnlens.plan(text, 100)
    for unit in split_units(text):
        turnlens.classify(unit.text)
    elapsed = time.process_time() - started
    assert elapsed < 3.0, f"{name}: {elapsed:.2f} s of CPU"


USER_RULES = """
[[rule]]
id = "team.ticket"
class = "spec"
weight = 3
pattern = '\\bTEAM-[0-9]+'

[[rule]]
id = "team.shout"
class = "decision"
weight = 1
pattern = '(?i)^ship'
"""


# Regression test for a bug this suite found (since fixed): user rules run on RE2, which needs valid
# UTF-8, and a lone surrogate in the text (a JSON \ud800 escape from a client) raised
# UnicodeEncodeError out of classify().
@pytest.mark.parametrize("text", ["a\ud800 TEAM-1", "TEAM-7 \udfff", "ship it \ud83d"])
def test_user_rules_accept_lone_surrogates(text: str) -> None:
    pack = parse_pack(USER_RULES, "team.toml", base=builtin_pack("default"), strict=False, user=True)
    assert not pack.warnings
    c = turnlens.classify(text, pack)
    assert c.task_class in CLASS_NAMES
