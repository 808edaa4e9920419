"""The seed classifier's behaviour examples (SE-029, its test suite's classification cases),
held by both built-in packs: `reference` reproduces the seed, and the `default` pack's model
must agree with it on these (they are the seed's specification, not tuning data).

Inputs are given as the seed's tests feed them: `echo` adds a trailing newline, a file
written with `printf '%s\\n'` ends each line with one.
"""

from __future__ import annotations

import pytest

from turnlens.classifier import classify
from turnlens.core.rules import builtin_pack

PACKS = [
    pytest.param(builtin_pack("reference"), id="reference"),
    pytest.param(builtin_pack("default"), id="default"),
]
LONG_MARKDOWN = "# Heading\n\n" + "".join(
    f"- bullet item number {i} with some explanation text here\n" for i in range(1, 31)
)
NO_KEYWORDS = (
    "This is a longer explanation about something that has no particular keywords matching any "
    "class pattern at all here\n"
)

CASES = [
    ("APPROVED — ship it\n", "decision"),
    ("APPROVED — merge\n", "decision"),
    ("APPROVED\n", "decision"),
    ("Implementing SPEC-120 AC-03 with new handler\n", "spec"),
    ("SPEC-120 AC-01 implemented\n", "spec"),
    ("```python\ndef foo():\n    pass\n```\n", "code"),
    ("diff --git a/foo b/foo\n@@ -1 +1 @@\n-old\n+new\n", "code"),
    ("Traceback (most recent call last): Error: foo\n", "code"),
    ("G6 BATS tests PASS: 227/227 suites\n", "review"),
    ("correctness-judge VERDICT: issues in line 42\n", "review"),
    (LONG_MARKDOWN, "context"),
    ("thanks!\n", "chitchat"),
    ("thanks\n", "chitchat"),
    ("ok\n", "chitchat"),
    # decision and code both score: the decision is what must be kept
    ("APPROVED\n```\ncode\n```\n", "decision"),
    ("hmm\n", "chitchat"),
    (NO_KEYWORDS, "context"),
    ("", "chitchat"),
    ("   \n  \n", "chitchat"),
]


@pytest.mark.parametrize("pack", PACKS)
@pytest.mark.parametrize(("text", "expected"), CASES)
def test_seed_behaviour(pack: object, text: str, expected: str) -> None:
    assert classify(text, pack).task_class == expected  # type: ignore[arg-type]


def test_approved_with_a_code_block_scores_both_classes_in_the_reference_pack() -> None:
    scores = classify("APPROVED\n```\ncode\n```\n", builtin_pack("reference")).scores
    # the fence is code (+3); APPROVED counts as a word and in capitals (+3, +2)
    assert (scores["decision"], scores["code"]) == (5, 3)
