"""`turnlens check`: one line per turn, folders walked, odd files reported and never changed."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from tests.cli.conftest import Run, run_turnlens

Cli = Callable[..., Run]
SESSION = "Approved. Merge it.\r\n---TURN---\r\n\r\n  See SPEC-7 🚀 for details\r\n---TURN---\r\nthanks!\r\n"


def write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def test_text_format_one_line_per_turn(tmp_path: Path) -> None:
    write(tmp_path / "s.md", SESSION)
    result = run_turnlens("check", "s.md", "--rules", "reference", cwd=tmp_path)
    assert (result.code, result.err) == (0, "")
    lines = result.out.splitlines()
    # the class from the reference rules; the effort from the router's labeler (a model)
    assert [line.rsplit(" effort=", 1)[0] for line in lines] == [
        "s.md:1:1: decision ≤5:1 frozen=true SKIP",
        "s.md:4:3: spec ≤3:1 frozen=true SKIP",
        "s.md:6:1: chitchat ≤80:1 frozen=false COMPRESS",
    ]
    assert lines[2].endswith(" effort=none")  # "thanks!" is too short to route
    efforts = [
        r["route"]["effort"] if r["route"] else None
        for r in json.loads(
            run_turnlens("check", "s.md", "--rules", "reference", "--format", "json", cwd=tmp_path).out
        )
    ]
    assert [line.rsplit("=", 1)[1] for line in lines] == [e or "none" for e in efforts]


def test_json_format(cli: Cli, tmp_path: Path) -> None:
    path = write(tmp_path / "s.md", SESSION)
    result = cli("check", path, "--format", "json", "--rules", "reference")
    items = json.loads(result.out)
    assert [(i["line"], i["column"], i["turn"], i["class"]) for i in items] == [
        (1, 1, 1, "decision"),
        (4, 3, 2, "spec"),
        (6, 1, 3, "chitchat"),
    ]
    assert items[1]["path"] == str(path)
    assert list(items[0])[:4] == ["path", "line", "column", "turn"]
    assert {"class", "max_ratio", "frozen", "words", "lines", "scores", "verdict"} <= set(items[0])
    model = json.loads(cli("check", path, "--format", "json").out)
    assert [i["engine"] for i in model] == ["model"] * 3 and all(0 < i["confidence"] <= 1 for i in model)


def test_unsure_model_answers_are_marked(cli: Cli, tmp_path: Path) -> None:
    path = write(tmp_path / "s.md", SESSION)
    lines = cli("check", path).out.splitlines()
    items = json.loads(cli("check", path, "--format", "json").out)
    for line, item in zip(lines, items, strict=True):
        mark = "?" if item["confidence"] < 0.5 else ""
        assert f": {item['class']}{mark} ≤{item['max_ratio']}:1 " in line


def test_folders_are_walked_for_prompt_files(cli: Cli, tmp_path: Path) -> None:
    for name in ("a.md", "b.txt", "c.prompt", "d.prompt.md", "sub/e.md", "f.py", "g.json", ".hidden/h.md"):
        write(tmp_path / name, "thanks!")
    result = cli("check", tmp_path)
    seen = [Path(line.split(":")[0]).relative_to(tmp_path).as_posix() for line in result.out.splitlines()]
    assert seen == ["a.md", "b.txt", "c.prompt", "d.prompt.md", "sub/e.md"]


def test_empty_folder_is_a_usage_error(cli: Cli, tmp_path: Path) -> None:
    write(tmp_path / "notes.py", "x = 1")
    result = cli("check", tmp_path)
    assert (result.code, result.out) == (2, "")
    assert result.err == f"turnlens check: no *.md, *.txt, *.prompt*, *.json or *.jsonl files in {tmp_path}\n"


def test_missing_path_is_a_usage_error(cli: Cli, tmp_path: Path) -> None:
    result = cli("check", tmp_path / "nope")
    assert (result.code, result.err) == (2, f"turnlens check: {tmp_path / 'nope'}: no such file or folder\n")


def test_binary_file_is_skipped_with_a_warning(cli: Cli, tmp_path: Path) -> None:
    write(tmp_path / "image.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    write(tmp_path / "ok.md", "thanks!")
    result = cli("check", tmp_path)
    assert result.code == 0
    assert result.out == f"{tmp_path / 'ok.md'}:1:1: chitchat ≤80:1 frozen=false COMPRESS effort=none\n"
    assert result.err == f"turnlens: warning: {tmp_path / 'image.md'}: binary file skipped\n"


def test_invalid_utf8_is_replaced_with_one_warning(cli: Cli, tmp_path: Path) -> None:
    path = write(
        tmp_path / "bad.md",
        b"Approved \xff\xfe.\n---TURN---\nmore \xc3 bad \xe2\x82\n---TURN---\nthanks \xff",
    )
    result = cli("check", path)
    assert result.code == 0 and len(result.out.splitlines()) == 3
    assert result.err == f"turnlens: warning: {path}: invalid UTF-8 replaced with U+FFFD\n"


def test_nul_crlf_emoji_and_combining_marks_never_crash(cli: Cli, tmp_path: Path) -> None:
    late_nul = "x" * 9000 + "\x00 nul\r\n"  # past the binary sniff: read as text
    text = (
        "e\u0301\u0301\u0301 👍🏽 ok\r\n---TURN---\r\n" + late_nul + "---TURN---\r\n\u202e\u2028\ufeff—\r\n"
    )
    path = write(tmp_path / "odd.md", text)
    result = cli("check", path, "--format", "json")
    assert result.code == 0 and result.err == ""
    assert [i["line"] for i in json.loads(result.out)] == [1, 3, 5]


def test_ignored_turns_are_not_reported(cli: Cli, tmp_path: Path) -> None:
    path = write(tmp_path / "s.md", "a <!-- turnlens: ignore -->\n---TURN---\nthanks!\n")
    assert cli("check", path).out == f"{path}:3:1: chitchat ≤80:1 frozen=false COMPRESS effort=none\n"
    write(path, "<!-- turnlens: ignore-file -->\nthanks!\n")
    assert cli("check", path) == Run(0, "", "")


def test_files_are_never_modified(cli: Cli, tmp_path: Path) -> None:
    files = [
        write(tmp_path / "s.md", SESSION),
        write(tmp_path / "bad.txt", b"\xff\xfe\x00 mixed \r\n"),
        write(tmp_path / "bin.md", b"\x00\x01\x02"),
    ]
    old = 1_600_000_000_000_000_000
    for f in files:
        os.utime(f, ns=(old, old))
    before = [(f.read_bytes(), f.stat().st_mtime_ns) for f in files]
    cli("check", tmp_path, "--format", "json")
    cli("check", *files)
    assert [(f.read_bytes(), f.stat().st_mtime_ns) for f in files] == before


def test_parallel_run_gives_the_same_lines(tmp_path: Path) -> None:
    big = "Approved. Merge it.\n---TURN---\n" + ("context words " * 50 + "\n") * 3000
    for n in range(3):
        write(tmp_path / f"f{n}.md", big)  # 3 x ~2 MB: above the parallel threshold
    serial = run_turnlens("check", tmp_path, "--jobs", "1")
    parallel = run_turnlens("check", tmp_path, "--jobs", "2")
    assert serial.code == parallel.code == 0
    assert serial.out == parallel.out and len(serial.out.splitlines()) == 6
