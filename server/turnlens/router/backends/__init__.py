"""Model back ends of the classifier: one small interface, HTTP kept out of import time.

`openai` and `anthropic` talk HTTP through httpx, an optional extra
(`pip install 'turnlens[models]'`). It is imported inside the back-end call, so
importing the router, the CLI or the core never pays for it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Protocol

from turnlens.router.settings import RouterSettings, vocabulary


class LabelBackend(Protocol):
    """Labels a sample with one of the five labels; None = an answer that is not a label."""

    name: str

    async def label(self, sample: str) -> str | None: ...

    async def aclose(self) -> None: ...


BackendFactory = Callable[[RouterSettings, Mapping[str, str]], LabelBackend]


class BackendError(Exception):
    """A failed model call (counts toward the pause). Messages never hold the API key."""


LABEL_HELP = {
    "design": "asks how to build something before building it: approach, architecture, schema, trade-offs, "
    "a choice between technologies, a plan",
    "analysis": "asks to understand existing code or behaviour: why something happens, explain, "
    "investigate a bug or a log, review or audit",
    "coding": "asks to write or change code: implement, add, fix a bug, refactor, write tests",
    "bookkeeping": "asks for a mechanical chore: rename, move or delete files, bump a version, commit, "
    "fix a typo, update a changelog or README, run a formatter",
    "chat": "no task: greetings, thanks, small talk, questions about the conversation itself",
}


def labels() -> tuple[str, ...]:
    return tuple(vocabulary().labels)


def system_prompt() -> str:
    """The instruction every back end sends: exactly one of the five labels."""
    lines = [f"- {name}: {LABEL_HELP.get(name, '')}" for name in labels()]
    return (
        "You label a prompt that a developer wrote to a coding assistant. Do not answer the prompt.\n"
        "Reply with exactly one word, one of: " + ", ".join(labels()) + ".\n" + "\n".join(lines)
    )


def user_message(sample: str) -> str:
    return f"Label this prompt:\n<prompt>\n{sample}\n</prompt>\nLabel:"


_WORD = re.compile(r"[a-z]+")


def parse_label(answer: str) -> str | None:
    """Lenient: case, punctuation, quotes and surrounding words are fine; one label or None."""
    words: list[str] = _WORD.findall(answer.casefold())
    found = [w for w in words if w in labels()]
    if not found:
        return None
    if len(set(found)) == 1 or (words and words[0] == found[0]):
        return found[0]
    return None


_PIECE = 8  # a run of this many characters of a secret counts as showing it


def _forms(secret: str) -> set[str]:
    """How a secret can appear in a message: as it is, trimmed, or escaped by a repr or JSON."""
    forms = {secret, secret.strip(), repr(secret)[1:-1], json.dumps(secret)[1:-1]}
    return {f for f in forms if len(f) >= 4}


def redact(message: str, *secrets: str | None) -> str:
    """Mask every secret in `message`, and any run of 8 or more of its characters (servers echo
    keys back, cut them short, or quote them escaped), as `***`."""
    forms: set[str] = set()
    for secret in secrets:
        if secret:
            forms |= _forms(secret)
    if not forms:
        return message
    for form in sorted(forms, key=len, reverse=True):
        message = message.replace(form, "***")
    pieces = {f[i : i + _PIECE] for f in forms if len(f) >= _PIECE for i in range(len(f) - _PIECE + 1)}
    if not pieces:
        return message
    masked = bytearray(len(message))
    for i in range(len(message) - _PIECE + 1):
        if message[i : i + _PIECE] in pieces:
            masked[i : i + _PIECE] = b"\x01" * _PIECE
    if not any(masked):
        return message
    out: list[str] = []
    for i, ch in enumerate(message):
        if not masked[i]:
            out.append(ch)
        elif i == 0 or not masked[i - 1]:
            out.append("***")
    return "".join(out)


def url_secrets(url: str) -> tuple[str, ...]:
    """The credentials a URL carries (`user:TOKEN@host`, `?key=…`), to be masked wherever it shows."""
    from urllib.parse import parse_qsl, unquote, urlsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return ()
    found = [unquote(v) for v in (parts.username, parts.password) if v]
    found += [v for _k, v in parse_qsl(parts.query) if v]
    return tuple(found)


def shown_url(url: str) -> str:
    """A URL fit for messages: without its user information and query string."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if ":" in host:  # an IPv6 address
            host = f"[{host}]"
        if parts.port is not None:
            host = f"{host}:{parts.port}"
    except ValueError:
        return "<the configured endpoint>"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def secrets_of(settings: RouterSettings, env: Mapping[str, str]) -> tuple[str, ...]:
    """Everything a message about a model call must not show: the key and endpoint credentials."""
    found = list(url_secrets(settings.endpoint))
    if settings.api_key_env:
        key = env.get(settings.api_key_env)
        if key:
            found.append(key)
    return tuple(found)


def make_backend(settings: RouterSettings, env: Mapping[str, str]) -> LabelBackend:
    """The back end the settings name (imports its module only now)."""
    if settings.backend == "openai":
        from turnlens.router.backends.openai import OpenAIBackend

        return OpenAIBackend(settings, env)
    if settings.backend == "anthropic":
        from turnlens.router.backends.anthropic import AnthropicBackend

        return AnthropicBackend(settings, env)
    raise ValueError(f"{settings.backend!r} is not a model back end")
