"""`turnlens train` → `turnlens eval` / `--model` round trip, bad rows, determinism, export-pins."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.cli.conftest import Run
from turnlens.learn.dataset import Row
from turnlens.learn.train import train

Cli = Callable[..., Run]

ROWS = [
    ("ship it, merging now", "decision"),
    ("approved, go ahead and merge", "decision"),
    ("we decided to drop python 3.8 support", "decision"),
    ("vamos con la opción B, queda decidido", "decision"),
    ("closing this as won't fix", "decision"),
    ("thanks a lot!", "chitchat"),
    ("good morning everyone", "chitchat"),
    ("gracias, buen finde", "chitchat"),
    ("+1 nice one", "chitchat"),
    ("cheers, see you tomorrow", "chitchat"),
    ("```python\nprint('hi')\n```", "code"),
    ("Traceback (most recent call last):\n  File \"a.py\", line 1\nKeyError: 'x'", "code"),
    ("$ make test\nerror: missing target", "code"),
    ("def add(a, b):\n    return a + b", "code"),
    ("diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b", "code"),
]


def _write(path: Path, rows: list[tuple[str, str]], extra: str = "") -> Path:
    lines = [
        json.dumps(
            {"id": f"r{i}", "text": t, "label": label, "lang": "en", "genre": "test"}, ensure_ascii=False
        )
        for i, (t, label) in enumerate(rows)
    ]
    path.write_text("\n".join(lines) + "\n" + extra, encoding="utf-8")
    return path


def test_train_then_eval_and_classify_with_the_model(cli: Cli, tmp_path: Path) -> None:
    corpus = _write(
        tmp_path / "mine.jsonl",
        ROWS,
        'not json\n{"text": "hello", "label": "banana"}\n{"text": "", "label": "code"}\n{"text": "x"}\n',
    )
    model = tmp_path / "mine.tlm"
    result = cli("train", "--corpus", corpus, "--base", "none", "--out", model)
    assert result.code == 0, result.err
    assert result.out.startswith(
        f"{model}: classes model from 15 rows (decision 5, spec 0, code 5, review 0,"
    )
    n = len(ROWS)
    assert result.err.splitlines() == [
        f"turnlens train: {corpus}:{n + 1}: invalid JSON (Expecting value); row skipped",
        f"turnlens train: {corpus}:{n + 2}: unknown label 'banana' (expected one of decision, spec, code, "
        "review, context, chitchat); row skipped",
        f"turnlens train: {corpus}:{n + 3}: empty or missing text; row skipped",
        f"turnlens train: {corpus}:{n + 4}: missing label; row skipped",
    ]
    data = json.loads(cli("eval", "--corpus", corpus, "--model", model, "--rules", "default", "--json").out)[
        0
    ]
    assert data["engine"] == "model" and data["n"] == n and data["accuracy"] >= 0.9
    out = json.loads(cli("classify", "--stdin", "--json", "--model", model, stdin=b"approved, merge it").out)
    assert (out["class"], out["engine"]) == ("decision", "model")
    # the same file through the environment variable (what the editor setting does for the server)
    assert cli("classify", "--rules", "reference", "--stdin", "--model", model, stdin=b"ok").code == 0


def test_a_router_model_for_route(cli: Cli, tmp_path: Path) -> None:
    rows = [
        ("rename utils.py to helpers.py", "bookkeeping"),
        ("bump the version to 2.0.1", "bookkeeping"),
        ("commit and push this", "bookkeeping"),
        ("add a --verbose flag to the cli", "coding"),
        ("implement pagination for /users", "coding"),
        ("write tests for the parser", "coding"),
    ]
    corpus = _write(tmp_path / "p.jsonl", rows)
    model = tmp_path / "p.tlm"
    assert cli("train", "--task", "router", "--corpus", corpus, "--base", "none", "--out", model).code == 0
    out = json.loads(
        cli("route", "--stdin", "--json", "--model", model, stdin=b"rename the config folder").out
    )
    assert out["label"] in ("bookkeeping", "coding") and out["source"] == "classifier"
    bad = cli("classify", "--stdin", "--model", tmp_path / "nope.tlm", stdin=b"x")
    assert bad.code == 2 and "nope.tlm" in bad.err


def test_training_is_deterministic() -> None:
    rows = [Row(str(i), t, label) for i, (t, label) in enumerate(ROWS)]
    assert train(rows, "classes").to_bytes() == train(list(rows), "classes").to_bytes()


def test_a_model_of_several_fits_is_the_mean_of_its_fits() -> None:
    """`fits = 3` averages the weights of the fits with seeds s, s+1, s+2 into one model of
    the same vocabulary; one fit is exactly the model a single seed gives."""
    from dataclasses import replace

    from turnlens.learn.train import TASK_SETTINGS

    rows = [Row(str(i), t, label) for i, (t, label) in enumerate(ROWS)]
    one = replace(TASK_SETTINGS["labels"], fits=1)
    singles = [train(rows, "classes", replace(one, seed=13 + n)) for n in range(3)]
    mean = train(rows, "classes", replace(one, fits=3))
    assert train(rows, "classes", one).to_bytes() == singles[0].to_bytes()
    assert mean.vocab == singles[0].vocab and mean.meta["fits"] == 3 and "fits" not in singles[0].meta
    for j in range(len(mean.classes)):
        for i, w in enumerate(mean.weights[j]):
            assert abs(w - sum(s.weights[j][i] for s in singles) / 3) < 1e-5
    assert max(abs(b - sum(s.bias[j] for s in singles) / 3) for j, b in enumerate(mean.bias)) < 1e-5
    # the fits differ (else averaging would be a no-op and this test could not fail)
    assert singles[0].weights[0].tobytes() != singles[1].weights[0].tobytes()
    assert TASK_SETTINGS["classes"].fits == 3 and TASK_SETTINGS["labels"].fits == 3


def test_usage_errors(cli: Cli, tmp_path: Path) -> None:
    assert cli("train", "--base", "none", "--out", tmp_path / "m.tlm").code == 2
    only_one = _write(tmp_path / "one.jsonl", ROWS[:3])
    result = cli("train", "--base", "none", "--corpus", only_one, "--out", tmp_path / "m.tlm")
    assert result.code == 2 and "at least two labels" in result.err
    not_model = tmp_path / "x.tlm"
    not_model.write_text("hello", encoding="utf-8")
    result = cli("classify", "--stdin", "--model", not_model, stdin=b"x")
    assert result.code == 2 and "not a TurnLens model file" in result.err


def test_export_pins_writes_rows_that_train_reads(cli: Cli, tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "s.md").write_text(
        "<!-- turnlens: class=decision -->\nsounds good, let's do that\n---TURN---\n"
        "just some text without a pin\n---TURN---\n"
        "<!-- turnlens: class=spec -->\nThe API returns 404 for unknown ids.\n",
        encoding="utf-8",
    )
    (notes / "t.txt").write_text("nothing pinned here\n", encoding="utf-8")
    result = cli("export-pins", notes)
    rows = [json.loads(line) for line in result.out.splitlines()]
    assert [(r["text"], r["label"], r["id"]) for r in rows] == [
        ("sounds good, let's do that", "decision", f"{notes / 's.md'}:1"),
        ("The API returns 404 for unknown ids.", "spec", f"{notes / 's.md'}:6"),
    ]
    out = tmp_path / "pins.jsonl"
    assert cli("export-pins", notes, "--out", out).err == f"{out}: 2 pinned turns\n"
    model = tmp_path / "m.tlm"
    result = cli("train", "--corpus", out, "--base", "none", "--out", model)
    assert result.code == 0 and "from 2 rows" in result.out
