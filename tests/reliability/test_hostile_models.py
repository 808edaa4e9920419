"""Model files (`turnlens.models`, `--model`, `$TURNLENS_MODELS`) are data from wherever a path
points: read with bounds, validated, chosen in user settings only, and cached without leaking."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from turnlens.learn.model import MAX_HEADER_DEPTH, Model, ModelError, packaged_model
from turnlens.userfiles import MAX_MODEL_FILE, ModelCache, load_model_file, model_path

from .conftest import Spawn, report
from .rawlsp import rss_kib

MAGIC = b"TURNLENS-MODEL-1\n"


def _fresh(task: str = "classes") -> Model:
    return Model.from_bytes(packaged_model(task).to_bytes())


def _with_header(data: bytes, header: str) -> bytes:
    """`data` with its JSON header replaced by `header` (vocabulary and weights kept)."""
    pos = len(MAGIC)
    n = int.from_bytes(data[pos : pos + 4], "little")
    head = header.encode("utf-8")
    return MAGIC + len(head).to_bytes(4, "little") + head + data[pos + 4 + n :]


def _header(data: bytes) -> dict[str, Any]:
    pos = len(MAGIC)
    n = int.from_bytes(data[pos : pos + 4], "little")
    parsed: dict[str, Any] = json.loads(data[pos + 4 : pos + 4 + n])
    return parsed


def _with_meta(head: dict[str, Any], meta: str) -> str:
    """The header's JSON with `meta` written as given (too deep for `json` to write itself)."""
    rest = json.dumps({k: v for k, v in head.items() if k != "meta"})
    return rest[:-1] + ', "meta": ' + meta + "}"


def bad_models() -> dict[str, bytes]:
    good = _fresh().to_bytes()
    head = _header(good)
    nan = _fresh()
    nan.weights[0][0] = math.nan
    inf = _fresh()
    inf.weights[2][5] = math.inf
    return {
        "nan-weight": nan.to_bytes(),
        "inf-weight": inf.to_bytes(),
        "nan-bias": _with_header(good, json.dumps({**head, "bias": [math.nan] * 6})),
        "infinity-bias": _with_header(good, json.dumps({**head, "bias": [1e999] * 6})),
        "huge-weight-scale": _with_header(good, json.dumps({**head, "dense_weight": 1e300})),
        "unknown-class": _with_header(
            good,
            json.dumps(
                {**head, "classes": ["decision", "spec", "code", "review", "context", "[x](http://e)"]}
            ),
        ),
        "unknown-task": _with_header(good, json.dumps({**head, "task": "exfiltrate"})),
        "too-few-biases": _with_header(good, json.dumps({**head, "bias": [0.0]})),
        "deep-header": _with_header(good, _with_meta(head, "[" * 5000 + "]" * 5000)),
        "deeper-than-allowed": _with_header(
            good, _with_meta(head, "[" * MAX_HEADER_DEPTH + "]" * MAX_HEADER_DEPTH)
        ),
        "cut-weights": good[:-4],
        "counts-wrong": _with_header(good, json.dumps({**head, "counts": {"c": -1, "w": 0, "b": 0, "d": 0}})),
        "not-a-model": b"hello",
    }


@pytest.mark.parametrize("name", sorted(bad_models()))
def test_an_invalid_model_is_one_error_naming_the_file(tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.tlm"
    path.write_bytes(bad_models()[name])
    with pytest.raises(ModelError) as caught:
        load_model_file(path)
    assert str(path) in str(caught.value)


def test_a_valid_model_still_loads_and_answers_finite_numbers(tmp_path: Path) -> None:
    path = tmp_path / "ok.tlm"
    path.write_bytes(_fresh().to_bytes())
    model = load_model_file(path)
    assert model.classes == packaged_model("classes").classes
    labels = tmp_path / "labels.tlm"
    labels.write_bytes(_fresh("labels").to_bytes())
    assert load_model_file(labels).task == "labels"


def test_model_paths_that_are_not_files_are_refused_unread(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.tlm"
    os.mkfifo(fifo)
    big = tmp_path / "big.tlm"
    with big.open("wb") as f:  # sparse: 2 GB that take no disk
        f.truncate(2_000_000_000)
    tracemalloc.start()
    try:
        for path in (fifo, Path("/dev/zero"), Path("/dev/stdin"), big, tmp_path):
            with pytest.raises(ModelError):
                load_model_file(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < MAX_MODEL_FILE // 4, peak  # nothing was read
    for raw, words in (("a\0b.tlm", "NUL"), ("~no-such-user-turnlens/m.tlm", "home"), ("", "empty")):
        with pytest.raises(ModelError, match=words):
            model_path(raw)


def test_rewriting_a_model_file_does_not_grow_the_cache(tmp_path: Path) -> None:
    path = tmp_path / "m.tlm"
    cache = ModelCache()
    model = _fresh()
    tracemalloc.start()
    try:
        for i in range(12):
            model.bias[0] = float(i)
            path.write_bytes(model.to_bytes())
            os.utime(path, ns=(i * 10**9, i * 10**9))
            assert cache.load(path).bias[0] == float(i)
            if i == 1:
                base = tracemalloc.get_traced_memory()[0]
        grown = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert len(cache) == 1 and len(cache.models()) == 1
    assert grown < 2_000_000, grown  # ~3 MB a version before


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "turnlens", *args],
        capture_output=True,
        text=True,
        timeout=60,  # a FIFO used to block for ever
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
    )


def test_cli_bad_model_files_exit_2_with_one_line(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.tlm"
    os.mkfifo(fifo)
    paths = [str(fifo), "/dev/zero", "/dev/stdin", "a\0b", "~no-such-user-turnlens/m.tlm", str(tmp_path)]
    for name, data in bad_models().items():
        (tmp_path / f"{name}.tlm").write_bytes(data)
        paths.append(str(tmp_path / f"{name}.tlm"))
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("please review this diff")
    for raw in paths:
        if "\0" not in raw:  # an argument cannot hold a NUL; the variable is checked below
            done = _cli("classify", "--json", "--model", raw, "--input", str(prompt))
            lines = done.stderr.strip().splitlines()
            assert done.returncode == 2 and len(lines) == 1, (raw, done.stderr)
            assert lines[0].startswith("turnlens classify: --model"), lines
            assert "NaN" not in done.stdout and "Traceback" not in done.stderr
        done = _cli(
            "classify", "--json", "--input", str(prompt), env={"TURNLENS_MODELS": raw.replace("\0", "")}
        )
        assert done.returncode == 2 and "Traceback" not in done.stderr, (raw, done.stderr)
        assert done.stderr.startswith("turnlens classify: TURNLENS_MODELS"), done.stderr


# --- the language server ---------------------------------------------------------------------


def _no_nan(messages: list[dict[str, Any]]) -> None:
    for message in messages:
        json.dumps(message, allow_nan=False)  # NaN is not JSON: a client would drop the message


async def test_server_hostile_model_paths_give_messages_and_analysis_goes_on(
    spawn: Spawn, tmp_path: Path
) -> None:
    fifo = tmp_path / "fifo.tlm"
    os.mkfifo(fifo)
    nan = tmp_path / "nan.tlm"
    nan.write_bytes(bad_models()["nan-weight"])
    deep = tmp_path / "deep.tlm"
    deep.write_bytes(bad_models()["deep-header"])
    paths = [
        str(fifo),
        "/dev/stdin",
        "/dev/zero",
        str(nan),
        str(deep),
        "a\0b.tlm",
        "~no-such-user-turnlens/m.tlm",
    ]
    server = await spawn()
    await server.initialize({"settings": {"debounceMs": 0, "models": paths}})
    uri = (tmp_path / "s.md").as_uri()
    server.open(uri, "APPROVED — ship it\n---TURN---\nthanks!\n")
    diags = await server.wait_diagnostics(uri, timeout=30)
    assert [d["data"]["class"] for d in diags] == ["decision", "chitchat"], diags
    logs = [p["message"] for p in server.notifications("window/logMessage")]
    for raw in paths:
        shown = raw.replace("\0", "\\x00") if "\0" in raw else raw
        assert any("turnlens.models" in m and (shown in m or repr(raw) in m) for m in logs), (raw, logs)
    _no_nan(server.messages)
    assert "Traceback" not in server.stderr_text(), server.stderr_text()[-3000:]


async def test_workspace_settings_cannot_choose_model_files(spawn: Spawn, tmp_path: Path) -> None:
    model = tmp_path / "m.tlm"
    model.write_bytes(_fresh().to_bytes())
    server = await spawn(config={"debounceMs": 0, "models": [str(tmp_path / "workspace.tlm")]})
    await server.initialize({"settings": {"debounceMs": 0, "models": [str(model)]}})
    uri = (tmp_path / "s.md").as_uri()
    server.open(uri, "APPROVED — ship it\n")
    await server.wait_diagnostics(uri, timeout=30)
    logs = [p["message"] for p in server.notifications("window/logMessage")]
    assert any("turnlens.models from workspace settings is ignored" in m for m in logs), logs
    assert not any("workspace.tlm" in m for m in logs), logs  # never looked at


async def test_server_does_not_keep_old_versions_of_a_rewritten_model(spawn: Spawn, tmp_path: Path) -> None:
    path = tmp_path / "m.tlm"
    model = _fresh()
    path.write_bytes(model.to_bytes())
    server = await spawn()
    await server.initialize({"settings": {"debounceMs": 0, "models": [str(path)]}})
    rss: dict[int, int] = {}
    for i in range(36):
        model.bias[0] = float(i)
        path.write_bytes(model.to_bytes())
        os.utime(path, ns=(i * 10**9, i * 10**9))
        uri = (tmp_path / f"s{i}.md").as_uri()
        server.open(uri, f"APPROVED — ship it {i}\n")
        await server.wait_diagnostics(uri, timeout=30)
        server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        rss[i] = rss_kib(server.proc.pid)
    grown = rss[35] - rss[5]
    report(f"a model file rewritten 30 times: server RSS grew {grown / 1024:.1f} MB (limit 29 MB)")
    # 30 versions of a 0.6 MB model: ~90 MB kept before; one version (and allocator noise) now
    assert grown < 30_000, rss
    assert "Traceback" not in server.stderr_text()


def test_class_names_are_text_in_hover() -> None:
    """Class names a model answers with are validated against the known classes; the hover
    shows them as text all the same, so none can carry a link, image or heading."""
    from dataclasses import replace

    from turnlens.lsp.labels import hover_markdown
    from turnlens.pipeline.analyze import analyze

    result = analyze("please review this diff").results[0]
    evil = "![x](http://e/p.png)"
    c = result.classification._replace(
        task_class=evil, engine="model", probabilities={evil: 0.9, "code": 0.1}, scores={evil: 1}
    )
    text = hover_markdown(replace(result, classification=c), 1, 1)
    assert evil not in text and "\\!\\[x\\]\\(http\\:" in text


def test_security_doc_states_the_bounds_the_code_has() -> None:
    from turnlens.learn.model import MAX_FEATURES, MAX_KIND_TEMPERATURES
    from turnlens.pipeline.formats.jsonl import MAX_LINE_CHARS
    from turnlens.pipeline.formats.jsonspan import MAX_DEPTH

    doc = (Path(__file__).resolve().parents[2] / "docs" / "security.md").read_text(encoding="utf-8")
    for figure in (
        f"{MAX_MODEL_FILE / 1e6:g} MB",
        f"{MAX_HEADER_DEPTH} levels",
        f"{MAX_FEATURES:,} features",
        f"at most {MAX_KIND_TEMPERATURES} kind temperatures",
        f"{MAX_DEPTH} levels",
        f"{MAX_LINE_CHARS >> 20} MiB",
    ):
        assert figure in doc, figure


@pytest.mark.parametrize(
    "value",
    [
        [0.5],
        {"reply": 0.0},
        {"reply": 40.0},
        {"reply": "0.5"},
        {"reply": float("nan")},
        {"Reply!": 0.5},
        {"_x": 0.5},
        {"x" * 33: 0.5},
        {f"k{'a' * i}": 0.5 for i in range(17)},
    ],
)
def test_a_model_files_kind_temperatures_are_checked(value: object) -> None:
    # a further temperature per unit kind: bounded like the model's own, under a kind's name
    data = packaged_model("classes").to_bytes()
    head = _header(data)
    head["kind_temperatures"] = value
    with pytest.raises(ModelError, match="kind_temperatures"):
        Model.from_bytes(_with_header(data, json.dumps(head)))
