"""What a new user meets first: hints that name commands which work, exits that mean what
they say, messages that say where, and figures with their units."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import shlex
import subprocess
import sys
import time
from pathlib import Path

from .conftest import run_turnlens

ROOT = Path(__file__).resolve().parents[2]


def _read_until(fd: int, needle: bytes, limit_s: float = 60.0) -> bytes:
    seen = b""
    deadline = time.monotonic() + limit_s
    while needle not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    return seen


def test_serve_at_a_terminal_suggests_commands_that_work_and_ctrl_d_quits_cleanly() -> None:
    main, other = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "turnlens", "serve"], stdin=other, stdout=other, stderr=other, close_fds=True
    )
    os.close(other)
    try:
        hint = _read_until(main, b"Ctrl-D quits").decode("utf-8", "replace")
        assert "Ctrl-D quits" in hint, hint
        suggested = re.findall(r"`(turnlens [^`]+)`", hint)
        assert suggested, hint
        os.write(main, b"\x04")  # Ctrl-D: end of input at the terminal
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(main)
    for command in suggested:  # each suggestion works on a real file
        argv = shlex.split(command.replace("FILE", "docs/examples/prompt.md"))[1:]
        done = run_turnlens(*argv, cwd=ROOT)
        assert done.code == 0, (command, done.err)


def test_check_of_a_named_file_that_is_no_transcript_is_an_error(tmp_path: Path) -> None:
    log = tmp_path / "app-log.jsonl"
    log.write_text('{"level":"info","msg":"started"}\n{"level":"warn","msg":"slow"}\n', encoding="utf-8")
    named = run_turnlens("check", log)
    assert named.code == 2, named
    assert named.err.startswith(f"turnlens: error: {log}: not a transcript"), named.err
    assert "skipped" not in named.err
    walked = run_turnlens("check", tmp_path)  # found in a folder walk: a note, and exit 0
    assert walked.code == 0 and "turnlens: warning:" in walked.err and "skipped" in walked.err, walked


def test_check_of_good_and_bad_named_files_prints_the_good_and_exits_2(tmp_path: Path) -> None:
    log = tmp_path / "app-log.jsonl"
    log.write_text('{"level":"info"}\n', encoding="utf-8")
    done = run_turnlens("check", ROOT / "docs" / "examples" / "prompt.md", log)
    assert done.code == 2 and "prompt.md:1:1: " in done.out, done


def test_eval_says_where_a_json_line_breaks_in_a_whole_sentence(tmp_path: Path) -> None:
    corpus = tmp_path / "mine.jsonl"
    corpus.write_text('{"text": "ship it", "label": "decision"}\n{"text": "unterminated\n', encoding="utf-8")
    done = run_turnlens("eval", "--corpus", corpus)
    assert f"{corpus}:2: invalid JSON (Unterminated string starting at column 10); row skipped" in done.err


def test_eval_names_the_engine_that_editors_use(tmp_path: Path) -> None:
    corpus = tmp_path / "mine.jsonl"
    rows = [{"text": "ship it", "label": "decision"}, {"text": "thanks!", "label": "chitchat"}]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = run_turnlens("eval", "--corpus", corpus).out
    assert out.splitlines()[0] == (
        "Engines: reference is the rules alone, for comparison; "
        "default (model) is what editors, check, classify and route use."
    )


def test_plan_says_which_figures_are_words_and_which_tokens() -> None:
    out = run_turnlens("plan", "--session", "docs/examples/session.md", "--budget", "400", cwd=ROOT).out
    lines = out.splitlines()
    assert lines[0].split()[-2:] == ["kept", "words"]
    total = lines[-2]
    kept = sum(int(line.split()[-1]) for line in lines[1:-2])
    assert re.fullmatch(rf" all\s+\d+\s+{kept}  ≈ {kept * 13 // 10} tokens \(1\.3 a word\)", total), total
    assert lines[-1].startswith(f"FITS: {kept * 13 // 10} planned tokens")


def _tiny_corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "mine.jsonl"
    rows = [{"text": f"ship it {i}", "label": "decision"} for i in range(6)]
    rows += [{"text": f"thanks a lot {i}", "label": "chitchat"} for i in range(6)]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return corpus


def test_train_shows_its_progress_on_a_terminal_only(tmp_path: Path) -> None:
    corpus = _tiny_corpus(tmp_path)
    main, other = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "turnlens", "train", "--corpus", str(corpus), "--base", "none",
         "--out", str(tmp_path / "t.tlm")],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=other, close_fds=True,
    )  # fmt: skip
    os.close(other)
    try:
        shown = _read_until(main, b"\r\x1b[K\r\x1b[K", limit_s=120).decode("utf-8", "replace")
        out, _ = proc.communicate(timeout=120)
    finally:
        os.close(main)
    assert proc.returncode == 0
    assert "turnlens train: reading the features of 12 rows" in shown, shown
    assert re.search(r"turnlens train: fitting: pass 1 of \d+ over 12 rows \(\d+ s\)", shown), shown
    assert shown.endswith("\r\x1b[K"), shown  # the line is cleared at the end
    assert out.decode().startswith(f"{tmp_path / 't.tlm'}: classes model from 12 rows")
    piped = run_turnlens("train", "--corpus", corpus, "--base", "none", "--out", tmp_path / "u.tlm")
    assert piped.code == 0 and piped.err == ""  # nothing for a pipe or a log
