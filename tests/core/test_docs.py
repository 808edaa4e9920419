"""The user docs show, not tell: their examples run and their tables come from the data.

- Generated parts of docs/*.md (between `<!-- BEGIN GENERATED: name -->` and
  `<!-- END GENERATED -->`) must equal what the data renders today;
  `python -m tests.core.test_docs` rewrites them.
- Every `$ turnlens …` line in a ```console block of docs/rules.md and docs/cli.md is run
  (from the repository's top folder) and must print exactly what the block shows.
- The bundled examples (docs/examples/) classify as they claim.
"""

from __future__ import annotations

import io
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from turnlens import api
from turnlens.classifier import classify
from turnlens.cli import main
from turnlens.core.classes import task_classes
from turnlens.core.rules import builtin_pack
from turnlens.userfiles import load_rules_file

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
EXAMPLES = DOCS / "examples"
_GENERATED = re.compile(r"(<!-- BEGIN GENERATED: ([\w-]+) -->\n)(.*?)(<!-- END GENERATED -->)", re.S)


# ─── generated parts ─────────────────────────────────────────────────────────


def classes_table() -> str:
    rows = ["| class | max ratio | frozen | compression verdict | what it is |", "|---|---|---|---|---|"]
    for tc in task_classes().values():
        rows.append(
            f"| `{tc.name}` | ≤{tc.max_ratio}:1 | `{tc.frozen}` | `{tc.verdict}` | {tc.description} |"
        )
    return "\n".join(rows) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def default_rules_table() -> str:
    reference = {r.id: r for r in builtin_pack("reference").rules}
    rows = ["| rule | class | weight | fires on | from |", "|---|---|---|---|---|"]
    for rule in builtin_pack("default").rules:
        old = reference.get(rule.id)
        if old is None:
            origin = "added"
        elif (old.pattern, old.weight, old.ignore_case) == (rule.pattern, rule.weight, rule.ignore_case):
            origin = "reference"
        else:
            origin = "reference, fixed"
        bounds = [
            f"{name.replace('_', ' ')} {value}"
            for name in ("min_words", "max_words", "min_lines", "max_lines")
            if (value := getattr(rule, name)) is not None
        ]
        what = _cell(rule.description) + (f" ({', '.join(bounds)})" if bounds else "")
        if rule.ignore_case:
            what += " · any case"
        rows.append(f"| `{rule.id}` | {rule.category} | {rule.weight:+d} | {what} | {origin} |")
    return "\n".join(rows) + "\n"


GENERATORS: dict[str, Callable[[], str]] = {
    "classes": classes_table,
    "default-rules": default_rules_table,
}


def regenerate(text: str) -> str:
    return _GENERATED.sub(lambda m: m.group(1) + GENERATORS[m.group(2)]() + m.group(4), text)


@pytest.mark.parametrize("name", ["classes.md", "rules.md"])
def test_generated_parts_are_up_to_date(name: str) -> None:
    text = (DOCS / name).read_text(encoding="utf-8")
    assert _GENERATED.search(text), f"{name} has no generated part"
    assert regenerate(text) == text, f"docs/{name} is stale: run `python -m tests.core.test_docs`"


# ─── console examples ────────────────────────────────────────────────────────

# A ```console block preceded by this comment is not run (it needs what a test machine lacks:
# a model server, your own sessions); the comment says why.
_NOT_RUN = "<!-- console: not run"
_CONSOLE = re.compile(r"^(<!-- console: not run[^\n]*-->\n)?```console\n(.*?)^```$", re.S | re.M)


def documents() -> list[Path]:
    """Every page a user reads: the README and docs/ (editor pages included; the example
    inputs in docs/examples are not pages)."""
    pages = [p for p in sorted(DOCS.rglob("*.md")) if EXAMPLES not in p.parents]
    return [ROOT / "README.md", *pages]


def pages_with_console_examples() -> list[Path]:
    return [p for p in documents() if _CONSOLE.search(p.read_text(encoding="utf-8"))]


def console_blocks(path: Path) -> list[list[tuple[str, str]]]:
    """Each run ```console block of `path` as (command line, expected output) pairs."""
    text = path.read_text(encoding="utf-8")
    blocks: list[list[tuple[str, str]]] = []
    for m in _CONSOLE.finditer(text):
        if m.group(1):
            continue
        pairs: list[tuple[str, str]] = []
        for line in m.group(2).splitlines():
            if line.startswith("$ "):
                pairs.append((line[2:], ""))
            elif pairs:
                pairs[-1] = (pairs[-1][0], pairs[-1][1] + line + "\n")
        blocks.append(pairs)
    return blocks


def console_examples(name: str) -> list[tuple[str, str]]:
    """(command line, expected output) for every `$ ` line run in docs/`name`."""
    return [pair for block in console_blocks(DOCS / name) for pair in block]


def run_block(commands: list[str]) -> list[str]:
    """What each command of one block prints (stdout and stderr, as a terminal shows them),
    run by bash from the repository's top folder as a user types them: `echo $?` sees the
    exit code of the command before it."""
    script = ["exec 2>&1", "__rc=0"]
    for i, command in enumerate(commands):
        script += [f"printf '\\036{i}\\n'", f"(exit $__rc); {command}", "__rc=$?"]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("NO_COLOR", None)
    env["COLUMNS"] = "100"
    done = subprocess.run(
        ["bash", "-c", "\n".join(script)], cwd=ROOT, env=env, capture_output=True, timeout=600, check=False
    )
    printed = done.stdout.decode("utf-8", "replace").replace(str(ROOT) + "/", "")
    parts = printed.split("\x1e")[1:]
    return [part.split("\n", 1)[1] for part in parts]


def run_console(command: str, last_code: int) -> tuple[int, str]:
    """Run `turnlens …`, `echo "…" | turnlens …` or `echo $?` in this process (quick checks)."""
    stdin: bytes | None = None
    if command == "echo $?":
        return last_code, f"{last_code}\n"
    if command.startswith("echo "):
        feed, _, command = command.partition(" | ")
        stdin = (shlex.split(feed)[1] + "\n").encode()
    argv = shlex.split(command)
    assert argv[0] == "turnlens", command
    buffer = io.StringIO()
    saved_stdin = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        with redirect_stdout(buffer), redirect_stderr(buffer):
            code = main(argv[1:])
    finally:
        sys.stdin = saved_stdin
    return code, buffer.getvalue()


@pytest.mark.parametrize("path", pages_with_console_examples(), ids=lambda p: str(p.relative_to(ROOT)))
def test_console_examples_print_what_the_docs_show(path: Path) -> None:
    blocks = console_blocks(path)
    assert blocks, f"{path.name}: every console block is marked not run"
    for block in blocks:
        printed = run_block([command for command, _ in block])
        for (command, expected), output in zip(block, printed, strict=True):
            assert output == expected, (
                f"{path.relative_to(ROOT)}: `$ {command}` printed:\n{output}\n"
                "(run `python scripts/regen_docs.py` and review the diff)"
            )


def test_the_docs_that_promise_console_examples_have_them() -> None:
    for page in (
        ROOT / "README.md",
        DOCS / "cli.md",
        DOCS / "rules.md",
        DOCS / "formats.md",
        DOCS / "router.md",
    ):
        assert console_blocks(page), f"{page.name} shows no console example that runs"


# ─── bundled examples ────────────────────────────────────────────────────────


def test_custom_rules_example_loads_cleanly_and_every_rule_works() -> None:
    pack = load_rules_file(EXAMPLES / "rules" / "custom-rules.toml")
    assert pack.warnings == ()
    assert pack.rule("review.benchmark") is None  # disabled
    greeting = pack.rule("chitchat.greeting")
    assert greeting is not None and "buenas" in (greeting.pattern or "")
    cases = {
        "team.ticket": ("DOCK-7 Dock firmware reports a stale state after reboot", "spec"),
        "team.ship": ("ya está en producción 🚢", "decision"),
        "team.quality-gate": ("Quality gate FAILED: 3 new bugs, coverage 71%", "review"),
        "chitchat.greeting": ("buenas a todos", "chitchat"),
        "team.long-line": (" ".join(["background"] * 45), "context"),
    }
    for rule_id, (text, expected) in cases.items():
        result = classify(text, pack)
        assert rule_id in {s.rule for s in result.signals}, rule_id
        assert result.task_class == expected, (rule_id, result.scores)
    assert "team.ticket" not in {s.rule for s in classify("see DOCK-7 for that", pack).signals}


def test_example_session_covers_all_six_classes() -> None:
    text = (EXAMPLES / "session.md").read_text(encoding="utf-8")
    units = api.split_units(text)
    classes = [api.classify_unit(u).task_class for u in units]
    assert classes == ["chitchat", "context", "spec", "code", "code", "review", "decision", "chitchat"]
    assert any(ord(ch) > 0x2000 for ch in text)  # emoji
    assert "```diff" in text and "```python" in text and "[FAIL]" in text and "vamos con" in text


def test_example_prompt_is_one_code_turn() -> None:
    text = (EXAMPLES / "prompt.md").read_text(encoding="utf-8")
    assert len(api.split_units(text)) == 1
    assert classify(text).task_class == "code"


def test_no_project_rules_file_in_the_examples() -> None:
    # a .turnlens.toml there would silently change how `turnlens check docs/examples/` scores
    assert not list(EXAMPLES.rglob(".turnlens.toml"))


def rerun_console_blocks(text: str) -> str:
    """The text with every run console block's output replaced by what its commands print
    today (after a retrained model changes an answer; review the diff before committing)."""

    def block(m: re.Match[str]) -> str:
        if m.group(1):
            return m.group(0)
        commands = [line[2:] for line in m.group(2).splitlines() if line.startswith("$ ")]
        out = "".join(f"$ {c}\n{printed}" for c, printed in zip(commands, run_block(commands), strict=True))
        return "```console\n" + out + "```"

    return _CONSOLE.sub(block, text)


if __name__ == "__main__":
    os.chdir(ROOT)
    for doc in ("classes.md", "rules.md"):
        path = DOCS / doc
        path.write_text(regenerate(path.read_text(encoding="utf-8")), encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    if "--console" in sys.argv:
        for path in documents():
            text = path.read_text(encoding="utf-8")
            if _CONSOLE.search(text):
                path.write_text(rerun_console_blocks(text), encoding="utf-8")
                print(f"re-ran the console examples of {path.relative_to(ROOT)}")
