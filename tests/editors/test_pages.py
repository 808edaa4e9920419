"""Every editor page starts from install.md and shows what you should see."""

from __future__ import annotations

import re

import pytest

from tests.editors.harness import DOCS, ROOT, screen_block

SCREENS = {  # page → the captured screens it must show (made by the editor tests)
    "neovim-0.7.md": ["neovim-0.7"],
    "neovim.md": ["neovim-0.11"],
    "emacs.md": ["emacs"],
    "vim.md": ["vim-ale"],
}
PAGES = sorted(p.name for p in DOCS.glob("*.md") if p.name != "install.md")


@pytest.mark.parametrize("page", PAGES)
def test_page_starts_from_the_install_page(page: str) -> None:
    text = (DOCS / page).read_text(encoding="utf-8")
    assert "install.md" in text
    if page != "vscode.md":  # that page quotes the extension's own install hint
        assert "pip install turnlens" not in text  # not on the package index


@pytest.mark.parametrize("page", sorted(SCREENS))
def test_page_shows_a_captured_screen_of_the_example(page: str) -> None:
    for name in SCREENS[page]:
        screen = screen_block(page, name)
        assert screen is not None, f"{page}: no editor-screen: {name} block"
        assert "captured by" not in screen, f"{page}: run its test with TURNLENS_RECORD_SCREENS=1"
        assert "Pedalea" in screen  # a line of docs/examples/session.md
        # a reader's own paths, never the test machine's temporary folders
        assert not re.search(r"/tmp/|pytest-of-|/project/", screen.replace("~/project/", "")), screen


def test_every_editor_page_is_linked_from_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"docs/editors/([\w.\-]+\.md)", readme))
    assert linked >= set(PAGES) | {"install.md"}
