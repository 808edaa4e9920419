"""Bad and hostile input: every hook and the status line answer nothing, exit 0, log one line.

Where not stalling is the behaviour (a FIFO, /dev/zero, stdin that never closes), the
child's CPU time is bounded generously and a wall-clock guard only catches a hang.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
from pathlib import Path

import pytest

from tests.agents.conftest import SESSION, Runner, command, payload

EVENTS = ("PreCompact", "PostCompact", "SessionStart", "UserPromptSubmit")


def _with(event: str, **fields: object) -> bytes:
    base = json.loads(
        payload(
            "claude-code",
            event if event != "statusline" else "statusline",
            transcript=str(SESSION),
            prompt="ultrathink about it",
            summary="s",
        )
    )
    base.update(fields)
    return json.dumps(base).encode()


BAD_PAYLOADS = {
    "empty": b"",
    "not-json": b"this is not JSON {",
    "array": b"[1, 2, 3]",
    "string": b'"PreCompact"',
    "null": b"null",
    "deep": b"[" * 200_000 + b"]" * 200_000,
    "deep-object": b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
    "binary": bytes(range(256)) * 64,
    "huge": b'{"prompt": "' + b"x" * (9 * 1024 * 1024) + b'"}',
}


@pytest.mark.parametrize("name", sorted(BAD_PAYLOADS))
@pytest.mark.parametrize("event", [*EVENTS, "statusline"])
def test_a_bad_payload_is_a_logged_no_op(turnlens: Runner, event: str, name: str) -> None:
    args = ["statusline"] if event == "statusline" else ["hook", event]
    run = turnlens(*args, stdin=BAD_PAYLOADS[name])
    assert (run.code, run.out, run.err) == (0, "", "")
    assert run.log.count("\n") == 1 and "no-op" in run.log


PATHS = [{"transcript_path": 42}, {"transcript_path": ["a", "b"]}, {"transcript_path": None}]
WRONG_TYPES = {
    "PreCompact": [*PATHS, {"hook_event_name": "Stop"}],
    "PostCompact": [*PATHS, {"hook_event_name": "Stop"}, {"compact_summary": ["x"]}],
    "SessionStart": [*PATHS, {"hook_event_name": "Stop"}, {"source": 3}, {"source": ["compact"]}],
    "UserPromptSubmit": [
        {"prompt": {"text": "ultrathink"}},
        {"prompt": 7},
        {"prompt": None},
        {"hook_event_name": "Stop"},
    ],
}
CASES = [(event, fields) for event, cases in WRONG_TYPES.items() for fields in cases]


@pytest.mark.parametrize(
    ("event", "fields"), CASES, ids=[f"{e}-{next(iter(f))}-{next(iter(f.values()))!r}" for e, f in CASES]
)
def test_a_field_the_hook_reads_of_the_wrong_type_gives_no_answer(
    turnlens: Runner, event: str, fields: dict[str, object]
) -> None:
    run = turnlens("hook", event, stdin=_with(event, **fields))
    assert (run.code, run.out, run.err) == (0, "", "")


def _special(tmp_path: Path, kind: str) -> str:
    if kind == "fifo":
        path = tmp_path / "session.fifo"
        os.mkfifo(path)
        return str(path)
    if kind == "missing":
        return str(tmp_path / "nowhere.jsonl")
    if kind == "directory":
        return str(tmp_path)
    if kind == "zero":
        return "/dev/zero"
    if kind == "not-a-session":
        path = tmp_path / "notes.jsonl"
        path.write_bytes(b"\x00\xff" * 5000 + b"\n")
        return str(path)
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["fifo", "missing", "directory", "zero", "not-a-session"])
@pytest.mark.parametrize("event", ["PreCompact", "SessionStart", "statusline"])
def test_a_transcript_that_is_not_a_readable_session_is_a_no_op(
    turnlens: Runner, tmp_path: Path, event: str, kind: str
) -> None:
    path = _special(tmp_path, kind)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    if event == "statusline":
        run = turnlens("statusline", stdin=payload("claude-code", "statusline", transcript=path))
    else:
        run = turnlens("hook", event, stdin=payload("claude-code", event, transcript=path))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert cpu < 30  # normal: well under a second
    assert (run.code, run.err) == (0, "")
    if kind == "not-a-session" and event == "statusline":
        assert run.out == "" or "plan 0/" in run.out
    else:
        assert run.out == ""
        assert "no-op" in run.log


def test_a_huge_transcript_is_refused_before_it_is_read(turnlens: Runner, tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    with path.open("wb") as f:
        f.truncate(300 * 1024 * 1024)  # sparse: no disk used
    run = turnlens("hook", "PreCompact", stdin=payload("claude-code", "PreCompact", transcript=str(path)))
    assert (run.code, run.out) == (0, "")
    assert "larger than" in run.log


def test_stdin_that_never_closes_ends_at_the_deadline(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TURNLENS_")}
    env.update(XDG_STATE_HOME=str(tmp_path / "state"), TURNLENS_HOOK_DEADLINE="1")
    proc = subprocess.Popen(
        [*command(), "hook", "UserPromptSubmit"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdin is not None
    proc.stdin.write(b'{"prompt": "ultrathink')  # and never more, never closed
    proc.stdin.flush()
    code = proc.wait(timeout=120)  # stdin still open; the wait is only a hang guard (deadline 1 s)
    proc.stdin.close()
    assert proc.stdout is not None and proc.stderr is not None
    assert (code, proc.stdout.read(), proc.stderr.read()) == (0, b"", b"")
    log = (tmp_path / "state" / "turnlens" / "hooks.log").read_text(encoding="utf-8")
    assert "deadline" in log


def test_an_unwritable_state_folder_does_not_change_the_answer(turnlens: Runner, tmp_path: Path) -> None:
    blocker = tmp_path / "blocked"
    blocker.write_text("a file where the state folder would go")
    good = turnlens("hook", "PreCompact", stdin=payload("claude-code", "PreCompact", transcript=str(SESSION)))
    blocked = turnlens(
        "hook",
        "PreCompact",
        stdin=payload("claude-code", "PreCompact", transcript=str(SESSION)),
        env={"XDG_STATE_HOME": str(blocker)},
    )
    assert blocked.code == 0 and blocked.out == good.out != ""


def test_a_relative_xdg_state_home_is_ignored(turnlens: Runner, tmp_path: Path) -> None:
    run = turnlens(
        "hook", "PreCompact", stdin=b"nope", env={"XDG_STATE_HOME": "relative/state"}, cwd=tmp_path
    )
    assert run.code == 0
    assert not (tmp_path / "relative").exists()
    assert (tmp_path / "home" / ".local" / "state" / "turnlens" / "hooks.log").exists()


def test_the_hook_log_stays_small(turnlens: Runner, tmp_path: Path) -> None:
    from turnlens.agents.state import MAX_LOG_BYTES

    folder = tmp_path / "state" / "turnlens"
    folder.mkdir(parents=True)
    (folder / "hooks.log").write_bytes(b"old line\n" * (MAX_LOG_BYTES // 9 + 10))
    run = turnlens("hook", "PreCompact", stdin=b"nope")
    assert run.code == 0
    assert (folder / "hooks.log").stat().st_size < 1000
    assert (folder / "hooks.log.1").exists()


@pytest.mark.parametrize(
    "args",
    [
        ("hook", "PreCompactt"),
        ("hook", "PreCompact", "--frob", "1"),
        ("hook", "UserPromptSubmit", "--agent", "vim"),
    ],
)
def test_an_unknown_event_or_option_is_a_no_op_not_a_usage_error(
    turnlens: Runner, args: tuple[str, ...]
) -> None:
    # exit 2 would block the agent's prompt or compaction
    run = turnlens(*args, stdin=payload("claude-code", "PreCompact", transcript=str(SESSION)))
    assert (run.code, run.out, run.err) == (0, "", "")
    assert "no-op: unknown" in run.log


def test_install_with_a_bad_flag_is_a_usage_error(turnlens: Runner) -> None:
    run = turnlens("hook", "install", "--agent", "vim")
    assert run.code == 2 and "invalid choice" in run.err
