"""Every figure docs/security.md promises equals the one the code enforces.

Each entry pairs a phrase of the page (a regular expression whose groups are the figures, as
written there: `2,000`, `256 KB`, `50,000,000`) with the values the code holds — from the
settings schema (`turnlens schema`) where the figure is a setting, else from the constant that
enforces it. A figure that drifts fails here, and so does a phrase that is reworded (update the
entry with it).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "security.md"


def _setting(key: str, field: str = "default") -> Callable[[], int]:
    """A field of one setting in the settings schema (`turnlens schema`)."""

    def get() -> int:
        from turnlens.lsp.settings import flat_leaves

        return int(flat_leaves()[key][field])

    return get


def _const(module: str, name: str, scale: float = 1) -> Callable[[], int]:
    def get() -> int:
        import importlib

        return round(float(getattr(importlib.import_module(module), name)) * scale)

    return get


def _trial_kb() -> int:
    from turnlens.core.safe_re import _trial_text

    return round(len(_trial_text().encode()) / 1024)


# (what, phrase with the figures as groups, the code's values in group order)
FIGURES: list[tuple[str, str, list[Callable[[], int]]]] = [
    (
        "publishing under any settings or rules file",
        r"after at most ([\d,]+) seconds of its CPU time from opening it",
        [_const("tests.reliability.test_fuzz_hostile", "PUBLISH_BUDGET_S")],
    ),
    (
        "maxDocumentSize default",
        r"`turnlens\.maxDocumentSize` characters \(default ([\d,]+)\)",
        [_setting("maxDocumentSize")],
    ),
    (
        "the sample: whole up to sampleMax, else head and tail",
        r"trimmed text when it has at most ([\d,]+) code\s+points, otherwise its first ([\d,]+) and last ([\d,]+) code points",
        [_setting("router.sampleMax"), _setting("router.sampleHead"), _setting("router.sampleTail")],
    ),
    (
        "the sample cap",
        r"at most ([\d,]+) code points of a prompt\s+ever leave",
        [_setting("router.sampleMax", "maximum")],
    ),
    (
        "workspace sample settings cap",
        r"`sampleTail` accept at most ([\d,]+)",
        [_setting("router.sampleTail", "maximum")],
    ),
    (
        "short prompts are not sent",
        r"text under ([\d,]+)\s+characters",
        [_setting("router.minLength")],
    ),
    (
        "answer size limit",
        r"answer larger than ([\d,]+) KB is refused",
        [_const("turnlens.router.backends._http", "MAX_ANSWER_BYTES", 1 / 1024)],
    ),
    ("call timeout default", r"`router\.timeoutMs`, default\s+([\d,]+) ms", [_setting("router.timeoutMs")]),
    (
        "separator length",
        r"that is over ([\d,]+) characters, or that fails",
        [_const("turnlens.pipeline.formats.turns", "MAX_SEPARATOR_LENGTH")],
    ),
    (
        "glob length",
        r"a glob over ([\d,]+) characters",
        [_const("turnlens.lsp.documents", "MAX_GLOB_LENGTH")],
    ),
    ("glob count", r"at most ([\d,]+) globs are used", [_const("turnlens.lsp.config", "MAX_GLOBS")]),
    (
        "rules file size",
        r"over ([\d,]+) MB, not a regular file",
        [_const("turnlens.userfiles", "MAX_RULES_FILE", 1e-6)],
    ),
    (
        "group depth",
        r"groups nest at most ([\d,]+) deep",
        [_const("turnlens.core.safe_re", "MAX_GROUP_DEPTH")],
    ),
    (
        "repeat product",
        r"stay\s+at or under ([\d,]+)",
        [_const("turnlens.core.safe_re", "MAX_REPEAT_PRODUCT")],
    ),
    (
        "program size",
        r"has at most ([\d,]+) instructions",
        [_const("turnlens.core.safe_re", "MAX_PROGRAM_SIZE")],
    ),
    (
        "trial text and budget",
        r"a fixed ([\d,]+) KB text .*? takes at most\s+([\d,]+) ms",
        [_trial_kb, _const("turnlens.core.safe_re", "TRIAL_BUDGET_S", 1000)],
    ),
    ("trial runs", r"\(the best of (three) runs", [_const("turnlens.core.safe_re", "TRIAL_RUNS")]),
    (
        "per-rule budget",
        r"spends more than ([\d,]+) ms on one\s+turn",
        [_const("turnlens.core.engine", "USER_RULE_BUDGET_S", 1000)],
    ),
    (
        "per-rule budget (limitations)",
        r"after\s+it has spent its ([\d,]+) ms once",
        [_const("turnlens.core.engine", "USER_RULE_BUDGET_S", 1000)],
    ),
    (
        "error snippet",
        r"at most ([\d,]+) characters, \*\*after\*\*",
        [_const("turnlens.router.backends._http", "SNIPPET_CHARS")],
    ),
    (
        "secret run length",
        r"any run of ([\d,]+) or more of its characters",
        [_const("turnlens.router.backends", "_PIECE")],
    ),
    (
        "check's file limits",
        r"any other file over ([\d,]+) MB is skipped",
        [_const("turnlens.userfiles", "MAX_INPUT_BYTES", 1e-6)],
    ),
    (
        "input limits",
        r"refuse more than ([\d,]+) MB",
        [_const("turnlens.userfiles", "MAX_INPUT_BYTES", 1e-6)],
    ),
]

_WORDS = {"three": 3}


def _number(text: str) -> int:
    return _WORDS.get(text) or int(text.replace(",", ""))


@pytest.mark.parametrize(("what", "phrase", "values"), FIGURES, ids=[f[0] for f in FIGURES])
def test_security_page_figures_match_the_code(
    what: str, phrase: str, values: list[Callable[[], int]]
) -> None:
    doc = DOC.read_text(encoding="utf-8")
    m = re.search(phrase, doc, re.DOTALL)
    assert m is not None, f"{what}: the phrase is gone from docs/security.md ({phrase})"
    stated = [_number(g) for g in m.groups()]
    assert stated == [get() for get in values], what


def test_the_documented_size_limit_is_the_one_the_server_applies() -> None:
    """The schema's default is the settings model's default (the one the server applies)."""
    from turnlens.lsp.settings import Settings

    assert Settings().max_document_size == _setting("maxDocumentSize")()
