"""`anthropic`: the Messages API with a small model.

POST `{endpoint}/v1/messages` (endpoint default `https://api.anthropic.com`)
with the `x-api-key` and `anthropic-version` headers.
"""

from __future__ import annotations

from typing import Any

from turnlens.router.backends import system_prompt, user_message
from turnlens.router.backends._http import HttpBackend

DEFAULT_ENDPOINT = "https://api.anthropic.com"
DEFAULT_MODEL = "claude-haiku-4-5"
API_VERSION = "2023-06-01"


class AnthropicBackend(HttpBackend):
    name = "anthropic"

    def url(self) -> str:
        base = (self.settings.endpoint or DEFAULT_ENDPOINT).rstrip("/")
        if base.endswith("/v1/messages"):
            return base
        if base.endswith("/v1"):
            return base + "/messages"
        return base + "/v1/messages"

    def headers(self, key: str | None) -> dict[str, str]:
        headers = {"content-type": "application/json", "anthropic-version": API_VERSION}
        if key:
            headers["x-api-key"] = key
        return headers

    def body(self, sample: str) -> dict[str, Any]:
        return {
            "model": self.settings.model or DEFAULT_MODEL,
            "max_tokens": 8,
            "temperature": 0,
            "system": system_prompt(),
            "messages": [{"role": "user", "content": user_message(sample)}],
        }

    def answer_text(self, data: Any) -> str:
        for block in data["content"]:
            if block.get("type") == "text":
                text = block["text"]
                if isinstance(text, str):
                    return text
        raise KeyError("no text block")
