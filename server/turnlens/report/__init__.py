"""The session map as one self-contained HTML page (a view, like `cli/` and `lsp/`)."""

from turnlens.report.html import render_html

__all__ = ["render_html"]
