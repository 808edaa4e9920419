"""Every rule of both built-in packs, with one text it fires on and one it does not.

A rule added to a pack without a case here fails `test_every_rule_has_a_case`.
The default pack inherits the reference pack's cases for the rules it does not
change; a rule it overrides or adds needs its own case in DEFAULT_CASES.
"""

from __future__ import annotations

import pytest

from turnlens.core.engine import score
from turnlens.core.rules import Rule, RulePack, builtin_pack

LONG_101 = " ".join(["word"] * 101)
LONG_100 = " ".join(["word"] * 100)
LINES_11 = "\n".join(f"line {n}" for n in range(11))
LINES_10 = "\n".join(f"line {n}" for n in range(10)) + "\n\n\n"

# rule id -> (a text the rule fires on, a text it does not fire on)
REFERENCE_CASES: dict[str, tuple[str, str]] = {
    "decision.words": ("Approved, merge it.", "The approval flow is documented in the wiki."),
    "decision.caps": ("BLOCKED by infra", "blocked by infra"),
    "decision.yes-no": ("  sí!  ", "yes please"),
    "spec.ticket": ("see SPEC-120 for details", "see SPEC-abc for details"),
    "spec.acceptance": ("meets AC-03", "Acceptance Criteria (capitalised)"),
    "spec.frontmatter-key": ("status: draft", "  status: draft"),
    "spec.rule-line": ("intro\n---\nbody", "----"),
    "code.fence": ("```python\nx = 1\n```", "  ```indented fence"),
    "code.diff": ("---", "-- a comment"),
    "code.error": ("Error: bad input", "ValueError without a colon; an error occurred"),
    "code.definition": ("def main():", "define the API first"),
    "review.verdict": ("FAIL: 3 tests", "Fail: 3 tests"),
    "review.words": ("the judge said so", "a code review"),
    "review.gate": ("G6 PASS", "G6 passed"),
    "review.score": ("Score: 98", "scored 98"),
    "context.heading": ("## Setup", "#hashtag"),
    "context.bullet": ("  - item", "-item"),
    "context.long": (LONG_101, LONG_100),
    "context.many-lines": (LINES_11, LINES_10),
    "chitchat.short": ("ok then", "one two three four five six seven eight nine"),
    "chitchat.ack": ("Gracias!", "thanks for the numbers"),
    "chitchat.greeting": ("hello there", "oh hi"),
}

DEFAULT_CASES: dict[str, tuple[str, str]] = {
    # overrides of reference rules (the four SPEC §2 fixes and two more)
    "decision.words": ("decision: keep Postgres", "after you merge main into your branch, commit"),
    "spec.ticket": ("per SE-029", "CASE-12 and USE-3"),
    "spec.acceptance": ("AC-4 holds", "TRAC-12"),
    "code.diff": ("--- a/app/models.py", "---"),
    "code.error": ("Traceback (most recent call last):", "the task raises exceptions"),
    "chitchat.greeting": ("Hola equipo", "history of the project"),
    "chitchat.cjk-long": ("我看了一下这个改动，没有什么特别的问题，可以合并。", "好的，谢谢"),
    # decision
    "decision.imperative": ("Approved. Merge it once CI is green.", "on:\n  push:\n    branches: [main]"),
    "decision.choice": ("Let's go with Postgres.", "Let's go over the options."),
    "decision.verdict-lead": ("Rejected: the scope is too big", "No worries at all"),
    "decision.hold": ("Please hold off on the release", "hold on, reading it now"),
    "decision.question": ("Should we ship it?", "Ship it."),
    "decision.undecided": ("Nothing picked yet, I'm leaning towards A", "We picked option A"),
    # spec
    "spec.criteria": ("Criterios de aceptación:", "the criteria are vague"),
    "spec.story": ("As a courier I want to see my route for the day", "As a rule, keep it short"),
    "spec.gherkin": ("Scenario: expired card", "Given the numbers, yes"),
    "spec.rfc2119": ("Tokens MUST expire after one hour.", "you must try the tapas"),
    "spec.requirements": ("Security requirements:", "pip install -r requirements.txt"),
    "spec.expected": ("Expected result: the badge turns green", "Expected 2 arguments, but got 1."),
    "spec.ticket-key": ("PAY-231: card retries", "Fixed in PAY-231 yesterday"),
    # code
    "code.exception-class": ("it raises KeyError", "an error in the key"),
    "code.shell": ("$ make test", "$5 per seat"),
    "code.stack-frame": ('  File "app.py", line 3, in <module>', "File a bug about line 3"),
    "code.tool-error": ("npm ERR! code ENOENT", "npm errors are noisy"),
    "code.excerpt": ("    ^^^^^^", "^^ agreed"),
    "code.sql": ("SELECT id FROM users;", "Select the rows you want\nUPDATE: the deploy is done"),
    "code.declaration": ("pub fn parse(input: &str) -> Result<Ast>", "fun fact: tabs beat spaces"),
    "code.import": ("from pathlib import Path", "import the CSV into the sheet"),
    "code.decorator": ("@pytest.fixture", "@marta"),
    "code.statement-end": ("  return x;", "Done; moving on"),
    # review
    "review.verdict-item": ("- [FAIL] no rate limit", "- [x] write the docs"),
    "review.checkmark": ("✅ lint", "Approved ✅"),
    "review.lint-line": ("app/models.py:14:1: F401 unused import", "see app/models.py line 14"),
    "review.summary-count": ("Found 3 errors.", "after 3 failed attempts the account locks"),
    "review.comment-label": ("nit: rename this", "the suggestion: keep it"),
    "review.header": ("Verdict: changes requested", "non-blocking I/O in the gateway"),
    "review.opener": ("Review of PR #12:", "Review the docs before Monday"),
    "review.rating": ("Overall: 7/10", "due on 12/10/2024"),
    "review.line-ref": ("L42: this leaks the handle", "line 42, in <module>"),
    "review.ci-status": ("CI is red again", "the build failed because the cache was stale"),
    "review.security-finding": ("Severity: High", "severity is subjective"),
    "review.benchmark": ("3.1x faster than before", "faster horses"),
    # context
    "context.background": ("For context, the service is old.", "Context switching is tiring"),
    "context.explanation": ("That's why the cache is cold.", "Why is the cache cold?"),
}


def _own_cases(pack: RulePack) -> dict[str, tuple[str, str]]:
    if pack.name == "reference":
        return REFERENCE_CASES
    return {**REFERENCE_CASES, **DEFAULT_CASES}


def _fired(text: str, pack: RulePack) -> set[str]:
    return {s.rule for s in score(text, pack).signals}


def _cases() -> list[object]:
    out: list[object] = []
    for name in ("reference", "default"):
        pack = builtin_pack(name)
        cases = _own_cases(pack)
        for rule in pack.rules:
            if rule.id in cases:
                out.append(pytest.param(name, rule.id, *cases[rule.id], id=f"{name}:{rule.id}"))
    return out


@pytest.mark.parametrize("pack_name", ["reference", "default"])
def test_every_rule_has_a_case(pack_name: str) -> None:
    pack = builtin_pack(pack_name)
    missing = [r.id for r in pack.rules if r.id not in _own_cases(pack)]
    assert not missing, f"rules of the {pack_name} pack without a positive/negative case: {missing}"


def test_every_added_or_changed_default_rule_has_its_own_case() -> None:
    reference = {r.id: r for r in builtin_pack("reference").rules}
    changed = [
        r.id
        for r in builtin_pack("default").rules
        if r.id not in reference or _key(r) != _key(reference[r.id])
    ]
    assert changed, "the default pack should differ from the reference"
    assert sorted(set(changed) - set(DEFAULT_CASES)) == []


def _key(rule: Rule) -> tuple[str | None, int, bool]:
    return (rule.pattern, rule.weight, rule.ignore_case)


def test_every_rule_has_an_id_and_a_description() -> None:
    for name in ("reference", "default"):
        for rule in builtin_pack(name).rules:
            assert rule.description, f"{name}:{rule.id} has no description"


@pytest.mark.parametrize(("pack_name", "rule_id", "positive", "negative"), _cases())
def test_rule_fires_on_positive_and_not_on_negative(
    pack_name: str, rule_id: str, positive: str, negative: str
) -> None:
    pack = builtin_pack(pack_name)
    assert rule_id in _fired(positive, pack), f"{rule_id} should fire on {positive!r}"
    assert rule_id not in _fired(negative, pack), f"{rule_id} should not fire on {negative!r}"
