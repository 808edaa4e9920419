"""Fixtures of the learned-classifier tests (the CLI runner is shared with tests/cli)."""

from tests.cli.conftest import cli

__all__ = ["cli"]
