"""packs/literals.json holds the literal pre-checks of the shipped packs, worked out ahead.

Regenerate after editing a shipped pack:  python -m tests.core.test_literals_cache
"""

from __future__ import annotations

import json
from pathlib import Path

from turnlens.core.literals import cache_key, extract_literals, required_literals
from turnlens.core.rules import BUILTIN_PACKS, builtin_pack, packaged_pack

CACHE = Path(__file__).resolve().parents[2] / "server" / "turnlens" / "core" / "packs" / "literals.json"


def expected() -> dict[str, object]:
    packs = [builtin_pack(name) for name in BUILTIN_PACKS] + [
        packaged_pack("turnlens.router.packs", "labels.toml")
    ]
    patterns: dict[str, object] = {}
    for pack in packs:
        for rule in pack.rules:
            if rule.pattern is None or rule.engine != "re":
                continue
            found = extract_literals(rule.pattern, rule.ignore_case)
            patterns[cache_key(rule.pattern, rule.ignore_case)] = (
                [list(found[0]), found[1]] if found else None
            )
    return {
        "about": "literal pre-checks of the shipped rule packs; see tests/core/test_literals_cache.py",
        "patterns": dict(sorted(patterns.items())),
    }


def render() -> str:
    return json.dumps(expected(), indent=1, ensure_ascii=False) + "\n"


def test_cache_is_up_to_date() -> None:
    assert CACHE.read_text(encoding="utf-8") == render(), "run: python -m tests.core.test_literals_cache"


def test_cached_answers_equal_fresh_ones() -> None:
    for key, value in json.loads(render())["patterns"].items():
        flag, pattern = key.split(":", 1)
        got = required_literals(pattern, flag == "i")
        assert ([list(got[0]), got[1]] if got else None) == value


if __name__ == "__main__":
    CACHE.write_text(render(), encoding="utf-8")
    print(f"wrote {CACHE}")
