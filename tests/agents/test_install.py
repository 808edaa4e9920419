"""`turnlens hook install|uninstall` against a temporary HOME and project folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.agents.conftest import Runner
from turnlens.agents.install import settings_problems

MINE = {
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "model": "opus",
    "permissions": {"allow": ["Bash(npm run test)"], "deny": ["Read(./.env)"]},
    "env": {"FOO": "1"},
    "hooks": {
        "PreCompact": [
            {"matcher": "auto", "hooks": [{"type": "command", "command": "~/bin/backup-transcript.sh"}]}
        ],
        "PostToolUse": [
            {
                "matcher": "Write|Edit",
                "hooks": [{"type": "command", "command": "npx prettier --write", "timeout": 20}],
            }
        ],
    },
}


def user_settings(tmp_path: Path) -> Path:
    return tmp_path / "home" / ".claude" / "settings.json"


def write(path: Path, obj: object) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(obj, indent=2) + "\n"
    path.write_text(text, encoding="utf-8")
    return text


def ours(settings: dict, event: str) -> list[dict]:
    return [
        h for g in settings["hooks"].get(event, []) for h in g["hooks"] if f"hook {event}" in h["command"]
    ]


def test_install_merges_keeps_everything_else_and_validates(turnlens: Runner, tmp_path: Path) -> None:
    path = user_settings(tmp_path)
    write(path, MINE)
    run = turnlens("hook", "install", "--agent", "claude-code", "--user")
    assert run.code == 0, run.err
    after = json.loads(path.read_text(encoding="utf-8"))
    assert settings_problems(after) == []
    for key in ("$schema", "model", "permissions", "env"):
        assert after[key] == MINE[key]
    assert after["hooks"]["PostToolUse"] == MINE["hooks"]["PostToolUse"]
    assert after["hooks"]["PreCompact"][0] == MINE["hooks"]["PreCompact"][0]  # the user's own hook, first
    for event in ("PreCompact", "PostCompact", "SessionStart", "UserPromptSubmit"):
        (handler,) = ours(after, event)
        assert handler["type"] == "command" and handler["timeout"] > 0
    (group,) = [g for g in after["hooks"]["SessionStart"]]
    assert group["matcher"] == "compact"
    assert after["statusLine"]["type"] == "command" and after["statusLine"]["command"].endswith("statusline")
    backups = list(path.parent.glob("settings.json.turnlens-*.bak"))
    assert len(backups) == 1 and json.loads(backups[0].read_text(encoding="utf-8")) == MINE
    for event in ("PreCompact", "PostCompact", "SessionStart", "UserPromptSubmit"):
        assert f"added the {event} hook" in run.out
    assert "added the status line" in run.out


def test_install_is_idempotent_and_uninstall_restores(turnlens: Runner, tmp_path: Path) -> None:
    path = user_settings(tmp_path)
    original = write(path, MINE)
    assert turnlens("hook", "install").code == 0
    once = path.read_text(encoding="utf-8")
    again = turnlens("hook", "install")
    assert again.code == 0 and "nothing changed" in again.out
    assert path.read_text(encoding="utf-8") == once
    assert len(list(path.parent.glob("*.bak"))) == 1
    gone = turnlens("hook", "uninstall")
    assert gone.code == 0 and "removed the PreCompact hook" in gone.out
    assert json.loads(path.read_text(encoding="utf-8")) == json.loads(original)
    assert turnlens("hook", "uninstall").out.endswith("nothing changed\n")


def test_install_into_no_settings_file_and_uninstall_leaves_an_empty_object(
    turnlens: Runner, tmp_path: Path
) -> None:
    path = user_settings(tmp_path)
    assert turnlens("hook", "install").code == 0
    assert settings_problems(json.loads(path.read_text(encoding="utf-8"))) == []
    assert not list(path.parent.glob("*.bak"))  # nothing to back up
    assert turnlens("hook", "uninstall").code == 0
    assert json.loads(path.read_text(encoding="utf-8")) == {}


def test_dry_run_shows_a_diff_and_writes_nothing(turnlens: Runner, tmp_path: Path) -> None:
    path = user_settings(tmp_path)
    text = write(path, MINE)
    run = turnlens("hook", "install", "--dry-run")
    assert run.code == 0
    assert run.out.startswith("---") and "+++" in run.out
    assert '+        "matcher": "compact"' in run.out or '"matcher": "compact"' in run.out
    assert "dry run" in run.out
    assert path.read_text(encoding="utf-8") == text
    assert not list(path.parent.glob("*.bak"))


def test_project_scope_writes_the_project_file_only(turnlens: Runner, tmp_path: Path) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    run = turnlens("hook", "install", "--project", cwd=project)
    assert run.code == 0
    written = project / ".claude" / "settings.json"
    assert settings_problems(json.loads(written.read_text(encoding="utf-8"))) == []
    assert not user_settings(tmp_path).exists()
    local = turnlens("hook", "install", "--local", "--project-dir", str(project), "--no-statusline")
    assert local.code == 0
    local_settings = json.loads((project / ".claude" / "settings.local.json").read_text(encoding="utf-8"))
    assert "statusLine" not in local_settings and ours(local_settings, "PreCompact")


def test_a_status_line_of_your_own_is_kept_unless_replaced_and_comes_back(
    turnlens: Runner, tmp_path: Path
) -> None:
    path = user_settings(tmp_path)
    theirs = {"type": "command", "command": "~/.claude/statusline.sh", "padding": 1}
    write(path, {**MINE, "statusLine": theirs})
    kept = turnlens("hook", "install")
    assert "kept your own status line" in kept.out
    assert json.loads(path.read_text(encoding="utf-8"))["statusLine"] == theirs
    replaced = turnlens("hook", "install", "--replace-statusline")
    assert "replaced your status line" in replaced.out
    assert json.loads(path.read_text(encoding="utf-8"))["statusLine"]["command"].endswith("statusline")
    turnlens("hook", "uninstall")
    assert json.loads(path.read_text(encoding="utf-8")) == {**MINE, "statusLine": theirs}


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"hooks": []}'])
def test_settings_that_cannot_be_merged_safely_are_left_alone(
    turnlens: Runner, tmp_path: Path, content: str
) -> None:
    path = user_settings(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(content, encoding="utf-8")
    run = turnlens("hook", "install")
    assert run.code == 2 and "turnlens hook install" in run.err
    assert path.read_text(encoding="utf-8") == content


def test_codex_hooks_json(turnlens: Runner, tmp_path: Path) -> None:
    path = tmp_path / "home" / ".codex" / "hooks.json"
    existing = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}}
    write(path, existing)
    run = turnlens("hook", "install", "--agent", "codex")
    assert run.code == 0 and "/hooks" in run.out
    after = json.loads(path.read_text(encoding="utf-8"))
    assert settings_problems(after, "codex") == []
    assert after["hooks"]["Stop"] == existing["hooks"]["Stop"]
    assert set(after["hooks"]) == {"Stop", "UserPromptSubmit", "SessionStart"}
    (handler,) = ours(after, "SessionStart")
    assert handler["command"].endswith("hook SessionStart --agent codex")
    assert "statusLine" not in after
    assert turnlens("hook", "uninstall", "--agent", "codex").code == 0
    assert json.loads(path.read_text(encoding="utf-8")) == existing
    assert turnlens("hook", "install", "--agent", "codex", "--local").code == 2


def test_the_installed_commands_run(turnlens: Runner, tmp_path: Path) -> None:
    """What install writes is a command line that answers (here: the status line)."""
    import shlex
    import subprocess

    from tests.agents.conftest import SESSION, payload

    assert turnlens("hook", "install").code == 0
    settings = json.loads(user_settings(tmp_path).read_text(encoding="utf-8"))
    argv = shlex.split(settings["statusLine"]["command"])
    proc = subprocess.run(
        argv,
        input=payload("claude-code", "statusline", transcript=str(SESSION)),
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0 and b"TurnLens" in proc.stdout


def test_the_settings_check_finds_what_breaks_the_documented_fields() -> None:
    assert settings_problems([]) == ["the settings are not a JSON object"]
    bad = {
        "hooks": {
            "PreCompactt": [],
            "PreCompact": {"hooks": []},
            "SessionStart": [
                {"matcher": 3, "hooks": [{"type": "command", "command": "", "timeout": -1, "when": 1}]}
            ],
            "Stop": [{"hook": []}],
        },
        "statusLine": {"type": "static", "padding": "x"},
    }
    problems = "\n".join(settings_problems(bad))
    for expected in (
        "hooks.PreCompactt: not a documented hook event",
        "hooks.PreCompact: not an array",
        "hooks.SessionStart[0].matcher: not a string",
        "command: missing or empty",
        "timeout: not a number > 0",
        "unknown keys ['when']",
        "hooks.Stop[0]: unknown keys ['hook']",
        'statusLine.type: must be "command"',
        "statusLine.command: missing",
        "statusLine.padding: not a number",
    ):
        assert expected in problems


def test_install_can_name_the_labeler_engine_in_every_command(turnlens: Runner, tmp_path: Path) -> None:
    # `--labeler encoder` goes into each hook's and the status line's command, so the agent need
    # not pass $TURNLENS_LABELER; installing again without it takes the flag out again
    from turnlens.learn.encoder import available

    path = user_settings(tmp_path)
    write(path, MINE)
    run = turnlens("hook", "install", "--labeler", "encoder")
    assert run.code == 0, run.err
    assert ("the encoder engine is not installed here" in run.out) is not available()
    settings = json.loads(path.read_text(encoding="utf-8"))
    commands = [
        h["command"]
        for e in ("UserPromptSubmit", "PreCompact", "PostCompact", "SessionStart")
        for h in ours(settings, e)
    ]
    commands.append(settings["statusLine"]["command"])
    assert len(commands) == 5 and all(c.endswith(" --labeler encoder") for c in commands)
    assert settings_problems(settings) == []
    plain = turnlens("hook", "install")
    assert plain.code == 0 and "updated the UserPromptSubmit hook" in plain.out
    settings = json.loads(path.read_text(encoding="utf-8"))
    assert "--labeler" not in json.dumps(settings)
    assert turnlens("hook", "install", "--labeler", "bert").code == 2  # argparse names the choices
    assert turnlens("hook", "uninstall").code == 0
    assert json.loads(path.read_text(encoding="utf-8")) == MINE


def test_a_hook_and_the_status_line_take_the_labeler_from_their_command_line(
    turnlens: Runner, tmp_path: Path
) -> None:
    # the flag sets $TURNLENS_LABELER for the hook process (and what it starts): with the encoder
    # installed, the submit hook remembers the prompt's class; without it, one line in the log
    from tests.agents.conftest import payload
    from tests.agents.make_fixtures import session
    from turnlens.agents import state
    from turnlens.learn.encoder import available

    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(session().lines) + "\n", encoding="utf-8")
    prompt = "Use Postgres for the queue, not Redis."
    body = payload("claude-code", "UserPromptSubmit", transcript=str(path), prompt=prompt)
    run = turnlens(
        "hook", "UserPromptSubmit", "--labeler", "encoder", stdin=body, env={"TURNLENS_NO_WARM": "1"}
    )
    assert run.code == 0
    routes = run.state / "turnlens" / "sessions" / (state.session_key(str(path)) + ".routes")
    record = json.loads(routes.read_text(encoding="utf-8"))[-1]
    if available():
        assert len(record) == 4 and "warning" not in run.log
    else:
        assert len(record) == 3
        assert '$TURNLENS_LABELER is "encoder" but the encoder engine is not installed' in run.log
    # the flag wins over the variable: `--labeler model` with $TURNLENS_LABELER=encoder
    again = turnlens(
        "hook",
        "UserPromptSubmit",
        "--labeler",
        "model",
        stdin=body,
        env={"TURNLENS_LABELER": "encoder", "TURNLENS_NO_WARM": "1"},
    )
    assert again.code == 0 and len(json.loads(routes.read_text(encoding="utf-8"))[-1]) == 3
    shown = turnlens(
        "statusline",
        "--labeler",
        "encoder",
        stdin=payload("claude-code", "statusline", transcript=str(path)),
        env={"NO_COLOR": "1"},
    )
    assert shown.code == 0 and shown.out.startswith("TurnLens")
    sessions = run.state / "turnlens" / "sessions"
    assert (
        sessions
        / (state.ledger_key(str(path), "claude-code", "encoder" if available() else "model") + ".json")
    ).exists()
    # an unknown engine in a hook's own command line is a logged no-op, never an error
    bad = turnlens("hook", "UserPromptSubmit", "--labeler", "bert", stdin=body)
    assert bad.code == 0 and bad.out == "" and "unknown option '--labeler'" in bad.log
