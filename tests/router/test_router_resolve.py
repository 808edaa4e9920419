"""SPEC §5 resolution, one clause per test: each step, its precedence, and the label → effort map."""

from __future__ import annotations

import pytest

from turnlens.router.resolve import Route, resolve_early, resolve_offline, route_from_label
from turnlens.router.settings import DEFAULT, parse_router_settings

DESIGN = "Propose an approach for the retries and lay out the trade-offs."
ANALYSIS = "Why does the importer create duplicates when the same file is uploaded twice?"
CODING = "Implement the bulk tag endpoint with a max of 500 ids per request."
BOOKKEEPING = "Bump the version to 2.4.1 in pyproject.toml and package.json."
CHAT = "thanks, that was really helpful"


def settings(**raw: object):  # type: ignore[no-untyped-def]
    s, warnings = parse_router_settings(raw)
    assert warnings == []
    return s


# ── step 1: off ──────────────────────────────────────────────────────────────


def test_off_gives_no_route() -> None:
    r = resolve_offline(DESIGN, settings(enable=False))
    assert (r.phase, r.effort, r.source) == (None, None, "off")


def test_off_beats_a_directive() -> None:
    assert resolve_offline("/route plan now", settings(enable=False)).source == "off"


# ── step 2: directive and slash ──────────────────────────────────────────────


def test_directive_routes_to_its_phase() -> None:
    r = resolve_offline("/route apply\nDesign the whole architecture please")
    assert (r.phase, r.effort, r.source) == ("apply", "low", "directive")


def test_directive_with_text_on_the_same_line() -> None:
    r = resolve_offline("/route plan bump flask to 3.0.3")
    assert (r.phase, r.effort, r.source) == ("plan", "high", "directive")


def test_directive_phase_is_case_insensitive() -> None:
    assert resolve_offline("/route Reflect on this").phase == "reflect"


def test_route_off_gives_no_route() -> None:
    r = resolve_offline("/route off\nultrathink about the architecture")
    assert (r.phase, r.effort, r.source) == (None, None, "directive")
    assert "/route off" in r.reason


def test_route_with_unknown_phase_is_a_slash_command() -> None:
    r = resolve_offline("/route banana and more text here")
    assert (r.effort, r.source) == (None, "slash")
    assert "banana" in r.reason


def test_slash_command_gives_no_route() -> None:
    r = resolve_offline("/compact keep the decisions about the schema")
    assert (r.phase, r.effort, r.source) == (None, None, "slash")


def test_slash_beats_keyword_and_explicit() -> None:
    assert resolve_offline("/review ultrathink\n/effort max").source == "slash"


def test_routex_is_not_a_route_directive() -> None:
    assert resolve_offline("/routex plan the thing").source == "slash"


def test_directive_beats_explicit_effort() -> None:
    r = resolve_offline("/route implement\n/effort max\nultrathink")
    assert (r.phase, r.effort, r.source) == ("implement", "medium", "directive")


def test_directive_phase_without_effort_gives_no_route() -> None:
    r = resolve_offline("/route plan something big", settings(phases={"plan": None}))
    assert (r.effort, r.source) == (None, "directive")
    assert "no effort" in r.reason


def test_directive_after_leading_blank_lines() -> None:
    assert resolve_offline("\n\n  /route reflect\nwhy").source == "directive"


# ── step 3: explicit effort ──────────────────────────────────────────────────


def test_effort_line_gives_explicit_effort() -> None:
    r = resolve_offline("Rename utils.py to helpers.py\n/effort xhigh\n")
    assert (r.phase, r.effort, r.source) == (None, "xhigh", "explicit")


def test_effort_first_line_is_explicit_not_slash() -> None:
    r = resolve_offline("/effort max\nRename utils.py to helpers.py")
    assert (r.effort, r.source) == ("max", "explicit")


def test_effort_in_frontmatter() -> None:
    text = "---\ntitle: retries\neffort: low\n---\nPropose an architecture with trade-offs."
    r = resolve_offline(text)
    assert (r.effort, r.source) == ("low", "explicit")
    assert r.signals[0].line == 3


def test_effort_in_quoted_frontmatter_value() -> None:
    assert resolve_offline("---\neffort: 'medium'\n---\nDo the thing properly").effort == "medium"


def test_the_first_line_after_frontmatter_holds_the_directive() -> None:
    text = "---\ndescription: x\neffort: low\n---\n\n<!-- turnlens: class=spec -->\n/route plan\nDo it."
    r = resolve_offline(text)
    assert (r.phase, r.source) == ("plan", "directive")  # a directive beats the frontmatter's effort
    assert r.signals[0].line == 7
    slash = resolve_offline("---\ndescription: x\n---\n/review the diff please")
    assert slash.source == "slash" and "line 4" in slash.reason


def test_effort_outside_frontmatter_is_not_explicit() -> None:
    r = resolve_offline("Some notes\neffort: low\nPropose an approach with the trade-offs.")
    assert r.source == "classifier"


def test_unknown_effort_level_is_ignored() -> None:
    r = resolve_offline("Propose an approach with the trade-offs.\n/effort ultra")
    assert r.source == "classifier"


def test_unknown_effort_on_the_first_line_is_a_slash_command() -> None:
    r = resolve_offline("/effort ultra\nPropose an approach")
    assert r.source == "slash"
    assert "ultra" in r.reason


def test_explicit_beats_keyword() -> None:
    r = resolve_offline("ultrathink about this\n/effort low")
    assert (r.effort, r.source) == ("low", "explicit")


def test_explicit_beats_short() -> None:
    assert resolve_offline("/effort low").source == "explicit"


def test_every_effort_level_is_accepted() -> None:
    for level in ("low", "medium", "high", "xhigh", "max"):
        assert resolve_offline(f"do it\n/effort {level}").effort == level


# ── step 4: keywords ─────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("phrase", "phase"),
    [
        ("ultrathink", "plan"),
        ("think harder", "plan"),
        ("think really hard", "plan"),
        ("think super hard", "plan"),
        ("think very hard", "plan"),
        ("think hard", "reflect"),
        ("think deeply", "reflect"),
        ("think a lot", "reflect"),
        ("megathink", "reflect"),
    ],
)
def test_default_keywords(phrase: str, phase: str) -> None:
    r = resolve_offline(f"Rename utils.py, {phrase}, to helpers.py")
    assert (r.phase, r.effort, r.source) == (phase, "high", "keyword")
    assert r.signals[0].text == phrase


def test_keyword_is_case_insensitive() -> None:
    assert resolve_offline("ULTRATHINK: rename cnt to contact").phase == "plan"


def test_keyword_pre_check_folds_like_the_regex() -> None:
    assert resolve_offline("ULTRATHİNK about the cache").phase == "plan"
    assert resolve_offline("ultrathınk about the cache").phase == "plan"


def test_keyword_allows_any_blank_run_between_words() -> None:
    assert resolve_offline("please Think   Hard about the parser").phase == "reflect"


def test_keyword_matches_whole_phrases_only() -> None:
    r = resolve_offline("ultrathinking is a word; I was thinking hard about rethink hardware")
    assert r.source == "classifier"


def test_think_harder_is_plan_not_think_hard() -> None:
    assert resolve_offline("think harder about the rename").phase == "plan"


def test_highest_keyword_wins() -> None:
    r = resolve_offline("think hard first, then ultrathink the migration")
    assert (r.phase, r.signals[0].text) == ("plan", "ultrathink")


def test_keyword_beats_short() -> None:
    r = resolve_offline("ultrathink")  # 10 code points
    assert (r.phase, r.source) == ("plan", "keyword")


def test_keyword_beats_classifier_label() -> None:
    r = resolve_offline("ultrathink: rename `cnt` to `contact` in importer/rows.py")
    assert (r.phase, r.source) == ("plan", "keyword")


def test_custom_keyword() -> None:
    r = resolve_offline("go deep on why the cache is stale", settings(keywords={"go deep": "plan"}))
    assert (r.phase, r.source) == ("plan", "keyword")


def test_keywords_never_lower_the_phase() -> None:
    s, warnings = parse_router_settings({"keywords": {"quick fix": "apply", "just do it": "implement"}})
    assert len(warnings) == 2 and all("only raise" in w for w in warnings)
    assert resolve_offline("quick fix: Propose an architecture and the trade-offs", s).phase == "plan"


def test_keyword_can_be_removed() -> None:
    s = settings(keywords={"megathink": None})
    assert resolve_offline("megathink: Rename utils.py to helpers.py", s).source == "classifier"


def test_keyword_phase_without_effort_gives_no_route() -> None:
    r = resolve_offline("ultrathink about it all", settings(phases={"plan": None}))
    assert (r.effort, r.source) == (None, "keyword")
    assert "no effort" in r.reason


# ── step 5: short ────────────────────────────────────────────────────────────


def test_eleven_code_points_is_short() -> None:
    r = resolve_offline("a" * 11)
    assert (r.effort, r.source) == (None, "short")


def test_twelve_code_points_is_not_short() -> None:
    assert resolve_offline("a" * 12).source != "short"


def test_length_counts_after_trimming() -> None:
    assert resolve_offline("  \n\t" + "a" * 11 + " \n\n").source == "short"


def test_emoji_count_as_one_code_point() -> None:
    assert resolve_offline("👋" * 11).source == "short"  # 22 UTF-16 units, 11 code points
    assert resolve_offline("👋" * 12).source == "classifier"


def test_chinese_japanese_korean_characters_count_as_three() -> None:
    """Five characters say "commit and push": not too short; two ("继续", "go on") are."""
    assert resolve_offline("提交并推送").source != "short"
    assert resolve_offline("テスト追加").source != "short"
    assert resolve_offline("继续").source == "short"
    assert resolve_offline("ok 好").source == "short"  # 3 + 3: under 12


def test_min_length_is_a_setting() -> None:
    assert resolve_offline("Fix the bug now", settings(minLength=20)).source == "short"
    assert resolve_offline("hey", settings(minLength=0)).source == "classifier"


# ── step 6: paused ───────────────────────────────────────────────────────────


def test_paused_falls_back_to_the_rules() -> None:
    r = resolve_offline(DESIGN, settings(backend="openai", model="m"), paused=True)
    assert (r.phase, r.effort, r.label, r.source) == ("plan", "high", "design", "fallback")
    assert "paused" in r.reason


def test_paused_with_fallback_none_gives_no_route() -> None:
    r = resolve_offline(DESIGN, settings(backend="openai", model="m", fallback="none"), paused=True)
    assert (r.phase, r.effort, r.source) == (None, None, "paused")


def test_short_beats_paused() -> None:
    assert resolve_offline("hi", settings(backend="openai"), paused=True).source == "short"


# ── step 7: classifier ───────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("text", "label", "phase", "effort"),
    [
        (DESIGN, "design", "plan", "high"),
        (ANALYSIS, "analysis", "reflect", "high"),
        (CODING, "coding", "implement", "medium"),
        (BOOKKEEPING, "bookkeeping", "apply", "low"),
    ],
)
def test_each_label_maps_to_phase_and_effort(text: str, label: str, phase: str, effort: str) -> None:
    r = resolve_offline(text)
    assert (r.label, r.phase, r.effort, r.source) == (label, phase, effort, "classifier")


def test_chat_gets_no_route() -> None:
    r = resolve_offline(CHAT)
    assert (r.label, r.phase, r.effort, r.source) == ("chat", None, None, "classifier")


def test_the_labeler_always_names_a_label_even_when_no_rule_fired() -> None:
    r = resolve_offline("zzzz qqqq xxxx yyyy wwww vvvv uuuu", settings(minConfidence=0))
    assert r.label in ("design", "analysis", "coding", "bookkeeping", "chat") and r.source == "classifier"
    assert r.confidence is not None and 0 < r.confidence <= 1
    assert "no label" not in r.reason


def test_an_answer_under_min_confidence_gives_no_route_and_says_why() -> None:
    sure = resolve_offline(DESIGN)
    assert sure.routed and sure.confidence is not None
    r = resolve_offline(DESIGN, settings(minConfidence=min(1.0, sure.confidence + 0.001)))
    assert (r.effort, r.source, r.label) == (None, "classifier", "design")
    assert "router.minConfidence" in r.reason and "no route" in r.reason


def test_no_label_from_a_model_back_end_gives_no_route() -> None:
    r = route_from_label(None, DEFAULT, "classifier", "model answered nothing")
    assert (r.label, r.effort, r.source) == (None, None, "classifier")
    assert "no label" in r.reason


def test_unknown_label_gives_no_route() -> None:
    r = route_from_label("constructor", DEFAULT, "classifier", "model answered constructor")
    assert (r.phase, r.effort, r.source) == (None, None, "classifier")
    assert "unknown label" in r.reason


@pytest.mark.parametrize(
    ("label", "phase", "effort"),
    [
        ("design", "plan", "high"),
        ("analysis", "reflect", "high"),
        ("coding", "implement", "medium"),
        ("bookkeeping", "apply", "low"),
        ("chat", None, None),
    ],
)
def test_label_phase_effort_table(label: str, phase: str | None, effort: str | None) -> None:
    r = route_from_label(label, DEFAULT, "classifier", "x")
    assert (r.phase, r.effort) == (phase, effort)


def test_phase_without_effort_gives_no_route() -> None:
    r = resolve_offline(BOOKKEEPING, settings(phases={"apply": None}))
    assert (r.label, r.phase, r.effort, r.source) == ("bookkeeping", None, None, "classifier")
    assert "no effort" in r.reason


def test_label_mapped_to_null_gives_no_route() -> None:
    assert resolve_offline(CODING, settings(labels={"coding": None})).effort is None


def test_custom_phase_effort() -> None:
    assert resolve_offline(CODING, settings(phases={"implement": "xhigh"})).effort == "xhigh"


def test_classifier_route_names_rules_and_text() -> None:
    r = resolve_offline(DESIGN)
    assert r.reason.startswith("embedded labeler: design ") and "%" in r.reason
    fired = {s.rule: s for s in r.signals}
    assert fired["design.tradeoffs"].line == 1
    assert fired["design.tradeoffs"].text == "trade-offs"


def test_model_backend_offline_answers_what_the_fallback_would() -> None:
    r = resolve_offline(DESIGN, settings(backend="anthropic"))
    assert (r.phase, r.source) == ("plan", "fallback")
    none = resolve_offline(DESIGN, settings(backend="anthropic", fallback="none"))
    assert (none.effort, none.source) == (None, "fallback")


def test_resolve_early_defers_to_the_classifier() -> None:
    assert resolve_early(DESIGN) is None
    early = resolve_early("hi")
    assert early is not None and early.source == "short"


# ── the Route object ─────────────────────────────────────────────────────────


def test_route_json_fields() -> None:
    data = resolve_offline(DESIGN).to_json()
    assert list(data) == ["phase", "effort", "label", "source", "reason", "signals", "confidence"]
    assert isinstance(data["confidence"], float)
    assert data["signals"][0].keys() == {"rule", "class", "weight", "line", "text"}


def test_no_route_json_has_null_phase_and_effort() -> None:
    for text in (CHAT, "hi", "/help me", "/route off"):
        data = resolve_offline(text).to_json()
        assert data["phase"] is None and data["effort"] is None


def test_describe() -> None:
    assert resolve_offline("ultrathink").describe() == "plan high (keyword)"
    assert resolve_offline("hi").describe() == "none (short)"
    assert resolve_offline(CHAT).describe() == "none (classifier: chat)"
    assert resolve_offline("x\n/effort max").describe() == "max (explicit)"
    assert Route("plan", "high", "design", "fallback", "r").describe() == "plan high (fallback: design)"


def test_crlf_and_odd_text_never_crash() -> None:
    for text in ("", " ", "\r\n/route plan\r\nx", "\x00" * 40, "é\u0301" * 30, "a\rb" * 20, "🙂" * 5000):
        assert isinstance(resolve_offline(text), Route)
    assert resolve_offline("\r\n/route plan\r\nx").phase == "plan"
