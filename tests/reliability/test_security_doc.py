"""docs/security.md names the test behind each promise: every name it gives must exist here."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


def test_every_test_named_in_the_security_page_exists() -> None:
    doc = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`(test_\w+?)(?:\.py)?`", doc))
    files = {p.stem for p in HERE.glob("test_*.py")}
    defined = set()
    for path in HERE.glob("test_*.py"):
        defined |= set(
            re.findall(r"^(?:async )?def (test_\w+)", path.read_text(encoding="utf-8"), re.MULTILINE)
        )
    missing = sorted(n for n in named if n not in defined and n not in files)
    assert len(named) > 30 and missing == [], missing
