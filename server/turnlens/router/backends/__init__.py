"""Model back ends of the classifier: one small interface, HTTP kept out of import time.

`openai` and `anthropic` talk HTTP through httpx, an optional extra
(`pip install 'turnlens[models]'`). It is imported inside the back-end call, so
importing the router, the CLI or the core never pays for it.
"""

from __future__ import annotations

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


def redact(message: str, secret: str | None) -> str:
    """Never let a key travel in an error, a log line or a reason (servers echo keys back)."""
    if secret and len(secret) >= 4 and secret in message:
        message = message.replace(secret, "***")
    return message


def make_backend(settings: RouterSettings, env: Mapping[str, str]) -> LabelBackend:
    """The back end the settings name (imports its module only now)."""
    if settings.backend == "openai":
        from turnlens.router.backends.openai import OpenAIBackend

        return OpenAIBackend(settings, env)
    if settings.backend == "anthropic":
        from turnlens.router.backends.anthropic import AnthropicBackend

        return AnthropicBackend(settings, env)
    raise ValueError(f"{settings.backend!r} is not a model back end")
