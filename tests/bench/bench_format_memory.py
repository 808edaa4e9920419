"""Peak memory of `turnlens stats` on a large file of each format (prints a table).

    python tests/bench/bench_format_memory.py [--mb 20] [--only NAME ...]

Each file is made by repeating a format fixture's records (JSON Lines: its lines; a JSON list:
its items; Markdown: the whole text) up to about `--mb` megabytes, in a temporary folder. Each
`turnlens stats` runs in a child process; the figures are its wall time and peak resident memory.
JSON Lines files of 8 MB or more are read line by line; one-document formats are held whole.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "formats" / "fixtures"

CASES = {  # name → (fixture, how it is grown, file name to write)
    "claude-code": ("claude-code/8f41c2d0-6a7b-4e3c-9d12-5b6a7c8d9e0f.jsonl", "lines", "s.jsonl"),
    "codex": (
        "codex/rollout-2026-04-10T07-58-12-0199a6c4-2b7e-7d10-8f3a-4c5d6e7f8091.jsonl",
        "lines",
        "rollout-x.jsonl",
    ),
    "copilot-cli": (
        "copilot-cli/session-state/5b1f0c2e-93d4-4a8e-b7f1-0e2d3c4b5a69/events.jsonl",
        "lines",
        "events.jsonl",
    ),
    "gemini-jsonl": ("gemini/session-2026-03-16T08-12-e5f6a7b8.jsonl", "gemini-lines", "session-x.jsonl"),
    "openai-jsonl": ("openai/finetune-support.jsonl", "lines", "ft.jsonl"),
    "sharegpt-jsonl": ("sharegpt/variants.jsonl", "lines", "sg.jsonl"),
    "gemini": ("gemini/session-2026-03-15T10-00-a1b2c3d4.json", "messages", "session-x.json"),
    "chatgpt": ("chatgpt/conversations.json", "list", "conversations.json"),
    "claude-ai": ("claude-ai/conversations.json", "list", "conversations.json"),
    "gemini-logs": ("gemini-logs/logs.json", "list", "logs.json"),
    "sharegpt": ("sharegpt/sharegpt.json", "list", "sg.json"),
    "anthropic": ("anthropic/messages-refactor.json", "messages", "req.json"),
    "openai": ("openai/chat-weather-tool.json", "messages", "chat.json"),
    "aider": ("aider/fences/.aider.chat.history.md", "text", ".aider.chat.history.md"),
    "markdown-chat": ("markdown-chat/headings.md", "text", "chat.md"),
}


def grow(fixture: Path, how: str, target: int) -> str:
    text = fixture.read_text(encoding="utf-8")
    if how == "text":
        return text * max(1, target // len(text.encode()))
    if how in ("lines", "gemini-lines"):
        lines = [ln for ln in text.splitlines() if ln.strip()]
        head, body = (lines[:1], lines[1:]) if how == "gemini-lines" else ([], lines)
        if how == "gemini-lines":  # message ids must differ, or later writings replace earlier ones
            out = list(head)
            size, n = 0, 0
            while size < target:
                n += 1
                for ln in body:
                    obj = json.loads(ln)
                    if isinstance(obj, dict) and ("$rewindTo" in obj or "$set" in obj):
                        continue  # a rewind would drop the copies before it
                    if isinstance(obj, dict) and "id" in obj:
                        obj["id"] = f"{obj['id']}-{n}"
                    s = json.dumps(obj, ensure_ascii=False)
                    out.append(s)
                    size += len(s) + 1
            return "\n".join(out) + "\n"
        reps = max(1, target // len("\n".join(body).encode()))
        return "\n".join(body * reps) + "\n"
    obj = json.loads(text)
    if how == "list":
        one = len(text.encode())
        return json.dumps(obj * max(1, target // one), ensure_ascii=False, indent=1)
    key = "messages"
    holder = obj if isinstance(obj, dict) else {"messages": obj}
    msgs = holder[key]
    one = len(json.dumps(msgs, ensure_ascii=False).encode())
    holder[key] = msgs * max(1, target // one)
    return json.dumps(holder if isinstance(obj, dict) else holder[key], ensure_ascii=False, indent=1)


def run(path: Path) -> tuple[float, float, str]:
    start = time.perf_counter()
    # VmHWM, not ru_maxrss: the latter keeps the forking parent's size across exec
    cmd = [sys.executable, "-c", "import re, sys; from turnlens.cli import main; "
           "code = main(sys.argv[1:]); "
           "hwm = re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1); "
           "print(hwm, file=sys.stderr); sys.exit(code)",
           "stats", str(path), "--format", "json"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    took = time.perf_counter() - start
    rss_kib = float(done.stderr.strip().splitlines()[-1]) if done.stderr.strip() else 0.0
    units = json.loads(done.stdout)["sessions"][0]["units"] if done.returncode == 0 else -1
    return took, rss_kib / 1024, f"{units:,} units" if units >= 0 else done.stderr[-200:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=20.0)
    parser.add_argument("--only", nargs="*")
    args = parser.parse_args()
    target = int(args.mb * 1024 * 1024)
    print(f"{'format':<15} {'file MB':>8} {'seconds':>8} {'peak MiB':>9}  units")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (rel, how, file_name) in CASES.items():
            if args.only and name not in args.only:
                continue
            folder = Path(tmp) / name
            folder.mkdir()
            path = folder / file_name
            path.write_text(grow(FIXTURES / rel, how, target), encoding="utf-8")  # freed before the run
            size = path.stat().st_size / 1e6
            took, peak, what = run(path)
            print(f"{name:<15} {size:8.1f} {took:8.2f} {peak:9.0f}  {what}", flush=True)
            path.unlink()


if __name__ == "__main__":
    main()
