"""Labelled corpora (JSON Lines, docs/labels.md): reading them with every bad row named.

Pure: the caller reads the file and hands over its text, so the same checks
serve `turnlens train`, `turnlens eval`, the tests and the training script.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

CLASS_LABELS = ("decision", "spec", "code", "review", "context", "chitchat")
ROUTER_LABELS = ("design", "analysis", "coding", "bookkeeping", "chat")
TASK_LABELS = {"classes": CLASS_LABELS, "labels": ROUTER_LABELS}
# shipped corpus files by task: turns-*.jsonl are turns, prompts-*.jsonl are prompts
_PREFIX = {"classes": "turns-", "labels": "prompts-"}


def shipped_files(task: str) -> list[Path]:
    """The corpus files shipped in the package for `task`, in name order."""
    folder = Path(__file__).resolve().parent / "corpus"
    return sorted(folder.glob(f"{_PREFIX[task]}*.jsonl"))


@dataclass(frozen=True, slots=True)
class Row:
    id: str
    text: str
    label: str
    lang: str = ""
    genre: str = ""

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "text": self.text, "label": self.label, "lang": self.lang, "genre": self.genre}


def task_of(label: str) -> str | None:
    """Which task a label belongs to (`classes` or `labels`), or None."""
    for task, labels in TASK_LABELS.items():
        if label in labels:
            return task
    return None


def parse_corpus(text: str, task: str | None, source: str = "<corpus>") -> tuple[list[Row], list[str]]:
    """The valid rows of a JSONL corpus and one problem line per skipped row (`FILE:LINE: why`).

    `task` restricts labels to one task; None takes the task of the first valid row.
    """
    rows: list[Row] = []
    problems: list[str] = []
    # JSON Lines: records end at LF (or CRLF) only; `str.splitlines` would also cut at U+2028,
    # U+0085 and other characters a JSON string may hold raw
    for n, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        where = f"{source}:{n}"
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            # some of json's messages end mid-sentence ("Unterminated string starting at"): say where
            said = f"{exc.msg} column {exc.colno}" if exc.msg.endswith(" at") else exc.msg
            problems.append(f"{where}: invalid JSON ({said}); row skipped")
            continue
        except RecursionError:
            problems.append(f"{where}: invalid JSON (nested too deep); row skipped")
            continue
        if not isinstance(item, dict):
            problems.append(f"{where}: not a JSON object; row skipped")
            continue
        label, body = item.get("label"), item.get("text")
        if ("text" in item and not isinstance(body, str)) or ("label" in item and not isinstance(label, str)):
            problems.append(f"{where}: `text` and `label` must be strings; row skipped")
            continue
        if not isinstance(body, str) or not body.strip():
            problems.append(f"{where}: empty or missing text; row skipped")
            continue
        if not isinstance(label, str) or not label:
            problems.append(f"{where}: missing label; row skipped")
            continue
        label = label.strip().lower()
        if task is None:
            task = task_of(label)
        allowed = TASK_LABELS.get(task or "", ())
        if label not in allowed:
            expected = ", ".join(allowed) if allowed else ", ".join(CLASS_LABELS + ROUTER_LABELS)
            problems.append(f"{where}: unknown label {label!r} (expected one of {expected}); row skipped")
            continue
        rid = item.get("id")
        rows.append(
            Row(
                id=str(rid) if rid is not None else f"{source}:{n}",
                text=body,
                label=label,
                lang=str(item.get("lang") or ""),
                genre=str(item.get("genre") or ""),
            )
        )
    return rows, problems


def dump_rows(rows: list[Row]) -> str:
    return "".join(json.dumps(r.to_json(), ensure_ascii=False) + "\n" for r in rows)
