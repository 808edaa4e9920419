"""What the HTTP back ends share: one lazily created httpx client, errors without secrets."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from turnlens.router.backends import BackendError, parse_label, redact
from turnlens.router.settings import RouterSettings

if TYPE_CHECKING:
    import httpx

logger = logging.getLogger("turnlens.router.backends")


def _import_httpx() -> Any:
    try:
        import httpx
    except ImportError:
        raise BackendError("the model back ends need httpx: pip install 'turnlens[models]'") from None
    return httpx


class HttpBackend:
    """Base of the openai / anthropic back ends. The key is read from the environment per call."""

    name = "http"

    def __init__(self, settings: RouterSettings, env: Mapping[str, str]) -> None:
        self.settings = settings
        self._env = env
        self._client: httpx.AsyncClient | None = None

    def __repr__(self) -> str:  # no env, no key
        return f"{type(self).__name__}(url={self.url()!r}, model={self.settings.model!r})"

    def url(self) -> str:
        raise NotImplementedError

    def headers(self, key: str | None) -> dict[str, str]:
        raise NotImplementedError

    def body(self, sample: str) -> dict[str, Any]:
        raise NotImplementedError

    def answer_text(self, data: Any) -> str:
        raise NotImplementedError

    def api_key(self) -> str | None:
        name = self.settings.api_key_env
        if not name:
            return None
        key = self._env.get(name)
        if not key:
            raise BackendError(f"the environment variable {name} (router.apiKeyEnv) is not set")
        return key

    def _get_client(self) -> httpx.AsyncClient:
        if self._client is None:
            httpx = _import_httpx()
            # The router races its own timeout; this one only stops a stuck socket for good.
            self._client = httpx.AsyncClient(timeout=self.settings.timeout_s + 5.0)
        return self._client

    async def label(self, sample: str) -> str | None:
        key = self.api_key()
        client = self._get_client()
        httpx = _import_httpx()
        url = self.url()
        try:
            response = await client.post(url, headers=self.headers(key), json=self.body(sample))
        except httpx.HTTPError as exc:
            raise BackendError(redact(f"{type(exc).__name__} calling {url}: {exc}", key)) from None
        if response.status_code >= 400:
            snippet = " ".join(response.text[:200].split())
            raise BackendError(redact(f"HTTP {response.status_code} from {url}: {snippet}", key))
        try:
            data = response.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise BackendError(f"the answer from {url} is not JSON") from None
        try:
            text = self.answer_text(data)
        except (KeyError, IndexError, TypeError, AttributeError):
            raise BackendError(f"the answer from {url} has no message text") from None
        label = parse_label(text)
        logger.debug("%s answered %r → %s", self.name, text[:40], label)
        return label

    async def aclose(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()
