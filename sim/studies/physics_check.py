"""What a physics check is and is given: its verdict (pass, FAIL or skipped, with the reference it is
held against) and its context (quick or full mode, sizes, seed, where figures go), apart from the
checks themselves so that each family of checks (sim/studies/validation.py, rolling.py) can live
in a module of its own and the validation runner can gather them all without an import cycle."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

SEED = 20250607


@dataclass
class Check:
    """The verdict of one check: passed is None when it was skipped."""

    name: str
    title: str
    passed: bool | None
    summary: str
    reference: str
    details: dict = field(default_factory=dict)
    figures: list[str] = field(default_factory=list)
    seconds: float = 0.0
    # why a check is known to fail (a gap between the engine and the published result, documented and
    # open): such a failure is reported as a known gap, not hidden, and does not fail the run
    known_gap: str = ""

    @property
    def status(self) -> str:
        if self.passed is None:
            return "skipped"
        if self.passed:
            return "pass"
        return "known gap" if self.known_gap else "FAIL"

    @property
    def failed(self) -> bool:
        """A failure that is not a known gap."""
        return self.passed is False and not self.known_gap


@dataclass
class Context:
    """What every check is given: the mode, where figures go, the sample sizes."""

    quick: bool
    out_dir: str
    seed: int = SEED

    def size(self, key: str) -> int:
        """The sample size of `key` in this mode."""
        return SIZES[key][0 if self.quick else 1]

    def figure(self, name: str) -> str:
        """Where a figure of this run goes."""
        return os.path.join(self.out_dir, name)


# (quick, full) sample sizes
SIZES: dict[str, tuple[int, int]] = {
    "rebound_points": (1, 5),
    "energy_bounces": (60, 600),
    "same_side_catches": (4000, 40000),
    "faces_per_die": (300, 6000),
    "coin_rolls": (150, 2000),
    "settle_roll": (80, 2000),
    "settle_board": (40, 2000),
    "tunnel_throws": (40, 400),
    "surface_rolls": (150, 2000),
    "coin_flips": (20000, 200000),
}


def figure_pyplot():
    """pyplot on the Agg backend (checks draw files, never windows)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def dhm_same_side(psi_deg: float) -> float:
    """Probability that a flipped and caught disk shows the side it started with, when the angle between
    its normal and its angular momentum is psi (Diaconis, Holmes & Montgomery 2007, long flights)."""
    psi = math.radians(psi_deg)
    if psi <= math.pi / 4:
        return 1.0
    return 0.5 + math.asin(1.0 / math.tan(psi) ** 2) / math.pi
