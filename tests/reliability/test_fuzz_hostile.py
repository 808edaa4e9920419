"""Fuzzing with hostile rules files and settings values (issue #15).

Hypothesis generates `.turnlens.toml` texts (malformed TOML, deep nesting, wrong types, huge
numbers, costly and invalid patterns, Markdown in descriptions, a BOM) and `turnlens` settings
objects (every leaf given wrong types, huge or negative numbers, lone surrogates, long strings,
costly patterns). The promises checked (docs/security.md):

- the rules loader returns a pack or raises RulePackError, never anything else, and the pack
  scores documents within the budget;
- a real server process publishes diagnostics for every document within PUBLISH_BUDGET_S,
  whatever its rules file or settings say, and never logs a traceback;
- the command line exits 0, 1 or 2 and says what went wrong in lines that start with
  `turnlens`, never with a traceback.

Example counts are bounded (derandomized, see conftest.property_settings) so the whole file
runs in well under a minute. The server tests collect their cases from hypothesis first, then
drive one server process through all of them.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from turnlens.classifier import classify
from turnlens.cli import main as cli_main
from turnlens.core.rules import RulePackError
from turnlens.lsp.settings import flat_leaves
from turnlens.userfiles import load_rules_file

from .conftest import Spawn, property_settings, report
from .rawlsp import cpu_seconds, server_env

# CPU seconds, not wall time (a busy machine stretches wall time, not the work needed)
PUBLISH_BUDGET_S = 3.0  # the server's CPU from opening a document to its diagnostics (docs/security.md)
PUBLISH_GUARD_S = 60.0  # wall time: only keeps a hung server from hanging the suite
LOAD_BUDGET_S = 2.0  # loading one rules file, cost checks included
SCORE_BUDGET_S = 1.0  # scoring the sample documents with a loaded pack

DOCUMENTS = [
    "APPROVED — ship it\n---TURN---\nthanks!\n",
    "please design the schema\r\n---TURN---\r\nSPEC-12 AC-3\r\n",
    "lone\rcr\r---TURN---\rlines",
    "zzz " * 2000 + "\n---TURN---\n" + "a" * 20_000 + "!",
    "\ud800 surrogate \x00 nul 🚀 e\u0301",
]

# -- values -----------------------------------------------------------------------------------------

HOSTILE_PATTERNS = [
    r"(?:[\s\S]{1,1000})+z",
    r"(?:[\s\S]{1,300})+z",
    r"(a+)+$",
    r"(a|aa)+b",
    r"(a+)\1",
    r"(?=a)b",
    "a{4294967296}",
    "a{1001}",
    r"(?:a{1,100}){1,100}",
    "(" * 999 + "a" + ")" * 999,
    "(" * 60 + "a" + ")" * 60,
    "(",
    "[",
    "",
    "^$",
    "\ud800",
    r"\p{Greek}+",
    r"(?P<n>x)(?P=n)",
    "x" * 2001,
    r"\bAPPROVED\b",
    "ZEBRA",
]
strange_text = st.text(st.characters(exclude_categories=()), max_size=30)  # surrogates too
# what a TOML string can hold (no lone surrogates), so that most generated files parse and their
# values reach the validation of rules and packs
toml_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=30)
big_ints = st.sampled_from([-1, 0, 1, 101, -101, 2**31, 2**63, 10**400, -(10**400)])


def _toml_string(value: str) -> str:
    """A TOML string: basic (JSON escapes, so a lone surrogate makes invalid TOML, as it should)
    or literal, whichever the text allows."""
    if "'" not in value and all(c == "\t" or (c >= " " and c != "\x7f") for c in value):
        return "'" + value + "'"
    return json.dumps(value)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(value)


toml_values = st.one_of(
    st.booleans(),
    big_ints,
    toml_text,
    st.sampled_from(HOSTILE_PATTERNS),
    st.lists(st.sampled_from(["spec", "code", 5, True]), max_size=3),
    st.fixed_dictionaries({"a": st.sampled_from([1, "x"])}),
)
rule_tables = st.fixed_dictionaries(
    {},
    optional={
        "id": st.one_of(st.sampled_from(["r1", "r2", "spec.ids", "x" * 200, "bad id", ""]), toml_values),
        "class": st.one_of(st.sampled_from(["spec", "code", "review", "chitchat", "nope"]), toml_values),
        "weight": st.one_of(st.integers(-120, 120), toml_values),
        "pattern": st.one_of(st.sampled_from(HOSTILE_PATTERNS), toml_text, toml_values),
        "ignore_case": st.one_of(st.booleans(), toml_values),
        "min_words": st.one_of(st.integers(-2, 50), toml_values),
        "max_lines": st.one_of(st.integers(-2, 50), toml_values),
        "description": st.one_of(
            st.sampled_from(["![x](http://e/p.png)", "# head\n<img>", "`a`|b"]), toml_text
        ),
        "enabled": st.one_of(st.booleans(), toml_values),
        "surprise": toml_values,
    },
)
pack_tables = st.fixed_dictionaries(
    {},
    optional={
        "name": toml_values,
        "extends": st.one_of(st.sampled_from(["default", "reference", "nope"]), toml_values),
        "categories": toml_values,
        "description": toml_values,
        "fallback": toml_values,
    },
)


def _rules_text(pack: dict[str, Any] | None, rules: list[dict[str, Any]], extra: str, bom: bool) -> str:
    out = []
    if pack is not None:
        out.append("[pack]")
        out.extend(f"{k} = {_toml_value(v)}" for k, v in pack.items())
    for rule in rules:
        out.append("[[rule]]")
        out.extend(f"{k} = {_toml_value(v)}" for k, v in rule.items())
    out.append(extra)
    return ("\ufeff" if bom else "") + "\n".join(out) + "\n"


extras = st.one_of(
    st.just(""),
    st.sampled_from(
        [
            "[router]\nbackend = 'openai'",
            "x = " + "[" * 5000 + "]" * 5000,
            "y = " + "{a = " * 800 + "1" + "}" * 800,
            "[[rule]\nid=",
            "rule = 5",
            "\x00\x01",
        ]
    ),
)
rules_files = st.builds(
    _rules_text, st.none() | pack_tables, st.lists(rule_tables, max_size=5), extras, st.booleans()
)

# settings: every leaf of the schema, with values of any type
LEAVES = sorted(flat_leaves())
setting_values = st.one_of(
    st.none(),
    st.booleans(),
    big_ints,
    st.sampled_from([1e308, -0.5, 0.5, 1e-300]),
    strange_text,
    st.sampled_from(HOSTILE_PATTERNS),
    st.sampled_from(["\ud800*.md", "?" * 200_000, "r" * 300 + ".toml", "bad\x00name", "~nobody-x/y"]),
    st.lists(st.one_of(strange_text, st.sampled_from(["**/*.md", "\ud800*", "[", "?" * 5000])), max_size=4),
    st.fixed_dictionaries({"plan": st.sampled_from(["high", "huge", None, 5])}),
)
settings_objects = st.dictionaries(st.sampled_from(LEAVES), setting_values, max_size=6)


# -- the rules loader, in process ---------------------------------------------------------------------


@given(text=rules_files)
@property_settings(120)
def test_hostile_rules_files_load_or_fail_cleanly(tmp_path_factory: Any, text: str) -> None:
    path = tmp_path_factory.mktemp("rules") / ".turnlens.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    started = time.process_time()
    try:
        pack = load_rules_file(path)
    except RulePackError as exc:
        assert str(path) in str(exc) and len(str(exc)) < 1000
        return
    finally:
        assert time.process_time() - started < LOAD_BUDGET_S
    for warning in pack.warnings:
        assert len(warning) < 1000
    started = time.process_time()
    for doc in DOCUMENTS:
        classify(doc, pack, explain=True)
    assert time.process_time() - started < SCORE_BUDGET_S


# -- a real server: every document gets diagnostics within the budget -------------------------------


def _collect(strategy: Any, n: int) -> list[Any]:
    """`n` values of a strategy, drawn by hypothesis (derandomized) ahead of an async test."""
    cases: list[Any] = []

    @given(value=strategy)
    @property_settings(n)
    def draw(value: Any) -> None:
        cases.append(value)

    draw()
    return cases[-n:]


async def test_the_server_publishes_under_hostile_rules_files(spawn: Spawn, tmp_path: Path) -> None:
    cases = _collect(rules_files, 24)
    server = await spawn()
    await server.initialize(folders=[str(tmp_path)])
    slowest = 0.0
    for i, text in enumerate(cases):
        folder = tmp_path / f"case{i}"
        folder.mkdir()
        (folder / ".turnlens.toml").write_text(text, encoding="utf-8", errors="surrogatepass")
        uri = (folder / "doc.md").as_uri()
        started = cpu_seconds(server.proc.pid)
        server.open(uri, DOCUMENTS[i % len(DOCUMENTS)])
        try:
            await server.wait_diagnostics(uri, 1, timeout=PUBLISH_GUARD_S)
        except TimeoutError:
            raise AssertionError(
                f"no diagnostics within {PUBLISH_GUARD_S} s for rules file:\n{text!r}"
            ) from None
        used = cpu_seconds(server.proc.pid) - started
        assert used < PUBLISH_BUDGET_S, (used, text)
        slowest = max(slowest, used)
    report(
        f"fuzz: {len(cases)} hostile rules files, slowest document published after {slowest * 1000:.0f} ms of server CPU"
    )
    assert "Traceback" not in server.stderr_text(), server.stderr_text()[-4000:]
    assert await server.shutdown_and_exit() == 0


async def test_the_server_publishes_under_hostile_settings(spawn: Spawn, tmp_path: Path) -> None:
    cases = _collect(settings_objects, 30)
    server = await spawn()
    await server.initialize(folders=[str(tmp_path)])
    slowest = 0.0
    for i, raw in enumerate(cases):
        server.config = {**raw, "debounceMs": 0, "enable": True, "analyze": "onType"}
        server.config.pop("maxDocumentSize", None)  # a tiny limit is a valid choice: one info diagnostic
        uri = (tmp_path / f"doc{i}.md").as_uri()
        started = cpu_seconds(server.proc.pid)
        server.open(uri, DOCUMENTS[i % len(DOCUMENTS)])
        try:
            await server.wait_diagnostics(uri, 1, timeout=PUBLISH_GUARD_S)
        except TimeoutError:
            raise AssertionError(f"no diagnostics within {PUBLISH_GUARD_S} s for settings {raw!r}") from None
        used = cpu_seconds(server.proc.pid) - started
        assert used < PUBLISH_BUDGET_S, (used, raw)
        slowest = max(slowest, used)
        if i % 10 == 9:  # and they can change under an open document, as an editor does
            server.notify("workspace/didChangeConfiguration", {"settings": None})
    report(
        f"fuzz: {len(cases)} hostile settings objects, slowest document published after {slowest * 1000:.0f} ms of server CPU"
    )
    assert "Traceback" not in server.stderr_text(), server.stderr_text()[-4000:]
    assert await server.shutdown_and_exit() == 0


# -- the command line: 0, 1 or 2, and lines that say what went wrong -------------------------------------


def _run_cli(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli_main(argv)
    return code, err.getvalue()


separators = st.one_of(st.none(), st.sampled_from(HOSTILE_PATTERNS), strange_text)
commands = st.sampled_from(["check", "classify", "plan"])


@given(
    rules=st.one_of(st.none(), rules_files),
    separator=separators,
    command=commands,
    doc=st.sampled_from(DOCUMENTS),
)
@property_settings(60)
def test_the_cli_exits_0_1_or_2_with_lines_not_tracebacks(
    tmp_path_factory: Any, rules: str | None, separator: str | None, command: str, doc: str
) -> None:
    folder = tmp_path_factory.mktemp("cli")
    path = folder / "doc.md"
    path.write_text(doc, encoding="utf-8", errors="surrogatepass")
    argv = [command]
    if command == "check":
        argv.append(str(path))
    elif command == "classify":
        argv += ["--input", str(path)]
    else:
        argv += ["--session", str(path), "--budget", "100"]
    if rules is not None:
        rules_path = folder / "rules.toml"
        rules_path.write_text(rules, encoding="utf-8", errors="surrogatepass")
        argv += ["--rules", str(rules_path)]
    if separator is not None and command != "classify":
        argv += ["--separator", separator]
    code, err = _run_cli(argv)
    assert code in (0, 1, 2), (code, err)
    for line in err.splitlines():
        assert line.startswith("turnlens"), err


def test_the_cli_never_prints_a_traceback_as_a_process(tmp_path: Path) -> None:
    """The same promise end to end (a process, real argv bytes), for the cases of the issue."""
    doc = tmp_path / "doc.md"
    doc.write_text("APPROVED — ship it\n", encoding="utf-8")
    rules = tmp_path / "rules.toml"
    rules.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    slow = tmp_path / "slow.toml"
    slow.write_text(
        "[[rule]]\nid='s'\nclass='spec'\nweight=1\npattern='(?:[\\s\\S]{1,1000})+z'\n", encoding="utf-8"
    )
    runs = [
        [b"check", b"--separator", b"TURN\xe9", bytes(doc)],
        [b"check", b"--rules", bytes(rules), bytes(doc)],
        [b"classify", b"--rules", bytes(slow), b"--input", bytes(doc)],
        [b"check", bytes(tmp_path / ("x" * 300))],
        [b"eval", b"--corpus", bytes(doc)],
    ]
    for argv in runs:
        done = subprocess.run(
            [sys.executable.encode(), b"-m", b"turnlens", *argv],
            capture_output=True,
            timeout=60,
            env=server_env(),
        )
        err = done.stderr.decode("utf-8", "replace")
        assert done.returncode in (0, 1, 2) and "Traceback" not in err, (argv, err)
        assert all(line.startswith("turnlens") for line in err.splitlines()), (argv, err)
