"""packs/translations.json holds the RE2 set translations of the shipped packs, made ahead.

A run that scores a large text builds the packs' RE2 sets; translating every pattern
first costs more than the scoring. Regenerate after editing a shipped pack:
    python -m tests.core.test_translations_cache
"""

from __future__ import annotations

import json
from pathlib import Path

from turnlens.core.engine import set_translation
from turnlens.core.literals import cache_key
from turnlens.core.rules import BUILTIN_PACKS, builtin_pack, packaged_pack
from turnlens.core.translate import translate

CACHE = Path(__file__).resolve().parents[2] / "server" / "turnlens" / "core" / "packs" / "translations.json"


def expected() -> dict[str, object]:
    packs = [builtin_pack(name) for name in BUILTIN_PACKS] + [
        packaged_pack("turnlens.router.packs", "labels.toml")
    ]
    patterns: dict[str, object] = {}
    for pack in packs:
        for rule in pack.rules:
            if rule.pattern is None or rule.engine != "re":
                continue
            t = translate(rule.pattern, rule.ignore_case, wide=True)
            patterns[cache_key(rule.pattern, rule.ignore_case)] = (
                [t.pattern, t.exact, t.exact_any, t.counts_runs] if t else None
            )
    return {
        "about": "RE2 set translations (wide form) of the shipped rule packs; "
        "see tests/core/test_translations_cache.py",
        "patterns": dict(sorted(patterns.items())),
    }


def render() -> str:
    return json.dumps(expected(), indent=1, ensure_ascii=False) + "\n"


def test_cache_is_up_to_date() -> None:
    assert CACHE.read_text(encoding="utf-8") == render(), "run: python -m tests.core.test_translations_cache"


def test_cached_answers_equal_fresh_ones() -> None:
    for key, value in json.loads(render())["patterns"].items():
        flag, pattern = key.split(":", 1)
        got = set_translation(pattern, flag == "i")
        assert (list(got) if got else None) == value


def test_a_pattern_outside_the_shipped_packs_is_translated_on_the_spot() -> None:
    got = set_translation(r"\bzebra\w+", True)
    assert got is not None
    assert got[1] is True and got[2] is False  # exact on ASCII text, widened for the rest


if __name__ == "__main__":
    CACHE.write_text(render(), encoding="utf-8")
    print(f"wrote {CACHE}")
