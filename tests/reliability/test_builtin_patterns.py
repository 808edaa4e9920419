"""No built-in regular expression of TurnLens backtracks super-linearly.

User patterns run on RE2; TurnLens's own patterns (module-level and class-level `re` patterns of
every module, the packaged rule packs, the router's keyword pattern) run on Python's
backtracking `re`, on every document. `redos.py` finds them all and builds adversarial inputs
from each one's parse tree; every input must finish within a CPU-time budget far above what a
linear pattern needs (the slowest built-in input takes about 0.1 s of CPU on 20,000 characters).
CPU time, not wall time, so a busy machine does not fail it; a stuck match is interrupted by
the CPU-time alarm, so a regression fails fast instead of hanging.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.reliability import redos
from turnlens import api

BUDGET = 1.0  # CPU seconds per input; linear patterns need < 0.1 s
DOC_BUDGET = 3.0  # CPU seconds to analyse one of the documents below; normal is a few ms


@contextmanager
def cpu_budget(seconds: float) -> Iterator[None]:
    """Fails the test when the block uses more than `seconds` of CPU (interrupting `re`)."""

    def over(signum: int, frame: object) -> None:
        raise TimeoutError(f"over {seconds} s of CPU time")

    previous = signal.signal(signal.SIGPROF, over)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


@pytest.mark.slow
def test_every_builtin_re_pattern_is_linear_on_adversarial_inputs() -> None:
    from turnlens.core import picks

    picks._patterns()  # compiled when first asked: compile them so that the walk finds them
    patterns = redos.all_patterns()
    # the walk must really find them: the ones that once backtracked, and the packs' rules
    for name in (
        "turnlens.pipeline.units._DIRECTIVE[0]",
        "turnlens.pipeline.formats.markdown_chat._HEADING[0]",
        "turnlens.pipeline.formats.markdown_chat._TITLE[0]",
        "turnlens.pipeline.formats.mdtext._DIRECTIVE_LINE[0]",
        "pack:default:code.excerpt",
        # a person's bare pick, go-ahead, stated choice and go-ahead said in clauses
        "turnlens.core.picks._compiled[0]",
        "turnlens.core.picks._compiled[1]",
        "turnlens.core.picks._compiled[2]",
        "turnlens.core.picks._compiled[3]",
        "turnlens.core.picks._compiled[4]",
        "turnlens.core.picks._compiled[5]",
        "turnlens.core.picks._compiled[6]",
        # a thread message's triage outcome and +1
        "turnlens.core.outcomes._TRIAGE_RE[0]",
        "turnlens.core.outcomes._ME_TOO_RE[0]",
        "turnlens.core.outcomes._DONE_RE[0]",
        "turnlens.core.outcomes._CI_VERDICT_RE[0]",
        "turnlens.core.outcomes._APPROVAL_RE[0]",
        "turnlens.core.outcomes._STATE_RE[0]",
        # a person's prompt's social opening, command lines (and their CJK sentences), list points and standing rules
        "turnlens.core.prompt_shapes._SOCIAL_RE[0]",
        "turnlens.core.prompt_shapes._COMMANDS_RE[0]",
        "turnlens.core.prompt_shapes._POINT_RE[0]",
        "turnlens.core.prompt_shapes._STANDING_RE[0]",
        "turnlens.core.prompt_shapes._CJK_SENTENCE_RE[0]",
        "turnlens.core.prompt_shapes._ERROR_RE[0]",
        "turnlens.core.prompt_shapes._ASKING_RE[0]",
        # a person's question to the agent about itself (the router leaves it no route)
        "turnlens.core.prompt_shapes._ABOUT_RE[0]",
        # a plain report: a pasted error anywhere in it, a change asked for or a requirement
        "turnlens.core.prompt_shapes._PASTED_RE[0]",
        "turnlens.core.prompt_shapes._CHANGE_RE[0]",
        "turnlens.core.prompt_shapes._FAILURE_SEEN_RE[0]",
        # a question about the work, a request phrased as one, a plan asked for
        "turnlens.core.prompt_shapes._POLITE_RE[0]",
        "turnlens.core.prompt_shapes._PLAN_ASKED_RE[0]",
        "turnlens.core.prompt_shapes._QUESTION_WORDS_RE[0]",
        # conditions stated, and a question's mark
        "turnlens.core.prompt_shapes._CONDITION_RE[0]",
        "turnlens.core.prompt_shapes._CONDITION_CJK_RE[0]",
        "turnlens.core.prompt_shapes._QUESTION_MARK_RE[0]",
        # a commit, push or deploy asked for, and what settles something along with it
        "turnlens.core.prompt_shapes._COMMIT_RE[0]",
        "turnlens.core.prompt_shapes._SETTLES_RE[0]",
        # a choice said in a request (one thing in place of another, a thing to use, not needed)
        "turnlens.core.prompt_shapes._CHOICE_RE[0]",
        # a user story, which no failure told makes a bug report
        "turnlens.core.prompt_shapes._STORY_RE[0]",
        # a document named, and the words of a mechanical change around one
        "turnlens.core.prompt_shapes._DOCUMENT_RE[0]",
        "turnlens.core.prompt_shapes._MECHANICAL_RE[0]",
        # options asked for (the question rule leaves them to the model)
        "turnlens.core.prompt_shapes._OPTIONS_RE[0]",
        # what comes next asked, a stop inside a standing rule, a reading or a check asked for
        "turnlens.core.prompt_shapes._NEXT_RE[0]",
        "turnlens.core.prompt_shapes._INNER_STOP_RE[0]",
        "turnlens.core.prompt_shapes._EXAMINE_RE[0]",
        # a pasted error's kind: a build error, or a failure at run time
        "turnlens.core.prompt_shapes._BUILD_ERROR_RE[0]",
        # a report that something is done: its clauses, what says more is wrong, a resume, a request
        "turnlens.core.prompt_shapes._DONE_CLAUSE_RE[0]",
        "turnlens.core.prompt_shapes._DONE_BUT_RE[0]",
        "turnlens.core.prompt_shapes._DONE_ASKS_RE[0]",
    ):
        assert name in patterns, name
    assert len(patterns) > 120 and sum(name.startswith("pack:") for name in patterns) > 90
    failures, _, inputs, _slowest = redos.overruns(BUDGET)
    assert inputs > 5000
    assert failures == []


def test_the_probe_catches_backtracking_patterns() -> None:
    """The inputs do reach the shapes that blow up (else the test above could not fail)."""
    import re

    for bad in (
        r"<!--[ \t]*turnlens:[ \t]*(.*?)[ \t]*-->",  # cubic (the old inline directive)
        r"[ \t]*(?:<!--[ \t]*turnlens:[^\n]*?-->[ \t]*)+\r?",  # exponential (the old directive line)
        r"^[ ]{0,3}#[ \t]+(.+?)[ \t#]*\r?$",  # quadratic (the old title)
        r"(a+)+b",
    ):
        pattern = re.compile(bad, re.IGNORECASE)
        blew = False
        for _what, text in redos.inputs(pattern):
            try:
                with cpu_budget(BUDGET):
                    pattern.search(text)
                    pattern.fullmatch(text)
            except TimeoutError:
                blew = True
                break
        assert blew, bad


CHAT = "## User\n\nHello there, please fix the bug.\n\n## Assistant\n\nSure, done.\n\n## User\n\nThanks.\n"
SLOW_DOCUMENTS = {
    # a 2 KB note: an inline directive opener, 2,000 spaces, no closer (24 s in `check` before)
    "inline directive": ("notes.md", "# Notes\n\n<!-- turnlens:" + " " * 2000 + "x\n"),
    # a README with one heading line that looks like a chat heading (10 s before)
    "chat heading": ("README.md", "Intro\n\n## user" + " " * 1200 + "x\n"),
    # 24 directives then `x` on the last line of a turn of a Markdown chat (3-12 s before)
    "directive line": (
        "chat.md",
        "## User\n\nHello there.\n\n" + "<!-- turnlens: a -->" * 24 + "x\n\n" + CHAT,
    ),
    # a title heading ending in many blanks before the first turn (quadratic: 2.6 s for 20,000)
    "title": ("chat.md", "# a" + " " * 50000 + "x\n\n" + CHAT),
}


@pytest.mark.parametrize("case", sorted(SLOW_DOCUMENTS))
def test_markdown_built_in_patterns_cannot_stall_analysis(case: str) -> None:
    path, text = SLOW_DOCUMENTS[case]
    started = time.process_time()
    with cpu_budget(DOC_BUDGET):
        result = api.analyze(text, path=path)
    assert time.process_time() - started < DOC_BUDGET
    assert len(result.results) >= 1
    if path == "chat.md":
        assert result.format == "markdown-chat"
