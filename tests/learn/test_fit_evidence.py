"""scripts/fit_evidence.py on a tiny cache of its own: each answer from the guide's evidence
counted with how often it was right, the figure smoothed, and only the [evidence] table written."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]

PROMPTS = [
    # the question rule's answer (analysis): right, then wrong
    ("p1", "how can I test the model with this dataset", "analysis"),
    ("p2", "后端如何启动", "bookkeeping"),
    # a go-ahead (chat): right
    ("p3", "yes please do it", "chat"),
    # the model's own answer: not counted
    ("p4", "add a --dry-run flag to the sync command and a test for it", "coding"),
]


def _script() -> ModuleType:
    sys.path.insert(0, str(REPO / "scripts"))
    spec = importlib.util.spec_from_file_location("fit_evidence", REPO / "scripts" / "fit_evidence.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tiny_set(tmp_path: Path, rows: list[tuple[str, str, str]]) -> tuple[Path, Path]:
    """A `dev-prompts` set of (id, text, label) rows: its refs folder and its cache folder."""
    cache, refs = tmp_path / "cache", tmp_path / "refs"
    cache.mkdir()
    refs.mkdir()
    eval_mod = sys.modules["realtext_eval"]
    with (cache / "dev-prompts.jsonl").open("w", encoding="utf-8") as handle:
        for i, text, _label in rows:
            handle.write(json.dumps({"id": i, "text": text}) + "\n")
    with (refs / "dev-prompts.refs.jsonl").open("w", encoding="utf-8") as handle:
        for i, text, label in rows:
            handle.write(json.dumps({"id": i, "label": label, "sha256": eval_mod.sha256(text)}) + "\n")
    return refs, cache


def test_each_answer_is_counted_with_how_often_it_was_right(tmp_path: Path) -> None:
    mod = _script()
    refs, cache = _tiny_set(tmp_path, PROMPTS)
    fitted = mod.fit(["dev-prompts"], refs, cache)
    assert fitted["question"] == (2, 1, 50)  # (1 + 1) / (2 + 2)
    assert fitted["pick"] == (1, 1, 67)  # (1 + 1) / (1 + 2)
    assert fitted["build"] == (0, 0, 50)  # no answers: a coin
    assert set(fitted) == set(mod.EVIDENCE_NAMES.values())


def test_a_figure_stays_in_the_range_the_defaults_accept(tmp_path: Path) -> None:
    # four wrong answers of five would state 17 %: under a guess among the five labels, which
    # `defaults.toml` refuses at load, so the figure is the least it accepts
    mod = _script()
    rows = [(f"w{i}", "how can I test the model with this dataset", "coding") for i in range(4)]
    refs, cache = _tiny_set(tmp_path, rows)
    assert mod.fit(["dev-prompts"], refs, cache)["question"] == (4, 0, 20)


def test_only_the_evidence_table_is_written(tmp_path: Path) -> None:
    mod = _script()
    toml = tmp_path / "defaults.toml"
    original = (REPO / "server" / "turnlens" / "router" / "defaults.toml").read_text(encoding="utf-8")
    # a line of another table with the same name must stay as it is
    before = original.replace("[limits]\n", "[limits]\nquestion = 5\n")
    toml.write_text(before, encoding="utf-8")
    mod.write({"question": (9, 9, 91), "pick": (0, 0, 50)}, toml)
    written = toml.read_text(encoding="utf-8")
    head, evidence = written.split("[evidence]", 1)
    assert head == before.split("[evidence]", 1)[0]
    assert "\nquestion = 91\n" in evidence and "\npick = 50\n" in evidence
    assert "\nplan = " in evidence  # a name not fitted keeps its figure
    assert len(written.splitlines()) == len(before.splitlines())
