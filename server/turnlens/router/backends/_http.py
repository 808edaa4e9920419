"""What the HTTP back ends share: one lazily created httpx client, errors without secrets."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from turnlens.router.backends import BackendError, parse_label, redact, secrets_of, shown_url
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
SNIPPET_CHARS = 200  # of an error body, quoted in the route's reason


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
        return f"{type(self).__name__}(url={shown_url(self.url())!r}, model={self.settings.model!r})"

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
        # a key read from a CRLF file ends in "\r": that is never part of a key
        key = (self._env.get(name) or "").strip()
        if not key:
            raise BackendError(f"the environment variable {name} (router.apiKeyEnv) is not set")
        if not key.isascii() or not key.isprintable():
            raise BackendError(
                f"the environment variable {name} (router.apiKeyEnv) holds characters an HTTP header "
                "cannot carry"
            )
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
            # httpx logs every request's full URL at INFO, credentials in it included
            for name in ("httpx", "httpcore"):
                logging.getLogger(name).setLevel(logging.WARNING)
            # The router races its own timeout; this one only stops a stuck socket for good.
            self._client = httpx.AsyncClient(timeout=self.settings.timeout_s + 5.0)
        return self._client

    async def label(self, sample: str) -> str | None:
        key = self.api_key()
        secrets = secrets_of(self.settings, self._env)
        client = self._get_client()
        httpx = _import_httpx()
        url = self.url()
        shown = shown_url(url)
        try:
            async with client.stream(
                "POST", url, headers=self.headers(key), json=self.body(sample)
            ) as response:
                body = await _read_capped(response, shown)
        except httpx.HTTPError as exc:
            raise BackendError(redact(f"{type(exc).__name__} calling {shown}: {exc}", *secrets)) from None
        if response.status_code >= 400:
            # masked before it is cut: a cut through the key would leave its start unmasked
            said = " ".join(redact(body[:16384].decode("utf-8", "replace"), *secrets).split())
            snippet = said[:SNIPPET_CHARS] + ("…" if len(said) > SNIPPET_CHARS else "")
            raise BackendError(f"HTTP {response.status_code} from {shown}: {snippet}")
        try:
            data = json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise BackendError(f"the answer from {shown} is not JSON") from None
        try:
            text = self.answer_text(data)
        except (KeyError, IndexError, TypeError, AttributeError):
            raise BackendError(f"the answer from {shown} has no message text") from None
        label = parse_label(text)
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug("%s answered %r → %s", self.name, redact(text[:200], *secrets)[:40], label)
        return label

    async def aclose(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()
