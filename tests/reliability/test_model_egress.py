"""What a model back end receives: opening a session sends its last prompt only, while
*Classify Document* sends a sample of the whole document — every prompt of a short session.
"""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import Spawn
from .fakemodel import FakeModel

PROMPTS = [
    "Please draft the migration plan for the billing tables, step by step.",
    "Now write the SQL for step two, with the indexes we discussed earlier.",
    "Review the rollback script and say whether it loses any customer rows.",
    "Rename the staging schema to billing_next everywhere in the scripts.",
    "Summarise what is still open before we schedule the cut-over window.",
]


def _session() -> str:
    turns = []
    for k, prompt in enumerate(PROMPTS, start=1):
        turns.append(f"## User\n\n{prompt}\n\n## Assistant\n\nReply number {k}.\n")
    return "\n".join(turns)


def _sent(model: FakeModel) -> list[str]:
    return [r.body.decode("utf-8", "replace") for r in model.requests]


async def test_classify_document_sends_every_prompt_opening_sends_the_last(
    spawn: Spawn, fake_model: FakeModel, tmp_path: Path
) -> None:
    doc = tmp_path / "chat.md"
    text = _session()
    doc.write_text(text, encoding="utf-8")
    server = await spawn(config={"debounceMs": 0})
    init = {"router": {"backend": "openai", "endpoint": fake_model.endpoint, "model": "m", "timeoutMs": 3000}}
    await server.initialize(init, folders=[str(tmp_path)])
    uri = doc.as_uri()
    server.open(uri, text)
    await server.wait_for(lambda: fake_model.count >= 1, timeout=30)
    await server.wait_diagnostics(uri, 1)
    opened = _sent(fake_model)
    assert len(opened) == 1
    assert PROMPTS[-1] in json.loads(opened[0])["messages"][-1]["content"]
    assert not any(p in opened[0] for p in PROMPTS[:-1]), "opening a file sent an earlier prompt"

    answer = await server.request(
        "workspace/executeCommand", {"command": "turnlens.classify", "arguments": [{"uri": uri}]}, timeout=30
    )
    assert "result" in answer, answer
    classified = _sent(fake_model)[1:]
    assert len(classified) == 1
    assert all(p in classified[0] for p in PROMPTS), "Classify Document sends the whole (sampled) document"
    assert await server.shutdown_and_exit() == 0
