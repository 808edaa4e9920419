"""`turnlens route`: text and JSON output, --explain, exit codes, model flags."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.router.router_testkit import ModelServer
from turnlens.cli import main


def run(tmp_path: Path, text: str, *flags: str) -> int:
    path = tmp_path / "prompt.md"
    path.write_text(text, encoding="utf-8")
    return main(["route", "--input", str(path), *flags])


def test_text_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(tmp_path, "ultrathink about the schema") == 0
    assert capsys.readouterr().out == "plan high (keyword)\n"


def test_text_output_of_a_classifier_route(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(tmp_path, "Rename utils.py to helpers.py and update the imports.") == 0
    assert capsys.readouterr().out == "apply low (classifier: bookkeeping)\n"


def test_no_route_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(tmp_path, "thanks, that was really helpful")
    assert capsys.readouterr().out == "none (classifier: chat)\n"
    run(tmp_path, "hi")
    assert capsys.readouterr().out == "none (short)\n"


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(tmp_path, "Explain why the build got slower last week.", "--json")
    data = json.loads(capsys.readouterr().out)
    assert list(data) == ["phase", "effort", "label", "source", "reason", "signals", "confidence"]
    assert (data["phase"], data["effort"], data["label"], data["source"]) == (
        "reflect",
        "high",
        "analysis",
        "classifier",
    )
    assert {"rule": "analysis.why", "class": "analysis", "weight": 3, "line": 1, "text": "why"} in data[
        "signals"
    ]


@pytest.mark.parametrize("text", ["good morning, ready when you are", "hi", "/help", "/route off", "x\n"])
def test_json_no_route_has_null_phase_and_effort(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    run(tmp_path, text, "--json")
    data = json.loads(capsys.readouterr().out)
    assert data["phase"] is None and data["effort"] is None


def test_explain_prints_reason_and_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(tmp_path, "Propose an approach with the trade-offs.", "--explain")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "plan high (classifier: design)"
    assert out[1].startswith("  confidence: ") and out[1].endswith("%")
    assert out[2].startswith("  why: embedded labeler: design ")
    assert any("design.tradeoffs" in line and "line 1: 'trade-offs'" in line for line in out)


def test_no_input_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["route"]) == 2
    assert "no input" in capsys.readouterr().err


def test_missing_file_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["route", "--input", str(tmp_path / "nope.md")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_unknown_flag_is_a_usage_error() -> None:
    assert main(["route", "--stdin", "--frobnicate"]) == 2


def test_bad_timeout_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(tmp_path, "Fix the bug please", "--timeout-ms", "0") == 2
    assert "--timeout-ms" in capsys.readouterr().err


def test_bad_backend_is_a_usage_error(tmp_path: Path) -> None:
    assert run(tmp_path, "Fix the bug please", "--backend", "gpt") == 2


def test_stdin_with_invalid_utf8_and_crlf() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "turnlens", "route", "--stdin"],
        input=b"\xff\xfeultrathink\r\nabout it\r\n",
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0
    assert proc.stdout.decode() == "plan high (keyword)\n"


async def test_model_backend_flags(model_server: ModelServer, tmp_path: Path) -> None:
    """The CLI against the real test server (a subprocess: the CLI runs its own event loop)."""
    import asyncio

    model_server.answer = "coding"
    path = tmp_path / "p.md"
    path.write_text("Please take care of the importer for me, you know what to do.", encoding="utf-8")
    args = ["route", "--input", str(path), "--json", "--backend", "openai", "--model", "m"]
    args += ["--endpoint", f"{model_server.base}/v1", "--timeout-ms", "2000"]
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "turnlens", *args, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await proc.communicate()
    data = json.loads(out)
    assert (data["label"], data["effort"], data["source"]) == ("coding", "medium", "classifier")
    assert model_server.requests[0].path == "/v1/chat/completions"
