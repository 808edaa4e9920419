"""Writes the Claude Code fixtures of tests/agents (run once; the files are committed).

A session of real shape (the line types and fields Claude Code writes): a rate limiter
is designed and built; the decisions and the spec come early, then a long stretch of
code, tool calls, test runs and chat. `session.jsonl` is the session before its
compaction; `compacted.jsonl` is the same file after it: a `compact_boundary` line,
the summary (`isCompactSummary`), and the next prompt. The summary keeps every frozen
turn but two decisions (the Redis storage one and the admin-key exemption).
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent / "fixtures" / "claude-code"
SESSION = "5d0c1a2e-7b3f-4e8a-9c61-2f4b8d9e0a17"
CWD = "/home/dev/limiter"

DECISION_TOKEN_BUCKET = (
    "Decision: we use a token bucket per API key, 100 requests per minute with a burst of 20. Approved."
)
SPEC_LIMITS = (
    "SPEC-214 acceptance criteria:\n"
    "- AC-01 a request over the limit gets HTTP 429 with a Retry-After header\n"
    "- AC-02 buckets refill continuously, never reset all at once\n"
    "- AC-03 the limit applies per API key, not per IP address"
)
DECISION_REDIS = (
    "Decision: buckets live in Redis 7 behind one Lua script, with no local cache in the workers. Ship it."
)
DECISION_ADMIN = "Decision: admin API keys are exempt from rate limiting entirely. Approved, go ahead."
DECISION_HEADERS = "Decision: we expose X-RateLimit-Remaining on every response. Approved."

FILLER_PROMPTS = [
    "Read the middleware module and tell me where the limiter should hook in.",
    "Run the test suite and show me what fails.",
    "Can you explain how the request context is built in this codebase?",
    "Refactor the handler so the limiter gets the API key from the auth layer.",
    "Add unit tests for the bucket refill maths.",
    "What does the existing retry logic in the client do?",
    "Write the Redis connection helper with a timeout of 50 ms.",
    "Show me the diff so far.",
    "Why is test_refill_partial flaky?",
    "Tidy the imports and run the linter.",
]

CODE = """```python
def refill(tokens: float, rate: float, elapsed: float, burst: int) -> float:
    return min(burst, tokens + rate * elapsed)
```"""


class Writer:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.n = 0
        self.parent: str | None = None
        self.minute = 0

    def _stamp(self) -> str:
        self.minute += 1
        return f"2026-03-18T{9 + self.minute // 60:02d}:{self.minute % 60:02d}:00.000Z"

    def _base(self, kind: str) -> dict[str, object]:
        self.n += 1
        uid = f"{self.n:04d}aaaa-0000-4000-8000-00000000{self.n:04d}"
        entry = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": CWD,
            "sessionId": SESSION,
            "version": "2.1.76",
            "gitBranch": "main",
            "type": kind,
            "uuid": uid,
            "timestamp": self._stamp(),
        }
        self.parent = uid
        return entry

    def emit(self, entry: dict[str, object]) -> None:
        self.lines.append(json.dumps(entry, ensure_ascii=False))

    def user(self, text: str, **extra: object) -> None:
        entry = self._base("user")
        entry["message"] = {"role": "user", "content": text}
        entry.update(extra)
        self.emit(entry)

    def assistant(self, text: str, tool: tuple[str, dict[str, object]] | None = None) -> str | None:
        entry = self._base("assistant")
        content: list[dict[str, object]] = [{"type": "text", "text": text}]
        tool_id = None
        if tool:
            tool_id = f"toolu_{self.n:05d}"
            content.append({"type": "tool_use", "id": tool_id, "name": tool[0], "input": tool[1]})
        entry["message"] = {
            "id": f"msg_{self.n:05d}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": content,
            "stop_reason": "tool_use" if tool else "end_turn",
            "usage": {"input_tokens": 1200 + self.n, "output_tokens": 80},
        }
        self.emit(entry)
        return tool_id

    def tool_result(self, tool_id: str, text: str) -> None:
        entry = self._base("user")
        entry["message"] = {
            "role": "user",
            "content": [{"tool_use_id": tool_id, "type": "tool_result", "content": text}],
        }
        entry["toolUseResult"] = {"type": "text"}
        self.emit(entry)


def session() -> Writer:
    w = Writer()
    # another session's title, as resumed session files carry at their top (its leaf is not here)
    w.emit({"type": "summary", "summary": "Rate limiter for the public API", "leafUuid": "0001"})
    w.user("We need a rate limiter for the public API. What are the usual designs, and their trade-offs?")
    w.assistant(
        "The usual designs are a fixed window counter, a sliding window log and a token bucket. "
        "A fixed window is simplest but lets bursts through at window edges; a token bucket smooths "
        "traffic and allows a controlled burst."
    )
    w.user(DECISION_TOKEN_BUCKET)
    w.assistant("Understood, I will build it around a token bucket keyed by the API key.")
    w.user(SPEC_LIMITS)
    w.assistant("Got it. I will start by reading the middleware.")
    w.user(DECISION_REDIS)
    tid = w.assistant("Reading the middleware first.", ("Read", {"file_path": f"{CWD}/app/middleware.py"}))
    assert tid
    w.tool_result(
        tid,
        "from app.auth import api_key\n\ndef middleware(request, call_next):\n    return call_next(request)\n",
    )
    w.user(DECISION_ADMIN)
    w.assistant("Noted: the limiter will skip keys that carry the admin role.")
    for round_ in range(6):
        for prompt in FILLER_PROMPTS:
            w.user(prompt)
            tid = w.assistant(
                f"Working on it (step {round_ + 1}).",
                ("Bash", {"command": "pytest -q tests/limiter", "description": "Run the limiter tests"}),
            )
            assert tid
            w.tool_result(tid, f"{12 + round_} passed, {round_ % 2} failed in 0.{40 + round_}s")
            w.assistant(f"Here is what I found, with the code:\n\n{CODE}\n\nThe tests pass after the change.")
        if round_ == 3:
            w.user(DECISION_HEADERS)
            w.assistant("I will add the header in the response hook.")
    return w


SUMMARY = (
    "This session continues a conversation that ran out of context. Summary:\n\n"
    "1. Primary request: build a rate limiter for the public API.\n"
    "2. Key decisions: " + DECISION_TOKEN_BUCKET + " Also: we expose X-RateLimit-Remaining on every "
    "response (approved).\n"
    "3. Spec: SPEC-214 acceptance criteria: AC-01 a request over the limit gets HTTP 429 with a "
    "Retry-After header; AC-02 buckets refill continuously, never reset all at once; AC-03 the limit "
    "applies per API key, not per IP address.\n"
    "4. Work done: the middleware hook, the refill maths with unit tests, the connection helper, "
    "linting; the test suite passes.\n"
    "5. Next step: wire the limiter into the response hook."
)


def compacted(w: Writer) -> Writer:
    boundary = w._base("system")
    boundary.update(
        {"subtype": "compact_boundary", "content": "Conversation compacted", "level": "info", "isMeta": False}
    )
    boundary["compactMetadata"] = {"trigger": "auto", "preTokens": 167_000}
    w.emit(boundary)
    w.user(SUMMARY, isCompactSummary=True, isVisibleInTranscriptOnly=True)
    w.user("Continue with the response hook.")
    return w


def codex_rollout() -> list[str]:
    """The same decisions in a Codex rollout (`~/.codex/sessions/…/rollout-*.jsonl`), compacted:
    a `compacted` record holds the summary, which drops the same two decisions."""
    out: list[str] = []
    second = 0

    def rec(kind: str, payload: dict[str, object]) -> None:
        nonlocal second
        second += 7
        stamp = f"2026-03-18T10:{second // 60:02d}:{second % 60:02d}.000Z"
        out.append(json.dumps({"timestamp": stamp, "type": kind, "payload": payload}, ensure_ascii=False))

    def prompt(text: str) -> None:
        rec(
            "turn_context",
            {"cwd": CWD, "approval_policy": "on-request", "model": "gpt-5-codex", "effort": "medium"},
        )
        rec(
            "response_item",
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
        )
        rec("event_msg", {"type": "user_message", "message": text, "images": [], "kind": "plain"})

    def reply(text: str) -> None:
        rec(
            "response_item",
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]},
        )
        rec("event_msg", {"type": "agent_message", "message": text})

    rec(
        "session_meta",
        {
            "id": "0c4e2b9a-1f3d-4a6b-8c7e-9d0f1a2b3c4d",
            "timestamp": "2026-03-18T10:00:00.000Z",
            "cwd": CWD,
            "originator": "codex_cli_rs",
            "cli_version": "0.130.0",
            "source": "cli",
            "model_provider": "openai",
        },
    )
    prompt("We need a rate limiter for the public API. What are the usual designs?")
    reply("A fixed window counter, a sliding window log, or a token bucket.")
    for text in (DECISION_TOKEN_BUCKET, SPEC_LIMITS, DECISION_REDIS, DECISION_ADMIN):
        prompt(text)
        reply("Noted.")
    for prompt_text in FILLER_PROMPTS:
        prompt(prompt_text)
        reply("Done; the tests pass.")
    prompt(DECISION_HEADERS)
    reply("I will add the header in the response hook.")
    rec("compacted", {"message": SUMMARY})
    prompt("Continue with the response hook.")
    return out


def main() -> None:
    HERE.mkdir(parents=True, exist_ok=True)
    w = session()
    (HERE / "session.jsonl").write_text("\n".join(w.lines) + "\n", encoding="utf-8")
    compacted(w)
    (HERE / "compacted.jsonl").write_text("\n".join(w.lines) + "\n", encoding="utf-8")
    (HERE / "summary.txt").write_text(SUMMARY, encoding="utf-8")
    codex = HERE.parent / "codex"
    codex.mkdir(exist_ok=True)
    name = "rollout-2026-03-18T10-00-00-0c4e2b9a-1f3d-4a6b-8c7e-9d0f1a2b3c4d.jsonl"
    (codex / name).write_text("\n".join(codex_rollout()) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
