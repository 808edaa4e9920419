"""`openai`: any OpenAI-compatible chat-completions server.

`router.endpoint` is the base URL that ends in `/v1` (the OpenAI SDK's
`base_url`): `https://api.openai.com/v1` (the default), Ollama
`http://localhost:11434/v1`, llama.cpp server `http://localhost:8080/v1`,
vLLM `http://localhost:8000/v1`, LM Studio `http://localhost:1234/v1`. The
request goes to `{endpoint}/chat/completions`; an endpoint that already ends in
`/chat/completions` is used as it is.
"""

from __future__ import annotations

from typing import Any

from turnlens.router.backends import BackendError, system_prompt, user_message
from turnlens.router.backends._http import HttpBackend

DEFAULT_ENDPOINT = "https://api.openai.com/v1"


class OpenAIBackend(HttpBackend):
    name = "openai"

    def url(self) -> str:
        base = (self.settings.endpoint or DEFAULT_ENDPOINT).rstrip("/")
        return base if base.endswith("/chat/completions") else base + "/chat/completions"

    def headers(self, key: str | None) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def body(self, sample: str) -> dict[str, Any]:
        if not self.settings.model:
            raise BackendError("router.model is empty: the openai back end needs a model name")
        return {
            "model": self.settings.model,
            "messages": [
                {"role": "system", "content": system_prompt()},
                {"role": "user", "content": user_message(sample)},
            ],
            "temperature": 0,
            "max_tokens": 8,
            "stream": False,
        }

    def answer_text(self, data: Any) -> str:
        content = data["choices"][0]["message"]["content"]
        if not isinstance(content, str):
            raise TypeError("content is not text")
        return content
