"""`turnlens batch` honours the user's labeler engine (--labeler, else $TURNLENS_LABELER):
with the encoder missing it says so in one line and labels with the n-gram model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.batch.conftest import pa, read_rows
from turnlens.batch import Labeler
from turnlens.cli import main
from turnlens.learn import encoder as enc
from turnlens.router.resolve import resolve_offline
from turnlens.router.settings import RouterSettings

PROMPT = "why does the upload stall at 99% when the file is bigger than 2 GB?"


def _routes(tmp_path: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[str, list[object]]:
    session = tmp_path / "in" / "prompt.txt"
    session.parent.mkdir(exist_ok=True)
    session.write_text(PROMPT + "\n", encoding="utf-8")
    out = tmp_path / f"out{len(list(tmp_path.iterdir()))}"
    capsys.readouterr()
    assert main(["batch", str(session), "--out", str(out), "--jobs", "1", "--quiet", *flags]) == 0
    err = capsys.readouterr().err
    rows = read_rows(out)
    return err, [(r["label"], r["phase"]) for r in rows]


def test_encoder_missing_warns_once_and_the_default_engine_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(enc, "available", lambda: False)
    err, routes = _routes(tmp_path, capsys, "--labeler", "encoder")
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and '--labeler is "encoder"' in warnings[0]
    assert "pip install 'turnlens[encoder]'" in warnings[0]
    _, plain = _routes(tmp_path, capsys)
    assert routes == plain
    monkeypatch.setenv("TURNLENS_LABELER", "encoder")
    err, from_env = _routes(tmp_path, capsys)
    assert '$TURNLENS_LABELER is "encoder"' in err and from_env == plain


def test_the_engine_travels_with_the_labeler_and_keys_its_partitions(tmp_path: Path) -> None:
    import pickle

    from turnlens.batch import ReadOptions
    from turnlens.batch.run import plan

    labeler = Labeler(engine="encoder")
    assert pickle.loads(pickle.dumps(labeler)) == labeler
    files = [tmp_path / "x.txt"]
    files[0].write_text(PROMPT, encoding="utf-8")
    model = plan(files, 1 << 20, ReadOptions(), Labeler())[0].id
    encoder = plan(files, 1 << 20, ReadOptions(), labeler)[0].id
    assert model != encoder  # a rerun with another engine writes its own partitions


@pytest.mark.skipif(not enc.available(), reason="turnlens[encoder] is not installed")
def test_encoder_installed_labels_with_it() -> None:
    rows = {
        "session_id": ["s"],
        "unit_index": [0],
        "text": [PROMPT],
        "role": [None],
        "kind": [None],
    }
    out = Labeler(engine="encoder")(pa.table(rows)).to_pylist()[0]
    expected = resolve_offline(PROMPT, RouterSettings(labeler="encoder"), explain=False)
    assert (out["label"], out["phase"]) == (expected.label, expected.phase)


def test_with_the_encoder_a_persons_prompts_are_classed_by_its_classes_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # as the agent hooks class them: the engine answers for rows of role `user` and kind
    # `prompt` (not pinned); the same text as a reply, or as plain text, keeps the turns model
    from array import array

    from tests.learn.test_encoder import StandIn
    from turnlens.learn.dataset import CLASS_LABELS
    from turnlens.learn.model import packaged_model
    from turnlens.router import labeler_engine

    j = CLASS_LABELS.index("code")  # a class the prompt's kind evidence leaves open
    cols = [array("f", [60.0 if k == j else 0.0] * enc.DIM) for k in range(len(CLASS_LABELS))]
    engine = enc.EncoderScorer(packaged_model("classes"), enc.Projection(CLASS_LABELS, cols, {}), StandIn())
    monkeypatch.setattr(labeler_engine, "prompt_scorer", lambda e: engine if e == "encoder" else None)
    text = "We keep the retry at three attempts and log every failure."
    rows = {
        "session_id": ["s"] * 4,
        "unit_index": [0, 1, 2, 3],
        "text": [text] * 4,
        "role": ["user", "assistant", None, "user"],
        "kind": ["prompt", "reply", None, "prompt"],
        "pin": [None, None, None, "spec"],
    }
    got = [r["class"] for r in Labeler(engine="encoder")(pa.table(rows)).to_pylist()]
    plain = [r["class"] for r in Labeler()(pa.table(rows)).to_pylist()]
    assert got[0] == "code" and plain[0] != "code"
    assert got[1:] == plain[1:] and got[3] == "spec"
    # the rules pack has no model: nothing for the engine to stand in for
    ruled = [r["class"] for r in Labeler(pack="reference", engine="encoder")(pa.table(rows)).to_pylist()]
    assert ruled == [r["class"] for r in Labeler(pack="reference")(pa.table(rows)).to_pylist()]
