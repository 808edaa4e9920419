"""TurnLens: what each prompt or turn is, and how hard a model should think about it.

The public API: `classify`, `split_units`, `plan`, `route`.
"""

from turnlens.api import classify, plan, route, split_units
from turnlens.core.classify import Classification
from turnlens.core.plan import SessionPlan
from turnlens.core.units import Unit

__version__ = "0.1.0"
__all__ = ["Classification", "SessionPlan", "Unit", "__version__", "classify", "plan", "route", "split_units"]
