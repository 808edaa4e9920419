"""Fixtures of the router tests (helpers live in router_testkit.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.router.router_testkit import FakeClock, ModelServer, serve


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def model_server() -> AsyncIterator[ModelServer]:
    async for server in serve():
        yield server
