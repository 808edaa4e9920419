"""Read the hand-written row files of this folder (`*.rows`): one row per block.

A block is a header line `label lang genre` and the text on the lines after it, up to a line
that is exactly `%%`. The text is kept as written (newlines included). Run a generator
(`python scripts/corpus/turns-real.py`) to write its JSON Lines file next to it, then bring it
into the corpus with `python scripts/import_corpus.py`."""

from __future__ import annotations

import json
from pathlib import Path


def read_rows(path: Path) -> list[tuple[str, str, str, str]]:
    """(label, lang, genre, text) for each block of `path`."""
    out = []
    for block in path.read_text(encoding="utf-8").split("\n%%\n"):
        block = "\n".join(line for line in block.strip("\n").split("\n") if not line.startswith("# "))
        block = block.strip("\n")
        if not block:
            continue
        head, _, text = block.partition("\n")
        label, lang, genre = head.split()
        if text.strip():
            out.append((label, lang, genre, text))
    return out


def write_jsonl(rows: list[tuple[str, str, str, str]], prefix: str, out: Path) -> None:
    lines = [
        json.dumps(
            {"id": f"{prefix}-{n:05d}", "text": text, "label": label, "lang": lang, "genre": genre},
            ensure_ascii=False,
        )
        for n, (label, lang, genre, text) in enumerate(rows, start=1)
    ]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
