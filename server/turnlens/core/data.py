"""Reading TurnLens's own packaged data files (the only I/O the core does).

Plain file reads next to the package: `importlib.resources` costs more to
import than the whole classifier takes to answer a short prompt.
"""

from __future__ import annotations

import os
import sys


def read_packaged(package: str, filename: str) -> str:
    """The text of `filename` inside the (already importable) `package`."""
    __import__(package)
    module = sys.modules[package]
    folder = os.path.dirname(module.__file__ or "")
    with open(os.path.join(folder, filename), encoding="utf-8") as handle:
        return handle.read()
