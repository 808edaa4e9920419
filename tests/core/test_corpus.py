"""Accuracy guards on the labelled corpora (tests/data and the shared dev corpus).

The held-out set was written before the default pack was tuned on the dev set,
and is never tuned on; these tests only keep the measured figures from
silently regressing.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from turnlens.classifier import classify
from turnlens.core.classes import CLASS_NAMES
from turnlens.core.rules import builtin_pack

DEV_CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "turns-dev.jsonl"


def load(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def correct(items: list[dict[str, str]], pack_name: str) -> int:
    pack = builtin_pack(pack_name)
    return sum(classify(item["text"], pack).task_class == item["label"] for item in items)


def test_holdout_set_is_varied(data_dir: Path) -> None:
    items = load(data_dir / "turns-holdout.jsonl")
    assert len(items) >= 40
    assert len({item["id"] for item in items}) == len(items)
    per_class = Counter(item["label"] for item in items)
    assert set(per_class) == set(CLASS_NAMES) and min(per_class.values()) >= 6
    assert {item["lang"] for item in items} == {"en", "es"}


def test_default_pack_on_the_holdout_set(data_dir: Path) -> None:
    items = load(data_dir / "turns-holdout.jsonl")
    assert correct(items, "default") / len(items) >= 0.80
    assert correct(items, "default") > correct(items, "reference")


@pytest.mark.skipif(not DEV_CORPUS.is_file(), reason="the shared dev corpus is not beside the checkout")
def test_dev_corpus_accuracy() -> None:
    items = load(DEV_CORPUS)
    assert correct(items, "reference") == 73  # the reference pack reproduces the original script
    assert correct(items, "default") / len(items) >= 0.80
