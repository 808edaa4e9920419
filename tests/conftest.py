"""Generic fixtures shared by every test folder (keep specific helpers next to their tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = REPO_ROOT / "tests" / "data"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: takes a few seconds; still run by default")


@pytest.fixture
def repo_root() -> Path:
    """The checkout's top folder (where pyproject.toml is)."""
    return REPO_ROOT


@pytest.fixture
def data_dir() -> Path:
    """tests/data: fixtures and labelled corpora."""
    return DATA_DIR
