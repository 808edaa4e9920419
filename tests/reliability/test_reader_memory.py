"""Memory of the session readers stays within a small multiple of the input (docs/scale.md).

Bounds, not times: peak memory is measured with tracemalloc in this process, and as the peak
resident size of a `turnlens check` child process against the same child on a tiny file.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

from turnlens.pipeline.formats.jsonspan import loads_spanned
from turnlens.userfiles import jsonl_lines

from .conftest import report

MB = 1024 * 1024


def _record(text: str) -> str:
    return json.dumps({"type": "user", "message": {"role": "user", "content": text}, "sessionId": "s"})


def _peak(fn: object) -> int:
    tracemalloc.start()
    try:
        fn()  # type: ignore[operator]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_span_parser_memory_is_a_small_multiple_of_the_string() -> None:
    plain = _record("lorem ipsum dolor sit amet " * 300_000)  # ~8 MB, one string
    escaped = _record('line\n\t"quoted"\\ ' * 400_000)  # escapes all along
    for line in (plain, escaped):
        peak = _peak(lambda line=line: loads_spanned(line))
        # the decoded value and its span; the pattern used to keep ~120 bytes per character
        assert peak < 3 * len(line), (peak, len(line))


def test_streamed_lines_apply_the_limit_while_reading(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with path.open("w", encoding="utf-8") as f:
        f.write(_record("first prompt") + "\n")
        f.write('{"type": "user", "blob": "' + "é" * (24 * MB) + '"}\n')  # 48 MB of bytes
        f.write(_record("last prompt") + "\n")
    lines: list[tuple[int, int, str, bool]] = []
    peak = _peak(lambda: lines.extend(jsonl_lines(path, limit=MB)))
    assert peak < 4 * MB, peak  # the limit and a piece, never the line
    assert [n for n, *_ in lines] == [1, 2, 3]
    assert getattr(lines[1][2], "chars", None) == 24 * MB + len('{"type": "user", "blob": ""}')
    # the next line's offset counts the passed-over line's characters
    assert lines[2][1] == lines[1][1] + lines[1][2].chars + 1  # type: ignore[attr-defined]


_CHECK = """
import resource, sys
from turnlens.cli import main
try:
    main(["check", sys.argv[1]])
except SystemExit:
    pass
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _check_rss_kb(path: Path) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _CHECK, str(path)], capture_output=True, text=True, timeout=600
    )
    assert "Traceback" not in done.stderr, done.stderr
    return int(done.stdout.strip().splitlines()[-1])


def test_check_of_a_session_with_a_huge_message_stays_near_its_size(tmp_path: Path) -> None:
    small = tmp_path / "small.jsonl"
    small.write_text(_record("a short prompt to start") + "\n", encoding="utf-8")
    big = tmp_path / "big.jsonl"
    body = "please review this log\n" + "lorem ipsum dolor sit amet " * 600_000  # ~16 MB
    big.write_text("\n".join([_record("first prompt"), _record(body), _record("last one")]) + "\n")
    size = big.stat().st_size
    grown = (_check_rss_kb(big) - _check_rss_kb(small)) * 1024
    report(f"check of a {size / 1e6:.1f} MB one-message session: +{grown / 1e6:.0f} MB peak RSS (limit 8x)")
    # documented bound: a streamed session costs at most ~8 times its longest line (it was 120)
    assert grown < 8 * size, (grown, size)


_COMMAND = """
import resource, subprocess, sys
subprocess.run([sys.executable, "-m", "turnlens", "check", sys.argv[1]], stdout=subprocess.DEVNULL, check=False)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def _command_rss_kb(path: Path) -> int:
    """The peak resident size of `turnlens check PATH` as a user runs it (its own process)."""
    done = subprocess.run(
        [sys.executable, "-c", _COMMAND, str(path)], capture_output=True, text=True, timeout=600
    )
    assert "Traceback" not in done.stderr, done.stderr
    return int(done.stdout.strip().splitlines()[-1])


def test_check_of_a_whole_document_json_session_stays_a_small_multiple_of_it(tmp_path: Path) -> None:
    """A Gemini CLI session is one JSON document, parsed whole with the span of every string
    (it needed 206 MB for a 4 MB file): now a small multiple of the file."""
    fixture = Path(__file__).resolve().parents[1] / "formats" / "fixtures" / "gemini"
    session = json.loads((fixture / "session-2026-03-15T10-00-a1b2c3d4.json").read_text(encoding="utf-8"))
    small = tmp_path / "session-small.json"
    small.write_text(json.dumps(session), encoding="utf-8")
    messages = session["messages"]
    session["messages"] = [dict(m, id=f"{m['id']}-{i}") for i in range(4_000) for m in messages]
    big = tmp_path / "session-big.json"
    big.write_text(json.dumps(session), encoding="utf-8")
    size = big.stat().st_size
    grown = (_command_rss_kb(big) - _command_rss_kb(small)) * 1024
    report(f"check of a {size / 1e6:.1f} MB Gemini CLI session: +{grown / 1e6:.0f} MB peak RSS (limit 15x)")
    assert size > 3 * MB
    assert grown < 15 * size, (grown, size)
