"""Pure rules (no PyBullet): the fight rules engine and, after the restructure, the classifier.

`RuleSet` (the throw-classification options) lives in `sim.specs.rules`; it is re-exported here so
that `from sim.rules import RuleSet` keeps working while the flat modules still import it so.
"""

from ..specs.rules import RuleSet

__all__ = ["RuleSet"]
