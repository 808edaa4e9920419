"""The ledger's fast read gives the answers of the ordinary path: same units, same classes.

The compaction hooks read a session without string positions (`spans=False`) and classify
its units in batches, with the one-class kinds and repeated texts answered without a model
call (`ledger.classified`). These tests hold that to `classify` unit by unit and to the
spanned reader, and check that an over-long line is passed over without being held.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.agents.conftest import COMPACTED, SESSION
from tests.agents.make_fixtures import Writer, session
from tests.formats.common import ask_user_question
from turnlens.agents import compaction
from turnlens.agents import ledger as ledger_module
from turnlens.agents.guard import in_doubt
from turnlens.agents.ledger import PENDING, Ledger, classified, turn_text
from turnlens.classifier import classify
from turnlens.core.kinds import allowed_classes
from turnlens.core.rules import builtin_pack
from turnlens.pipeline.formats import resolve
from turnlens.pipeline.formats.base import FormatOptions
from turnlens.pipeline.formats.jsonl import text_lines


def _units(path: Path, *, spans: bool) -> list[tuple[object, ...]]:
    text = path.read_text(encoding="utf-8")
    reader = resolve("claude-code", str(path), "")
    out = reader.stream(text_lines(text), FormatOptions(), [], spans=spans)  # type: ignore[attr-defined]
    return [(u.index, u.line, u.role, u.kind, u.text, u.pin) for u in out]


def _mixed(tmp_path: Path) -> Path:
    """The fixture session, then tool traffic of every class a kind allows: commands and
    writes (one class), look-ups, a todo list, repeated results, a text with CR LF."""
    w = session()
    for n in range(3):
        tid = w.assistant(
            "Editing.", ("Edit", {"file_path": "app/limiter.py", "old_string": "a", "new_string": "b"})
        )
        assert tid
        w.tool_result(tid, "The file app/limiter.py has been updated.")
        tid = w.assistant("Listing.", ("Glob", {"pattern": f"app/**/*{n}.py"}))
        assert tid
        w.tool_result(tid, "app/limiter.py\r\napp/middleware.py\r\n")
        tid = w.assistant(
            "Planning.", ("TodoWrite", {"todos": [{"content": "wire the header", "status": "pending"}]})
        )
        assert tid
        w.tool_result(tid, "Todos have been modified successfully.")
        tid = w.assistant("Running.", ("Bash", {"command": f"ruff check app\r\nmypy app {n}"}))
        assert tid
        w.tool_result(
            tid, 'Traceback (most recent call last):\n  File "app/limiter.py", line 3\nValueError: rate'
        )
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(w.lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("name", ["session", "compacted", "mixed"])
def test_plain_read_gives_the_spanned_units(name: str, tmp_path: Path) -> None:
    path = {"session": SESSION, "compacted": COMPACTED}.get(name) or _mixed(tmp_path)
    spanned = _units(path, spans=True)
    assert len(spanned) > 40
    assert _units(path, spans=False) == spanned


def test_classified_is_classify_unit_by_unit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ledger_module, "BATCH_UNITS", 7)  # several batches, and a part-filled last one
    path = _mixed(tmp_path)
    text = path.read_text(encoding="utf-8")
    reader = resolve("claude-code", str(path), "")
    units = list(reader.stream(text_lines(text), FormatOptions(), [], spans=False))  # type: ignore[attr-defined]
    kinds = {u.kind for u in units}
    assert {"prompt", "reply", "tool_call", "tool_result"} <= kinds
    pack = builtin_pack("default")
    got = list(classified(units))
    assert [u for u, _, _, _ in got] == units
    answers = [classify(u.text, pack, pin=u.pin, kind=u.kind, call=u.call) for u in units]
    want = [(c.task_class, c.words) for c in answers]
    assert [(name, words) for _, name, words, _ in got] == want
    assert "code" in {name for u, name, _, _ in got if u.kind == "tool_call"}
    # in doubt: the guard's own answer for each unit, from the same classification
    assert [doubt for _, _, _, doubt in got] == [
        None if u.pin is not None else in_doubt(c, u.role, u.kind)
        for u, c in zip(units, answers, strict=True)
    ]


def _fresh_ledger(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Ledger:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    led = Ledger(str(path), "claude-code")
    led.update(time.monotonic() + 600)
    return led


def test_an_over_long_line_is_passed_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = SESSION.read_text(encoding="utf-8").splitlines()
    whole = _fresh_ledger(SESSION, tmp_path / "a", monkeypatch)
    monkeypatch.setattr(ledger_module, "MAX_LINE_BYTES", 4096)
    w = Writer()
    w.user("x " * 5000)  # a line of ~10 KB: over the limit
    path = tmp_path / "long.jsonl"
    path.write_text("\n".join([*lines[:3], w.lines[0], *lines[3:]]) + "\n", encoding="utf-8")
    led = _fresh_ledger(path, tmp_path / "b", monkeypatch)
    assert led.complete
    assert led.data["offset"] == path.stat().st_size
    assert led.data["line"] == len(lines) + 1
    # every unit of the session is read, the long one is not
    assert led.data["units"] == whole.data["units"]
    assert [(t.task_class, t.quote) for t in led.frozen_turns()] == [
        (t.task_class, t.quote) for t in whole.frozen_turns()
    ]
    frozen = led.frozen_turns()[0]
    assert turn_text(str(path), "claude-code", frozen.line, frozen.offset, frozen.digest, ("prompt",))


def test_an_unfinished_over_long_last_line_waits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ledger_module, "MAX_LINE_BYTES", 4096)
    text = SESSION.read_text(encoding="utf-8")
    path = tmp_path / "growing.jsonl"
    path.write_text(
        text + json.dumps({"type": "user", "message": {"content": "y " * 5000}})[:9000], encoding="utf-8"
    )
    led = _fresh_ledger(path, tmp_path, monkeypatch)
    assert led.data["offset"] == len(text.encode("utf-8"))  # stopped before the unfinished line
    assert led.complete  # every finished line is read; the last one is read once it is finished


def _ledger(path: Path, state: Path, monkeypatch: pytest.MonkeyPatch, quick: float | None) -> Ledger:
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    led = Ledger(str(path), "claude-code")
    led.update(time.monotonic() + 600, quick=quick)
    return led


@pytest.mark.parametrize("name", ["mixed", "compacted"])
def test_a_quick_read_defers_tool_traffic_only_and_catches_up(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = COMPACTED if name == "compacted" else _mixed(tmp_path)
    exact = _ledger(path, tmp_path / "exact", monkeypatch, None)
    assert exact.pending() == 0 and PENDING not in exact.totals("session")
    monkeypatch.setattr(ledger_module, "QUICK_MIN_BYTES", 0)
    quick = _ledger(path, tmp_path / "quick", monkeypatch, 0.0)  # tool units wait
    waiting = quick.pending()
    text = path.read_text(encoding="utf-8")
    reader = resolve("claude-code", str(path), "")
    units = list(reader.stream(text_lines(text), FormatOptions(), [], spans=False))  # type: ignore[attr-defined]
    # the tool units the model must read: those whose kind, shape or call leave more than one class
    tools = [u for u in units if u.kind in ("tool_call", "tool_result")]
    needs_model = [u for u in tools if len(allowed_classes(u.kind, u.text, u.call) or ()) != 1]
    assert waiting == len(needs_model)
    if name == "mixed":
        assert waiting > 0
    # prompts and replies are all classified: the frozen turns are the exact read's
    assert quick.frozen_turns() == exact.frozen_turns()
    assert quick.data["units"] == exact.data["units"]
    for scope in ("session", "context"):
        got, want = quick.totals(scope), exact.totals(scope)
        assert sum(r[0] for r in got.values()) == sum(r[0] for r in want.values())
        assert sum(r[1] for r in got.values()) == sum(r[1] for r in want.values())
    assert quick.totals("session").get(PENDING, (0, 0))[0] == waiting
    # the next calls classify what waited, a part each, until the figures are the exact read's
    calls = 0
    while quick.pending():
        calls += 1
        assert calls < 100
        again = Ledger(str(path), "claude-code")
        again.update(time.monotonic() + 600, quick=None if calls > 3 else 0.0)
        assert again.pending() <= quick.pending()
        quick = again
    for scope in ("session", "context"):
        assert quick.totals(scope) == exact.totals(scope)
    assert compaction.instructions(quick, 200_000) == compaction.instructions(exact, 200_000)


def test_a_small_read_is_never_deferred(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    led = _ledger(SESSION, tmp_path, monkeypatch, 10.0)  # under QUICK_MIN_BYTES: all classified
    assert led.pending() == 0


def test_the_instructions_say_what_waits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ledger_module, "QUICK_MIN_BYTES", 0)
    quick = _ledger(_mixed(tmp_path), tmp_path / "q", monkeypatch, 0.0)
    text = compaction.instructions(quick, 200_000)
    assert text is not None
    assert f"{quick.pending():,} tool call(s) and result(s) read but not classified yet" in text


def test_units_left_to_classify_start_the_background_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from turnlens.agents import warm

    monkeypatch.setattr(ledger_module, "QUICK_MIN_BYTES", 0)
    path = _mixed(tmp_path)
    quick = _ledger(path, tmp_path / "q", monkeypatch, 0.0)
    assert quick.data["offset"] == path.stat().st_size and quick.pending() > 0
    assert warm.behind(str(path), "claude-code") < warm.WARM_MIN_BYTES  # fewer than WARM_MIN_UNITS
    monkeypatch.setattr(warm, "WARM_MIN_UNITS", quick.pending())
    assert warm.behind(str(path), "claude-code") >= warm.WARM_MIN_BYTES


def test_a_first_read_restores_from_the_texts_it_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.agents.conftest import SUMMARY

    cold = _ledger(COMPACTED, tmp_path, monkeypatch, None)
    assert cold.texts and all(t.digest in cold.texts for t in cold.frozen_turns())
    warm = _ledger(COMPACTED, tmp_path, monkeypatch, None)  # remembered: nothing read, nothing held
    assert not warm.texts
    turns = cold.frozen_turns()
    a, b = compaction.lost_turns(cold, turns, SUMMARY), compaction.lost_turns(warm, turns, SUMMARY)
    assert [x.turn for x in a.lost] == [x.turn for x in b.lost] and len(a.lost) >= 2
    assert [x.text for x in a.restored] == [x.text for x in b.restored]
    assert a.skipped == b.skipped


def test_damaged_waiting_rows_are_dropped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from turnlens.agents import state

    monkeypatch.setattr(ledger_module, "QUICK_MIN_BYTES", 0)
    path = _mixed(tmp_path)
    quick = _ledger(path, tmp_path / "q", monkeypatch, 0.0)
    good = quick.pending()
    quick.data["deferred"] += [["x"], [1, 2, -3, 0, "tool_result", 4], [1, 2, 10**12, 0, "tool_call", 4], 7]
    state.save_session(quick.key, quick.data)
    again = Ledger(str(path), "claude-code")
    again.update(time.monotonic() + 600, quick=0.0)
    assert again.pending() == good
    again.update(time.monotonic() + 600, quick=None)
    assert again.pending() == 0


def test_the_persons_answer_to_a_question_is_kept_and_given_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent asks with AskUserQuestion; the person's pick comes back as the tool's result.
    It is a decision (`core.kinds`), so the ledger keeps it with the frozen prompts, and a
    compaction summary that leaves it out gets it back word for word."""
    from tests.agents.make_fixtures import SUMMARY, compacted

    answer = (
        'User has answered your questions: "Where do the buckets live when Redis is down?"='
        '"Fail open: serve without limits and log". You can now continue with the user\'s answers in mind.'
    )
    w = session()
    question = ask_user_question(
        "Where do the buckets live when Redis is down?",
        "Redis down",
        ("Fail open: serve without limits and log", "No outage"),
        ("Fail closed: answer 503", "No unlimited traffic"),
    )
    tid = w.assistant("One choice is yours before I go on.", ("AskUserQuestion", question))
    assert tid
    w.tool_result(tid, answer)
    w.assistant("Failing open, then: the limiter logs and lets requests through while Redis is down.")
    path = tmp_path / "asked.jsonl"
    path.write_text("\n".join(compacted(w).lines) + "\n", encoding="utf-8")
    led = _ledger(path, tmp_path / "state", monkeypatch, None)
    turns = led.frozen_turns()
    (kept,) = [t for t in turns if t.kind == "tool_result"]
    assert kept.task_class == "decision" and kept.quote.startswith("User has answered your questions")
    # no other tool result is kept: a test run's verdict, a file read, a todo list stay out
    assert all(t.kind in ("prompt", "reply") for t in turns if t is not kept)
    found = compaction.lost_turns(led, turns, SUMMARY)
    assert answer in [x.text for x in found.restored]
