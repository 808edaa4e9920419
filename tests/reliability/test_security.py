"""Security: rule files and settings are data, user regexes cannot hang the server,
the API key never shows, prompts go only where user-level settings send them, and
the server never writes a file.

See docs/security.md for the model these tests hold the server to.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import resource
import secrets
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

from turnlens.classifier import classify
from turnlens.userfiles import load_rules_file

from .conftest import Spawn, report
from .fakemodel import FakeModel
from .rawlsp import RawServer, cpu_seconds, server_env

ADVERSARIAL = "a" * 50_000 + "!"
RULES = textwrap.dedent(
    r"""
    [[rule]]
    id = "evil.nested"
    class = "spec"
    weight = 9
    pattern = '(a+)+$'

    [[rule]]
    id = "evil.alternation"
    class = "review"
    weight = 1
    pattern = '^(a|aa)+b'

    [[rule]]
    id = "evil.backref"
    class = "code"
    weight = 5
    pattern = '(a+)\1b'

    [[rule]]
    id = "evil.lookahead"
    class = "code"
    weight = 5
    pattern = '(?=a)(a*)*!'
    """
)
REJECTED = ("evil.backref", "evil.lookahead")


def _rules_file(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / ".turnlens.toml"
    path.write_text(RULES, encoding="utf-8")
    return path


def _network(server: RawServer) -> list[str]:
    """Connections, lookups and datagrams the audit hook saw (servers spawned with audit=True)."""
    return [e for e in server.audit_events() if e.startswith(("socket.", "http.", "urllib."))]


# -- user regexes: linear time, and the ones RE2 cannot run are refused by name -----------------


def test_the_adversarial_text_is_adversarial_for_a_backtracking_engine() -> None:
    """The control: Python's `re` needs ever longer on far shorter texts (so a regression to it
    in the paths below would hang, not pass)."""
    times = []
    for n in (16, 18, 20):
        started = time.process_time()
        assert re.search(r"(a+)+$", "a" * n + "!") is None
        times.append(time.process_time() - started)
    assert times[2] > times[0] * 4, times  # doubling per extra `a`: 50,000 of them would never end


def test_user_rules_run_in_linear_time(tmp_path: Path) -> None:
    pack = load_rules_file(_rules_file(tmp_path))
    for rid in REJECTED:
        assert any(rid in w and "not allowed in user rules" in w for w in pack.warnings), pack.warnings
    assert {r.id for r in pack.rules} >= {"evil.nested", "evil.alternation"}
    started = time.process_time()
    c = classify(ADVERSARIAL + "\naaaa", pack, explain=True)
    elapsed = time.process_time() - started
    report(f"user regex (a+)+$ on 50,000 a's + '!': {elapsed * 1000:.1f} ms of CPU in process")
    assert elapsed < 0.5  # CPU seconds: RE2 needs a few ms; backtracking would never end
    assert "evil.nested" in {s.rule for s in c.signals}  # the rule is live: it fired on "aaaa"
    assert c.task_class == "spec"


def test_cli_rules_run_in_linear_time(tmp_path: Path) -> None:
    path = _rules_file(tmp_path / "rules")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-m", "turnlens", "classify", "--rules", str(path), "--stdin", "--json"],
        input=ADVERSARIAL,
        capture_output=True,
        text=True,
        timeout=30,
        env=server_env(),
        cwd=tmp_path,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    elapsed = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    report(
        f"turnlens classify --rules with (a+)+$ on 50,000 a's: {elapsed * 1000:.0f} ms of CPU including start-up"
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["class"] == "chitchat"
    for rid in REJECTED:
        assert rid in done.stderr, done.stderr
    assert elapsed < 5  # CPU seconds of the child: start-up is about 0.5


async def test_project_rules_run_in_linear_time_in_the_server(spawn: Spawn, tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    _rules_file(workspace)
    (workspace / "prompts").mkdir()
    doc = workspace / "prompts" / "evil.md"
    server = await spawn()
    await server.initialize(folders=[str(workspace)])
    started = cpu_seconds(server.proc.pid)
    server.open(doc.as_uri(), ADVERSARIAL + "\n---TURN---\naaaa\n")
    diags = await server.wait_diagnostics(doc.as_uri(), 1, timeout=60)
    elapsed = cpu_seconds(server.proc.pid) - started
    report(
        f"server: .turnlens.toml with (a+)+$ on 50,000 a's: diagnostics after {elapsed * 1000:.0f} ms of CPU"
    )
    assert elapsed < 3.0  # CPU seconds of the server: about 0.1 normally; backtracking never ends
    assert [d["data"]["class"] for d in diags] == ["chitchat", "spec"]  # the project rule is live
    logs = " ".join(p["message"] for p in server.notifications("window/logMessage"))
    for rid in REJECTED:
        assert rid in logs, logs
    hover = await server.request(
        "textDocument/hover", {"textDocument": {"uri": doc.as_uri()}, "position": {"line": 0, "character": 3}}
    )
    assert hover["result"]


# Regression test for a bug this suite found (since fixed): turnlens.turnSeparator (a workspace
# setting, so a cloned repository's) is a regex run with Python's backtracking `re` (core/units.py
# compile_separator): `(a+)+$` hangs the server.
async def test_workspace_turn_separator_cannot_hang_the_server(spawn: Spawn) -> None:
    server = await spawn(config={"debounceMs": 0, "turnSeparator": "(a+)+$"})
    await server.initialize()
    started = cpu_seconds(server.proc.pid)
    server.open("file:///work/sep.md", ADVERSARIAL + "\n")
    try:
        await server.wait_diagnostics("file:///work/sep.md", 1, timeout=60)
    except TimeoutError:
        raise AssertionError(
            "no diagnostics 60 s after opening: the separator regex is still running"
        ) from None
    assert cpu_seconds(server.proc.pid) - started < 3.0  # CPU seconds; about 0.1 normally


# Regression test for a bug this suite found (since fixed): turnlens.exclude globs (workspace
# settings) become backtracking `re` patterns (lsp/documents.py _glob_regex):
# `*a*a*a*a*a*a*a*a*a*a*a*b` against a long file name hangs.
def test_workspace_exclude_globs_cannot_hang_the_server() -> None:
    # timed inside the child: importing the LSP modules alone can take a second on a busy machine
    code = (
        "import time\nfrom turnlens.lsp.documents import is_excluded\n"
        "started = time.process_time()\n"
        "found = is_excluded('/ws/' + 'a' * 60 + '.md', '/ws', ('*a*a*a*a*a*a*a*a*a*a*a*b',))\n"
        "print(found, time.process_time() - started)\n"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=30, env=server_env()
        )
    except subprocess.TimeoutExpired:
        raise AssertionError("is_excluded() still running after 30 s") from None
    found, took = done.stdout.split()
    assert found == "False", done.stderr
    assert float(took) < 1.0, took  # CPU seconds in the child: RE2 needs well under 0.01


# -- the API key ------------------------------------------------------------------------------------


async def test_api_key_never_shows(spawn: Spawn, fake_model: FakeModel, tmp_path: Path) -> None:
    secret = "sk-tl-" + secrets.token_hex(16)
    env = server_env({"TURNLENS_TEST_KEY": secret})
    fake_model.mode = "echo401"  # a provider that repeats the bad key in its error, as OpenAI does
    server = await spawn("--log-level", "DEBUG", env=env)
    init = {
        "router": {
            "backend": "openai",
            "endpoint": fake_model.endpoint,
            "model": "m",
            "apiKeyEnv": "TURNLENS_TEST_KEY",
            "timeoutMs": 300,
            "failureLimit": 2,
        }
    }
    await server.initialize(init, folders=[str(tmp_path)])
    uri = (tmp_path / "prompt.md").as_uri()
    text = "APPROVED — ship it\n---TURN---\nplease investigate why the export drops rows at midnight\n"
    server.open(uri, text)
    await server.wait_diagnostics(uri, 1)
    await server.wait_for(lambda: fake_model.count >= 1, timeout=10)
    results: list[Any] = []

    async def everything(version: int) -> None:
        server.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": text + f"v{version}\n"}],
            },
        )
        doc = {"textDocument": {"uri": uri}}
        whole = {"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}}
        for method, params in (
            ("textDocument/hover", {**doc, "position": {"line": 2, "character": 4}}),
            ("textDocument/codeLens", doc),
            ("textDocument/inlayHint", {**doc, "range": whole}),
            ("textDocument/codeAction", {**doc, "range": whole, "context": {"diagnostics": []}}),
            ("workspace/executeCommand", {"command": "turnlens.classify", "arguments": [{"uri": uri}]}),
            (
                "workspace/executeCommand",
                {"command": "turnlens.classify", "arguments": [{"text": text + "more words"}]},
            ),
            (
                "workspace/executeCommand",
                {"command": "turnlens.plan", "arguments": [{"uri": uri, "budget": 10}]},
            ),
        ):
            results.append(await server.request(method, params, timeout=10))
        await asyncio.sleep(0.35)  # let the model call started by the edit fail or succeed

    await everything(2)
    for mode in ("error500", "garbage", "hang", "label"):
        fake_model.mode = mode
        results.append(
            await server.request("workspace/executeCommand", {"command": "turnlens.reload", "arguments": []})
        )
        await everything(len(results) + 3)
    server.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    server.notify(
        "workspace/didChangeConfiguration", {"settings": {"turnlens": {"router": {"apiKeyEnv": "NOPE"}}}}
    )
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert await server.shutdown_and_exit() == 0

    # the key was really used: it went to the model, and only there
    assert any(r.headers.get("authorization") == f"Bearer {secret}" for r in fake_model.requests)
    assert all(secret not in r.body.decode("utf-8", "replace") for r in fake_model.requests)
    # the failing back end did repeat it back, and the server masked it
    assert "Incorrect API key provided: ***" in server.stderr_text()
    everything_seen = json.dumps(server.messages) + json.dumps(results) + server.stderr_text()
    assert secret not in everything_seen
    assert secret[6:] not in everything_seen  # not even without its prefix
    report(
        f"API key: {fake_model.count} model requests carried it; 0 of {len(server.messages)} messages, "
        f"{len(results)} results and {len(server.stderr)} bytes of DEBUG stderr contain it"
    )


# -- where prompts may go ------------------------------------------------------------------------------


async def test_workspace_settings_and_project_files_cannot_send_prompts_anywhere(
    spawn: Spawn, fake_model: FakeModel, tmp_path: Path
) -> None:
    elsewhere = FakeModel().start()
    try:
        hostile: dict[str, Any] = {
            "debounceMs": 0,
            "router": {
                "backend": "openai",
                "endpoint": fake_model.endpoint,
                "model": "m",
                "apiKeyEnv": "HOME",
                "timeoutMs": 300,
            },
        }
        repo = tmp_path / "cloned-repo"
        repo.mkdir()
        (repo / ".turnlens.toml").write_text(
            f'[router]\nbackend = "openai"\nendpoint = "{fake_model.endpoint}"\nmodel = "m"\n',
            encoding="utf-8",
        )
        uri = (repo / "prompt.md").as_uri()
        text = "please design the schema for invoices and explain the trade-offs\n"

        async def session(server: RawServer, push: bool) -> None:
            await server.initialize(folders=[str(repo)], capabilities={} if push else None)
            server.open(uri, text)
            await server.wait_diagnostics(uri, 1)
            if push:  # a client without workspace/configuration sends its settings
                server.notify("workspace/didChangeConfiguration", {"settings": {"turnlens": hostile}})
            else:
                server.notify("workspace/didChangeConfiguration", {"settings": None})
            for version in (2, 3, 4):
                server.notify(
                    "textDocument/didChange",
                    {
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [{"text": text * version}],
                    },
                )
                await server.wait_diagnostics(uri, version)
            answer = await server.request(
                "workspace/executeCommand", {"command": "turnlens.classify", "arguments": [{"text": text}]}
            )
            assert answer["result"]["route"]["source"] == "classifier", answer  # the embedded labeler
            await server.request("workspace/executeCommand", {"command": "turnlens.reload", "arguments": []})
            await asyncio.sleep(0.5)
            statuses = [s for s in server.notifications("turnlens/status") if s["uri"] == uri]
            assert statuses and all(s["source"] != "fallback" for s in statuses), statuses

        pulled = await spawn(config=hostile, audit=True)
        pushed = await spawn(audit=True)
        await asyncio.gather(session(pulled, push=False), session(pushed, push=True))
        assert fake_model.count == 0, [r.path for r in fake_model.requests]
        for server in (pulled, pushed):  # not a single connection, lookup or datagram
            assert await server.shutdown_and_exit() == 0
            assert _network(server) == [], _network(server)
        logs = " ".join(p["message"] for p in pulled.notifications("window/logMessage"))
        assert "user settings only" in logs, logs

        # the positive control: the same back end from initializationOptions (user settings) is used,
        # and a workspace endpoint still cannot redirect it
        trusted = await spawn(
            config={**hostile, "router": {**hostile["router"], "endpoint": elsewhere.endpoint}}, audit=True
        )
        init = {
            "router": {"backend": "openai", "endpoint": fake_model.endpoint, "model": "m", "timeoutMs": 300}
        }
        await trusted.initialize(init, folders=[str(repo)])
        trusted.open(uri, text)
        await trusted.wait_for(lambda: fake_model.count >= 1, timeout=10)
        answer = await trusted.request(
            "workspace/executeCommand",
            {"command": "turnlens.classify", "arguments": [{"text": text + " now"}]},
        )
        assert answer["result"]["route"]["source"] == "classifier"
        assert fake_model.count >= 2 and elsewhere.count == 0
        assert await trusted.shutdown_and_exit() == 0
        connects = _network(trusted)
        assert connects and all(f"('127.0.0.1', {fake_model.port})" in e for e in connects), connects
        report(
            f"prompt egress: workspace settings / .turnlens.toml -> {0} requests; "
            f"initializationOptions -> {fake_model.count} requests, all to the configured endpoint"
        )
    finally:
        elsewhere.close()


# -- no files written ---------------------------------------------------------------------------------


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            st = path.lstat()
            out[str(path.relative_to(root))] = (st.st_size, st.st_mtime_ns)
    return out


async def test_server_never_writes_files(spawn: Spawn, tmp_path: Path) -> None:
    home, cwd, workspace, tmp = (tmp_path / n for n in ("home", "cwd", "workspace", "tmp"))
    for folder in (home, cwd, workspace, tmp):
        folder.mkdir()
    (home / ".config").mkdir()
    _rules_file(workspace)
    prompt = workspace / "session.md"
    text = "APPROVED — ship it\n---TURN---\nImplementing SPEC-120 AC-03\n---TURN---\nthanks!\n"
    prompt.write_text(text, encoding="utf-8")
    before = _snapshot(tmp_path)
    time.sleep(0.01)

    env = server_env({"TMPDIR": str(tmp)}, home=str(home))
    server = await spawn(cwd=str(cwd), env=env, config={"debounceMs": 0, "budget": 20}, audit=True)
    await server.initialize(folders=[str(workspace)])
    uri = prompt.as_uri()
    server.open(uri, text)
    await server.wait_diagnostics(uri, 1)
    server.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"text": text + "ultrathink about it\n"}],
        },
    )
    await server.wait_diagnostics(uri, 2)
    doc = {"textDocument": {"uri": uri}}
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}}
    await server.request("textDocument/hover", {**doc, "position": {"line": 2, "character": 3}})
    await server.request("textDocument/codeLens", doc)
    await server.request("textDocument/inlayHint", {**doc, "range": whole})
    edits = 0
    for line in (0, 2, 4):
        cursor = {"start": {"line": line, "character": 1}, "end": {"line": line, "character": 1}}
        answer = await server.request(
            "textDocument/codeAction", {**doc, "range": cursor, "context": {"diagnostics": []}}
        )
        for action in answer["result"]:
            assert "command" not in action, action  # nothing for the server to run
            assert set(action["edit"]) == {"changes"} and list(action["edit"]["changes"]) == [uri], action
            edits += 1
    for command, args in (
        ("turnlens.classify", [{"uri": uri}]),
        ("turnlens.classify", [{"text": "hello"}]),
        ("turnlens.plan", [{"uri": uri}]),
        ("turnlens.reload", []),
    ):
        assert "result" in await server.request(
            "workspace/executeCommand", {"command": command, "arguments": args}
        )
    server.notify("textDocument/didSave", {"textDocument": {"uri": uri}, "text": text})
    server.notify("workspace/didChangeConfiguration", {"settings": None})
    server.notify("textDocument/didClose", doc)
    assert await server.shutdown_and_exit() == 0

    assert _snapshot(tmp_path) == before
    # and nowhere else either: no file opened for writing, created, moved or removed; with the
    # default `rules` back end, no network either
    writes = [e for e in server.audit_events() if e not in _network(server) and "'/dev/null'" not in e]
    assert writes == [], writes
    assert _network(server) == []
    asked = {r["method"] for r in server.answered_requests}
    assert asked <= {"workspace/configuration", "client/registerCapability"}, asked  # no workspace/applyEdit
    report(
        f"no files written: {len(before)} paths unchanged after a full session; {edits} code actions, all plain edits"
    )
