"""The router with its state: the model back end, its breaker, and calls in flight.

The language server keeps one `Router`. Steps 1–6 and the `rules` back end
answer at once (`route_now`); a model back end is called with a bound
(`route`): a timeout or an error counts as a failure, a settled answer resets
the count, and a call overtaken by a newer one for the same document is
abandoned — it counts as nothing and its late answer is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable, Mapping

from turnlens.router.backends import (
    BackendError,
    BackendFactory,
    LabelBackend,
    make_backend,
    redact,
    secrets_of,
)
from turnlens.router.breaker import Breaker
from turnlens.router.resolve import Route, paused_route, resolve_early, route_from_label, rules_route
from turnlens.router.sample import sample
from turnlens.router.settings import DEFAULT, RouterSettings

logger = logging.getLogger(__name__)

_BACKEND_KEYS = ("backend", "endpoint", "model", "api_key_env", "timeout_ms")


def _minutes(seconds: float) -> str:
    minutes = seconds / 60
    return f"{minutes:.0f} min" if minutes >= 1 else f"{seconds:.0f} s"


class Router:
    """Routes prompts; holds the model back end, the failure count and the pause."""

    def __init__(
        self,
        settings: RouterSettings | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        backend_factory: BackendFactory | None = None,
        env: Mapping[str, str] = os.environ,
    ) -> None:
        self._settings = settings or DEFAULT
        self._clock = clock
        self._factory: BackendFactory = backend_factory or make_backend
        self._env = env
        self._backend: LabelBackend | None = None
        self._breaker = Breaker(self._settings.failure_limit, self._settings.cooldown_s, clock)
        self._latest: dict[str, object] = {}
        self._inflight: dict[object, asyncio.Future[str | None]] = {}
        self._closing: set[asyncio.Task[None]] = set()

    def __repr__(self) -> str:
        s = self._settings
        return f"Router(backend={s.backend!r}, paused={self.paused})"

    @property
    def settings(self) -> RouterSettings:
        return self._settings

    @property
    def paused(self) -> bool:
        """True while a model back end is paused (the expiry is checked first)."""
        return self._settings.uses_model and self._breaker.paused

    @property
    def failures(self) -> int:
        return self._breaker.failures

    def reload(self) -> None:
        """Clear the failure count and the pause (the `turnlens.reload` command)."""
        if self._breaker.paused or self._breaker.failures:
            logger.info("classifier pause cleared by reload")
        self._breaker.reset()

    def update(self, settings: RouterSettings) -> None:
        """New settings. A changed back end starts afresh: no pause, a new client."""
        old = self._settings
        self._settings = settings
        self._breaker.limit = settings.failure_limit
        self._breaker.cooldown_s = settings.cooldown_s
        if any(getattr(old, k) != getattr(settings, k) for k in _BACKEND_KEYS):
            self._breaker.reset()
            self._drop_backend()

    def _drop_backend(self) -> None:
        backend, self._backend = self._backend, None
        for call in self._inflight.values():
            call.cancel()
        if backend is None:
            return
        try:
            task = asyncio.get_running_loop().create_task(backend.aclose())
        except RuntimeError:  # no loop: nothing is in flight, the client is simply dropped
            return
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def aclose(self) -> None:
        """Cancel calls in flight and close the back end's HTTP client."""
        for call in list(self._inflight.values()):
            call.cancel()
        backend, self._backend = self._backend, None
        if backend is not None:
            await backend.aclose()
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)

    def route_now(self, text: str) -> Route | None:
        """The route when no model call is needed (steps 1–6, or the `rules` back end); else None."""
        s = self._settings
        early = resolve_early(text, s)
        if early is not None:
            return early
        if not s.uses_model:
            return rules_route(text, s, "classifier")
        if self.paused:
            return paused_route(text, s, self._paused_why())
        return None

    def _paused_why(self) -> str:
        left = _minutes(self._breaker.remaining_s())
        return (
            f"classifier: paused ({self._settings.backend} back end failed; resumes in {left} or on reload)"
        )

    async def route(self, text: str, key: str | None = None) -> Route | None:
        """The route of `text`; None when a newer call for the same `key` superseded this one."""
        token = object()
        if key is not None:
            previous = self._latest.get(key)
            self._latest[key] = token
            if previous is not None and previous in self._inflight:
                self._inflight[previous].cancel()  # abandoned: its answer would be for old text
        try:
            now = self.route_now(text)
            if now is not None:
                return now
            return await self._call_model(text, key, token)
        finally:
            if key is not None and self._latest.get(key) is token:
                del self._latest[key]

    def _superseded(self, key: str | None, token: object) -> bool:
        return key is not None and self._latest.get(key) is not token

    def _get_backend(self) -> LabelBackend:
        if self._backend is None:
            self._backend = self._factory(self._settings, self._env)
        return self._backend

    def _secrets(self) -> tuple[str, ...]:
        return secrets_of(self._settings, self._env)

    async def _call_model(self, text: str, key: str | None, token: object) -> Route | None:
        s = self._settings
        backend = self._get_backend()
        prepare = getattr(backend, "prepare", None)
        if prepare is not None and not getattr(backend, "ready", True):
            # first call: keep the event loop free; label() reports any problem as a failure
            with contextlib.suppress(Exception):
                await asyncio.to_thread(prepare)
        excerpt = sample(text, s.sample_max, s.sample_head, s.sample_tail)
        call: asyncio.Future[str | None] = asyncio.ensure_future(backend.label(excerpt))
        self._inflight[token] = call
        try:
            done, _ = await asyncio.wait({call}, timeout=s.timeout_s)
        except asyncio.CancelledError:
            call.cancel()
            raise
        finally:
            self._inflight.pop(token, None)
        if self._superseded(key, token) or self._settings is not s:
            if not done:
                call.cancel()
            logger.debug("model call abandoned: superseded by a newer request")
            return None
        if not done:
            call.cancel()
            return self._failed(text, f"no answer within {s.timeout_ms} ms")
        if call.cancelled():  # cancelled by aclose() or a back-end change: not the model's fault
            return None
        exc = call.exception()
        if exc is not None:
            message = str(exc) if isinstance(exc, BackendError) else f"{type(exc).__name__}: {exc}"
            return self._failed(text, redact(message, *self._secrets()))
        self._breaker.success()
        label = call.result()
        model = f' "{s.model}"' if s.model else ""
        said = f"{s.backend} model{model} answered {label or 'no label'}"
        return route_from_label(label, s, "classifier", said)

    def _failed(self, text: str, error: str) -> Route:
        """Count a failure; the fallback (or nothing) answers instead."""
        s = self._settings
        started_pause = self._breaker.failure()
        why = f"the {s.backend} back end failed ({error})"
        if started_pause:
            logger.warning(
                "classifier paused for %s after %d failures; last: %s",
                _minutes(s.cooldown_s),
                s.failure_limit,
                error,
            )
            why += f"; classifier: paused for {_minutes(s.cooldown_s)}"
        else:
            logger.info("%s (failure %d of %d)", why, self._breaker.failures, s.failure_limit)
        if s.fallback == "rules":
            return rules_route(text, s, "fallback", f"{why}; ")
        source = "paused" if started_pause else "classifier"
        return Route(None, None, None, source, f"{why}; fallback is none → no route")
