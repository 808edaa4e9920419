"""Model back ends against a real HTTP server on 127.0.0.1: bounds, failures, pause, supersede, shapes."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import time

import pytest

from tests.router.router_testkit import FakeClock, ModelServer
from turnlens.router import Router
from turnlens.router.backends import BackendError, make_backend, parse_label, system_prompt
from turnlens.router.settings import RouterSettings, parse_router_settings

PROMPT = "Please look into the importer and the sync job, then tell me what you make of them."
KEY = "sk-test-SECRET-0123456789"
ENV = {"TL_TEST_KEY": KEY}


def make(server: ModelServer, clock: FakeClock, backend: str = "openai", **raw: object) -> Router:
    endpoint = f"{server.base}/v1" if backend == "openai" else server.base
    settings, warnings = parse_router_settings(
        {"backend": backend, "endpoint": endpoint, "model": "tiny", "apiKeyEnv": "TL_TEST_KEY", **raw}
    )
    assert warnings == []
    return Router(settings, clock=clock, env=ENV)


# ── answers ──────────────────────────────────────────────────────────────────


async def test_label_answer_routes(model_server: ModelServer, clock: FakeClock) -> None:
    router = make(model_server, clock)
    model_server.answer = "Design."
    route = await router.route(PROMPT)
    assert route is not None
    assert (route.label, route.phase, route.effort, route.source) == ("design", "plan", "high", "classifier")
    assert "openai" in route.reason and "tiny" in route.reason
    await router.aclose()


async def test_garbage_answer_is_an_unknown_label_not_a_failure(
    model_server: ModelServer, clock: FakeClock
) -> None:
    router = make(model_server, clock, failureLimit=1)
    model_server.mode = "garbage"
    route = await router.route(PROMPT)
    assert route is not None
    assert (route.effort, route.source) == (None, "classifier")
    assert router.failures == 0 and not router.paused
    await router.aclose()


async def test_error_500_is_a_failure_and_the_rules_answer(
    model_server: ModelServer, clock: FakeClock
) -> None:
    router = make(model_server, clock)
    model_server.mode = "error500"
    route = await router.route(PROMPT)
    assert route is not None
    assert route.source == "fallback" and route.label == "analysis"
    assert "HTTP 500" in route.reason
    assert router.failures == 1
    await router.aclose()


async def test_non_json_answer_is_a_failure(model_server: ModelServer, clock: FakeClock) -> None:
    router = make(model_server, clock)
    model_server.mode = "notjson"
    route = await router.route(PROMPT)
    assert route is not None and route.source == "fallback" and router.failures == 1
    await router.aclose()


async def test_failure_with_fallback_none_gives_no_route(model_server: ModelServer, clock: FakeClock) -> None:
    router = make(model_server, clock, fallback="none")
    model_server.mode = "error500"
    route = await router.route(PROMPT)
    assert route is not None and (route.effort, route.source) == (None, "classifier")
    await router.aclose()


# ── the bound ────────────────────────────────────────────────────────────────


async def test_timeout_at_the_configured_bound(model_server: ModelServer, clock: FakeClock) -> None:
    router = make(model_server, clock, timeoutMs=400)
    model_server.mode = "hang"
    started = time.perf_counter()
    route = await router.route(PROMPT)
    elapsed = time.perf_counter() - started
    # it waited for the bound (a loaded machine can only make this longer); the model never
    # answers, so the timeout is what ended the call (the reason says so)
    assert elapsed >= 0.4 - 0.2, elapsed
    assert route is not None and route.source == "fallback"
    assert "no answer within 400 ms" in route.reason
    assert router.failures == 1
    await router.aclose()


# ── failures, pause, cooldown ────────────────────────────────────────────────


async def test_pause_after_three_failures_and_no_calls_during_it(
    model_server: ModelServer, clock: FakeClock
) -> None:
    router = make(model_server, clock)
    model_server.mode = "error500"
    for _ in range(3):
        await router.route(PROMPT)
    assert model_server.count == 3 and router.paused
    model_server.mode = "label"
    for _ in range(5):
        route = await router.route(PROMPT)
        assert route is not None and route.source == "fallback" and "paused" in route.reason
    assert router.route_now(PROMPT) is not None
    assert model_server.count == 3  # the server saw nothing during the pause
    await router.aclose()


async def test_three_timeouts_pause(model_server: ModelServer, clock: FakeClock) -> None:
    router = make(model_server, clock, timeoutMs=50)
    model_server.mode = "hang"
    for _ in range(3):
        await router.route(PROMPT)
    assert router.paused
    await router.aclose()


async def test_paused_with_fallback_none_gives_source_paused(
    model_server: ModelServer, clock: FakeClock
) -> None:
    router = make(model_server, clock, fallback="none", failureLimit=1)
    model_server.mode = "error500"
    first = await router.route(PROMPT)
    assert first is not None and (first.effort, first.source) == (None, "paused")
    later = await router.route(PROMPT)
    assert later is not None and (later.effort, later.source) == (None, "paused")
    await router.aclose()


async def test_resumes_after_the_cooldown(model_server: ModelServer, clock: FakeClock) -> None:
    router = make(model_server, clock, cooldownMinutes=10)
    model_server.mode = "error500"
    for _ in range(3):
        await router.route(PROMPT)
    model_server.mode = "label"
    clock.advance(600 - 0.001)
    assert router.paused
    await router.route(PROMPT)
    assert model_server.count == 3
    clock.advance(0.002)
    assert not router.paused  # the expiry is checked first
    route = await router.route(PROMPT)
    assert route is not None and route.source == "classifier"
    assert model_server.count == 4
    await router.aclose()


async def test_success_resets_the_count(model_server: ModelServer, clock: FakeClock) -> None:
    router = make(model_server, clock)
    model_server.mode = "error500"
    await router.route(PROMPT)
    await router.route(PROMPT)
    model_server.mode = "label"
    await router.route(PROMPT)
    assert router.failures == 0
    model_server.mode = "error500"
    await router.route(PROMPT)
    await router.route(PROMPT)
    assert not router.paused and router.failures == 2
    await router.aclose()


async def test_reload_clears_the_pause(model_server: ModelServer, clock: FakeClock) -> None:
    router = make(model_server, clock, failureLimit=1)
    model_server.mode = "error500"
    await router.route(PROMPT)
    assert router.paused
    router.reload()
    assert not router.paused
    model_server.mode = "label"
    route = await router.route(PROMPT)
    assert route is not None and route.source == "classifier" and model_server.count == 2
    await router.aclose()


async def test_update_to_a_new_backend_clears_the_pause(model_server: ModelServer, clock: FakeClock) -> None:
    router = make(model_server, clock, failureLimit=1)
    model_server.mode = "error500"
    await router.route(PROMPT)
    assert router.paused
    router.update(RouterSettings(backend="anthropic", endpoint=model_server.base, api_key_env="TL_TEST_KEY"))
    assert not router.paused
    model_server.mode = "label"
    route = await router.route(PROMPT)
    assert route is not None and route.source == "classifier"
    assert model_server.requests[-1].path == "/v1/messages"
    await router.aclose()


# ── superseded calls ─────────────────────────────────────────────────────────


async def test_superseded_call_is_abandoned_and_not_counted(
    model_server: ModelServer, clock: FakeClock
) -> None:
    router = make(model_server, clock, timeoutMs=2000, failureLimit=1)
    model_server.mode = "hang"
    old = asyncio.create_task(router.route(PROMPT + " v1", key="file:///a.md"))
    while model_server.count < 1:
        await asyncio.sleep(0.01)
    model_server.mode = "label"
    new = await router.route(PROMPT + " v2", key="file:///a.md")
    assert await old is None  # superseded: no route, no count
    assert new is not None and new.source == "classifier"
    assert router.failures == 0 and not router.paused
    await router.aclose()


async def test_late_answer_of_a_superseded_call_is_dropped(
    model_server: ModelServer, clock: FakeClock
) -> None:
    router = make(model_server, clock, timeoutMs=2000)
    model_server.mode = "slow"
    model_server.delay = 0.3
    old = asyncio.create_task(router.route("LABEL=design " + PROMPT, key="doc"))
    while model_server.count < 1:
        await asyncio.sleep(0.01)
    model_server.delay = 0.0
    new = await router.route("LABEL=bookkeeping " + PROMPT, key="doc")
    assert new is not None and new.label == "bookkeeping"
    assert await old is None  # the design answer never lands
    await asyncio.sleep(0.4)  # let the slow answer arrive at the server side
    assert router.failures == 0
    await router.aclose()


async def test_calls_for_other_keys_are_independent(model_server: ModelServer, clock: FakeClock) -> None:
    router = make(model_server, clock)
    model_server.mode = "slow"
    model_server.delay = 0.1
    a, b = await asyncio.gather(
        router.route("LABEL=coding " + PROMPT, key="a"), router.route("LABEL=design " + PROMPT, key="b")
    )
    assert a is not None and b is not None and (a.label, b.label) == ("coding", "design")
    await router.aclose()


# ── route_now ────────────────────────────────────────────────────────────────


async def test_route_now_answers_without_a_model_call(model_server: ModelServer, clock: FakeClock) -> None:
    router = make(model_server, clock)
    assert router.route_now(PROMPT) is None  # needs the model
    for text, source in (("ultrathink it", "keyword"), ("hi", "short"), ("/help", "slash")):
        route = router.route_now(text)
        assert route is not None and route.source == source
        assert await router.route(text) == route
    assert model_server.count == 0
    await router.aclose()


def test_route_now_with_the_rules_backend() -> None:
    route = Router().route_now(PROMPT)
    assert route is not None and route.source == "classifier"


# ── request shapes ───────────────────────────────────────────────────────────


async def test_openai_request_shape(model_server: ModelServer, clock: FakeClock) -> None:
    router = make(model_server, clock)
    await router.route(PROMPT)
    req = model_server.requests[0]
    assert (req.method, req.path) == ("POST", "/v1/chat/completions")
    assert req.headers["authorization"] == f"Bearer {KEY}"
    assert req.body["model"] == "tiny"
    system, user = req.body["messages"]
    assert system["role"] == "system" and user["role"] == "user"
    for label in ("design", "analysis", "coding", "bookkeeping", "chat"):
        assert label in system["content"]
    assert "exactly one" in system["content"]
    assert PROMPT in user["content"]
    await router.aclose()


async def test_anthropic_request_shape(model_server: ModelServer, clock: FakeClock) -> None:
    router = make(model_server, clock, backend="anthropic")
    model_server.answer = "bookkeeping"
    route = await router.route(PROMPT)
    assert route is not None and route.label == "bookkeeping"
    req = model_server.requests[0]
    assert (req.method, req.path) == ("POST", "/v1/messages")
    assert req.headers["x-api-key"] == KEY
    assert req.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in req.headers
    assert req.body["model"] == "tiny" and req.body["max_tokens"] > 0
    assert all(
        label in req.body["system"] for label in ("design", "analysis", "coding", "bookkeeping", "chat")
    )
    assert req.body["messages"][0]["role"] == "user" and PROMPT in req.body["messages"][0]["content"]
    await router.aclose()


async def test_long_prompt_sends_head_and_tail(model_server: ModelServer, clock: FakeClock) -> None:
    router = make(model_server, clock)
    text = "HEAD" + "a" * 3000 + "MIDDLE" + "b" * 3000 + "🎉TAIL"
    await router.route(text)
    sent = model_server.requests[0].body["messages"][1]["content"]
    assert "HEAD" in sent and "🎉TAIL" in sent and "MIDDLE" not in sent
    assert text[:500] + text[-1500:] in sent
    await router.aclose()


async def test_no_key_env_sends_no_key(model_server: ModelServer, clock: FakeClock) -> None:
    settings = RouterSettings(backend="openai", endpoint=f"{model_server.base}/v1", model="m")
    router = Router(settings, clock=clock, env=ENV)
    await router.route(PROMPT)
    assert "authorization" not in model_server.requests[0].headers
    await router.aclose()


async def test_missing_key_variable_is_a_failure_without_a_call(
    model_server: ModelServer, clock: FakeClock
) -> None:
    settings = RouterSettings(
        backend="openai", endpoint=f"{model_server.base}/v1", model="m", api_key_env="NOPE"
    )
    router = Router(settings, clock=clock, env={})
    route = await router.route(PROMPT)
    assert route is not None and route.source == "fallback" and "NOPE" in route.reason
    assert model_server.count == 0 and router.failures == 1
    await router.aclose()


# ── the key never leaks ──────────────────────────────────────────────────────


async def test_api_key_never_in_logs_reasons_or_reprs(
    model_server: ModelServer, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    for backend in ("openai", "anthropic"):
        router = make(model_server, clock, backend=backend, failureLimit=2)
        model_server.mode = "error401"  # the server echoes the key back in its error
        routes = [await router.route(PROMPT) for _ in range(3)]
        backend_obj = make_backend(router.settings, ENV)
        for text in (
            caplog.text,
            repr(router),
            repr(router.settings),
            repr(backend_obj),
            *(r.reason for r in routes if r),
            *(str(r.to_json()) for r in routes if r),
        ):
            assert KEY not in text
        assert any("HTTP 401" in r.reason for r in routes if r)
        await router.aclose()
    assert model_server.count == 4  # 2 per back end, then paused


# ── parsing and import hygiene ───────────────────────────────────────────────


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        ("design", "design"),
        ("Design.", "design"),
        ("  **CODING**\n", "coding"),
        ('"bookkeeping"', "bookkeeping"),
        ("Label: analysis", "analysis"),
        ("The label is chat.", "chat"),
        ('{"label": "coding"}', "coding"),
        ("banana", None),
        ("", None),
        ("design or analysis", "design"),
        ("either analysis or design", None),
        ("designer", None),
    ],
)
def test_answer_is_parsed_leniently(answer: str, label: str | None) -> None:
    assert parse_label(answer) == label


def test_system_prompt_asks_for_one_of_five() -> None:
    prompt = system_prompt()
    assert "exactly one word" in prompt and "design, analysis, coding, bookkeeping, chat" in prompt


async def test_missing_httpx_is_a_clear_failure(
    model_server: ModelServer, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "httpx", None)
    router = make(model_server, clock)
    route = await router.route(PROMPT)
    assert route is not None and route.source == "fallback"
    assert "pip install 'turnlens[models]'" in route.reason
    with pytest.raises(BackendError):
        await make_backend(router.settings, ENV).label("x")


def test_router_and_cli_import_without_httpx() -> None:
    code = (
        "import sys, turnlens.router, turnlens.router.service, turnlens.cli.route; "
        "assert 'httpx' not in sys.modules and 'pygls' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
