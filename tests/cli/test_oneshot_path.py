"""The one-shot commands (what scripts and agents run on every prompt) import only what they
use: each module below costs a whole process several milliseconds, and none of them is needed
to answer. And the `--input FILE` path, read without `pathlib`, names the file as it did."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from turnlens.cli.common import path_text

# the probe itself imports nothing (not even `json`): every module it lists is the command's
PROBE = """
import sys
from turnlens.cli import main
code = main(sys.argv[1:])
sys.stdout.flush()
print("\\nMODULES " + " ".join(sorted(sys.modules)))
"""

# never on any one-shot path: argument parsing, paths, TOML parsing, HTTP, the server
NEVER = {"argparse", "pathlib", "tomllib", "httpx", "pygls", "lsprotocol", "asyncio", "numpy"}
# not on the plain classify path either (the router's settings still need `dataclasses`)
NOT_FOR_CLASSIFY = {"dataclasses", "inspect", "hashlib", "turnlens.router.settings", "logging", "weakref"}
# nor on the plain classify and route paths: `typing` imports `re`, `json` imports `re`, `re`
# imports `enum` and `functools`, `functools` imports `collections`, `array` imports
# `collections.abc` (a few milliseconds of a run that should take a few); the packaged data
# comes from the marshal bundles (core/data.py), the patterns from the prebuilt programs
STANDARD_LIBRARY_NOT_USED = {
    "typing",
    "re",
    "json",
    "enum",
    "functools",
    "collections",
    "contextlib",
    "array",
    "zlib",
    "binascii",
    "types",
    "importlib",
}


def _probe_env(tmp: Path) -> dict[str, str]:
    return {"XDG_STATE_HOME": str(tmp / "state"), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"}


def at_start(tmp: Path) -> set[str]:
    """What this interpreter has imported before any command runs (its site hooks, `.pth`
    files of the installation): not the command's doing, so not counted against it."""
    out = subprocess.run(
        [sys.executable, "-c", "import sys; print(' '.join(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp,
        env=_probe_env(tmp),
    )
    return set(out.stdout.split())


def modules_of(args: list[str], stdin: str, tmp: Path) -> set[str]:
    """The modules the command imports beyond the interpreter's start."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp,
        env=_probe_env(tmp),
    )
    line = out.stdout.rsplit("MODULES ", 1)[1]
    found = set(line.split()) - at_start(tmp)
    return {m.split(".")[0] if not m.startswith("turnlens") else m for m in found} | set(found)


@pytest.mark.parametrize(
    "args",
    [["classify", "--stdin"], ["classify", "--input", "prompt.txt"], ["classify", "--stdin", "--json"]],
)
def test_classify_imports_nothing_it_does_not_use(args: list[str], tmp_path: Path) -> None:
    (tmp_path / "prompt.txt").write_text("thanks, that fixed it!\n", encoding="utf-8")
    mods = modules_of(args, "thanks, that fixed it!\n", tmp_path)
    assert "turnlens.classifier" in mods  # the probe ran the command
    assert not (mods & (NEVER | NOT_FOR_CLASSIFY)), mods & (NEVER | NOT_FOR_CLASSIFY)
    if "--json" not in args:
        assert not (mods & STANDARD_LIBRARY_NOT_USED), mods & STANDARD_LIBRARY_NOT_USED


@pytest.mark.parametrize(
    "args", [["route", "--stdin"], ["route", "--input", "prompt.txt"], ["route", "--stdin", "--json"]]
)
def test_route_imports_nothing_it_does_not_use(args: list[str], tmp_path: Path) -> None:
    (tmp_path / "prompt.txt").write_text("please refactor the parser\n", encoding="utf-8")
    mods = modules_of(args, "please refactor the parser\n", tmp_path)
    assert "turnlens.router.resolve" in mods
    # the defaults come from `router.vocabulary`: no dataclass to build, no `inspect`
    unused = NEVER | {"dataclasses", "inspect", "hashlib", "turnlens.router.settings", "logging", "weakref"}
    assert not (mods & unused), mods & unused
    if "--json" not in args:
        assert not (mods & STANDARD_LIBRARY_NOT_USED), mods & STANDARD_LIBRARY_NOT_USED


def test_the_submit_hook_and_the_status_line_import_nothing_they_do_not_use(tmp_path: Path) -> None:
    payload = {
        "session_id": "s",
        "transcript_path": str(tmp_path / "none.jsonl"),
        "cwd": str(tmp_path),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "ultrathink about the cache design",
    }
    mods = modules_of(["hook", "UserPromptSubmit"], json.dumps(payload), tmp_path)
    assert "turnlens.agents.prompt" in mods
    # the prompt's digest needs no ledger; the deadline's timer needs `_signal`, not `signal`'s enums;
    # the route's defaults need no dataclass
    unused = NEVER | {
        "hashlib",
        "turnlens.agents.ledger",
        "signal",
        "dataclasses",
        "turnlens.router.settings",
    }
    assert not (mods & unused), mods & unused
    (tmp_path / "s.jsonl").write_text(
        json.dumps({"type": "user", "message": {"role": "user", "content": "hello"}}) + "\n", encoding="utf-8"
    )
    status = {"session_id": "s", "transcript_path": str(tmp_path / "s.jsonl"), "cwd": str(tmp_path)}
    mods = modules_of(["statusline"], json.dumps(status), tmp_path)
    assert "turnlens.agents.ledger" in mods and "turnlens.pipeline.formats.claude_code" in mods
    # the ledger's frozen turns, the reader's lines and options, the units' directives: records,
    # not dataclasses (whose import brings `inspect`)
    unused = NEVER | {"hashlib", "signal", "turnlens.router.settings", "dataclasses", "inspect"}
    assert not (mods & unused), mods & unused


@given(st.text(alphabet="/.ab ", max_size=12))
def test_path_text_is_what_pathlib_prints(raw: str) -> None:
    assert path_text(raw) == str(PurePosixPath(raw))


@pytest.mark.parametrize("raw", ["", ".", "..", "/", "//", "///", "//a", "a//b/", "./a/./b", "a/../b", "~/x"])
def test_path_text_edges(raw: str) -> None:
    assert path_text(raw) == str(PurePosixPath(raw))
