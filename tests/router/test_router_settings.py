"""Router settings: SPEC §5 defaults, and invalid values falling back with one warning each."""

from __future__ import annotations

from typing import Any

import pytest

from turnlens.router.settings import DEFAULT, RouterSettings, parse_router_settings, router_settings_schema


def test_defaults_follow_the_spec() -> None:
    d = RouterSettings()
    assert d == DEFAULT
    assert dict(d.phases) == {"plan": "high", "reflect": "high", "implement": "medium", "apply": "low"}
    assert dict(d.labels) == {
        "design": "plan",
        "analysis": "reflect",
        "coding": "implement",
        "bookkeeping": "apply",
        "chat": None,
    }
    assert (d.min_length, d.sample_max, d.sample_head, d.sample_tail) == (12, 2000, 500, 1500)
    assert (d.timeout_ms, d.failure_limit, d.cooldown_minutes) == (3000, 3, 10)
    assert (d.backend, d.fallback, d.enable, d.api_key_env) == ("rules", "rules", True, "")


def test_default_keywords_follow_the_spec() -> None:
    plan = {"ultrathink", "think harder", "think really hard", "think super hard", "think very hard"}
    reflect = {"think hard", "think deeply", "think a lot", "megathink"}
    assert dict(DEFAULT.keywords) == {**dict.fromkeys(plan, "plan"), **dict.fromkeys(reflect, "reflect")}


def test_none_and_empty_give_defaults_without_warnings() -> None:
    assert parse_router_settings(None) == (DEFAULT, [])
    assert parse_router_settings({}) == (DEFAULT, [])


def test_valid_values_are_taken() -> None:
    s, warnings = parse_router_settings(
        {
            "enable": False,
            "backend": "openai",
            "endpoint": "http://localhost:11434/v1/",
            "model": "qwen2.5:3b",
            "apiKeyEnv": "OPENAI_API_KEY",
            "timeoutMs": 1500,
            "failureLimit": 5,
            "cooldownMinutes": 2.5,
            "fallback": "none",
            "minLength": 20,
            "phases": {"plan": "max", "apply": None},
            "labels": {"chat": "apply"},
            "keywords": {"Go   Deep": "plan"},
            "sampleMax": 1000,
            "sampleHead": 200,
            "sampleTail": 800,
        }
    )
    assert warnings == []
    assert s.endpoint == "http://localhost:11434/v1"
    assert (s.backend, s.model, s.api_key_env, s.timeout_ms, s.failure_limit) == (
        "openai",
        "qwen2.5:3b",
        "OPENAI_API_KEY",
        1500,
        5,
    )
    assert s.cooldown_s == 150 and s.timeout_s == 1.5
    assert s.phases["plan"] == "max" and s.phases["apply"] is None and s.phases["implement"] == "medium"
    assert s.labels["chat"] == "apply"
    assert s.keywords["go deep"] == "plan" and s.keywords["ultrathink"] == "plan"
    assert (s.sample_max, s.sample_head, s.sample_tail) == (1000, 200, 800)


@pytest.mark.parametrize(
    ("key", "value", "field"),
    [
        ("enable", "yes", "enable"),
        ("backend", "gpt", "backend"),
        ("endpoint", "ftp://example.com", "endpoint"),
        ("endpoint", 42, "endpoint"),
        ("model", "a\nb", "model"),
        ("apiKeyEnv", "MY-KEY", "api_key_env"),
        ("timeoutMs", 0, "timeout_ms"),
        ("timeoutMs", "3000", "timeout_ms"),
        ("timeoutMs", True, "timeout_ms"),
        ("timeoutMs", 2.5, "timeout_ms"),
        ("failureLimit", -1, "failure_limit"),
        ("cooldownMinutes", -5, "cooldown_minutes"),
        ("cooldownMinutes", float("nan"), "cooldown_minutes"),
        ("fallback", "model", "fallback"),
        ("minLength", -1, "min_length"),
        ("phases", ["plan"], "phases"),
        ("labels", "design", "labels"),
        ("keywords", 3, "keywords"),
        ("sampleMax", 0, "sample_max"),
    ],
)
def test_invalid_value_falls_back_with_one_warning(key: str, value: Any, field: str) -> None:
    s, warnings = parse_router_settings({key: value})
    assert getattr(s, field) == getattr(DEFAULT, field)
    assert len(warnings) == 1 and f"router.{key}" in warnings[0]


def test_invalid_effort_of_one_phase_keeps_that_phase_default() -> None:
    s, warnings = parse_router_settings({"phases": {"plan": "ultra", "apply": "medium"}})
    assert s.phases["plan"] == "high" and s.phases["apply"] == "medium"
    assert warnings == [
        "router.phases.plan: must be one of low, medium, high, xhigh, max or null, got 'ultra'; "
        "using the default"
    ]


def test_unknown_phase_label_and_setting_are_reported() -> None:
    _, warnings = parse_router_settings(
        {"phases": {"deploy": "low"}, "labels": {"ops": "apply"}, "colour": 1}
    )
    assert len(warnings) == 3
    assert any("deploy" in w for w in warnings) and any("ops" in w for w in warnings)
    assert any("colour" in w for w in warnings)


def test_label_to_unknown_phase_keeps_default() -> None:
    s, warnings = parse_router_settings({"labels": {"design": "deploy"}})
    assert s.labels["design"] == "plan" and len(warnings) == 1


def test_label_none_string_means_no_route() -> None:
    s, _ = parse_router_settings({"labels": {"coding": "none"}})
    assert s.labels["coding"] is None


def test_sample_sizes_must_fit_together() -> None:
    s, warnings = parse_router_settings({"sampleMax": 100, "sampleHead": 80, "sampleTail": 80})
    assert (s.sample_max, s.sample_head, s.sample_tail) == (2000, 500, 1500)
    assert len(warnings) == 1


def test_api_key_env_warning_never_echoes_the_value() -> None:
    secret = "sk-live-1234567890abcdef"
    _, warnings = parse_router_settings({"apiKeyEnv": secret})
    assert len(warnings) == 1 and secret not in warnings[0]


def test_endpoint_warning_never_echoes_the_value() -> None:
    _, warnings = parse_router_settings({"endpoint": "localhost:8080?token=abc123"})
    assert len(warnings) == 1 and "abc123" not in warnings[0]


def test_null_values_mean_default() -> None:
    assert parse_router_settings({"timeoutMs": None, "backend": None}) == (DEFAULT, [])


@pytest.mark.parametrize("raw", [[], "router", 3, {1: 2}, {"phases": {3: "low"}}, {"keywords": {"": "plan"}}])
def test_odd_input_never_raises(raw: Any) -> None:
    s, warnings = parse_router_settings(raw)
    assert isinstance(s, RouterSettings)
    assert warnings


def test_settings_are_hashable_and_comparable() -> None:
    a, _ = parse_router_settings({"phases": {"plan": "max"}})
    b, _ = parse_router_settings({"phases": {"plan": "max"}})
    assert a == b and hash(a) == hash(b) and a != DEFAULT


def test_schema_covers_every_setting_with_its_default() -> None:
    schema = router_settings_schema()
    assert set(schema) == {
        "enable", "backend", "endpoint", "model", "apiKeyEnv", "timeoutMs", "failureLimit",
        "cooldownMinutes", "fallback", "minLength", "phases", "labels", "keywords",
        "sampleMax", "sampleHead", "sampleTail", "roles", "minConfidence", "labeler",
    }  # fmt: skip
    for key, prop in schema.items():
        assert "type" in prop and "default" in prop and prop["markdownDescription"], key
    assert schema["timeoutMs"]["default"] == 3000
    assert schema["backend"]["enum"] == ["rules", "openai", "anthropic"]
    assert schema["phases"]["default"]["plan"] == "high"
    assert schema["phases"]["properties"]["plan"]["enum"] == ["low", "medium", "high", "xhigh", "max", None]


def test_schema_marks_model_settings_machine_scoped() -> None:
    schema = router_settings_schema()
    machine = {k for k, v in schema.items() if v.get("x-scope") == "machine"}
    assert machine == {"backend", "endpoint", "model", "apiKeyEnv"}


def test_schema_defaults_round_trip() -> None:
    raw = {k: v["default"] for k, v in router_settings_schema().items()}
    assert parse_router_settings(raw) == (DEFAULT, [])


def test_the_light_defaults_equal_the_settings_defaults_field_by_field() -> None:
    """A call without settings (`turnlens route`, the hooks) reads `vocabulary.DEFAULTS`: the
    same values as `RouterSettings()`, methods included."""
    from dataclasses import fields

    from turnlens.router.vocabulary import DEFAULTS

    for f in fields(RouterSettings):
        assert getattr(DEFAULTS, f.name) == getattr(DEFAULT, f.name), f.name
    assert DEFAULTS.uses_model is DEFAULT.uses_model is False
    for phase in [*DEFAULT.phases, "nope", None]:
        assert DEFAULTS.effort_for(phase) == DEFAULT.effort_for(phase)
    for label in [*DEFAULT.labels, "nope", None]:
        assert DEFAULTS.phase_for(label) == DEFAULT.phase_for(label)


@pytest.mark.parametrize(
    "prompt",
    [
        "ultrathink about the cache design",
        "/route plan\nlook at this",
        "/effort high",
        "ok",
        "please refactor the parser so it handles nested quotes",
        "what are the trade-offs between a queue and a log here?",
        "---\neffort: low\n---\nrename the variable",
    ],
)
def test_routes_without_settings_are_the_routes_with_the_defaults(prompt: str) -> None:
    from turnlens.router.resolve import resolve_offline

    assert resolve_offline(prompt) == resolve_offline(prompt, DEFAULT)
    assert resolve_offline(prompt, explain=False) == resolve_offline(prompt, DEFAULT, explain=False)
