"""TurnLens: what each prompt or turn is, and how hard a model should think about it.

The public API: `classify`, `split_units`, `plan`, `route` (and the result types).
Names are resolved on first use, so `turnlens classify` imports only what it runs.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` (and the `re` it imports) stays off the one-shot path

__version__ = "0.1.0"
__all__ = ["Classification", "SessionPlan", "Unit", "__version__", "classify", "plan", "route", "split_units"]

_WHERE = {
    "classify": "turnlens.api",
    "plan": "turnlens.api",
    "route": "turnlens.api",
    "split_units": "turnlens.api",
    "Classification": "turnlens.core.classify",
    "SessionPlan": "turnlens.core.plan",
    "Unit": "turnlens.pipeline.units",
}

if TYPE_CHECKING:
    from typing import Any

    from turnlens.api import classify, plan, route, split_units
    from turnlens.core.classify import Classification
    from turnlens.core.plan import SessionPlan
    from turnlens.pipeline.units import Unit


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'turnlens' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
