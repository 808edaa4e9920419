"""With $TURNLENS_LABELER=encoder, the ledger classes a person's prompts with the classes
encoder pooled with the model (`turnlens.router.labeler_engine.prompt_scorer`, as the ledger
imports it), and everything else as
always; each engine keeps its own ledger, and a prompt the submit hook classed already (it
has the engine loaded for the route) is not classed again.

The engine is a stand-in here (`tests.learn.test_encoder.StandIn` and a projection that
pushes every text toward one class), so these tests run without the encoder package; the
real engine's path runs where `turnlens[encoder]` is installed.
"""

from __future__ import annotations

import json
import time
from array import array
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.agents.conftest import Runner, payload
from tests.agents.make_fixtures import session
from tests.learn.test_encoder import StandIn
from turnlens.agents import ledger as ledger_module
from turnlens.agents import state
from turnlens.agents.ledger import Ledger, digest
from turnlens.learn import encoder as enc
from turnlens.learn.dataset import CLASS_LABELS
from turnlens.learn.model import packaged_model

needs_encoder = pytest.mark.skipif(not enc.available(), reason="turnlens[encoder] is not installed")


class Counting(StandIn):
    """The stand-in encoder, counting the texts it reads."""

    def __init__(self) -> None:
        super().__init__()
        self.read: list[str] = []

    def encode(self, texts: Sequence[str]) -> list[list[float]]:
        self.read += list(texts)
        return super().encode(texts)


def _engine(toward: str) -> enc.EncoderScorer:
    """An engine whose answer is always `toward` (its projection outweighs any n-gram)."""
    j = CLASS_LABELS.index(toward)
    cols = [array("f", [60.0 if k == j else 0.0] * enc.DIM) for k in range(len(CLASS_LABELS))]
    return enc.EncoderScorer(packaged_model("classes"), enc.Projection(CLASS_LABELS, cols, {}), Counting())


@pytest.fixture
def transcript(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(session().lines) + "\n", encoding="utf-8")
    return path


def _read(path: Path, engine: str) -> Ledger:
    led = Ledger(str(path), "claude-code", engine)
    led.update(time.monotonic() + 600)
    assert led.complete
    return led


def _prompts(path: Path) -> list[str]:
    return [u.text for u in _units(path) if u.role == "user" and u.kind == "prompt"]


def _units(path: Path) -> list[object]:
    from turnlens.pipeline.formats import resolve
    from turnlens.pipeline.formats.base import FormatOptions

    reader = resolve("claude-code", str(path), "")
    lines = [(i + 1, 0, line, True) for i, line in enumerate(path.read_text(encoding="utf-8").splitlines())]
    return list(reader.stream(iter(lines), FormatOptions(), [], spans=False))


def test_the_encoder_engine_classes_a_persons_prompts_and_nothing_else(
    transcript: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = _engine("spec")
    monkeypatch.setattr(ledger_module, "prompt_scorer", lambda e: engine if e == "encoder" else None)
    plain = _read(transcript, "model")
    mine = _read(transcript, "encoder")
    prompts = _prompts(transcript)
    # every prompt is the engine's (spec, frozen), read in batches: each distinct text once
    kept = [t for t in mine.frozen_turns() if t.role == "user"]
    assert len(kept) == len(prompts) and {t.task_class for t in kept} == {"spec"}
    assert sorted(set(engine.encoder.read)) == sorted(set(prompts))  # type: ignore[attr-defined]
    assert len(engine.encoder.read) == len(set(prompts))  # type: ignore[attr-defined]
    # the model's prompts were not all specs; the agent's side is the model's in both ledgers
    assert {t.task_class for t in plain.frozen_turns() if t.role == "user"} != {"spec"}
    replies = [t for t in plain.frozen_turns() if t.role == "assistant"]
    assert replies == [t for t in mine.frozen_turns() if t.role == "assistant"]
    words = sum(row[1] for row in plain.totals("session").values())
    assert words == sum(row[1] for row in mine.totals("session").values())


def test_each_engine_keeps_its_own_ledger(transcript: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # an engine that freezes no prompt (context is open to every prompt; chitchat is not to
    # one that asks: core.prompt_shapes)
    monkeypatch.setattr(
        ledger_module, "prompt_scorer", lambda e: _engine("context") if e == "encoder" else None
    )
    plain = _read(transcript, "model")
    mine = _read(transcript, "encoder")
    assert plain.key != mine.key and mine.key == plain.key + "-encoder"
    assert plain.key == state.ledger_key(str(transcript), "claude-code")
    saved = {key: state.load_session(key) for key in (plain.key, mine.key)}
    assert all(data is not None and data["offset"] == transcript.stat().st_size for data in saved.values())
    # read again, each finds its own: the model's ledger still has the model's frozen prompts
    again = _read(transcript, "model")
    assert again.frozen_turns() == plain.frozen_turns()
    model_kept = [t for t in again.frozen_turns() if t.role == "user"]
    # the engine's ledger keeps only the prompt its shape keeps word for word whatever the engine
    # says (the acceptance criteria listed point by point: core.prompt_shapes)
    engine_kept = [t for t in _read(transcript, "encoder").frozen_turns() if t.role == "user"]
    assert len(engine_kept) < len(model_kept)
    assert [t.quote[:8] for t in engine_kept] == ["SPEC-214"]


def test_the_background_reader_follows_the_engines_ledger(
    transcript: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the submit hook starts it when the ledger of the engine in use is far behind
    from turnlens.agents import warm

    monkeypatch.setattr(ledger_module, "prompt_scorer", lambda e: _engine("spec") if e == "encoder" else None)
    size = transcript.stat().st_size
    _read(transcript, "encoder")
    assert warm.behind(str(transcript), "claude-code", "encoder") == 0
    assert warm.behind(str(transcript), "claude-code") == size  # the model's ledger: not read yet
    assert warm._lock_path(str(transcript), "claude-code", "encoder") != warm._lock_path(
        str(transcript), "claude-code", "model"
    )


def test_a_prompt_the_submit_hook_classed_is_not_classed_again(
    transcript: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = _engine("context")
    monkeypatch.setattr(ledger_module, "prompt_scorer", lambda e: engine if e == "encoder" else None)
    prompts = _prompts(transcript)
    first = prompts[0]
    key = state.session_key(str(transcript))
    state.remember_route(key, digest(first), "plan·high design 91%", "high", ["decision", None])
    led = _read(transcript, "encoder")
    assert first not in engine.encoder.read  # type: ignore[attr-defined]
    assert prompts[1] in engine.encoder.read  # type: ignore[attr-defined]
    kept = [t for t in led.frozen_turns() if t.role == "user"]
    # the remembered class, and the prompt its shape keeps whatever the engine says (the
    # acceptance criteria listed point by point: core.prompt_shapes)
    assert kept[0].digest == digest(first) and kept[0].task_class == "decision"
    assert [t.quote[:8] for t in kept[1:]] == ["SPEC-214"]
    assert kept[0].words == len(first.split())
    # the route is still found as before
    assert state.remembered_route(key, digest(first)) == ("plan·high design 91%", "high")


def test_the_engine_is_not_loaded_when_every_prompt_is_known(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the status line after the submit hook: the one new prompt's class is remembered, so the
    # encoder (a second or so to load) is never asked for
    from tests.agents.make_fixtures import Writer

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))

    def refuse(engine: str) -> None:
        raise AssertionError("the prompt engine was loaded")

    monkeypatch.setattr(ledger_module, "prompt_scorer", refuse)
    w = Writer()
    prompt = "Keep the retry at three attempts; log every failure with the key's hash."
    w.user(prompt)
    w.assistant("Done: three attempts, and each failure is logged with the hashed key.")
    path = tmp_path / "one.jsonl"
    path.write_text("\n".join(w.lines) + "\n", encoding="utf-8")
    state.remember_route(
        state.session_key(str(path)), digest(prompt), "implement·medium", "medium", ["spec", None]
    )
    led = _read(path, "encoder")
    assert [(t.role, t.task_class) for t in led.frozen_turns()] == [("user", "spec")]


@pytest.mark.parametrize(
    "known",
    [["bogus", None], ["context", "decision"], ["context", "context?"], ["spec"], "spec", [3, None]],
)
def test_a_damaged_remembered_class_is_not_believed(
    transcript: Path, known: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = state.session_key(str(transcript))
    state.remember_route(key, "d" * 40, "no route (short)", None, known)  # type: ignore[arg-type]
    assert "d" * 40 not in state.remembered_classes(key)
    assert state.remembered_route(key, "d" * 40) == ("no route (short)", None)
    state.remember_route(key, "e" * 40, "no route (short)", None, ["context", "spec?"])
    assert state.remembered_classes(key)["e" * 40] == ("context", "spec?")


def test_without_the_encoder_the_ledger_is_the_models(
    transcript: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # $TURNLENS_LABELER=encoder without the package: the engine the hooks take is `model`
    monkeypatch.setattr(enc, "available", lambda: False)
    monkeypatch.setenv("TURNLENS_LABELER", "encoder")
    from turnlens.agents.prompt import labeler

    assert labeler(warn=False) == "model"
    assert ledger_module.prompt_scorer("model") is None


@needs_encoder
def test_the_submit_hook_remembers_the_engines_class_for_the_status_line(
    turnlens: Runner, tmp_path: Path
) -> None:
    # the real process, the real engine: the submit hook classes the prompt once, and the
    # status line's ledger takes that class rather than loading the engine again
    path = tmp_path / "session.jsonl"
    w = session()
    prompt = "We go with Postgres for the queue, not Redis; keep the retry at three attempts."
    w.user(prompt)
    path.write_text("\n".join(w.lines) + "\n", encoding="utf-8")
    env = {"TURNLENS_LABELER": "encoder", "TURNLENS_NO_WARM": "1"}
    body = payload("claude-code", "UserPromptSubmit", transcript=str(path), prompt=prompt)
    run = turnlens("hook", "UserPromptSubmit", stdin=body, env=env)
    assert run.code == 0 and "warning" not in run.log
    sessions = run.state / "turnlens" / "sessions"
    record = json.loads((sessions / (state.session_key(str(path)) + ".routes")).read_text("utf-8"))[-1]
    assert record[0] == digest(prompt) and len(record) == 4
    name, doubt = record[3]
    assert [name, doubt] == ledger_module.prompt_class(prompt, "encoder")
    # the status line reads the session into the encoder engine's own ledger and takes the
    # prompt's class from what the hook remembered (made different here, to see it is taken)
    other = ["context", "spec?"] if [name, doubt] != ["context", "spec?"] else ["context", "decision?"]
    state_file = sessions / (state.session_key(str(path)) + ".routes")
    routes = json.loads(state_file.read_text("utf-8"))
    routes[-1][3] = other
    state_file.write_text(json.dumps(routes), encoding="utf-8")
    env["NO_COLOR"] = "1"
    shown = turnlens("statusline", stdin=payload("claude-code", "statusline", transcript=str(path)), env=env)
    assert shown.code == 0 and shown.out.startswith("TurnLens"), shown.err
    key = state.ledger_key(str(path), "claude-code", "encoder")
    data = json.loads((sessions / (key + ".json")).read_text("utf-8"))
    assert not (sessions / (state.ledger_key(str(path), "claude-code") + ".json")).exists()
    rows = [row for row in data["frozen"] if row[7] == digest(prompt)]
    assert [row[5] for row in rows] == [other[1]]
