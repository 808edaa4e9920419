"""Positions in the negotiated encoding: UTF-16 by default, UTF-8 and UTF-32 when offered."""

from __future__ import annotations

import pytest
from pytest_lsp import LanguageClient

from .conftest import _capabilities, open_doc, start, wait_diagnostics
from .docs import CRLF_SESSION, UTF8_LINE0_END, UTF16_LINE0_END, UTF32_LINE0_END

URI = "file:///work/session.md"


@pytest.mark.parametrize(
    ("offered", "end"),
    [
        (None, UTF16_LINE0_END),
        (["utf-8"], UTF8_LINE0_END),
        (["utf-32"], UTF32_LINE0_END),
        (["utf-16"], UTF16_LINE0_END),
    ],
)
async def test_ranges_follow_the_position_encoding(
    bare_client: LanguageClient, offered: list[str] | None, end: int
) -> None:
    await start(bare_client, capabilities=_capabilities(offered))
    open_doc(bare_client, URI, CRLF_SESSION)
    diags = await wait_diagnostics(bare_client, URI, version=1)
    assert diags[0].range.end.character == end
    assert [d.range.start.line for d in diags] == [0, 2, 7]
