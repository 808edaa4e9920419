"""Helpers of the format tests: read a fixture, split it, check where each unit points."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from turnlens.pipeline.formats import FormatOptions, Split, get_format
from turnlens.pipeline.units import Unit

FIXTURES = Path(__file__).parent / "fixtures"
NEARMISS = Path(__file__).parent / "nearmiss"


@dataclass
class Read:
    text: str
    split: Split

    @property
    def units(self) -> list[Unit]:
        return self.split.units

    def shape(self) -> list[tuple[str | None, str | None]]:
        return [(u.role, u.kind) for u in self.units]

    def literal(self, unit: Unit) -> str:
        """The document's characters under a unit's span, decoded as the JSON string they are."""
        decoded: str = json.loads('"' + self.text[unit.start : unit.end] + '"')
        return decoded

    def line_of(self, unit: Unit) -> int:
        return self.text.count("\n", 0, unit.start) + 1


def fixture(name: str) -> Path:
    (path,) = FIXTURES.glob(name)
    return path


def read(name: str, fmt: str, options: FormatOptions | None = None) -> Read:
    text = fixture(name).read_text(encoding="utf-8")
    return Read(text, get_format(fmt).split(text, options or FormatOptions()))


def check_spans(r: Read, anchors: dict[int, str] | None = None) -> None:
    """Every unit's span decodes to exactly its text, or, for a unit whose text is put together
    (a tool call's name and arguments), to the string it is anchored on; its line is the line of
    its span, and units are numbered 1…n."""
    anchors = anchors or {}
    for i, unit in enumerate(r.units, 1):
        assert unit.index == i
        assert unit.line == r.line_of(unit), unit
        assert r.literal(unit) == anchors.get(i, unit.text), unit
