"""`turnlens eval`: both packs side by side on a labelled corpus."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.cli.conftest import Run, run_turnlens

Cli = Callable[..., Run]


def test_prints_both_packs_with_every_figure(data_dir: Path) -> None:
    result = run_turnlens("eval", "--corpus", data_dir / "turns-holdout.jsonl")
    assert result.code == 0 and result.err == ""
    lines = result.out.splitlines()
    headers = [line for line in lines if line.startswith(("reference: ", "default (model): "))]
    assert [h.split(":")[0] for h in headers] == ["reference", "default (model)"]
    assert all("/51 = " in h and "macro-F1 " in h and "ECE " in h for h in headers)
    assert lines.count("label \\ got  decision     spec     code   review  context chitchat") == 2
    assert lines.count(f"{'class':<12}{'precision':>10}{'recall':>8}{'F1':>7}{'n':>6}") == 2
    assert sum(line.startswith("by language: en ") for line in lines) == 2


def test_json_and_misses(cli: Cli, tmp_path: Path) -> None:
    corpus = tmp_path / "c.jsonl"
    rows = [
        {"id": "a", "text": "CASE-12 is closed", "label": "chitchat", "lang": "en"},
        {"id": "b", "text": "thanks!", "label": "chitchat", "lang": "en"},
    ]
    corpus.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    data = json.loads(cli("eval", "--corpus", corpus, "--json").out)
    assert [(d["pack"], d["engine"], d["n"]) for d in data] == [
        ("reference", "rules", 2),
        ("default", "model", 2),
    ]
    assert data[0]["correct"] == 1 and data[0]["misses"] == [{"id": "a", "label": "chitchat", "got": "spec"}]
    for d in data:
        assert set(d) >= {"accuracy", "macro_f1", "ece", "per_class", "confusion", "languages"}
        assert d["languages"]["en"]["n"] == 2
    text = cli("eval", "--corpus", corpus, "--misses", "--rules", "reference").out
    assert "reference: 1/2 = 50.0%" in text and "  miss a: chitchat → spec" in text


def test_bad_rows_are_reported_with_their_line_and_skipped(cli: Cli, tmp_path: Path) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(
        '{"text": "thanks a lot!", "label": "chitchat"}\n'
        "not json\n"
        '{"text": "x"}\n'
        '{"text": "x", "label": "banana"}\n'
        '{"text": "  ", "label": "code"}\n',
        encoding="utf-8",
    )
    result = cli("eval", "--corpus", corpus, "--rules", "reference")
    assert result.code == 0 and "reference: 1/1 = 100.0%" in result.out
    assert result.err.splitlines() == [
        f"turnlens eval: {corpus}:2: invalid JSON (Expecting value); row skipped",
        f"turnlens eval: {corpus}:3: missing label; row skipped",
        f"turnlens eval: {corpus}:4: unknown label 'banana' (expected one of decision, spec, code, review, "
        "context, chitchat); row skipped",
        f"turnlens eval: {corpus}:5: empty or missing text; row skipped",
    ]
    corpus.write_text("not json\n", encoding="utf-8")
    result = cli("eval", "--corpus", corpus)
    assert (result.code, result.err) == (
        2,
        f"turnlens eval: {corpus}:1: invalid JSON (Expecting value); row skipped\n",
    )
    corpus.write_text("not json\n[1]\n", encoding="utf-8")
    result = cli("eval", "--corpus", corpus)
    assert result.code == 2 and result.err.endswith(f"turnlens eval: {corpus}: no valid labelled rows\n")
    assert cli("eval").code == 2


def test_router_corpus_measures_the_labeler_and_the_rules_with_the_phase_level(
    cli: Cli, tmp_path: Path
) -> None:
    corpus = tmp_path / "p.jsonl"
    rows = [
        {
            "id": "1",
            "text": "rename utils.py to helpers.py and fix the imports",
            "label": "bookkeeping",
            "lang": "en",
        },
        {"id": "2", "text": "¿por qué falla el test de pagos solo en CI?", "label": "analysis", "lang": "es"},
        {"id": "3", "text": "thanks, that worked!", "label": "chat", "lang": "en"},
    ]
    corpus.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    data = json.loads(cli("eval", "--corpus", corpus, "--json").out)
    assert [(d["pack"], d["engine"]) for d in data] == [
        ("label rules", "rules"),
        ("labeler (model)", "model"),
    ]
    assert all(0 <= d["phase_accuracy"] <= 1 and d["n"] == 3 for d in data)
    assert set(data[1]["languages"]) == {"en", "es"}
    text = cli("eval", "--corpus", corpus).out
    assert "labeler (model): " in text and "phase level (what sets the effort): " in text
