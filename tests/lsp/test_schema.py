"""The settings schema is the one source of truth: the model, the docs and the CLI agree."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

from turnlens.lsp.settings import Settings, flat_leaves, parse_settings, settings_markdown

ROOT = Path(__file__).resolve().parents[2]


def test_schema_command_prints_the_schema() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "turnlens", "schema"], capture_output=True, text=True, check=True
    ).stdout
    schema = json.loads(out)
    assert schema["type"] == "object"
    assert schema["properties"]["diagnostics"]["properties"]["severity"]["default"] == "hint"
    assert schema["properties"]["router"]["properties"]["backend"]["x-scope"] == "machine"


def test_every_leaf_has_a_default_and_a_description() -> None:
    for key, leaf in flat_leaves().items():
        assert "default" in leaf, key
        assert leaf.get("markdownDescription"), key
        assert "type" in leaf, key


def test_defaults_of_the_schema_parse_to_the_default_settings() -> None:
    defaults: dict[str, object] = {}
    for key, leaf in flat_leaves().items():
        if leaf.get("x-client"):
            continue
        node = defaults
        *parents, last = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})  # type: ignore[assignment]
        node[last] = leaf["default"]
    settings, warnings = parse_settings(defaults)
    assert warnings == []
    assert settings == Settings()


def test_every_server_setting_is_in_the_schema() -> None:
    leaves = set(flat_leaves())
    fields = {f.name for f in dataclasses.fields(Settings)} - {"router"}
    assert len(
        [k for k in leaves if not k.startswith(("router.", "server.", "trace.", "documentSelector"))]
    ) == len(fields)


def test_invalid_values_fall_back_with_one_warning_each() -> None:
    settings, warnings = parse_settings(
        {
            "debounceMs": -5,
            "diagnostics": {"severity": "loud"},
            "exclude": "notalist",
            "router": {"timeoutMs": "x"},
        }
    )
    assert settings.debounce_ms == 150 and settings.severity == "hint" and settings.exclude == ()
    assert settings.router.timeout_ms == 3000
    assert len(warnings) == 4
    assert all(w.startswith("turnlens.") for w in warnings)


def test_docs_settings_table_is_generated_from_the_schema() -> None:
    doc = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    marker = "<!-- generated: turnlens schema --markdown -->\n"
    assert marker in doc, "docs/settings.md lost its marker"
    assert doc.split(marker, 1)[1] == settings_markdown(), "regenerate: python -m turnlens schema --markdown"
