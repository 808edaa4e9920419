"""A session's tool calls are untrusted text: read to name what they ran, never run, and read
only so far (docs/security.md)."""

from __future__ import annotations

import time

from turnlens.classifier import classify_unit
from turnlens.core.commands import command_of, main_command


def test_a_call_is_read_never_run_and_only_so_far() -> None:
    """A call is text from a file: its command is parsed (JSON, shell words) to name the program,
    never run; a call over 64 KB is not parsed, and only a command's first 4 KB are split."""
    huge = 'Bash: {"command": "cat <<EOF > big.txt\\n' + "x" * 100_000 + '\\nEOF"}'
    assert command_of(huge) is None
    long_command = "cat notes.md " + "a " * 10_000
    assert main_command(long_command)[0] == "cat" and len(main_command(long_command)) < 2100


def test_a_hostile_call_leaves_its_result_to_the_text() -> None:
    """Unclosed quotes, a nest of `bash -c`, a call that is not JSON and a run of escapes: the
    result is still classed among its kind's classes, without an error or a hang."""
    calls = [
        'Bash: {"command": "bash -c \'bash -c \\"bash -c \\\\\\"cat x\\\\\\"\\"\'"}',
        'Bash: {"command": "echo \'unclosed"}',
        "Bash: {not json",
        'exec: tools.exec_command({"cmd":"' + '\\"' * 5000 + '"})',
    ]
    for call in calls:
        started = time.process_time()
        answer = classify_unit("some output\nmore output", "tool_result", call=call)
        assert answer.task_class in ("spec", "code", "review", "context")
        assert time.process_time() - started < 5.0  # a CPU-time bound far above the ~0.2 ms it takes
