"""How `turnlens stats` copes with large session files of the JSON formats (prints figures).

    python tests/bench/bench_formats.py [--mb 50]

Writes, in a temporary folder, a Codex rollout (JSON Lines, read line by line) and a ChatGPT
export (one JSON document, parsed whole) of about `--mb` megabytes each, from a fixed seed,
then runs `turnlens stats` on each in a child process and prints the wall time and the child's
peak resident memory.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORDS = [
    "refactor",
    "the",
    "parser",
    "keep",
    "the",
    "public",
    "api",
    "tests",
    "pass",
    "review",
    "the",
    "diff",
    "approve",
    "merge",
    "spec",
    "context",
    "café",
    "niño",
    "😀",
    "quote",
    '"',
    "newline\n",
    "tab\t",
    "error:",
    "traceback",
    "decision",
]


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def codex_rollout(path: Path, target: int, rng: random.Random) -> int:
    """A rollout of turns (prompt, turn_context, reasoning, tool call and output, reply)."""
    size = 0
    with path.open("w", encoding="utf-8") as f:
        f.write(json.dumps({"type": "session_meta", "payload": {"id": "bench", "cwd": "/w"}}) + "\n")
        turn = 0
        while size < target:
            turn += 1
            prompt = _text(rng, rng.randint(5, 120))
            records = [
                {
                    "type": "turn_context",
                    "payload": {"model": "m", "effort": rng.choice(["low", "medium", "high"])},
                },
                {
                    "type": "response_item",
                    "payload": {
                        "type": "message",
                        "role": "user",
                        "content": [{"type": "input_text", "text": prompt}],
                    },
                },
                {"type": "event_msg", "payload": {"type": "user_message", "message": prompt}},
                {
                    "type": "response_item",
                    "payload": {
                        "type": "reasoning",
                        "summary": [{"type": "summary_text", "text": _text(rng, 40)}],
                    },
                },
                {
                    "type": "response_item",
                    "payload": {
                        "type": "function_call",
                        "name": "shell",
                        "arguments": json.dumps({"command": ["rg", _text(rng, 3)]}),
                        "call_id": f"c{turn}",
                    },
                },
                {
                    "type": "response_item",
                    "payload": {
                        "type": "function_call_output",
                        "call_id": f"c{turn}",
                        "output": _text(rng, rng.randint(20, 600)),
                    },
                },
                {
                    "type": "response_item",
                    "payload": {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": _text(rng, rng.randint(10, 300))}],
                    },
                },
                {"type": "event_msg", "payload": {"type": "task_complete"}},
            ]
            for record in records:
                line = (
                    json.dumps({"timestamp": "2026-03-14T09:30:00Z", **record}, ensure_ascii=turn % 2 == 0)
                    + "\n"
                )
                f.write(line)
                size += len(line.encode("utf-8"))
    return size


def chatgpt_export(path: Path, target: int, rng: random.Random) -> int:
    """Conversations of a few dozen messages each, with an abandoned branch now and then."""
    conversations = []
    size = 0
    n = 0
    while size < target:
        n += 1
        mapping: dict[str, object] = {"r": {"id": "r", "message": None, "parent": None, "children": []}}
        parent = "r"
        for i in range(rng.randint(4, 40)):
            node = f"n{i}"
            role = "user" if i % 2 == 0 else "assistant"
            text = _text(rng, rng.randint(5, 200))
            size += len(text) + 300
            message = {
                "id": node,
                "author": {"role": role},
                "content": {"content_type": "text", "parts": [text]},
                "recipient": "all",
            }
            mapping[node] = {"id": node, "message": message, "parent": parent, "children": []}
            mapping[parent]["children"].append(node)  # type: ignore[index]
            parent = node
        conversations.append({"title": f"c{n}", "mapping": mapping, "current_node": parent})
    path.write_text(json.dumps(conversations, ensure_ascii=False), encoding="utf-8")
    return path.stat().st_size


_CHILD = (
    "import resource, sys\n"
    "from turnlens.cli import main\n"
    "code = main(['stats', sys.argv[1]])\n"
    "print('maxrss', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def run_stats(path: Path) -> tuple[float, float, str]:
    """Wall seconds, peak RSS of the child (MiB) and the summary's first line."""
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path)], capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"turnlens stats failed: {proc.stderr}")
    kib = int(proc.stderr.rsplit("maxrss ", 1)[1].split()[0])
    return wall, kib / 1024, proc.stdout.splitlines()[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50.0)
    args = parser.parse_args()
    target = int(args.mb * 1024 * 1024)
    rng = random.Random(29)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, make in (
            ("rollout-2026-03-14T09-30-00-bench.jsonl", codex_rollout),
            ("conversations.json", chatgpt_export),
        ):
            path = folder / name
            size = make(path, target, rng)
            wall, rss, head = run_stats(path)
            print(f"{name}: {size / 1048576:.1f} MB, stats in {wall:.1f} s, peak RSS {rss:.0f} MiB")
            print(f"  {head.split(': ', 1)[1]}")


if __name__ == "__main__":
    main()
