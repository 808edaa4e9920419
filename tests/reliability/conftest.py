"""Fixtures of the reliability and security tests (issue #7).

Deterministic by construction: every hypothesis test uses `property_settings()` (derandomized,
no example database, no deadline — a loaded 2-core CI box must not turn a slow
example into a failure); load and fault tests use fixed seeds.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from tests.lsp.conftest import bare_client  # noqa: F401  (the pytest-lsp fixture)

from .fakemodel import FakeModel
from .rawlsp import RawServer


def property_settings(max_examples: int) -> settings:
    return settings(
        max_examples=max_examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        print_blob=True,
    )


Spawn = Callable[..., Awaitable[RawServer]]

# Figures the load, fault and lifecycle tests measured; printed at the end of the run.
FIGURES: list[str] = []


def report(line: str) -> None:
    FIGURES.append(line)
    print(line)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if FIGURES:
        terminalreporter.section("TurnLens reliability figures")
        for line in FIGURES:
            terminalreporter.write_line(line)


@pytest.fixture
async def spawn() -> AsyncIterator[Spawn]:
    """Start `turnlens serve` processes (raw stdio); any still running are killed afterwards."""
    servers: list[RawServer] = []

    async def make(*args: str, **kwargs: Any) -> RawServer:
        server = await RawServer.spawn(*args, **kwargs)
        servers.append(server)
        return server

    yield make
    for server in servers:
        await server.close()


@pytest.fixture
def fake_model() -> Iterator[FakeModel]:
    """A model back end on 127.0.0.1 that a test can make misbehave."""
    model = FakeModel().start()
    yield model
    model.close()
