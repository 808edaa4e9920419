"""The VS Code extension's two Python commands cannot run a workspace's own `turnlens/` code.

The extension runs `<python> … -c "import turnlens"` and then `<python> … -m turnlens serve`.
Plain `-c` / `-m` put the working directory first on `sys.path`. Here the arguments and the
environment are read from the extension's source (client-vscode/src/pure/launch.ts), and both
commands are run inside a folder that plants `turnlens/` and `pygls/` packages writing a marker
file — even with that folder as working directory (the extension no longer starts there), no
marker may appear, and the real package must be the one imported. The same launch is proved in
code-server by client-vscode/test/e2e/shadow.e2e.test.mjs.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAUNCH_TS = ROOT / "client-vscode" / "src" / "pure" / "launch.ts"
SERVER_TS = ROOT / "client-vscode" / "src" / "server.ts"
MARKER = "SHADOWED-BY-WORKSPACE"
PLANT = (
    "import pathlib\n"
    f"pathlib.Path(__file__).resolve().parent.parent.joinpath({MARKER!r}).write_text(__name__)\n"
    "raise SystemExit('the workspace copy ran')\n"
)


def _constants(source: str) -> dict[str, object]:
    """`export const NAME = 'x'` and `export const NAME = ['a', OTHER, …] as const` of launch.ts."""
    found: dict[str, object] = {}
    for name, value in re.findall(r"export const (\w+) = ('[^']*'|\[[^\]]*\])", source):
        found[name] = _expand(value, found) if value.startswith("[") else value[1:-1]
    return found


def _expand(array: str, consts: dict[str, object]) -> list[str]:
    out: list[str] = []
    for token in (t.strip() for t in array.strip("[]").split(",")):
        if not token:
            continue
        if token.startswith("'"):
            out.append(token[1:-1])
        elif token.startswith("..."):
            value = consts[token[3:]]
            assert isinstance(value, list), token
            out.extend(value)
        else:
            value = consts[token]
            assert isinstance(value, str), token
            out.append(value)
    return out


def _launch() -> tuple[list[str], list[str]]:
    """(import-check args, server args) after the interpreter, as launch.ts builds them."""
    source = LAUNCH_TS.read_text(encoding="utf-8")
    consts = _constants(source)
    check = re.search(
        r"function importCheck\(.*?args: \[\.\.\.python\.slice\(1\), ([^\]]*)\]", source, re.DOTALL
    )
    assert check is not None, "importCheck's argument list not found in launch.ts"
    server = consts["SERVER_MODULE_ARGS"]
    assert isinstance(server, list)
    return _expand(f"[{check.group(1)}]", consts), server


def _environment() -> dict[str, str]:
    """The variables serverEnvironment() adds in launch.ts, on top of this process's."""
    source = LAUNCH_TS.read_text(encoding="utf-8")
    body = re.search(r"function serverEnvironment\(.*?\n}\n", source, re.DOTALL)
    env = dict(os.environ)
    env.pop("PYTHONSAFEPATH", None)
    if body is not None:
        env.update(dict(re.findall(r"env\.(\w+) = '([^']*)'", body.group(0))))
    return env


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    for package in ("turnlens", "pygls"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text(PLANT, encoding="utf-8")
        (tmp_path / package / "__main__.py").write_text(PLANT, encoding="utf-8")
    (tmp_path / "session.md").write_text("## User\n\nShip it.\n", encoding="utf-8")
    return tmp_path


def test_the_planted_package_would_run_with_a_plain_launch(planted: Path) -> None:
    """The fixture is live: `python -c "import turnlens"` in that folder runs the planted copy."""
    done = subprocess.run(
        [sys.executable, "-c", "import turnlens"], cwd=planted, capture_output=True, timeout=60
    )
    assert done.returncode != 0 and (planted / MARKER).exists()


def test_vscode_launch_never_imports_the_workspace_turnlens(planted: Path) -> None:
    check_args, server_args = _launch()
    env = _environment()
    done = subprocess.run(
        [sys.executable, *check_args], cwd=planted, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert not (planted / MARKER).exists(), "the import check ran the workspace's turnlens/"
    # the server command: it must start the installed package and answer `initialize`
    request = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"processId":null}}'
    exit_msgs = b'{"jsonrpc":"2.0","id":2,"method":"shutdown"}', b'{"jsonrpc":"2.0","method":"exit"}'
    frames = b"".join(b"Content-Length: %d\r\n\r\n%s" % (len(m), m) for m in (request, *exit_msgs))
    served = subprocess.run(
        [sys.executable, *server_args], cwd=planted, env=env, input=frames, capture_output=True, timeout=120
    )
    assert b'"capabilities"' in served.stdout, served.stderr.decode(errors="replace")[-2000:]
    assert not (planted / MARKER).exists(), "the server command ran the workspace's turnlens/ or pygls/"


def test_vscode_extension_starts_outside_the_workspace() -> None:
    """Both commands get the safe environment and a working directory outside the workspace."""
    server = SERVER_TS.read_text(encoding="utf-8")
    assert "serverEnvironment(process.env)" in server
    assert "runCheck(importCheck(plan.python), cwd, env)" in server
    assert re.search(r"options: \{ cwd, env \}", server)
    assert "safeWorkingDirectory(" in server
    assert "cwd = vscode.workspace.workspaceFolders" not in server
