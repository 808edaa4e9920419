"""The labeler engine the hooks, the status line and batch use: the user's `router.labeler`
($TURNLENS_LABELER or batch's --labeler), checked by the settings' own parser; `encoder`
without its package warns in one line and the n-gram model answers.

The encoder package is not a test dependency: the missing-package path is tested by
hiding it (`available` answers False); the real path runs where it is installed."""

from __future__ import annotations

from pathlib import Path

import pytest

from turnlens.agents.prompt import route_of
from turnlens.learn import encoder as enc
from turnlens.router import labeler_engine as le
from turnlens.router.resolve import resolve_offline
from turnlens.router.settings import RouterSettings
from turnlens.router.vocabulary import DEFAULTS

PROMPTS = [
    "propose a plan for moving the nightly jobs to the new queue, with the risks",
    "for some reason the export button does nothing on the settings page",
    "rename the helpers module to text_utils and fix the imports",
]

needs_encoder = pytest.mark.skipif(not enc.available(), reason="turnlens[encoder] is not installed")


def _said(route: object) -> tuple[object, ...]:
    return tuple(getattr(route, name) for name in ("phase", "effort", "label", "source", "confidence"))


@pytest.fixture
def hidden_encoder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(enc, "available", lambda: False)


def test_no_setting_is_the_defaults_record_and_says_nothing() -> None:
    said: list[str] = []
    assert le.chosen_engine(None, "$X", said.append) == "model"
    assert le.chosen_engine("  ", "$X", said.append) == "model"
    assert le.chosen_engine("model", "$X", said.append) == "model"
    assert said == [] and le.route_settings("model") is DEFAULTS


def test_an_unknown_engine_is_named_by_the_schemas_parser_and_the_default_answers() -> None:
    said: list[str] = []
    assert le.chosen_engine("bert", "$TURNLENS_LABELER", said.append) == "model"
    assert said == [
        "turnlens: warning: $TURNLENS_LABELER: must be one of model, encoder, got 'bert'; "
        "the n-gram model labels prompts"
    ]


def test_encoder_without_its_package_warns_once_in_one_line(hidden_encoder: None) -> None:
    said: list[str] = []
    assert le.chosen_engine("encoder", "--labeler", said.append) == "model"
    assert len(said) == 1 and "\n" not in said[0]
    assert "pip install 'turnlens[encoder]'" in said[0] and said[0].startswith("turnlens: warning: --labeler")


def test_the_hooks_route_with_the_default_engine_when_the_encoder_is_missing(
    hidden_encoder: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setenv(le.ENV, "encoder")
    routes = [_said(route_of(p)) for p in PROMPTS]
    monkeypatch.delenv(le.ENV)
    assert routes == [_said(resolve_offline(p, explain=False)) for p in PROMPTS]
    log = (tmp_path / "turnlens" / "hooks.log").read_text(encoding="utf-8").splitlines()
    assert len(log) == len(PROMPTS)  # one line per routed prompt, in the hook log (stdout is the agent's)
    assert all('labeler: turnlens: warning: $TURNLENS_LABELER is "encoder"' in line for line in log)


@needs_encoder
def test_the_hooks_route_with_the_encoder_engine_when_it_is_installed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setenv(le.ENV, "encoder")
    routes = [_said(route_of(p)) for p in PROMPTS]
    encoder_settings = RouterSettings(labeler="encoder")
    assert routes == [_said(resolve_offline(p, encoder_settings, explain=False)) for p in PROMPTS]
    monkeypatch.delenv(le.ENV)
    plain = [_said(route_of(p)) for p in PROMPTS]
    assert routes != plain  # the encoder's confidences are its own
    assert not (tmp_path / "turnlens" / "hooks.log").exists()
