"""The API key and endpoint credentials never show, however a provider echoes them
(issue #15, defect 2): not cut in half by the error snippet, not quoted escaped by the
HTTP library, not in a DEBUG line, not from the endpoint URL.

In process: the router with its real HTTP back ends against the fake model on loopback;
every view (reason, hover, diagnostic data, status) is built from the route's reason,
and the logs are captured at DEBUG.
"""

from __future__ import annotations

import logging
import secrets

import pytest

from turnlens.router import Router, parse_router_settings
from turnlens.router.backends import redact

from .fakemodel import FakeModel

PROMPT = "please investigate why the nightly export drops rows at midnight"


def _router(model: FakeModel, backend: str, env: dict[str, str], **extra: object) -> Router:
    raw = {
        "backend": backend,
        "endpoint": model.endpoint,
        "model": "m",
        "apiKeyEnv": "TURNLENS_TEST_KEY",
        "timeoutMs": 3000,
        "failureLimit": 100,
        **extra,
    }
    settings, warnings = parse_router_settings(raw)
    assert not warnings, warnings
    return Router(settings, env=env)


def _shows(secret: str, seen: str, run: int = 8) -> list[str]:
    """Runs of `run` characters of `secret` that appear in `seen`."""
    return [secret[i : i + run] for i in range(len(secret) - run + 1) if secret[i : i + run] in seen]


@pytest.mark.parametrize("backend", ["openai", "anthropic"])
@pytest.mark.parametrize("pad", [100, 133, 140, 160])
async def test_a_key_echoed_across_the_snippet_cut_is_masked(
    fake_model: FakeModel, caplog: pytest.LogCaptureFixture, backend: str, pad: int
) -> None:
    key = "sk-tl-" + secrets.token_hex(20)
    fake_model.mode = "echo401"
    fake_model.echo_pad = pad  # the key starts around character 185-225 of the body
    router = _router(fake_model, backend, {"TURNLENS_TEST_KEY": key})
    with caplog.at_level(logging.DEBUG):
        route = await router.route(PROMPT)
    await router.aclose()
    assert route is not None and "HTTP 401" in route.reason, route
    assert fake_model.requests, "the call was made"
    seen = route.reason + caplog.text + repr(route.to_json())
    assert _shows(key, seen) == [], seen


async def test_a_key_with_a_trailing_carriage_return_is_trimmed_and_never_shown(
    fake_model: FakeModel, caplog: pytest.LogCaptureFixture
) -> None:
    key = "sk-tl-" + secrets.token_hex(20)
    fake_model.mode = "echo401"
    router = _router(fake_model, "openai", {"TURNLENS_TEST_KEY": key + "\r"})
    with caplog.at_level(logging.DEBUG):
        route = await router.route(PROMPT)
    await router.aclose()
    assert route is not None
    assert [r.headers.get("authorization") for r in fake_model.requests] == [f"Bearer {key}"]
    seen = route.reason + caplog.text
    assert _shows(key, seen) == [], seen


async def test_a_key_in_a_model_answer_is_not_logged_at_debug(
    fake_model: FakeModel, caplog: pytest.LogCaptureFixture
) -> None:
    key = "sk-tl-" + secrets.token_hex(20)
    fake_model.mode = "label"
    fake_model.answer = f"{key} design"
    router = _router(fake_model, "openai", {"TURNLENS_TEST_KEY": key})
    with caplog.at_level(logging.DEBUG):
        route = await router.route(PROMPT)
    await router.aclose()
    assert route is not None and route.label == "design", route
    assert "answered" in caplog.text  # the DEBUG line is there, masked
    assert _shows(key, caplog.text + route.reason) == [], caplog.text


@pytest.mark.parametrize("mode", ["error500", "closed"])
async def test_credentials_in_the_endpoint_never_show(
    fake_model: FakeModel, caplog: pytest.LogCaptureFixture, mode: str
) -> None:
    token = "tok" + secrets.token_hex(16)
    port = fake_model.port if mode == "error500" else 9  # 9: discard, nothing listens
    fake_model.mode = "error500"
    settings, _ = parse_router_settings(
        {
            "backend": "openai",
            "endpoint": f"http://someone:{token}@127.0.0.1:{port}/v1?key={token}x",
            "model": "m",
            "timeoutMs": 3000,
        }
    )
    router = Router(settings, env={})
    with caplog.at_level(logging.DEBUG):
        route = await router.route(PROMPT)
    await router.aclose()
    assert route is not None and "failed" in route.reason, route
    seen = route.reason + caplog.text + repr(router)
    assert token not in seen and "someone" not in seen, seen
    assert "127.0.0.1" in route.reason  # the endpoint is still named, without its credentials


def test_redact_masks_cut_and_escaped_forms() -> None:
    key = "sk-" + "A1b2C3d4E5f6G7h8"
    assert redact(f"key {key} and more", key) == "key *** and more"
    assert redact(f"cut: {key[:12]}", key) == "cut: ***"
    assert redact(f"quoted: b'Bearer {key}\\r'", key + "\r") == "quoted: b'Bearer ***'"
    assert redact("nothing here", key) == "nothing here"
    assert redact("short tail sk-A1", key) == "short tail sk-A1"  # under 8 characters: not the key
