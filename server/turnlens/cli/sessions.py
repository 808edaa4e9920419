"""Reading a file for `check`, `plan` and `stats`: whole when small, line by line when it is a
large JSON Lines session (bounded memory however long the session)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from turnlens.cli.common import UsageError, decode, read_path, warn_invalid_utf8
from turnlens.pipeline.analyze import UnitResult, analyze, analyze_stream, can_stream
from turnlens.pipeline.formats import DETECT_HEAD, Problem, resolve
from turnlens.pipeline.formats.base import SessionInfo
from turnlens.pipeline.profile import Profile
from turnlens.userfiles import jsonl_lines

STREAM_MIN_BYTES = 8 * 1024 * 1024


@dataclass(slots=True)
class FileAnalysis:
    """One file's results, as a list (read whole) or an iterator (streamed)."""

    format: str
    results: Iterator[UnitResult]
    problems: list[Problem]
    text: str | None = None  # the whole document, when it was read whole
    line_offsets: dict[int, int] = field(default_factory=dict)  # recent lines, when streamed
    title: str | None = None
    # what the file records about the session; a streamed file's is complete once its results are
    info: SessionInfo | None = None
    # (offset, its 1-based line) of the last position asked: units come in order, so lines are
    # counted on from there (counting from the start each time made `check` quadratic)
    _cursor: tuple[int, int] = field(default=(0, 1), init=False, repr=False)

    def position(self, result: UnitResult) -> tuple[int, int]:
        """1-based line and column (in code points) of where a unit's text starts."""
        unit = result.unit
        anchor = unit.content_start
        if self.text is not None:
            pos, line = self._cursor
            if anchor < pos:
                pos, line = 0, 1
            line += self.text.count("\n", pos, anchor)
            self._cursor = (anchor, line)
            return line, anchor - (self.text.rfind("\n", 0, anchor) + 1) + 1
        start = self.line_offsets.get(unit.line, anchor)
        return unit.line, anchor - start + 1


def analyze_file(path: Path, profile: Profile) -> FileAnalysis:
    """Analyse one file; raises UsageError when unreadable, NotATranscript when refused."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise UsageError(f"turnlens: {path}: {exc.strerror or exc}") from None
    if size >= STREAM_MIN_BYTES and path.is_file():
        with path.open("rb") as f:
            head = decode(f.read(DETECT_HEAD), str(path), quiet=True)
        fmt = resolve(profile.format, str(path), head)
        if can_stream(fmt):
            problems: list[Problem] = []
            offsets: dict[int, int] = {}
            info = SessionInfo()
            lines = jsonl_lines(path, offsets=offsets, on_invalid_utf8=lambda: warn_invalid_utf8(str(path)))
            results = analyze_stream(lines, fmt, profile, problems, info)
            return FileAnalysis(fmt.name, results, problems, None, offsets, info=info)
    text = read_path(path)
    analyzed = analyze(text, profile, path=str(path))
    return FileAnalysis(
        analyzed.format,
        iter(analyzed.results),
        list(analyzed.problems),
        text,
        title=analyzed.title,
        info=analyzed.info,
    )
