"""packs/oneshot-3.X.marshal hold what a one-shot run reads from the JSON caches (the shipped
TOML files' parse trees, the literal pre-checks, the RE2 set translations, this Python's
prebuilt `re` programs) and the shipped models' headers, in `marshal`'s format: read in C by a
module every interpreter has loaded, where `json` would import `re` (turnlens/core/data.py).

Each bundle is made from the JSON caches and the model files alone, so any interpreter makes
every version's. Regenerate after regenerating a JSON cache or a model:
    python -m tests.core.test_oneshot_cache
"""

from __future__ import annotations

import binascii
import json
import marshal
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest

from turnlens.core import data, engine, literals, prebuilt
from turnlens.learn import model as model_module

SERVER = Path(__file__).resolve().parents[2] / "server" / "turnlens"
PACKS = SERVER / "core" / "packs"
MODELS = SERVER / "learn" / "models"
SHIPPED_TOMLS = sorted(SERVER.rglob("*.toml"))


def _json(name: str) -> Any:
    return json.loads((PACKS / name).read_text(encoding="utf-8"))


def _header_text(path: Path) -> str:
    raw = path.read_bytes()
    start = len(model_module.MAGIC)
    n = int.from_bytes(raw[start : start + 4], "little")
    return raw[start + 4 : start + 4 + n].decode("utf-8")


def bundle_of(version: str) -> dict[str, Any]:
    """The bundle of Python `version` ("3.11"), from the JSON caches beside it."""
    parsed = _json("parsed.json")["tomls"]
    tomls = {}
    for path in SHIPPED_TOMLS:
        text = path.read_text(encoding="utf-8")
        tomls[text] = parsed[data.text_key(text)]
    lits = {
        k: (tuple(v[0]), bool(v[1])) if v else None for k, v in _json("literals.json")["patterns"].items()
    }
    sets = {
        k: (str(v[0]), bool(v[1]), bool(v[2]), bool(v[3])) if v else None
        for k, v in _json("translations.json")["patterns"].items()
    }
    sre = _json(f"sre-{version}.json")
    programs = {
        key: [flags, groups, groupindex, indexgroup, zlib.decompress(binascii.a2b_base64(packed))]
        for key, (flags, groups, groupindex, indexgroup, packed) in sre["patterns"].items()
    }
    headers = {}
    for path in sorted(MODELS.glob("*.tlm")):
        text = _header_text(path)
        headers[text] = json.loads(text)
    return {
        "format": data.BUNDLE_FORMAT,
        "about": "the one-shot path's data without JSON; see tests/core/test_oneshot_cache.py",
        "python": version,
        "tomls": tomls,
        "literals": lits,
        "translations": sets,
        "sre": {"magic": sre["magic"], "codesize": sre["codesize"], "patterns": programs},
        "headers": headers,
    }


def versions() -> list[str]:
    return sorted(p.name.removeprefix("sre-").removesuffix(".json") for p in PACKS.glob("sre-3.*.json"))


def test_every_table_has_its_bundle_and_each_is_up_to_date() -> None:
    assert versions(), "no sre tables"
    for version in versions():
        path = PACKS / data.bundle_name(tuple(map(int, version.split("."))))  # type: ignore[arg-type]
        assert path.exists(), "run: python -m tests.core.test_oneshot_cache"
        assert marshal.loads(path.read_bytes()) == bundle_of(version), (
            "run: python -m tests.core.test_oneshot_cache"
        )


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="the bundles are CPython's")
def test_the_one_shot_readers_answer_from_the_bundle_as_from_the_json_caches() -> None:
    assert data.bundle(), "this interpreter has no bundle"
    for path in SHIPPED_TOMLS:
        text = path.read_text(encoding="utf-8")
        assert text in data.bundled("tomls")  # type: ignore[operator]
        assert data.parse_toml(text) == data._parsed()[data.text_key(text)]
    raw = _json("literals.json")["patterns"]
    assert literals._known() == {k: (tuple(v[0]), bool(v[1])) if v else None for k, v in raw.items()}
    assert engine._known_translations() == data.bundled("translations")
    assert prebuilt._table() is data.bundled("sre")["patterns"]  # type: ignore[index]
    for path in sorted(MODELS.glob("*.tlm")):
        text = _header_text(path)
        assert model_module._header(text) == json.loads(text)


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="the bundles are CPython's")
def test_a_program_from_the_bundle_is_the_one_from_the_json_table() -> None:
    table = _json(prebuilt.table_name())["patterns"]
    for key, entry in list(data.bundled("sre")["patterns"].items())[:40]:  # type: ignore[index]
        flags, _, pattern = key.partition(":")
        ours = prebuilt._from_entry(pattern, entry)
        theirs = prebuilt._from_entry(pattern, table[key])
        assert (ours.pattern, ours.flags, ours.groups, ours.groupindex) == (
            theirs.pattern,
            theirs.flags,
            theirs.groups,
            theirs.groupindex,
        )
        assert ours.flags == int(flags) | ours.flags


def test_a_missing_or_broken_bundle_falls_back_to_the_json_caches(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(data, "_BUNDLE", None)
    monkeypatch.setattr(data, "bundle_name", lambda version=None: "no-such-bundle.marshal")
    assert data.bundle() == {} and data.bundled("tomls") is None
    text = (PACKS / "classes.toml").read_text(encoding="utf-8")
    assert data.parse_toml(text)["class"]
    broken = tmp_path / "broken.marshal"
    broken.write_bytes(b"\x00not marshal")
    monkeypatch.setattr(data, "_BUNDLE", None)
    monkeypatch.setattr(data, "packaged_path", lambda package, name: str(broken))
    assert data.bundle() == {}


if __name__ == "__main__":
    for version in versions():
        path = PACKS / data.bundle_name(tuple(map(int, version.split("."))))  # type: ignore[arg-type]
        path.write_bytes(marshal.dumps(bundle_of(version)))
        print(f"wrote {path}")
