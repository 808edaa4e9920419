"""What a tool call ran, and what its result therefore is (turnlens.core.commands)."""

from __future__ import annotations

import pytest

from turnlens.core.commands import Evidence, call_evidence, command_evidence, command_of, main_command
from turnlens.core.kinds import tool_name


def _classes(found: Evidence | None) -> tuple[str, ...] | None:
    """The classes of some evidence (its why left out)."""
    return found[0] if found is not None else None


@pytest.mark.parametrize(
    ("call", "command"),
    [
        ('Bash: {"command": "ls -la src", "description": "List"}', "ls -la src"),
        ('exec_command: {"cmd": "rg -n foo", "workdir": "/w"}', "rg -n foo"),
        ('shell: {"command": ["bash", "-lc", "cat README.md"]}', "bash -lc 'cat README.md'"),
        (
            'exec: const r = await tools.exec_command({"cmd":"cargo test -q","workdir":"/w"});',
            "cargo test -q",
        ),
        ("Bash: du -sh .", "du -sh ."),
        ('Bash: {"description": "no command"}', None),
        ("not a call", None),
        ('Bash: {"command": ', None),  # cut JSON
    ],
)
def test_the_command_a_call_ran(call: str, command: str | None) -> None:
    assert command_of(call) == command


@pytest.mark.parametrize(
    ("command", "program"),
    [
        ("cd /repo && npm run build 2>&1 | tail -40", ["npm", "run", "build", "2>&1"]),
        ("npm test && echo done", ["npm", "test"]),
        ("source .venv/bin/activate; uv run pytest -q", ["pytest", "-q"]),
        ("FOO=1 sudo -E python -m mypy src", ["mypy", "src"]),
        ("bash -lc 'sed -n 1,80p app.py'", ["sed", "-n", "1,80p", "app.py"]),
        ("cat app.log | grep ERROR", ["grep", "ERROR"]),
        ("nl -ba app.py | sed -n '1,120p'", ["nl", "-ba", "app.py"]),
        ("cd /repo", ["cd", "/repo"]),
        ('echo "unclosed', ["echo", '"unclosed']),
    ],
)
def test_the_command_that_matters(command: str, program: list[str]) -> None:
    assert main_command(command) == program


@pytest.mark.parametrize(
    ("command", "classes"),
    [
        ("cat docs/RELEASE.md", ("code",)),
        ("Get-Content lib\\auth.ts", ("code",)),
        ("sed -n '1,220p' SKILL.md", ("code",)),
        ("ls -la", ("context",)),
        ("Get-ChildItem -Force | Select-Object Name,Length", ("context",)),
        ("rg --files src", ("context",)),
        ("rg -n 'fn main' src", ("context",)),
        ("git status --short", ("context",)),
        ("git -C /repo log --oneline -5", ("context",)),
        ("git -C /repo diff HEAD~1", ("code",)),
        ("npx tsc --noEmit", ("review",)),
        ("cargo fmt --all && cargo check --workspace", ("review",)),
        ("go test ./...", ("review",)),
        ("mvn clean install", ("review",)),
        ("make test", ("review",)),
        ("mkdir -p build", ("context",)),
        ("python scripts/analyze.py", None),
        ("npm install", None),
        ("curl -s https://example.com/api", None),
        ("cargo run", None),
    ],
)
def test_what_a_commands_output_is(command: str, classes: tuple[str, ...] | None) -> None:
    assert _classes(command_evidence(main_command(command))) == classes


@pytest.mark.parametrize(
    ("call", "classes"),
    [
        ('Bash: {"command": "cat docs/RELEASE.md"}', ("code",)),
        ('shell_command: {"command": "Get-ChildItem -Recurse"}', ("context",)),
        ('run_shell_command: {"command": "npm run lint"}', ("review",)),
        ("read_file: prisma/schema.prisma", ("code",)),
        ('Glob: {"pattern": "**/*.ts"}', ("context",)),
        ('WebFetch: {"url": "https://example.com", "prompt": "the API limits"}', ("context",)),
        ('google_web_search: {"query": "pam_u2f"}', ("context",)),
        ('Task: {"prompt": "Explore the repo"}', ("review", "context")),
        (
            'Agent: {"description": "Review the diff", "subagent_type": "code-reviewer"}',
            ("review", "context"),
        ),
        ('TaskCreate: {"subject": "Write the importer"}', None),
        ('Bash: {"command": "python train.py"}', None),
    ],
)
def test_a_results_call_settles_its_class(call: str, classes: tuple[str, ...] | None) -> None:
    assert _classes(call_evidence(call, tool_name(call))) == classes
    assert call_evidence(None, None) is None
