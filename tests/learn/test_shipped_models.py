"""The shipped models: loaded from package data, trained on exactly the shipped corpus."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from turnlens.cli.train import gather
from turnlens.learn.dataset import TASK_LABELS, parse_corpus, shipped_files
from turnlens.learn.model import PACKAGED, Model, packaged_model
from turnlens.learn.train import corpus_digest, train
from turnlens.userfiles import read_shipped_corpus

REPO = Path(__file__).resolve().parents[2]
TASKS = ("classes", "labels")


@pytest.mark.parametrize("task", TASKS)
def test_the_corpus_is_clean_and_the_model_was_trained_on_exactly_it(task: str) -> None:
    rows, problems = parse_corpus(read_shipped_corpus(task), task, "<shipped>")
    assert problems == []
    assert len({r.id for r in rows}) == len(rows)
    assert len({" ".join(r.text.casefold().split()) for r in rows}) == len(rows), (
        "duplicates: see import_corpus"
    )
    assert {r.label for r in rows} == set(TASK_LABELS[task])
    assert gather([], "default", task, "test") == rows
    model = packaged_model(task)
    assert model.task == task and model.classes == TASK_LABELS[task]
    assert model.meta["corpus"] == corpus_digest(rows), "retrain: turnlens train (see docs/labels.md)"
    assert model.meta["rows"] == len(rows)


@pytest.mark.slow
@pytest.mark.parametrize("task", TASKS)
def test_retraining_on_the_shipped_corpus_reproduces_the_shipped_weights(task: str) -> None:
    fresh = train(gather([], "default", task, "test"), task)
    shipped = packaged_model(task)
    assert fresh.vocab == shipped.vocab
    assert max(abs(a - b) for a, b in zip(fresh.bias, shipped.bias, strict=True)) < 1e-4
    for new, old in zip(fresh.weights, shipped.weights, strict=True):
        assert max(abs(a - b) for a, b in zip(new, old, strict=True)) < 1e-3
    assert Model.from_bytes(fresh.to_bytes()).bias == fresh.bias


def test_model_files_and_corpus_are_package_data() -> None:
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert '"*.tlm"' in pyproject and '"*.jsonl"' in pyproject
    folder = REPO / "server" / "turnlens" / "learn"
    for filename in PACKAGED.values():
        assert (folder / "models" / filename).is_file()
    assert (folder / "models" / "__init__.py").is_file() and (folder / "corpus" / "__init__.py").is_file()
    assert all(p.parent == folder / "corpus" for task in TASKS for p in shipped_files(task))


@pytest.mark.slow
def test_a_fresh_install_loads_the_models_without_network(tmp_path: Path) -> None:
    """Build the package as an install would (setuptools' build_py: the same packages and
    package data as the wheel), put it in a new virtual environment with no network and
    none of this checkout on its path, and classify."""
    import re2

    lib = tmp_path / "lib"
    subprocess.run(
        [sys.executable, "-c", "from setuptools import setup; setup()", "-q", "build_py", "--build-lib", lib],
        cwd=REPO,
        check=True,
        timeout=300,
        capture_output=True,
    )
    assert (lib / "turnlens" / "learn" / "models" / "classes.tlm").is_file()
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=False, with_pip=False).create(env_dir)
    python = env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # the built package, then only the folder google-re2 (a runtime dependency) lives in
    (Path(site) / "fresh.pth").write_text(f"{lib}\n{Path(re2.__file__).parent}\n", encoding="utf-8")
    probe = (
        "import socket\n"
        "def refuse(*a, **k): raise OSError('network used')\n"
        "socket.socket.connect = refuse\n"
        "socket.create_connection = refuse\n"
        "import turnlens, turnlens.learn.model as m\n"
        f"assert turnlens.__file__.startswith({str(lib)!r}), turnlens.__file__\n"
        "from turnlens.classifier import classify\n"
        "from turnlens.router.resolve import resolve_offline\n"
        "c = classify('Approved, merge it.')\n"
        "r = resolve_offline('add a --verbose flag to the sync command')\n"
        "print(c.engine, c.task_class, r.label, m.packaged_model('classes').size > 1000)\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TURNLENS_MODELS")}
    out = subprocess.run(
        [python, "-c", probe], capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path, env=env
    )
    assert out.returncode == 0, out.stderr
    engine, _cls, label, big = out.stdout.split()
    assert engine == "model" and label in TASK_LABELS["labels"] and big == "True"
