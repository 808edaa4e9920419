"""Failure counting and the pause of a model back end (SPEC §5).

A model that keeps failing must not slow every prompt down by a timeout, so
after `limit` consecutive failures the classifier pauses for a cooldown. The
clock is injected (monotonic seconds) so tests cross the boundary exactly.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

logger = logging.getLogger(__name__)


class Breaker:
    """Counts consecutive failures; pauses after `limit` for `cooldown_s` seconds."""

    def __init__(self, limit: int, cooldown_s: float, clock: Callable[[], float]) -> None:
        self.limit = limit
        self.cooldown_s = cooldown_s
        self._clock = clock
        self.failures = 0
        self._until: float | None = None

    def _expire(self) -> None:
        """The expiry is checked before anything else, so a stale pause never lingers."""
        if self._until is not None and self._clock() >= self._until:
            self._until = None
            self.failures = 0
            logger.info("classifier resumed after its cooldown")

    @property
    def paused(self) -> bool:
        self._expire()
        return self._until is not None

    def remaining_s(self) -> float:
        """Seconds left in the pause (0 when not paused)."""
        self._expire()
        return 0.0 if self._until is None else max(0.0, self._until - self._clock())

    def success(self) -> None:
        """A settled answer (any label, even an unknown one) resets the count."""
        self._expire()
        self.failures = 0

    def failure(self) -> bool:
        """Count one failure; True when this one starts the pause."""
        self._expire()
        if self._until is not None:
            return False
        self.failures += 1
        if self.failures < self.limit:
            return False
        self._until = self._clock() + self.cooldown_s
        self.failures = 0
        return True

    def reset(self) -> None:
        """`reload`: clear the count and any pause."""
        self._until = None
        self.failures = 0
