"""How fast the Markdown readers split, re-split and rule files out (not a test: prints figures).

    python tests/bench/bench_markdown_formats.py [--turns 20000]

Builds an Aider history and a Markdown chat of `--turns` exchanges (code fences
in every reply, non-ASCII text), then times a full split, the Aider re-split
after appending a prompt to the last session, and each reader's detection on
64 KiB of plain Markdown (what every keystroke in a plain note pays).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from turnlens.pipeline.formats import FormatOptions, get_format

OPTIONS = FormatOptions()


def aider_history(turns: int, sessions: int = 20) -> str:
    per = max(1, turns // sessions)
    out = []
    for s in range(sessions):
        out.append(f"\n# aider chat started at 2025-03-{s % 28 + 1:02d} 09:00:00\n\n> Aider v0.82.1  \n")
        for i in range(per):
            out.append(
                f"\n#### arregla el cálculo {i} 🛒  \n#### y añade un test  \n\n"
                f"Here is the fix for step {i}:\n\napp.py\n```python\n<<<<<<< SEARCH\nx = {i}\n=======\n"
                f"x = {i + 1}\n>>>>>>> REPLACE\n```\n\n> Applied edit to app.py  \n"
            )
    return "".join(out)


def markdown_chat(turns: int) -> str:
    return "# Chat\n\n" + "".join(
        f"## User\n\nWie migriere ich Tabelle {i}? 🚚\n\n## Assistant\n\nIn Schritten:\n```sql\nSELECT {i};\n```\n\n"
        for i in range(turns)
    )


def plain_markdown() -> str:
    para = "## Section\n\nSome text with **bold** and a list:\n- a\n- b\n\n```python\nx = 1\n```\n\n"
    return (para * (65536 // len(para) + 1))[:65536]


def timed(fn: Callable[[], object], repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t)
    return statistics.median(runs) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--turns", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    aider, chat = get_format("aider"), get_format("markdown-chat")
    history = aider_history(args.turns)
    first = aider.split(history, OPTIONS)
    print(f"aider: {len(history) / 1e6:.1f} MB, {len(first.units)} units")
    print(
        f"  split                           {timed(lambda: aider.split(history, OPTIONS), args.repeat):8.1f} ms"
    )
    grown = history + "\n#### one more prompt\n"
    edit = (len(history), 0)
    ms = timed(lambda: aider.resplit(grown, OPTIONS, first, edit), args.repeat)
    print(f"  re-split after appending a prompt {ms:6.1f} ms")
    text = markdown_chat(args.turns)
    n = len(chat.split(text, OPTIONS).units)
    print(f"markdown-chat: {len(text) / 1e6:.1f} MB, {n} units")
    print(
        f"  split                           {timed(lambda: chat.split(text, OPTIONS), args.repeat):8.1f} ms"
    )
    plain = plain_markdown()
    for name in ("aider", "markdown-chat", "prompt-file"):
        fmt = get_format(name)
        ms = timed(lambda fmt=fmt: fmt.detect("/notes/plain.md", plain), 50)  # type: ignore[misc]
        print(f"{name}.detect on 64 KiB of plain Markdown {ms:6.2f} ms")


if __name__ == "__main__":
    main()
