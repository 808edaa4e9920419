"""The Zed extension in client-zed/: what Zed requires of it (it is not built here: see zed.md)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ZED = ROOT / "client-zed"


def test_extension_manifest_has_what_zed_requires() -> None:
    manifest = tomllib.loads((ZED / "extension.toml").read_text(encoding="utf-8"))
    for key in ("id", "name", "version", "schema_version", "authors", "description"):
        assert manifest.get(key), key
    assert manifest["id"] == "turnlens" and manifest["schema_version"] == 1
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert manifest["version"] == project["version"]
    server = manifest["language_servers"]["turnlens"]
    assert set(server["languages"]) == {"Markdown", "Plain Text"}


def test_extension_is_a_wasm_library_starting_turnlens_serve() -> None:
    cargo = tomllib.loads((ZED / "Cargo.toml").read_text(encoding="utf-8"))
    assert cargo["lib"]["crate-type"] == ["cdylib"]
    assert "zed_extension_api" in cargo["dependencies"]
    source = (ZED / "src" / "lib.rs").read_text(encoding="utf-8")
    assert 'worktree.which("turnlens")' in source
    assert re.search(r'args: vec!\["serve"\.to_string\(\)\]', source)
    assert "zed::register_extension!(TurnLens);" in source
    # the settings name the docs page uses is the one the extension reads
    assert source.count('LspSettings::for_worktree("turnlens"') == 3
    assert '"lsp": {\n    "turnlens"' in (ROOT / "docs" / "editors" / "zed.md").read_text(encoding="utf-8")
