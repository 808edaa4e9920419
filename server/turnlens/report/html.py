"""One HTML file per session or folder: inline CSS, JS and data, no network.

The same page runs in a browser (`turnlens stats --html`) and in the VS Code
webview (where it also posts "reveal" messages and takes "update" ones).
"""

from __future__ import annotations

import json
import re
import secrets
from functools import cache
from importlib.resources import files
from typing import Any


@cache
def _asset(name: str) -> str:
    return (files("turnlens.report") / "assets" / name).read_text(encoding="utf-8")


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _json_for_script(value: Any) -> str:
    """JSON safe inside <script>: no `</`, no U+2028/2029 surprises, no HTML comment openers,
    and a lone surrogate written as its escape (UTF-8 cannot encode it: the page would not be
    written at all)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    text = _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _escape(text: str) -> str:
    text = _LONE_SURROGATE.sub("\ufffd", text)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def render_html(
    sessions: list[dict[str, Any]],
    *,
    title: str = "TurnLens session map",
    nonce: str | None = None,
    vscode: bool = False,
    skipped: list[dict[str, str]] | None = None,
) -> str:
    """The page for one or more session maps (`pipeline.sessionmap.session_map` results);
    `skipped` names the files passed over and why, so an empty page says why it is empty."""
    nonce = nonce or secrets.token_urlsafe(16)
    csp = f"default-src 'none'; style-src 'nonce-{nonce}'; script-src 'nonce-{nonce}'; img-src data:;"
    data = _json_for_script({"sessions": sessions, "skipped": skipped or []})
    root_class = ' class="vscode"' if vscode else ""
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="en"{root_class}>\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_escape(title)}</title>\n"
        f'<style nonce="{nonce}">\n{_asset("map.css")}</style>\n</head>\n<body>\n'
        '<main id="app" aria-live="polite"></main>\n<div id="tip" role="tooltip"></div>\n'
        f'<script id="turnlens-data" type="application/json">{data}</script>\n'
        f'<script nonce="{nonce}">\n{_asset("map.js")}</script>\n</body>\n</html>\n'
    )
