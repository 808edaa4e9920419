"""`turnlens schema`: the JSON Schema of the `turnlens` settings (one source of truth)."""

from __future__ import annotations

import argparse
import json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("schema", help="print the JSON Schema of the editor settings")
    p.add_argument("--markdown", action="store_true", help="print the settings table as Markdown instead")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from turnlens.lsp.settings import settings_markdown, settings_schema

    if args.markdown:
        print(settings_markdown(), end="")
    else:
        print(json.dumps(settings_schema(), indent=2, ensure_ascii=False))
    return 0
