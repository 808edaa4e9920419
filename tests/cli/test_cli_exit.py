"""The console entry ends one-shot commands without the interpreter's teardown: what they
print must still all arrive, with the right exit code, also into a pipe closed early."""

from __future__ import annotations

import subprocess
import sys

from tests.cli.conftest import run_turnlens


def test_classify_prints_and_exits_with_its_code() -> None:
    r = run_turnlens(
        "classify", "--stdin", "--strict", "--json", stdin=b"Decision: we ship option B on Monday."
    )
    assert r.code == 1, r.err  # --strict: a frozen (SKIP) verdict exits 1
    assert r.out.startswith("{") and r.out.rstrip().endswith("}")
    assert '"verdict":"SKIP"' in r.out
    assert r.err == ""


def test_route_output_arrives_whole() -> None:
    r = run_turnlens("route", "--stdin", "--json", stdin=b"add a retry to the fetch helper and a test for it")
    assert r.code == 0, r.err
    assert r.out.rstrip().endswith("}")


def test_usage_errors_still_exit_2() -> None:
    r = run_turnlens("classify", "--stdin", "--input", "x.md")
    assert r.code == 2
    assert "turnlens" in r.err


def test_long_output_into_a_closed_pipe_is_quiet() -> None:
    """`turnlens classify --input SESSION | head -1`: no BrokenPipeError noise on stderr."""
    session = "\n---TURN---\n".join(f"thanks for message {i}" for i in range(3000))
    proc = subprocess.Popen(
        [sys.executable, "-m", "turnlens", "classify", "--stdin", "--from", "turns"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write(session.encode())
    proc.stdin.close()
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert first.strip()
    assert "Traceback" not in err and "BrokenPipe" not in err
