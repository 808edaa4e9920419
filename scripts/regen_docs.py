"""Regenerate every figure, console example and screenshot the README and docs show.

Run it after anything that changes what TurnLens prints (a retrained model, a new label, a
reworded message), then review the diff before committing:

    python scripts/regen_docs.py                 # tables and console examples (seconds)
    python scripts/regen_docs.py --session-map   # + docs/img/session-map.png (Chromium)
    python scripts/regen_docs.py --editors       # + the editor pages' captured screens (tmux)
    python scripts/regen_docs.py --vscode        # + the VS Code screenshots (code-server, minutes)
    python scripts/regen_docs.py --all

The tests keep them honest: `tests/core/test_docs.py` fails when a console example or a
generated table differs from what the command prints today, and `tests/editors/test_pages.py`
when a captured screen is missing or shows a test machine's path.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SESSION = ROOT / "docs" / "examples" / "claude-session.jsonl"
MAP_PNG = ROOT / "docs" / "img" / "session-map.png"
MAP_SIZE = "1400,1000"


def run(*argv: str, env: dict[str, str] | None = None) -> None:
    print("$", " ".join(argv), flush=True)
    subprocess.run(argv, cwd=ROOT, env={**os.environ, **(env or {})}, check=True)


def tables_and_console() -> None:
    """docs/classes.md and docs/rules.md tables; every console block of the README and docs."""
    run(sys.executable, "-m", "tests.core.test_docs", "--console")


def session_map() -> None:
    """The session map of the bundled Claude Code example, as a browser shows it."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        sys.exit("regen_docs: Chromium is needed for the session map (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "map.html"
        # named from the top folder, as a reader would type it (the page shows the path)
        run(sys.executable, "-m", "turnlens", "stats", str(SESSION.relative_to(ROOT)), "--html", str(page))
        run(
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            f"--user-data-dir={Path(tmp) / 'profile'}",
            f"--window-size={MAP_SIZE}",
            f"--screenshot={MAP_PNG}",
            page.as_uri(),
        )


def editor_screens() -> None:
    """The captured screens of docs/editors/*.md, from the editor tests (tmux)."""
    run(sys.executable, "-m", "pytest", "-q", "tests/editors", env={"TURNLENS_RECORD_SCREENS": "1"})


def vscode() -> None:
    """docs/img/vscode*.png and session-map-vscode.png, from the end-to-end tests in code-server."""
    run(
        "bash",
        "client-vscode/scripts/ci.sh",
        env={"TURNLENS_E2E_SCREENSHOT": "1", "TURNLENS_PYTHON": sys.executable},
    )


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--session-map", action="store_true", help="also docs/img/session-map.png")
    p.add_argument("--editors", action="store_true", help="also the editor pages' screens")
    p.add_argument("--vscode", action="store_true", help="also the VS Code screenshots")
    p.add_argument("--all", action="store_true", help="everything")
    args = p.parse_args()
    tables_and_console()
    if args.session_map or args.all:
        session_map()
    if args.editors or args.all:
        editor_screens()
    if args.vscode or args.all:
        vscode()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
