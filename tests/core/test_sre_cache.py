"""packs/sre-3.X.json hold the shipped packs' patterns as Python `re` compiles them, per Python
minor version (turnlens/core/prebuilt.py), so that a one-shot run compiles none of them.

Regenerate after editing a shipped pack:  python -m tests.core.test_sre_cache [PYTHON ...]
(this interpreter's table, and one per other interpreter named — by default every other
python3.X found on PATH or under pyenv; a table left stale only costs speed: a pattern missing
from it is compiled as before).
"""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from turnlens.core import engine, prebuilt
from turnlens.core.rules import BUILTIN_PACKS, RulePack, builtin_pack, packaged_pack

PACKS = Path(__file__).resolve().parents[2] / "server" / "turnlens" / "core" / "packs"
CACHE = PACKS / prebuilt.table_name()
SERVER = Path(__file__).resolve().parents[2] / "server"


def shipped_packs() -> list[RulePack]:
    return [builtin_pack(name) for name in BUILTIN_PACKS] + [
        packaged_pack("turnlens.router.packs", "labels.toml")
    ]


# module-level patterns of the one-shot path compiled with `compile_re`: (module, name, flags)
MODULE_PATTERNS = (
    ("turnlens.core.rules", "_ID", 0),
    ("turnlens.core.engine", "_WIDE_SPACE", 0),
    ("turnlens.core.engine", "_SEES_PAST_LINE", 0),
    ("turnlens.core.engine", "_SPACE", 0),
    ("turnlens.core.kinds", "_TOOL_NAME", 0),
    ("turnlens.core.kinds", "_TOOL_USE", 0),
    ("turnlens.core.kinds", "_TOOL_USE_LINE", 0),
    ("turnlens.core.reasoning", "_REASONING_OPENING", 0),
    ("turnlens.core.outcomes", "_TRIAGE_RE", re.IGNORECASE | re.MULTILINE),
    ("turnlens.core.outcomes", "_ME_TOO_RE", re.IGNORECASE),
    ("turnlens.core.outcomes", "_DONE_RE", re.IGNORECASE),
    ("turnlens.core.outcomes", "_CI_VERDICT_RE", re.IGNORECASE),
    ("turnlens.core.outcomes", "_APPROVAL_RE", re.IGNORECASE),
    ("turnlens.core.outcomes", "_STATE_RE", re.IGNORECASE),
    ("turnlens.core.prompt_shapes", "_SOCIAL_RE", re.IGNORECASE),
    ("turnlens.core.prompt_shapes", "_COMMANDS_RE", 0),
    ("turnlens.core.prompt_shapes", "_POINT_RE", re.MULTILINE),
    ("turnlens.core.prompt_shapes", "_STANDING_RE", re.IGNORECASE),
    ("turnlens.core.prompt_shapes", "_CJK_SENTENCE_RE", 0),
    ("turnlens.core.prompt_shapes", "_ERROR_RE", 0),
    ("turnlens.core.prompt_shapes", "_ASKING_RE", re.IGNORECASE),
    ("turnlens.core.prompt_shapes", "_ABOUT_RE", re.IGNORECASE),
    ("turnlens.core.prompt_shapes", "_PASTED_RE", 0),
    ("turnlens.core.prompt_shapes", "_CHANGE_RE", re.IGNORECASE),
    ("turnlens.core.prompt_shapes", "_FAILURE_SEEN_RE", re.IGNORECASE),
    ("turnlens.core.prompt_shapes", "_POLITE_RE", re.IGNORECASE),
    ("turnlens.core.prompt_shapes", "_PLAN_ASKED_RE", re.IGNORECASE),
    ("turnlens.core.prompt_shapes", "_QUESTION_WORDS_RE", re.IGNORECASE),
    ("turnlens.core.prompt_shapes", "_CONDITION_RE", 0),
    ("turnlens.core.prompt_shapes", "_CONDITION_CJK_RE", 0),
    ("turnlens.core.prompt_shapes", "_QUESTION_MARK_RE", 0),
    ("turnlens.core.prompt_shapes", "_COMMIT_RE", re.IGNORECASE),
    ("turnlens.core.prompt_shapes", "_SETTLES_RE", re.IGNORECASE),
    ("turnlens.core.prompt_shapes", "_CHOICE_RE", re.IGNORECASE | re.MULTILINE),
    ("turnlens.core.prompt_shapes", "_STORY_RE", re.IGNORECASE),
    ("turnlens.core.prompt_shapes", "_DOCUMENT_RE", re.IGNORECASE),
    ("turnlens.core.prompt_shapes", "_MECHANICAL_RE", re.IGNORECASE),
    ("turnlens.core.prompt_shapes", "_OPTIONS_RE", re.IGNORECASE),
    ("turnlens.core.prompt_shapes", "_NEXT_RE", re.IGNORECASE),
    ("turnlens.core.prompt_shapes", "_INNER_STOP_RE", 0),
    ("turnlens.core.prompt_shapes", "_EXAMINE_RE", re.IGNORECASE),
    ("turnlens.core.prompt_shapes", "_BUILD_ERROR_RE", 0),
    ("turnlens.core.prompt_shapes", "_DONE_CLAUSE_RE", re.IGNORECASE),
    ("turnlens.core.prompt_shapes", "_DONE_BUT_RE", re.IGNORECASE),
    ("turnlens.core.prompt_shapes", "_DONE_ASKS_RE", re.IGNORECASE),
    ("turnlens.router.labeler", "_DIRECTIVE", 0),
    ("turnlens.router.resolve", "_ROUTE_LINE", 0),
    ("turnlens.router.resolve", "_EFFORT_LINE", re.MULTILINE),
    ("turnlens.router.resolve", "_FRONTMATTER_END", re.MULTILINE),
    ("turnlens.core.cjk", "_CJK_CHAR", 0),
    ("turnlens.learn.features", "_CODE_LINE", 0),
    ("turnlens.router.resolve", "_FRONTMATTER_EFFORT", re.MULTILINE | re.IGNORECASE),
    ("turnlens.router.resolve", "_LEADING_DIRECTIVES", re.IGNORECASE),
    ("turnlens.learn.features", "_DIGIT", 0),
    # the session readers' (the status line and the hooks read a session file)
    ("turnlens.pipeline.units", "_DIRECTIVE", re.IGNORECASE),
    ("turnlens.pipeline.units", "_BLANK_PREFIX", 0),
    ("turnlens.pipeline.formats", "_MAYBE_MARKER", re.IGNORECASE | re.MULTILINE),
    ("turnlens.pipeline.formats.claude_code", "_INJECTED", 0),
    ("turnlens.pipeline.formats.claude_code", "_COMMAND", 0),
    ("turnlens.pipeline.formats.claude_code", "_COMMAND_OUTPUT", 0),
    ("turnlens.pipeline.formats.jsonspan", "_LITERAL", re.DOTALL),
    ("turnlens.pipeline.formats.jsonspan", "_SPACE", 0),
    ("turnlens.pipeline.formats.jsonspan", "_LONE_SURROGATE", 0),
)

# patterns the one-shot path compiles with `compile_re` when they are first asked (strings at
# module level): (module, name, flags)
LAZY_PATTERNS = (
    ("turnlens.core.picks", "_BARE", re.IGNORECASE),
    ("turnlens.core.picks", "_GO_AHEAD", re.IGNORECASE),
    ("turnlens.core.picks", "_STATED", re.IGNORECASE),
    ("turnlens.core.picks", "_SAID_CLAUSE", re.IGNORECASE),
    ("turnlens.core.picks", "_SAID_RESUME_ONLY", re.IGNORECASE),
    ("turnlens.core.picks", "_SAID_YES", re.IGNORECASE),
    ("turnlens.core.picks", "_CLAUSE_SPLIT", re.IGNORECASE),
)


def module_pattern(module: str, name: str) -> re.Pattern[str]:
    pattern: re.Pattern[str] = getattr(importlib.import_module(module), name)
    return pattern


def default_keyword_pattern() -> str:
    """The router's one regex over its default thinking keywords (compiled on every route)."""
    from turnlens.router.resolve import keyword_pattern
    from turnlens.router.vocabulary import DEFAULTS

    return keyword_pattern(DEFAULTS.keywords)


def shipped_patterns() -> list[tuple[str, int]]:
    """Every (pattern, flags) the engine compiles a shipped `re` rule with (whole text and per
    line), and the module-level patterns above."""
    out = {(module_pattern(m, name).pattern, int(flags)) for m, name, flags in MODULE_PATTERNS}
    out |= {(str(getattr(importlib.import_module(m), name)), int(flags)) for m, name, flags in LAZY_PATTERNS}
    out.add((default_keyword_pattern(), int(re.IGNORECASE)))
    for pack in shipped_packs():
        for rule in pack.rules:
            if rule.pattern is None or rule.engine != "re":
                continue
            case = re.IGNORECASE if rule.ignore_case else 0
            out.add((rule.pattern, int(case | re.MULTILINE)))
            out.add((rule.pattern, int(case)))
    return sorted(out)


def render(table: dict[str, object]) -> str:
    return json.dumps(table, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="the tables are CPython's")
def test_cache_is_up_to_date() -> None:
    assert CACHE.exists(), f"no table for this Python: run python -m tests.core.test_sre_cache ({CACHE.name})"
    assert CACHE.read_text(encoding="utf-8") == render(prebuilt.build(shipped_patterns())), (
        "run: python -m tests.core.test_sre_cache"
    )


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="the tables are CPython's")
def test_every_shipped_pattern_comes_from_the_table_and_equals_re_compile() -> None:
    table = prebuilt._table()
    for pattern, flags in shipped_patterns():
        assert prebuilt.key(pattern, flags) in table
        got = prebuilt.compile_re(pattern, flags)
        fresh = re.compile(pattern, flags)
        assert got is not fresh  # made from the table, not taken from `re`'s cache
        assert (got.pattern, got.flags, got.groups, got.groupindex) == (
            fresh.pattern,
            fresh.flags,
            fresh.groups,
            fresh.groupindex,
        )


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="the tables are CPython's")
def test_module_patterns_are_in_the_table_with_the_flags_they_are_compiled_with() -> None:
    for module, name, flags in MODULE_PATTERNS:
        pattern = module_pattern(module, name)
        assert pattern.flags & ~re.UNICODE == flags
        assert prebuilt.key(pattern.pattern, flags) in prebuilt._table()


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="the tables are CPython's")
def test_patterns_compiled_when_first_asked_come_from_the_table() -> None:
    # a person's bare pick, go-ahead, stated choice and go-ahead said in clauses: the router asks for them on every prompt
    # the model routes, so the one-shot path must not compile them (nor import `re`)
    from turnlens.core import picks

    compiled = picks._patterns()
    for (module, name, flags), got in zip(LAZY_PATTERNS, compiled, strict=True):
        pattern = str(getattr(importlib.import_module(module), name))
        assert got.pattern == pattern and got.flags & ~re.UNICODE == flags
        assert prebuilt.key(pattern, flags) in prebuilt._table()


def test_the_engine_compiles_rule_patterns_through_the_table() -> None:
    rule = next(r for r in shipped_packs()[0].rules if r.pattern is not None and r.engine == "re")
    got = engine._compile_pattern(rule, multiline=True)
    assert got.pattern == rule.pattern
    assert got.flags & re.MULTILINE


def test_a_pattern_outside_the_table_is_compiled_as_usual() -> None:
    got = prebuilt.compile_re(r"\bzebra\w+", re.IGNORECASE)
    assert got.search("ZEBRAS here") is not None
    assert prebuilt.key(r"\bzebra\w+", re.IGNORECASE) not in prebuilt._table()


def test_a_damaged_entry_falls_back_to_re(monkeypatch: pytest.MonkeyPatch) -> None:
    pattern, flags = shipped_patterns()[0]
    bad = [flags, 0, {}, [None], "bm90IHpsaWI="]  # not a compressed program
    monkeypatch.setattr(prebuilt, "_TABLE", {prebuilt.key(pattern, flags): bad})
    got = prebuilt.compile_re(pattern, flags)
    assert got.pattern == pattern


def corpus_sample(every: int = 7) -> str:
    """Every `every`-th text of the shipped corpus (all its languages and genres), one per line."""
    texts = []
    for path in sorted((SERVER / "turnlens" / "learn" / "corpus").glob("*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines()
        texts += [json.loads(line)["text"] for line in lines[::every] if line.strip()]
    return "\n".join(texts)


def test_patterns_from_the_table_match_as_re_does_on_the_corpus() -> None:
    """Every match of every shipped pattern on a sample of the corpus, as `re.compile` finds them."""
    text = corpus_sample()
    for pattern, flags in shipped_patterns():
        ours, theirs = prebuilt.compile_re(pattern, flags), re.compile(pattern, flags)
        assert [m.span() for m in ours.finditer(text)] == [m.span() for m in theirs.finditer(text)], pattern


def _table_of(python: str, patterns: list[tuple[str, int]]) -> dict[str, object]:
    """Another interpreter's table (the builder needs the standard library only)."""
    script = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); "
        "from turnlens.core.prebuilt import build; "
        "print(json.dumps(build([tuple(p) for p in json.load(sys.stdin)])))"
    )
    out = subprocess.run(
        [python, "-c", script, str(SERVER)],
        input=json.dumps(patterns),
        capture_output=True,
        text=True,
        check=True,
    )
    table: dict[str, object] = json.loads(out.stdout)
    return table


def other_pythons() -> list[str]:
    """Other CPython 3.11+ interpreters at hand (on PATH, or installed by pyenv)."""
    import shutil

    found: dict[str, str] = {}
    for minor in range(11, 20):
        name = f"python3.{minor}"
        if f"3.{minor}" == f"{sys.version_info[0]}.{sys.version_info[1]}":
            continue
        pyenv = sorted((Path.home() / ".pyenv" / "versions").glob(f"3.{minor}.*/bin/{name}"))
        exe = str(pyenv[-1]) if pyenv else shutil.which(name)
        if exe:
            found[name] = exe
    return list(found.values())


if __name__ == "__main__":
    patterns = shipped_patterns()
    CACHE.write_text(render(prebuilt.build(patterns)), encoding="utf-8")
    print(f"wrote {CACHE}")
    for python in sys.argv[1:] or other_pythons():
        try:
            table = _table_of(python, patterns)
        except (OSError, subprocess.CalledProcessError, ValueError) as exc:
            print(f"skipped {python}: {exc}")
            continue
        path = PACKS / f"sre-{table['python']}.json"
        path.write_text(render(table), encoding="utf-8")
        print(f"wrote {path} ({python})")
