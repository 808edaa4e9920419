"""The Workspace: settings + path → pack, user models, router, profile, for every view alike."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

import turnlens.userfiles
from turnlens import api
from turnlens.core.rules import builtin_pack
from turnlens.lsp.settings import Settings
from turnlens.pipeline.analyze import UnitCache, analyze
from turnlens.pipeline.workspace import (
    Workspace,
    WorkspaceError,
    command_line_pack,
    profile_for,
    profile_for_pack,
)
from turnlens.router.settings import RouterSettings

RULES = "[[rule]]\nid = 'mine.marker'\nclass = 'spec'\nweight = 9\npattern = '''ZEBRA-MARKER'''\n"
SESSION = "Should we use Postgres or SQLite here?\n---TURN---\nZEBRA-MARKER please write the spec\n"


class Said:
    def __init__(self) -> None:
        self.messages: list[tuple[str, bool]] = []

    def __call__(self, message: str, error: bool) -> None:
        self.messages.append((message, error))


def test_a_project_rules_file_extends_the_pack_and_is_read_once_per_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = tmp_path / ".turnlens.toml"
    rules.write_text(RULES, encoding="utf-8")
    loads: list[Path] = []
    real = turnlens.userfiles.load_rules_file
    monkeypatch.setattr(
        turnlens.userfiles, "load_rules_file", lambda p, base=None: loads.append(p) or real(p, base)
    )
    ws = Workspace(Said())
    doc = str(tmp_path / "notes.md")
    first = ws.resolve(Settings(), doc, str(tmp_path))
    assert first.pack.rule("mine.marker") is not None and first.pack.model is not None
    assert ws.resolve(Settings(), doc, str(tmp_path)).pack is first.pack
    assert len(loads) == 1
    rules.write_text(RULES.replace("spec", "code"), encoding="utf-8")
    os.utime(rules, (1e9, 1e9))
    changed = ws.resolve(Settings(), doc, str(tmp_path)).pack
    assert changed is not first.pack and len(loads) == 2
    # an unsaved document (no path) has no project file: the built-in pack
    assert ws.resolve(Settings(), None, None).pack is builtin_pack("default")


def test_a_file_that_cannot_be_used_leaves_the_built_in_pack_with_one_message(tmp_path: Path) -> None:
    said = Said()
    ws = Workspace(said)
    settings = Settings(rules_file="missing.toml")
    assert ws.resolve(settings, None, str(tmp_path)).pack is builtin_pack("default")
    assert said.messages == [
        (f"turnlens.rules.file: {tmp_path / 'missing.toml'}: no such file; using the default pack", False)
    ]
    (tmp_path / "bad.toml").write_text("[pack]\ncategories = 5\n", encoding="utf-8")
    reference = Settings(rules_pack="reference", rules_file="bad.toml")
    assert ws.resolve(reference, None, str(tmp_path)).pack is builtin_pack("reference")
    assert said.messages[-1][1] is True and "bad.toml" in said.messages[-1][0]


def test_a_missing_model_file_keeps_the_shipped_model(tmp_path: Path) -> None:
    said = Said()
    applied = Workspace(said).resolve(Settings(models=("nope.tlm",)), None, str(tmp_path))
    assert applied.models == {} and applied.pack is builtin_pack("default")
    assert applied.router.label_model is None
    assert said.messages == [
        (f"turnlens.models: {tmp_path / 'nope.tlm'}: no such file; using the shipped model", False)
    ]


def test_equal_router_settings_share_a_router_and_unused_ones_are_dropped() -> None:
    ws = Workspace(Said())
    a = ws.router_for(RouterSettings())
    assert ws.router_for(RouterSettings()) is a
    b = ws.router_for(RouterSettings(min_length=40))
    assert b is not a
    assert ws.prune_routers([RouterSettings()]) == []  # a rules-only router has no client to close
    assert set(ws.routers) == {RouterSettings()}


def test_the_server_path_and_the_one_shot_path_give_the_same_results(tmp_path: Path) -> None:
    """What the server computes through its unit cache equals `analyze` with the same profile,
    and the API's and a command line's profile."""
    ws = Workspace(Said())
    settings = Settings()
    applied = ws.resolve(settings, None, None)
    served, used = ws.analyze(UnitCache(), SESSION, settings, applied.pack)
    assert used is applied.pack
    once = analyze(SESSION, profile_for(settings, applied.pack))
    from_api = api.analyze(SESSION)
    from_cli = analyze(SESSION, profile_for_pack(command_line_pack(None, tmp_path / "x.md", print)))
    shown = [[(r.classification, r.route) for r in a.results] for a in (served, once, from_api, from_cli)]
    assert len(served.results) == 2
    assert shown[0] == shown[1] == shown[2] == shown[3]


def test_a_format_the_user_chose_that_refuses_the_text_is_a_problem_auto_detection_is_not() -> None:
    ws = Workspace(Said())
    chosen = Settings(format="chatgpt")
    analyzed, _ = ws.analyze(UnitCache(), '{"not": "a session"}', chosen, builtin_pack("default"))
    assert analyzed.results == () and len(analyzed.problems) == 1
    quiet, _ = ws.analyze(
        UnitCache(), '{"not": "a session"}', replace(chosen, format="auto"), builtin_pack("default")
    )
    assert quiet.results == () and quiet.problems == ()


def test_the_command_line_is_strict(tmp_path: Path) -> None:
    assert command_line_pack("reference", None, print) is builtin_pack("reference")
    with pytest.raises(WorkspaceError, match="no such file"):
        command_line_pack(str(tmp_path / "nope.toml"), None, print)
    warned: list[str] = []
    (tmp_path / "r.toml").write_text(
        RULES + RULES.replace("mine.marker", "mine.bad").replace("ZEBRA", "("), "utf-8"
    )
    pack = command_line_pack(str(tmp_path / "r.toml"), None, warned.append)
    assert pack.rule("mine.marker") is not None and len(warned) == 1 and "mine.bad" in warned[0]
