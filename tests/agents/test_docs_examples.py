"""docs/agents.md shows what the hooks print on the fixtures of tests/agents, exactly.

(Its examples are ```text blocks rather than run ```console blocks: running a hook writes to the
user's state folder, which a documentation test must not touch; here each runs with its own.)
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.agents.conftest import COMPACTED, SESSION, Runner, payload

PAGE = Path(__file__).resolve().parents[2] / "docs" / "agents.md"


def block_after(marker: str) -> str:
    """The ```text block that follows the first line containing `marker`."""
    text = PAGE.read_text(encoding="utf-8")
    at = text.index(marker)
    m = re.compile(r"```text\n(.*?)```", re.S).search(text, at)
    assert m is not None, marker
    return m.group(1)


def test_the_precompact_example_is_what_the_hook_prints(turnlens: Runner) -> None:
    run = turnlens("hook", "PreCompact", stdin=payload("claude-code", "PreCompact", transcript=str(SESSION)))
    assert run.out == block_after("On the session in `tests/agents/fixtures`")


def test_the_restore_example_is_what_the_hook_gives_back(turnlens: Runner) -> None:
    run = turnlens(
        "hook", "SessionStart", stdin=payload("claude-code", "SessionStart", transcript=str(COMPACTED))
    )
    restored = json.loads(run.out)["hookSpecificOutput"]["additionalContext"]
    assert restored == block_after("drops two decisions:")


def test_the_submit_example_is_what_the_hook_adds(turnlens: Runner) -> None:
    prompt = "ultrathink: how should the limiter fail when Redis is down?"
    run = turnlens(
        "hook",
        "UserPromptSubmit",
        stdin=payload("claude-code", "UserPromptSubmit", transcript=str(SESSION), prompt=prompt),
    )
    line = json.loads(run.out)["hookSpecificOutput"]["additionalContext"]
    assert line + "\n" == block_after("the labeler at 80 % or more")
