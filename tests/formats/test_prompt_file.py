"""Prompt files: one user prompt, frontmatter out of scoring, `effort:` still routed."""

from __future__ import annotations

from turnlens.pipeline.analyze import UnitCache, analyze
from turnlens.pipeline.formats import FormatOptions, detect
from turnlens.pipeline.formats.prompt_file import PROMPT_FILE, is_prompt_file, split_prompt
from turnlens.pipeline.profile import Profile

from .common import assert_verbatim, fixture, to_crlf

REVIEW = "prompt-file/.github/prompts/security-review.prompt.md"
COMMAND = "prompt-file/.claude/commands/fix-issue.md"
AGENTS = "prompt-file/AGENTS.md"


def test_one_unit_after_the_frontmatter() -> None:
    _, doc = fixture(REVIEW)
    (unit,) = split_prompt(doc)
    assert (unit.role, unit.kind) == ("user", "prompt")
    assert unit.text == (
        "Review the selected code for injection, path traversal and secrets in logs.\n"
        "List each finding with the line and a fix."
    )
    assert unit.start == doc.index("\nReview the selected") + 1
    assert unit.meta == doc[: unit.start] and unit.meta.startswith("---\nmode: agent\n")
    assert_verbatim(doc, [unit])


def test_a_file_without_frontmatter_is_one_unit_without_meta() -> None:
    _, doc = fixture(AGENTS)
    (unit,) = split_prompt(doc)
    assert unit.meta is None and unit.start == 0
    assert unit.text == doc.rstrip("\n")


def test_crlf_frontmatter() -> None:
    _, doc = fixture(REVIEW)
    crlf = to_crlf(doc)
    (unit,) = split_prompt(crlf)
    assert unit.text.startswith("Review the selected") and unit.text.endswith("a fix.")
    assert_verbatim(crlf, [unit])


def test_frontmatter_is_kept_out_of_scoring() -> None:
    path, doc = fixture(REVIEW)
    as_prompt = analyze(doc, Profile(), path=path).results[0].classification
    as_text = analyze(doc, Profile(format="turns"), path=path).results[0].classification
    # `status: draft` is a spec signal when scored; in a prompt file it is metadata
    assert as_text.scores["spec"] > 0
    assert as_prompt.scores["spec"] == 0
    assert as_prompt.words < as_text.words


def test_effort_in_the_frontmatter_still_routes() -> None:
    path, doc = fixture(REVIEW)
    route = analyze(doc, Profile(), path=path).results[0].route
    assert (route.source, route.effort) == ("explicit", "high")
    assert "frontmatter (line 5)" in route.reason
    low = doc.replace("effort: high", "effort: low")
    assert analyze(low, Profile(), path=path).results[0].route.effort == "low"
    # the analysis cache must not hand back the old route for the same body text
    cache = UnitCache()
    assert cache.analyze(doc, Profile(), path=path).results[0].route.effort == "high"
    assert cache.analyze(low, Profile(), path=path).results[0].route.effort == "low"


def test_a_route_directive_under_the_frontmatter_counts() -> None:
    path, doc = fixture(REVIEW)
    directed = doc.replace("\n\nReview the selected", "\n\n/route implement\nReview the selected")
    route = analyze(directed, Profile(), path=path).results[0].route
    assert (route.source, route.phase) == ("directive", "implement")
    assert "line 8" in route.reason


def test_a_pin_under_the_frontmatter() -> None:
    path, doc = fixture(COMMAND)
    result = analyze(doc, Profile(), path=path).results[0]
    assert result.unit.pin == "code" and result.classification.task_class == "code"
    assert result.unit.text.startswith("<!-- turnlens: class=code -->\nRead issue #$ARGUMENTS")
    assert analyze("<!-- turnlens: ignore-file -->\n" + doc, Profile(), path=path).results[0].unit.ignored


def test_names_that_mark_prompt_files() -> None:
    yes = [
        "/repo/.github/prompts/explain.prompt.md",
        "/repo/docs/explain.prompt.md",
        "C:\\repo\\.claude\\commands\\deploy.md",
        "/repo/.claude/agents/reviewer.md",
        "/repo/AGENTS.md",
        "/repo/sub/CLAUDE.md",
        "/repo/CLAUDE.local.md",
        "/repo/GEMINI.md",
        "/repo/.github/copilot-instructions.md",
        "/repo/.github/instructions/python.instructions.md",
    ]
    no = [
        None,
        "/repo/README.md",
        "/repo/prompts.md",
        "/repo/.claude/settings.json",
        "/repo/.github/prompts/a.txt",
    ]
    assert all(is_prompt_file(p) for p in yes)
    assert not any(is_prompt_file(p) for p in no)
    path, doc = fixture(COMMAND)
    assert detect(path, doc).name == "prompt-file"
    assert detect(None, doc).name == "turns"  # frontmatter alone marks no prompt file


def test_only_frontmatter_gives_no_unit_and_hidden_prompts() -> None:
    assert split_prompt("---\ndescription: x\n---\n\n") == []
    assert split_prompt("") == []
    _, doc = fixture(AGENTS)
    assert PROMPT_FILE.split(doc, FormatOptions(hide_kinds=("prompt",))).units == []
    assert PROMPT_FILE.split_marker(FormatOptions()) is None
