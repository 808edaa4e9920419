"""packs/parsed.json holds the parse trees of the shipped TOML files (start-up speed).

Regenerate after editing a shipped TOML file:  python -m tests.core.test_parsed_cache
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from turnlens.core.data import parse_toml, text_key

SERVER = Path(__file__).resolve().parents[2] / "server" / "turnlens"
CACHE = SERVER / "core" / "packs" / "parsed.json"
SHIPPED = sorted(p for p in SERVER.rglob("*.toml"))


def render() -> str:
    tomls = {
        text_key(p.read_text(encoding="utf-8")): tomllib.loads(p.read_text(encoding="utf-8")) for p in SHIPPED
    }
    about = "parse trees of the shipped TOML files; see tests/core/test_parsed_cache.py"
    return (
        json.dumps({"about": about, "tomls": dict(sorted(tomls.items()))}, indent=1, ensure_ascii=False)
        + "\n"
    )


def test_every_shipped_toml_is_covered() -> None:
    assert len(SHIPPED) >= 5  # classes, reference, default, labels, router defaults


def test_cache_is_up_to_date() -> None:
    assert CACHE.read_text(encoding="utf-8") == render(), "run: python -m tests.core.test_parsed_cache"


def test_cached_parse_equals_tomllib() -> None:
    for path in SHIPPED:
        text = path.read_text(encoding="utf-8")
        assert parse_toml(text) == tomllib.loads(text)


def test_other_text_is_parsed_for_real() -> None:
    assert parse_toml('a = 1\n[b]\nc = "d"\n') == {"a": 1, "b": {"c": "d"}}


if __name__ == "__main__":
    CACHE.write_text(render(), encoding="utf-8")
    print(f"wrote {CACHE}")
