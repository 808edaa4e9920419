"""Hostile rules files (`.turnlens.toml`, `turnlens.rules.file`, `--rules`): a file or rule that
cannot be used is skipped with one message naming it, the built-in pack keeps running, and
nothing in a rules file can make analysis slow (issue #15, defects 1, 3 and 5; the BOM).

Each test here failed before its fix; docs/security.md names them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from turnlens.classifier import classify
from turnlens.core.rules import RulePackError
from turnlens.userfiles import MAX_RULES_FILE, load_rules_file

from .conftest import Spawn, report
from .rawlsp import cpu_seconds, server_env

RULE = "[[rule]]\nid = '{id}'\nclass = 'spec'\nweight = 9\npattern = '''{pattern}'''\n"
# Files that cannot be used at all: the whole file is skipped.
BAD_FILES = {
    "deep-arrays": "x = " + "[" * 100_000 + "]" * 100_000 + "\n",
    "deep-tables": "x = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n",
    "categories-int": "[pack]\ncategories = 5\n",
    "categories-int-base": "[pack]\nextends = 'default'\ncategories = 5\n",
    "name-table": "[pack]\nname = {a = 1}\n",
}
# Files with one bad rule next to a good one: the bad one is skipped by name.
BAD_RULES = {
    "huge-count": r"a{4294967296}",
    "deep-groups": "(" * 999 + "a" + ")" * 999,
    "slow-repeat": r"(?:[\s\S]{1,1000})+z",
    "slow-trial": r"(?:[\s\S]{1,300})+z",
    "count-product": r"(?:a{1,100}){1,100}",
}
GOOD = RULE.format(id="good.marker", pattern="ZEBRA-MARKER")


def _bad_rule_file(name: str) -> str:
    return RULE.format(id=f"bad.{name}", pattern=BAD_RULES[name]) + "\n" + GOOD


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_an_unusable_rules_file_raises_one_error_naming_it(tmp_path: Path, name: str) -> None:
    path = tmp_path / ".turnlens.toml"
    path.write_text(BAD_FILES[name], encoding="utf-8")
    with pytest.raises(RulePackError) as caught:
        load_rules_file(path)
    assert str(path) in str(caught.value)
    assert len(str(caught.value)) < 300


@pytest.mark.parametrize("name", sorted(BAD_RULES))
def test_a_bad_or_costly_rule_is_skipped_by_name(tmp_path: Path, name: str) -> None:
    path = tmp_path / ".turnlens.toml"
    path.write_text(_bad_rule_file(name), encoding="utf-8")
    started = time.process_time()
    pack = load_rules_file(path)
    took = time.process_time() - started
    assert [w for w in pack.warnings if f"bad.{name}" in w], pack.warnings
    assert pack.rule(f"bad.{name}") is None and pack.rule("good.marker") is not None
    assert classify("ZEBRA-MARKER", pack).task_class == "spec"
    assert took < 1.0  # CPU seconds, cost checks included (about 0.1 normally)


def test_a_rules_file_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / ".turnlens.toml"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD.encode("utf-8"))
    pack = load_rules_file(path)
    assert pack.rule("good.marker") is not None and not pack.warnings


def test_slow_patterns_cannot_stall_scoring(tmp_path: Path) -> None:
    """20 copies of a slow pattern and a 100 KB turn: the copies are refused at load."""
    body = "".join(RULE.format(id=f"slow.{i}", pattern=r"(?:[\s\S]{1,1000})+z") for i in range(20))
    path = tmp_path / ".turnlens.toml"
    path.write_text(body, encoding="utf-8")
    started = time.process_time()
    pack = load_rules_file(path)
    loaded = time.process_time() - started
    text = ("lorem ipsum dolor sit amet " * 4000)[:99_999] + "z"  # a match exists: RE2 must scan
    started = time.process_time()
    classify(text, pack, explain=True)
    scored = time.process_time() - started
    report(
        f"20 slow user patterns: load {loaded * 1000:.0f} ms, a 100 KB turn scored in {scored * 1000:.0f} ms"
    )
    assert len(pack.warnings) == 20 and all("too costly" in w for w in pack.warnings)
    assert scored < 1.0  # CPU seconds (27 s before the cost check)


def test_a_rule_over_its_time_budget_is_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """The run-time backstop: a user rule that takes too long on one turn stops running."""
    from turnlens.core import engine
    from turnlens.core.rules import builtin_pack, parse_pack

    pack = parse_pack(
        RULE.format(id="slowish", pattern=r"q+x"),
        "slow.toml",
        base=builtin_pack("default"),
        strict=False,
        user=True,
    )
    assert pack.rule("slowish") is not None
    engine.take_switched_off()
    monkeypatch.setattr(engine, "USER_RULE_BUDGET_S", 0.0)
    classify("some text without the letter", pack)
    messages = engine.take_switched_off()
    assert len(messages) == 1 and "slowish" in messages[0] and "switched off" in messages[0]
    classify("q" * 10, pack)  # off now: it does not run, so it cannot fire or be timed again
    assert engine.take_switched_off() == []
    assert "slowish" not in {s.rule for s in classify("q" * 10, pack).signals}


def test_an_oversized_rules_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    path = tmp_path / ".turnlens.toml"
    with path.open("wb") as handle:  # sparse: 2 GB that cost nothing to make
        handle.truncate(2_000_000_000)
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(RulePackError, match="larger than"):
        load_rules_file(path)
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 4 * MAX_RULES_FILE // 1024, grown_kib


def _limited(limit: int) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def test_a_rules_path_that_is_not_a_regular_file_is_refused(tmp_path: Path) -> None:
    """A FIFO would block for ever and /dev/zero never ends: checked in a child process with a
    time and memory limit, so that a regression fails instead of hanging the suite."""
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    link = tmp_path / "zero.toml"
    link.symlink_to("/dev/zero")
    code = (
        "import sys\nfrom pathlib import Path\nfrom turnlens.userfiles import load_rules_file\n"
        "from turnlens.core.rules import RulePackError\n"
        "try:\n    load_rules_file(Path(sys.argv[1]))\nexcept RulePackError as exc:\n    print(exc)\n"
    )
    for path in (fifo, link):
        try:
            done = subprocess.run(
                [sys.executable, "-c", code, str(path)],
                capture_output=True,
                text=True,
                timeout=10,
                env=server_env(),
                preexec_fn=lambda: _limited(1 << 30),
            )
        except subprocess.TimeoutExpired:
            raise AssertionError(f"reading {path.name} still blocks after 10 s") from None
        assert "not a regular file" in done.stdout, (path.name, done.stdout, done.stderr[-500:])


# -- the same through the command line and the server ---------------------------------------------


def _turnlens(
    *args: str, stdin: str = "", cwd: Path | None = None, user: bool = False
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "turnlens", *args]
    if user:
        command = _as_other_user(command)
    return subprocess.run(
        command, input=stdin, capture_output=True, text=True, timeout=60, env=server_env(), cwd=cwd
    )


def _as_other_user(command: list[str]) -> list[str]:
    """Run as an unprivileged user, so that a folder without permissions really is closed."""
    if os.geteuid() != 0:
        return command
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: permissions cannot be tested")
    other = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    probe = subprocess.run(
        [*other, sys.executable, "-c", "import turnlens.cli, re2"],
        capture_output=True,
        timeout=60,
        env=server_env(),
    )
    if probe.returncode != 0:
        # e.g. a Python installed under /root, whose packages another user cannot read
        pytest.skip("an unprivileged user cannot run this Python with TurnLens installed")
    return [*other, *command]


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A folder other users can enter (pytest's tmp_path is private to its user)."""
    folder = Path(tempfile.mkdtemp(prefix="turnlens-rel-"))
    folder.chmod(0o755)
    yield folder
    for sub in folder.rglob("*"):
        if sub.is_dir():
            sub.chmod(0o755)
    shutil.rmtree(folder)


def _one_line_no_traceback(done: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_cli_unusable_rules_file_exits_2_with_one_line(tmp_path: Path, name: str) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(BAD_FILES[name], encoding="utf-8")
    done = _turnlens("classify", "--rules", str(path), "--stdin", stdin="hello there")
    assert done.returncode == 2, done.stderr
    assert str(path) in _one_line_no_traceback(done)


@pytest.mark.parametrize("name", sorted(BAD_RULES))
def test_cli_bad_rule_is_skipped_with_one_line(tmp_path: Path, name: str) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(_bad_rule_file(name), encoding="utf-8")
    done = _turnlens("classify", "--rules", str(path), "--stdin", stdin="ZEBRA-MARKER")
    assert done.returncode == 0, done.stderr
    assert f"bad.{name}" in _one_line_no_traceback(done)
    assert done.stdout.startswith("spec")


def test_cli_rules_path_too_long_exits_2_with_one_line(tmp_path: Path) -> None:
    done = _turnlens("classify", "--rules", str(tmp_path / ("r" * 300 + ".toml")), "--stdin", stdin="hi")
    assert done.returncode == 2
    assert "too long" in _one_line_no_traceback(done)


def test_cli_rules_in_an_unreadable_folder_exits_2_with_one_line(shared_dir: Path) -> None:
    locked = shared_dir / "locked"
    locked.mkdir()
    (locked / "rules.toml").write_text(GOOD, encoding="utf-8")
    locked.chmod(0)
    done = _turnlens("classify", "--rules", str(locked / "rules.toml"), "--stdin", stdin="hi", user=True)
    assert done.returncode == 2, done.stderr
    assert "ermission denied" in _one_line_no_traceback(done)


async def test_server_keeps_publishing_with_bad_rules_files(spawn: Spawn, tmp_path: Path) -> None:
    """One folder per bad file or rule; every document gets diagnostics, every problem one message."""
    server = await spawn()
    cases = {**{f"file-{k}": v for k, v in BAD_FILES.items()}}
    cases.update({f"rule-{k}": _bad_rule_file(k) for k in BAD_RULES})
    await server.initialize(folders=[str(tmp_path)])
    uris = {}
    for name, body in cases.items():
        folder = tmp_path / name
        folder.mkdir()
        (folder / ".turnlens.toml").write_text(body, encoding="utf-8")
        uris[name] = (folder / "prompt.md").as_uri()
    started = cpu_seconds(server.proc.pid)
    for uri in uris.values():
        server.open(uri, "APPROVED — ship it\n---TURN---\nZEBRA-MARKER and " + "words " * 20_000 + "\n")
    for name, uri in uris.items():
        diags = await server.wait_diagnostics(uri, 1, timeout=20)
        codes = [d["data"]["class"] for d in diags]
        assert codes[0] == "decision", (name, diags)
        # the good rule of a file with one bad rule still fires (and a user rule decides);
        # a file that cannot be used is dropped whole, so nothing makes the marker a spec
        assert (codes[1] == "spec") == name.startswith("rule-"), (name, diags)
        assert len(codes) == 2, (name, diags)
    took = cpu_seconds(server.proc.pid) - started
    report(f"server: {len(uris)} documents under bad rules files published after {took * 1000:.0f} ms of CPU")
    logs = [p["message"] for p in server.notifications("window/logMessage")]
    for name in BAD_FILES:
        assert sum(f"file-{name}/" in m for m in logs) == 1, (name, logs)
    for name in BAD_RULES:
        assert sum(f"bad.{name}" in m for m in logs) == 1, (name, logs)
    assert "Traceback" not in server.stderr_text()
    assert took < 10  # the server's CPU seconds


async def test_server_with_slow_project_rules_answers_quickly(spawn: Spawn, tmp_path: Path) -> None:
    body = "".join(RULE.format(id=f"slow.{i}", pattern=r"(?:[\s\S]{1,1000})+z") for i in range(20))
    (tmp_path / ".turnlens.toml").write_text(body, encoding="utf-8")
    uri = (tmp_path / "big.md").as_uri()
    text = ("lorem ipsum dolor sit amet " * 4000)[:99_999] + "z"  # a match exists: RE2 must scan
    server = await spawn()
    await server.initialize(folders=[str(tmp_path)])
    started = cpu_seconds(server.proc.pid)
    server.open(uri, text)
    await server.wait_diagnostics(uri, 1, timeout=60)
    opened = cpu_seconds(server.proc.pid) - started
    server.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [
                {
                    "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                    "text": "x",
                }
            ],
        },
    )
    started = cpu_seconds(server.proc.pid)
    hover = await server.request(
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 3}},
        timeout=60,
    )
    hovered = cpu_seconds(server.proc.pid) - started
    report(
        f"server: 20 slow patterns, 100 KB turn: CPU to diagnostics {opened * 1000:.0f} ms, "
        f"to hover {hovered * 1000:.0f} ms"
    )
    assert hover["result"]
    assert opened < 2.0 and hovered < 2.0  # the server's CPU seconds (27 s and 77 s before)


def test_a_bad_rules_file_is_read_once_per_version(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The server keeps the outcome of a rules file by its mtime and size, failures too: an
    oversized file is not read again on every didOpen, a changed one is."""
    from lsprotocol import types

    import turnlens.userfiles
    from turnlens.lsp.server import TurnLensServer

    path = tmp_path / ".turnlens.toml"
    path.write_text("# padding\n" * 110_000, encoding="utf-8")  # 1.1 MB: over the limit
    loads: list[Path] = []
    real = turnlens.userfiles.load_rules_file

    def counting(p: Path, base: object = None) -> object:
        loads.append(p)
        return real(p, base=base)  # type: ignore[arg-type]

    monkeypatch.setattr(turnlens.userfiles, "load_rules_file", counting)
    ls = TurnLensServer()
    monkeypatch.setattr(ls, "say_once", lambda *a: None)
    for i in range(5):
        item = types.TextDocumentItem(
            uri=(tmp_path / f"d{i}.md").as_uri(), language_id="markdown", version=1, text="hi"
        )
        state = ls.open_document(item)
        state.settings_ready = True
        assert ls.pack_for(state).name == "default"
    assert len(loads) == 1
    path.write_text(GOOD, encoding="utf-8")
    os.utime(path, (time.time() + 5, time.time() + 5))
    assert ls.pack_for(state).rule("good.marker") is not None
    assert len(loads) == 2


def test_cli_rules_in_an_unreadable_folder_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same as above where no other user can be had: the folder's stat is refused as the
    kernel refuses it to a user without search permission."""
    import io

    from turnlens.cli import main

    locked = tmp_path / "locked"
    locked.mkdir()
    rules = locked / "rules.toml"
    rules.write_text(GOOD, encoding="utf-8")
    real_stat = os.stat

    def stat(path: object, *args: object, **kwargs: object) -> os.stat_result:
        if str(path).startswith(str(locked)):
            raise PermissionError(13, "Permission denied", str(path))
        return real_stat(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "stat", stat)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"hi")))
    code = main(["classify", "--rules", str(rules), "--stdin"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "ermission denied" in err and "Traceback" not in err
