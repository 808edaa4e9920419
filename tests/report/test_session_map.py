"""The session map page, rendered by a real headless Chromium: its marks and totals must say
what `turnlens check` and `turnlens stats` say about the same file."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from turnlens.pipeline.analyze import analyze
from turnlens.pipeline.formats import NotATranscript
from turnlens.pipeline.profile import Profile
from turnlens.pipeline.sessionmap import session_map
from turnlens.report import render_html

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)"
)


def session_files() -> list[Path]:
    """One file per format: the bundled examples and the format fixtures."""
    candidates = sorted((ROOT / "docs" / "examples").glob("*.*"))
    fixtures = ROOT / "tests" / "formats" / "fixtures"
    if fixtures.is_dir():
        candidates += sorted(p for p in fixtures.rglob("*") if p.is_file())
    seen: dict[str, Path] = {}
    for path in candidates:
        try:
            text = path.read_text(encoding="utf-8")
            fmt = analyze(text, Profile(), path=str(path)).format
        except (NotATranscript, UnicodeDecodeError, ValueError):
            continue
        seen.setdefault(fmt, path)
    return list(seen.values())


class _Marks(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.marks: list[dict[str, str | None]] = []
        self.ids: dict[str, str] = {}
        self._in: str | None = None
        self.body: dict[str, str | None] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "body":
            self.body = a
        if tag == "rect" and "mark" in (a.get("class") or "").split():
            self.marks.append(a)
        if a.get("id", "") and (a["id"] or "").startswith("t-"):
            self._in = a["id"]

    def handle_data(self, data: str) -> None:
        if self._in:
            self.ids[self._in] = data.strip()
            self._in = None


def dump_dom(html: Path) -> str:
    """The page's DOM after its script ran, in a 1400×1000 window of headless Chromium."""
    assert CHROMIUM is not None
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={html.parent / 'chromium'}",
            "--window-size=1400,1000",
            "--dump-dom",
            html.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout


def render_dom(html: Path) -> _Marks:
    parser = _Marks()
    parser.feed(dump_dom(html))
    return parser


def turnlens(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "turnlens", *args], capture_output=True, text=True, check=False
    )


@needs_chromium
@pytest.mark.parametrize("path", session_files(), ids=lambda p: p.name)
def test_rendered_marks_and_totals_match_check_and_stats(path: Path, tmp_path: Path) -> None:
    html = tmp_path / "map.html"
    stats = turnlens("stats", str(path), "--format", "json", "--html", str(html))
    assert stats.returncode == 0, stats.stderr
    total = json.loads(stats.stdout)["sessions"][0]
    check = json.loads(turnlens("check", str(path), "--format", "json").stdout)
    dom = render_dom(html)
    assert dom.body.get("data-ready") == "1"
    assert len(dom.marks) == total["units"] == len(check)
    assert [m["data-class"] for m in dom.marks] == [item["class"] for item in check]
    assert [m["data-frozen"] for m in dom.marks] == [item["frozen"] for item in check]
    assert [m["data-role"] for m in dom.marks] == [item["role"] or "text" for item in check]
    assert dom.ids["t-units"] == f"{total['units']:,}"
    assert dom.ids["t-tokens"] == f"{total['tokens']:,}"
    assert dom.ids["t-prompts"] == f"{total['prompts']:,}"
    assert dom.ids["t-frozen"] == f"{100 * total['frozen_share']:.1f} %"


def test_the_page_is_self_contained_and_escapes_what_it_embeds() -> None:
    text = (ROOT / "docs" / "examples" / "session.md").read_text(encoding="utf-8")
    text += "\n---TURN---\n</script><script>alert(1)</script> <img src=x onerror=alert(2)>\n"
    analyzed = analyze(text, Profile())
    page = render_html([session_map(analyzed, text, path="x.md")])
    assert "http://" not in page and "https://" not in page.replace(
        "https://json-schema.org", ""
    )  # no remote resource
    assert "<script>alert(1)" not in page and "<img" not in page
    assert page.count("<script") == 2  # the data block and the one nonce'd script
    csp = page.split('Content-Security-Policy" content="', 1)[1].split('"', 1)[0]
    assert "default-src 'none'" in csp and "unsafe-inline" not in csp


FIXTURES = ROOT / "tests" / "formats" / "fixtures"
VSCODE_SESSION = FIXTURES / "claude-code" / "8f41c2d0-6a7b-4e3c-9d12-5b6a7c8d9e0f.jsonl"


def test_the_map_carries_times_recorded_tokens_models_and_faded_kinds() -> None:
    text = VSCODE_SESSION.read_text(encoding="utf-8")
    data = session_map(analyze(text, Profile(), path=str(VSCODE_SESSION)), text, path=str(VSCODE_SESSION))
    st = data["stats"]
    assert st["tokens_basis"] == "estimate: words × 1.3"
    assert st["recorded_tokens"] == 54072 and st["recorded_usage"]["source"] == "message.usage"
    assert st["models"] == ["claude-opus-4-1-20250805", "claude-sonnet-4-5-20250929"]
    assert (st["started"], st["ended"]) == ("2026-04-02T08:15:00Z", "2026-04-02T08:22:41Z")
    assert all(u["time"] for u in data["units"])
    aside = [u["kind"] for u in data["units"] if u["aside"]]
    assert sorted(set(aside)) == ["command", "injected"] and len(aside) == st["aside"] == 8
    assert st["prompts"] == 3  # the prompts the person typed, nothing else


@needs_chromium
def test_the_page_draws_a_time_axis_and_the_recorded_tokens(tmp_path: Path) -> None:
    html = tmp_path / "map.html"
    run = turnlens("stats", str(VSCODE_SESSION), "--html", str(html))
    assert run.returncode == 0, run.stderr
    dom = render_dom(html)
    assert dom.ids["t-recorded"] == "54,072"
    assert dom.ids["t-aside"] == "8"
    faded = [m for m in dom.marks if m["data-kind"] in ("injected", "command")]
    assert len(faded) == 8 and all("kind-" + str(m["data-kind"]) in str(m["class"]) for m in faded)
    page = dump_dom(html)
    assert 'id="time-axis"' in page and 'data-time="2026-04-02T08:15:00' in page


def test_a_map_of_nothing_readable_says_why_and_fails(tmp_path: Path) -> None:
    html = tmp_path / "map.html"
    near_miss = ROOT / "tests" / "formats" / "nearmiss" / "app-log.jsonl"
    run = turnlens("stats", str(near_miss), "--html", str(html))
    assert run.returncode == 2
    assert "no session could be read" in run.stderr and "not a transcript" in run.stderr
    page = html.read_text(encoding="utf-8")
    assert "app-log.jsonl" in page and "matches no known session format" in page


@needs_chromium
def test_each_legend_names_only_marks_the_session_draws_and_units_start_on_the_first_screen(
    tmp_path: Path,
) -> None:
    tops: list[str] = []

    def page_of(session: Path) -> str:
        """What the page shows (the rendered app), and where its table of units starts."""
        html = tmp_path / f"{session.stem}.html"
        assert turnlens("stats", str(session), "--html", str(html)).returncode == 0
        dom = dump_dom(html)
        tops.extend(re.findall(r'data-units-top="(\d+)"', dom))
        return dom.split('<main id="app"', 1)[1].split("</main>", 1)[0]

    claude = page_of(ROOT / "docs" / "examples" / "claude-session.jsonl")  # records no effort used
    assert "the effort TurnLens routes" in claude
    assert "used by the agent" not in claude and "they disagree" not in claude
    assert ">max<" not in claude and ">xhigh<" not in claude  # no rows for efforts it never has
    assert tops and int(tops[0]) < 1000, f"the table of units starts below the first screen: {tops}"
    codex = page_of(
        FIXTURES / "codex" / "rollout-2026-03-14T09-30-00-5f0c2b1e-7a41-4c55-9d0e-2b8f6a1c3d77.jsonl"
    )
    assert "the effort the agent used" in codex and "they disagree" in codex
