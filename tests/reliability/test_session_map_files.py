"""`turnlens.sessionMap` writes its page only where no other local user can redirect it.

Before, the page went to `$TMPDIR/turnlens/<name>.map.html` with `write_text`: a link planted
there by another user was followed (the server wrote wherever it pointed), a `turnlens/` folder
owned by anyone was used, and two documents with one name overwrote each other.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from turnlens.lsp import pages

from .conftest import Spawn
from .rawlsp import server_env

TEXT = "## User\n\nAPPROVED — ship it.\n\n## Assistant\n\nShipping.\n"


async def _map(server: object, uri: str) -> dict[str, object]:
    answer = await server.request(  # type: ignore[attr-defined]
        "workspace/executeCommand", {"command": "turnlens.sessionMap", "arguments": [{"uri": uri}]}
    )
    assert "result" in answer, answer
    result = answer["result"]
    assert isinstance(result, dict)
    return result


async def test_session_map_never_writes_through_a_planted_link(spawn: Spawn, tmp_path: Path) -> None:
    tmp, work = tmp_path / "tmp", tmp_path / "work"
    tmp.mkdir()
    (work / "a").mkdir(parents=True)
    (work / "b").mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    # what another user could plant in a shared temp folder: the old fixed path as a link,
    # and the new folder's name as a link to a folder they own
    (tmp / "turnlens").mkdir(mode=0o777)
    (tmp / "turnlens" / "session.md.map.html").symlink_to(victim)
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o777)
    (tmp / f"turnlens-{os.getuid()}").symlink_to(theirs, target_is_directory=True)

    server = await spawn(env=server_env({"TMPDIR": str(tmp)}), config={"debounceMs": 0})
    await server.initialize(folders=[str(work)])
    written: list[Path] = []
    for folder in ("a", "b"):  # two documents with one name
        uri = (work / folder / "session.md").as_uri()
        server.open(uri, TEXT)
        await server.wait_diagnostics(uri, 1)
        result = await _map(server, uri)
        written.append(Path(str(result["path"])))

    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert list(theirs.iterdir()) == []
    assert written[0] != written[1], "two documents with one name overwrote each other"
    for page in written:
        assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
        info = os.lstat(page)
        assert stat.S_ISREG(info.st_mode) and info.st_mode & 0o077 == 0
        parent_info = os.lstat(page.parent)
        assert not stat.S_ISLNK(parent_info.st_mode) and parent_info.st_mode & 0o077 == 0
        assert parent_info.st_uid == os.getuid()
        assert theirs not in page.parents and tmp / "turnlens" not in page.parents


def test_the_private_folder_is_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    monkeypatch.setattr(pages, "_fallback", None)
    mine = tmp_path / f"turnlens-{os.getuid()}"
    # made 0700 when missing
    assert pages.private_folder() == mine and mine.stat().st_mode & 0o777 == 0o700
    # a folder others can enter is refused
    mine.chmod(0o755)
    other = pages.private_folder()
    assert other != mine and pages.is_private(other)
    mine.chmod(0o700)
    if os.getuid() == 0:  # a folder owned by another user is refused
        os.chown(mine, 65534, 65534)
        assert pages.private_folder() != mine
        os.chown(mine, 0, 0)
    # a page is never an existing file: a name already taken is skipped, not opened
    page = pages.write_page("x.md", "<!DOCTYPE html>")
    assert page.parent == mine and page.stat().st_mode & 0o777 == 0o600
    pages.remove_page(page)
    assert not page.exists()
