"""A 50 MB input is handled in one pass (a few seconds, no timing asserted)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import run_turnlens

BLOCK = (
    "## Notes\n"
    "- The export job streams rows; see SPEC-12 and AC-3.\n"
    "```python\nrows = export(batch=2000)\n```\n"
    "Approved. Merge it once CI is green, mañana café.\n"
    "src/app.py:12:3: E501 line too long\n"
    "thanks!\n"
)  # Latin-1 only, so the text is one byte a character in memory (emoji are tested elsewhere)
WORDS, LINES = len(BLOCK.split()), BLOCK.count("\n")


@pytest.mark.slow
def test_classify_a_50_mb_transcript(tmp_path: Path) -> None:
    repeats = 50_000_000 // len(BLOCK.encode()) + 1
    path = tmp_path / "big.md"
    path.write_text(BLOCK * repeats, encoding="utf-8")
    assert path.stat().st_size >= 50_000_000
    result = run_turnlens("classify", "--input", path, "--json")
    assert (result.code, result.err) == (0, "")
    data = json.loads(result.out)
    assert (data["words"], data["lines"]) == (WORDS * repeats, LINES * repeats)
    assert data["engine"] == "model" and data["class"] in ("decision", "code", "review", "context")
    assert data["scores"]["context"] == 5 and data["scores"]["chitchat"] == 3
