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


# One label is a few hundred bytes of JSON; anything near this is not an answer.
MAX_ANSWER_BYTES = 256 * 1024


async def _read_capped(response: Any, url: str) -> bytes:
    """The body, refused past MAX_ANSWER_BYTES without reading (or parsing) the rest."""
    declared = response.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_ANSWER_BYTES:
        raise BackendError(f"the answer from {url} is too large ({int(declared):,} bytes)")
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > MAX_ANSWER_BYTES:
            raise BackendError(f"the answer from {url} is larger than {MAX_ANSWER_BYTES:,} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


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

    @property
    def ready(self) -> bool:
        return self._client is not None

    def prepare(self) -> None:
        """Import httpx and build the client (its TLS context reads the CA bundle: slow, so
        the router runs this in a worker thread, off the event loop)."""
        self._get_client()

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
            async with client.stream(
                "POST", url, headers=self.headers(key), json=self.body(sample)
            ) as response:
                body = await _read_capped(response, url)
        except httpx.HTTPError as exc:
            raise BackendError(redact(f"{type(exc).__name__} calling {url}: {exc}", key)) from None
        if response.status_code >= 400:
            snippet = " ".join(body[:200].decode("utf-8", "replace").split())
            raise BackendError(redact(f"HTTP {response.status_code} from {url}: {snippet}", key))
        try:
            data = json.loads(body)
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
