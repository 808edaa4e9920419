"""Per-document state: text, effective settings, rule pack, unit cache, last results."""

from __future__ import annotations

import asyncio
import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise
from pathlib import PurePosixPath
from typing import Any

from turnlens.core.rules import RulePack
from turnlens.core.safe_re import PatternError, SafePattern
from turnlens.lsp.settings import Settings
from turnlens.lsp.textdoc import Document
from turnlens.pipeline.analyze import CacheKey, UnitCache, UnitResult
from turnlens.pipeline.formats import Problem
from turnlens.pipeline.formats.base import SessionInfo
from turnlens.router.resolve import Route

MODEL_ROUTES_KEPT = 16


@dataclass(eq=False)
class DocState:
    doc: Document
    settings: Settings = field(default_factory=Settings)
    pack: RulePack | None = None
    # the `turnlens.models` files by task (`classes`, `labels`) for this document
    user_models: dict[str, Any] = field(default_factory=dict)
    path: str | None = None
    folder: str | None = None
    cache: UnitCache = field(default_factory=UnitCache)
    results: tuple[UnitResult, ...] = ()
    problems: tuple[Problem, ...] = ()
    format_name: str = "turns"
    title: str | None = None
    info: SessionInfo | None = None  # what the session file records: times, models, tokens
    analyzed_version: int | None = None
    analyzed_text: str = ""
    too_large: bool = False
    excluded: bool = False
    settings_ready: bool = False
    timer: asyncio.TimerHandle | None = None
    model_routes: dict[str, Route] = field(default_factory=dict)
    model_pending: str | None = None
    payloads: dict[tuple[int, int, str | None, bool], Any] = field(default_factory=dict)
    _in_order: tuple[tuple[UnitResult, ...], bool] = ((), True)  # results last checked, in order?
    # results for the current text when the last analysis is of older text (onSave / manual),
    # kept for the document version they were made for
    preview: tuple[int | None, str, tuple[UnitResult, ...]] | None = None
    # the results the client's inlay hints were last built from (None: it never asked), and
    # whether a hint request is being answered now (its analysis needs no refresh after it)
    hints_given: tuple[UnitResult, ...] | None = None
    answering_hints: bool = False
    # the task refining quick answers with the model, what it refines first (the keys of the
    # turn being written, then of the units the editor last showed), and whether it refined
    # some since `results` was built
    refining: asyncio.Task[None] | None = None
    refine_first: tuple[CacheKey, ...] = ()
    refine_visible: tuple[CacheKey, ...] = ()
    refined_since: bool = False

    @property
    def fresh(self) -> bool:
        return self.analyzed_version == self.doc.version and self.analyzed_text is self.doc.text

    @property
    def silent(self) -> bool:
        """Nothing to show: disabled, excluded, too large, or ignored as a whole."""
        return not self.settings.enable or self.excluded or self.too_large

    def remember_model_route(self, text: str, route: Route) -> None:
        self.model_routes[text] = route
        while len(self.model_routes) > MODEL_ROUTES_KEPT:
            del self.model_routes[next(iter(self.model_routes))]

    def unit_at(self, offset: int, results: tuple[UnitResult, ...] | None = None) -> UnitResult | None:
        """The unit whose range holds `offset` (or the nearest one before it), else the unit
        that starts later on the same line (past a marker such as Aider's `#### `). In `results`
        (results for the current text), by default in the last analysis."""
        text = self.analyzed_text if results is None else self.doc.text
        results = self.results if results is None else results
        i = bisect_right(results, offset, key=_unit_start) - 1
        if i >= 0 and results[i].unit.start <= offset <= results[i].unit.end:
            return results[i]
        # units come in reading order, which is not always document order (a ChatGPT export's
        # active branch, a Gemini message rewritten later in its log): then look at each
        checked, in_order = self._in_order
        if checked is not results:
            in_order = all(a.unit.start <= b.unit.start for a, b in pairwise(results))
            self._in_order = (results, in_order)
        if not in_order:
            return next((r for r in results if r.unit.start <= offset <= r.unit.end), None)
        if i + 1 < len(results):
            nxt = results[i + 1].unit
            if nxt.start <= len(text) and text.find("\n", offset, nxt.start) < 0:
                return results[i + 1]
        return None


def folder_of(path: str | None, folders: Iterable[str | None]) -> str | None:
    """The innermost workspace folder holding `path`, or None."""
    best = None
    for folder in folders:
        if folder and path and path.startswith(folder) and (best is None or len(folder) > len(best)):
            best = folder
    return best


def _unit_start(result: UnitResult) -> int:
    return result.unit.start


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> SafePattern:
    """A glob with `**` (any folders), `*` and `?` (within a folder), on RE2: exclude globs come
    from workspace settings, and a backtracking match of `*a*a*a…b` could hang the server."""
    out = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        out.append("[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch))
        i += 1
    return SafePattern("(?s)^" + "".join(out) + r"\z")


MAX_GLOB_LENGTH = 1000


def glob_problem(pattern: str) -> str | None:
    """Why an exclude glob cannot be used (it comes from workspace settings), or None."""
    if len(pattern) > MAX_GLOB_LENGTH:
        return f"longer than {MAX_GLOB_LENGTH} characters"
    try:
        _glob_regex(pattern)
    except PatternError as exc:
        return str(exc)
    return None


def is_excluded(path: str | None, folder: str | None, patterns: tuple[str, ...]) -> bool:
    """Whether a document path matches an exclude glob (relative to its folder, or absolute);
    a glob that cannot be used matches nothing (the server reports it when settings arrive)."""
    if not path or not patterns:
        return False
    candidates = [path.replace("\\", "/")]
    if folder and path.startswith(folder):
        candidates.append(path[len(folder) :].lstrip("/\\").replace("\\", "/"))
    candidates.append(PurePosixPath(candidates[0]).name)
    usable = [_glob_regex(p) for p in patterns if glob_problem(p) is None]
    return any(rx.match(c) for rx in usable for c in candidates)
