"""The breaker: consecutive failures, the pause, its expiry (checked first), reload."""

from __future__ import annotations

from tests.router.router_testkit import FakeClock
from turnlens.router.breaker import Breaker


def test_pauses_after_the_limit(clock: FakeClock) -> None:
    b = Breaker(3, 600, clock)
    assert [b.failure(), b.failure()] == [False, False] and not b.paused
    assert b.failure() is True and b.paused


def test_success_resets_the_count(clock: FakeClock) -> None:
    b = Breaker(3, 600, clock)
    b.failure()
    b.failure()
    b.success()
    b.failure()
    b.failure()
    assert not b.paused and b.failures == 2


def test_pause_expires_at_the_cooldown(clock: FakeClock) -> None:
    b = Breaker(1, 600, clock)
    b.failure()
    clock.advance(600 - 0.001)
    assert b.paused
    clock.advance(0.002)
    assert not b.paused and b.failures == 0


def test_reset_clears_the_pause(clock: FakeClock) -> None:
    b = Breaker(1, 600, clock)
    b.failure()
    b.reset()
    assert not b.paused and b.remaining_s() == 0


def test_remaining_time(clock: FakeClock) -> None:
    b = Breaker(1, 600, clock)
    b.failure()
    clock.advance(100)
    assert b.remaining_s() == 500
