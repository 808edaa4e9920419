"""`turnlens eval`: both packs side by side on a labelled corpus."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.cli.conftest import Run, run_turnlens

Cli = Callable[..., Run]


def test_prints_both_packs_with_confusion_tables(data_dir: Path) -> None:
    result = run_turnlens("eval", "--corpus", data_dir / "turns-holdout.jsonl")
    assert result.code == 0 and result.err == ""
    lines = result.out.splitlines()
    headers = [line for line in lines if line.startswith(("reference: ", "default: "))]
    assert [h.split(":")[0] for h in headers] == ["reference", "default"]
    assert all("/51 = " in h and h.endswith("%") for h in headers)
    assert lines.count("label \\ got  decision     spec     code   review  context chitchat") == 2


def test_json_and_misses(cli: Cli, tmp_path: Path) -> None:
    corpus = tmp_path / "c.jsonl"
    rows = [
        {"id": "a", "text": "CASE-12 is closed", "label": "chitchat"},
        {"id": "b", "text": "thanks!", "label": "chitchat"},
    ]
    corpus.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    data = json.loads(cli("eval", "--corpus", corpus, "--json").out)
    assert [(d["pack"], d["correct"], d["n"]) for d in data] == [("reference", 1, 2), ("default", 2, 2)]
    assert data[0]["misses"] == [{"id": "a", "label": "chitchat", "got": "spec"}]
    text = cli("eval", "--corpus", corpus, "--misses", "--rules", "reference").out
    assert "reference: 1/2 = 50.0%" in text and "  miss a: chitchat → spec" in text


def test_bad_corpus_lines_are_usage_errors(cli: Cli, tmp_path: Path) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"text": "x", "label": "code"}\nnot json\n', encoding="utf-8")
    result = cli("eval", "--corpus", corpus)
    assert result.code == 2 and result.err.startswith(f"turnlens eval: {corpus}:2: not JSON")
    corpus.write_text('{"text": "x"}\n', encoding="utf-8")
    assert cli("eval", "--corpus", corpus).err == f"turnlens eval: {corpus}:1: needs `text` and `label`\n"
    assert cli("eval").code == 2
