"""What stepping a throw reports, as plain numbers: each die at rest, the contact events and the path.

The world (sim/world/stepper.py) writes these records and the rules (sim/rules/) read them; neither
layer imports the other, so the records live here, below both, and hold no PyBullet handle. Every
throw requirement (bounce before the board, clear the firewall, pass through the ring) is decided
from the event trace, never guessed from the final pose.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

# "step-budget": the throw used its step budget (sim/specs/physics.py) before max_time_s
Status = Literal["rest", "not-settled", "diverged", "step-budget"]


@dataclass(frozen=True)
class DieRest:
    """One die at the end of a throw: where it lies, what it touches, how its stepping ended."""

    name: str
    position_m: tuple[float, ...]
    orientation_xyzw: tuple[float, ...]
    touching: frozenset[str]
    status: Status
    time_s: float


@dataclass(frozen=True)
class ContactEvent:
    """A die started touching something: when, what, where (the mean of the die's touching points on
    it at that step) and how fast the die moved."""

    time_s: float
    die: str
    other: str
    point_m: tuple[float, ...]
    speed_mps: float

    def to_json(self) -> dict:
        """The event as a record (point in mm to 0.01 mm, time to 10 us)."""
        return {
            "time_s": round(self.time_s, 5),
            "die": self.die,
            "other": self.other,
            "point_mm": [round(v * 1e3, 2) for v in self.point_m],
            "speed_mps": round(self.speed_mps, 4),
        }


@dataclass
class EventTrace:
    """Contact events in time order plus each die's path (one sample per step)."""

    events: list[ContactEvent] = field(default_factory=list)
    path_t: list[float] = field(default_factory=list)
    paths: dict[str, list[tuple[float, ...]]] = field(default_factory=dict)
    # per die, the times (s) of the first path sample at which it touched nothing after touching
    # something: with the contact events these bound its airborne stretches (what a bounce is:
    # sim/rules/requirements.py `is_bounce`). None: not recorded (a hand-built trace).
    lift_offs: dict[str, list[float]] | None = None
    # arrays made from the sample lists, by (die or "" for the times, number of samples)
    _arrays: dict[tuple[str, int], tuple[list, np.ndarray]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def of(self, die: str) -> list[ContactEvent]:
        """The events of one die, in time order."""
        return [e for e in self.events if e.die == die]

    def first(self, die: str, other_prefix: str) -> ContactEvent | None:
        """The first event of `die` with a body whose name starts with `other_prefix`, or None."""
        for e in self.events:
            if e.die == die and e.other.startswith(other_prefix):
                return e
        return None

    def path(self, die: str) -> np.ndarray:
        """The die's sampled centre positions (m, board frame), one row per step: shape (n, 3). Read-only:
        the array is kept (every bounce the rules judge reads it) until samples are added."""
        samples = self.paths.get(die, [])
        key = (die, len(samples))
        hit = self._arrays.get(key)
        if hit is None or hit[0] is not samples:
            arr = np.asarray(samples, dtype=float).reshape(-1, 3)
            arr.flags.writeable = False
            self._arrays[key] = hit = (samples, arr)
        return hit[1]

    def times(self) -> np.ndarray:
        """Time (s) of each path sample, shared by all dice (read-only, kept like `path`)."""
        key = ("", len(self.path_t))
        hit = self._arrays.get(key)
        if hit is None or hit[0] is not self.path_t:
            arr = np.asarray(self.path_t, dtype=float)
            arr.flags.writeable = False
            self._arrays[key] = hit = (self.path_t, arr)
        return hit[1]
