"""`turnlens export-pins`: the turns people pinned, as corpus rows for `turnlens train`.

A pin (`<!-- turnlens: class=X -->`) is a correction someone made by hand: each
pinned turn becomes one JSONL row (docs/labels.md) with the directive removed,
so the model learns from the text, not from the comment.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from turnlens.cli.common import EXIT_OK, UsageError, decode, separator_help
from turnlens.cli.paths import collect
from turnlens.pipeline.units import DIRECTIVE_BODY

_DIRECTIVE_LINE = re.compile(
    rf"^[ \t]*+<!--[ \t]*+turnlens:{DIRECTIVE_BODY}-->[ \t]*+\n?", re.IGNORECASE | re.MULTILINE
)
_DIRECTIVE = re.compile(rf"<!--[ \t]*+turnlens:{DIRECTIVE_BODY}-->", re.IGNORECASE)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "export-pins",
        help="write pinned turns as a labelled corpus (JSONL) for turnlens train",
        description="Walk files and folders (*.md, *.txt, *.prompt*) and print one JSON line per turn "
        "pinned with <!-- turnlens: class=X -->: id (path:line), text (without the directive), label, "
        "lang, genre. Feed the result to `turnlens train --corpus`.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--out", metavar="FILE", help="write the rows to FILE instead of standard output")
    p.add_argument("--separator", metavar="REGEX", default=None, help=separator_help())
    p.set_defaults(func=run)


def pinned_rows(path: Path, text: str, separator: str) -> list[dict[str, str]]:
    from turnlens.pipeline.formats.turns import split_units

    rows = []
    for unit in split_units(text, separator):
        if unit.pin is None or unit.ignored:
            continue
        body = _DIRECTIVE.sub("", _DIRECTIVE_LINE.sub("", unit.text)).strip()
        if not body:
            continue
        line = text.count("\n", 0, unit.content_start) + 1
        rows.append({"id": f"{path}:{line}", "text": body, "label": unit.pin, "lang": "", "genre": "pinned"})
    return rows


def run(args: argparse.Namespace) -> int:
    from turnlens.pipeline.formats.turns import DEFAULT_SEPARATOR, SeparatorError

    separator = args.separator or DEFAULT_SEPARATOR
    rows: list[dict[str, str]] = []
    try:
        for path in collect(args.paths, "export-pins"):
            try:
                data = path.read_bytes()
            except OSError as exc:
                print(f"turnlens: warning: {path}: {exc.strerror or exc}", file=sys.stderr)
                continue
            if b"\0" in data[:8192]:
                continue
            rows.extend(pinned_rows(path, decode(data, str(path)), separator))
    except SeparatorError as exc:
        raise UsageError(f"turnlens export-pins: {exc}") from None
    out = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    if args.out:
        try:
            Path(args.out).write_text(out, encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"turnlens export-pins: {args.out}: {exc.strerror or exc}") from None
        print(f"{args.out}: {len(rows)} pinned turn{'s' if len(rows) != 1 else ''}", file=sys.stderr)
    else:
        sys.stdout.write(out)
    return EXIT_OK
