"""`turnlens classify`: text, JSON, --explain, --strict, --rules, project rules, awkward input."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.cli.conftest import Run, run_turnlens
from turnlens.core.classes import CLASS_NAMES

Cli = Callable[..., Run]
RULES = """
[[rule]]
id = "team.ship-emoji"
category = "decision"
weight = 5
pattern = "🚢"
description = "our team's ship emoji"

[[rule]]
id = "team.broken"
category = "nonsense"
weight = 1
pattern = "x"
"""


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_text_output_is_the_class(cli: Cli, tmp_path: Path) -> None:
    prompt = write(tmp_path / "p.md", "```python\nprint('hi')\n```\n")
    assert cli("classify", "--input", prompt) == Run(0, "code\n", "")


def test_stdin(cli: Cli) -> None:
    assert cli("classify", "--stdin", stdin=b"LGTM, merge it.") == Run(0, "decision\n", "")


def test_json_output(cli: Cli) -> None:
    result = cli("classify", "--stdin", "--json", "--rules", "reference", stdin="APPROVED — ship it".encode())
    assert result.code == 0 and result.out.count("\n") == 1
    data = json.loads(result.out)
    assert data == {
        "class": "decision",
        "max_ratio": 5,
        "frozen": "true",
        "words": 4,
        "lines": 1,
        "scores": {"decision": 5, "spec": 0, "code": 0, "review": 0, "context": 0, "chitchat": 3},
        "verdict": "SKIP",
        "confidence": 1.0,
        "engine": "rules",
    }


def test_json_of_the_model_keeps_every_se029_field_and_adds_confidence_and_engine(cli: Cli) -> None:
    data = json.loads(cli("classify", "--stdin", "--json", stdin="APPROVED — ship it".encode()).out)
    assert list(data)[:9] == [
        "class", "max_ratio", "frozen", "words", "lines", "scores", "verdict", "confidence", "engine",
    ]  # fmt: skip
    assert data["engine"] == "model" and isinstance(data["confidence"], float)
    assert 0 < data["confidence"] <= 1
    assert isinstance(data["frozen"], str) and all(isinstance(v, int) for v in data["scores"].values())


def test_explain_shows_scores_and_fired_rules_with_lines(cli: Cli) -> None:
    result = cli("classify", "--stdin", "--explain", stdin=b"intro line\nSee SPEC-7 for details")
    lines = result.out.splitlines()
    assert lines[0].rstrip("?") in CLASS_NAMES
    assert lines[1].endswith(" · 6 words, 2 lines")
    assert lines[2].startswith(f"  model: {lines[0].rstrip('?')} ") and "%" in lines[2]
    assert "  features that pushed it:" in lines
    assert any(line.startswith("    +3 spec     spec.ticket            line 2: 'SPEC-7'") for line in lines)
    assert any(
        line.startswith("    +3 chitchat chitchat.short") and "at most 8 words" in line for line in lines
    )
    assert lines[-1] == "  rule scores: decision 0  spec 3  code 0  review 0  context 0  chitchat 3"


def test_explain_says_a_text_that_opens_with_reasoning_is_thinking(cli: Cli) -> None:
    thought = b"<think>The tests fail on the date filter; read export.py next.</think>\n\nReading it now."
    result = cli("classify", "--stdin", "--explain", stdin=thought)
    lines = result.out.splitlines()
    assert lines[0] == "context" and lines[2].startswith("  model: context 100.0%")
    assert lines[3] == "  kind: thinking — the text opens with the agent's reasoning, which is context"
    plain = cli("classify", "--stdin", "--explain", stdin=b"Please read export.py and fix the date filter.")
    assert "  kind:" not in plain.out


def test_explain_with_the_reference_pack_shows_the_rule_scores(cli: Cli) -> None:
    result = cli(
        "classify",
        "--stdin",
        "--explain",
        "--rules",
        "reference",
        stdin=b"intro line\nSee SPEC-7 for details",
    )
    lines = result.out.splitlines()
    assert lines[0] == "spec"
    assert not any(line.startswith("  model:") for line in lines)
    assert "    +3 spec     spec.ticket            line 2: 'SPEC-7'" in lines


def test_explain_json_has_signals(cli: Cli) -> None:
    data = json.loads(cli("classify", "--stdin", "--json", "--explain", stdin=b"x\n- [FAIL] no tests").out)
    signal = next(s for s in data["signals"] if s["rule"] == "review.verdict-item")
    assert {k: signal[k] for k in ("rule", "class", "weight", "line", "text")} == {
        "rule": "review.verdict-item",
        "class": "review",
        "weight": 3,
        "line": 2,
        "text": "[FAIL]",
    }
    assert isinstance(signal["model_weight"], float)
    assert abs(sum(data["probabilities"].values()) - 1) < 0.01
    assert data["features"] and all(f["weight"] > 0 for f in data["features"])


def test_strict_exits_1_on_skip_only(tmp_path: Path) -> None:
    frozen = run_turnlens("classify", "--stdin", "--strict", stdin=b"Decision: we keep Postgres.")
    assert (frozen.code, frozen.out) == (1, "decision\n")
    loose = run_turnlens("classify", "--stdin", "--strict", stdin=b"thanks!")
    assert (loose.code, loose.out) == (0, "chitchat\n")


def test_rules_by_name(cli: Cli) -> None:
    text = b"CASE-12 is closed"
    assert cli("classify", "--stdin", "--rules", "reference", stdin=text).out == "spec\n"
    assert cli("classify", "--stdin", "--rules", "default", stdin=text).out.rstrip("?\n") != "spec"


def test_rules_file_adds_rules_and_skips_a_bad_one_with_a_warning(cli: Cli, tmp_path: Path) -> None:
    rules = write(tmp_path / "team.toml", RULES)
    result = cli("classify", "--stdin", "--explain", "--rules", rules, stdin="🚢".encode())
    assert result.out.splitlines()[0] == "decision"
    assert "team.ship-emoji" in result.out
    assert result.err == (
        f"turnlens: warning: {rules}: rule 'team.broken': unknown class 'nonsense' "
        "(expected one of: decision, spec, code, review, context, chitchat) (rule skipped)\n"
    )


def test_missing_rules_file_is_a_usage_error(cli: Cli, tmp_path: Path) -> None:
    result = cli("classify", "--stdin", "--rules", tmp_path / "nope.toml", stdin=b"x")
    assert result.code == 2 and result.out == ""
    assert result.err.startswith(f"turnlens: --rules {tmp_path / 'nope.toml'}: no such file")
    assert result.err.count("\n") == 1


def test_project_rules_file_is_found_upward_from_the_input(cli: Cli, tmp_path: Path) -> None:
    write(tmp_path / "repo" / ".turnlens.toml", RULES)
    prompt = write(tmp_path / "repo" / "prompts" / "deep" / "p.md", "ok 🚢")
    result = cli("classify", "--input", prompt, "--explain")
    assert result.out.splitlines()[0] == "decision" and "team.ship-emoji" in result.out
    assert "team.broken" in result.err
    outside = write(tmp_path / "elsewhere" / "p.md", "ok 🚢")
    assert cli("classify", "--input", outside).out == "chitchat\n"


def test_inline_directive_pins_the_class(cli: Cli) -> None:
    data = json.loads(
        cli("classify", "--stdin", "--json", stdin=b"thanks! <!-- turnlens: class=review -->").out
    )
    assert (data["class"], data["pinned"], data["scores"]["chitchat"]) == ("review", True, 3)


def test_awkward_bytes_never_crash_and_warn_once(tmp_path: Path) -> None:
    raw = (
        "Approved 🚀\r\nmañana — e\u0301\u0301\u0301 ok\r\n".encode()
        + b"\xff\xfe bad \xc3 bytes \x00 nul\x00\r\n"
        + b"\xed\xa0\x80 surrogate\r\n"
    )
    result = run_turnlens("classify", "--stdin", "--json", "--rules", "reference", stdin=raw)
    assert result.code == 0
    data = json.loads(result.out)
    assert data["class"] == "decision" and data["lines"] == 4
    assert result.err == "turnlens: warning: <stdin>: invalid UTF-8 replaced with U+FFFD\n"
    result = run_turnlens("classify", "--stdin", "--json", stdin=raw)
    data = json.loads(result.out)
    assert data["class"] in CLASS_NAMES and data["engine"] == "model" and data["lines"] == 4
    assert result.err == "turnlens: warning: <stdin>: invalid UTF-8 replaced with U+FFFD\n"


def test_input_file_is_never_modified(cli: Cli, tmp_path: Path) -> None:
    prompt = write(tmp_path / "p.md", b"Approved.\r\n\xff\x00 odd bytes\r\n")
    before = (prompt.read_bytes(), prompt.stat().st_mtime_ns)
    cli("classify", "--input", prompt, "--json", "--explain")
    assert (prompt.read_bytes(), prompt.stat().st_mtime_ns) == before


def test_a_session_file_is_classified_message_by_message(cli: Cli) -> None:
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "docs" / "examples" / "claude-session.jsonl"
    result = cli("classify", "--input", example)
    assert result.code == 0, result.err
    lines = [line.split("\t") for line in result.out.splitlines()]
    assert [line[0] for line in lines] == [str(i) for i in range(1, len(lines) + 1)]
    assert [line[1] for line in lines].count("user prompt") == 3
    as_json = json.loads(cli("classify", "--input", example, "--json").out)
    assert [item["class"] for item in as_json] == [line[2].rstrip("?") for line in lines]
    # plain text stays one prompt, and naming a format the text is not in is a usage error
    assert cli("classify", "--input", example.with_name("session.md")).out.count("\n") == 1
    wrong = cli("classify", "--input", example.with_name("session.md"), "--from", "claude-code")
    assert wrong.code == 2 and "not a Claude Code session" in wrong.err
