"""What the world's two stepping loops share: the per-impact step and the tests on a moving body.

The throw loop (sim/world/stepper.py) and the template landing (sim/world/flip.py, `FlipWorld.land`)
step the same way: at the contact step while anything moves fast (an impact, a hard bounce), at a
coarse step of `ratio` contact steps while everything is slow (rolling out, settling), and a body
that leaves the world's cylinder or falls through the table has diverged. Each loop keeps its own
rest test (the throw's rest detector, sim/world/rest.py; the flip's settling extension of it) and
decides for itself when a coarse step may start.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

FLOOR_Z_M = -0.05  # a body's centre this far below the table top has fallen through it


def fastest_point_speed(v: Sequence[float], w: Sequence[float], reach_m: float) -> float:
    """|v| + |w| x reach (m/s): no point of a body within `reach_m` of its centre moves faster."""
    return (
        math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
        + math.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]) * reach_m
    )


def inside_world(pos: Sequence[float], radius2_m2: float) -> bool:
    """Whether a body's centre is within the world's cylinder (squared radius, m^2) and above the
    floor; False for a NaN position too."""
    x, y, z = pos
    return x * x + y * y <= radius2_m2 and z >= FLOOR_Z_M


class StepRate:
    """The length of the world's next steps: the contact step `fine_dt`, or `ratio` of them at once."""

    def __init__(
        self, set_step: Callable[[float], None], fine_dt: float, step_hz: float, coarse_step_hz: float
    ) -> None:
        self.ratio = max(1, int(round(step_hz / coarse_step_hz)))
        self.fine_dt = fine_dt
        self.dt = fine_dt  # the step the world takes now
        self.coarse = False
        self._set_step = set_step

    def switch(self, coarse: bool) -> bool:
        """Step coarse (or fine) from now on; True when that changed the step."""
        if coarse == self.coarse:
            return False
        self.coarse = coarse
        self.dt = self.fine_dt * self.ratio if coarse else self.fine_dt
        self._set_step(self.dt)
        return True

    def restore(self) -> None:
        """Back to the contact step (a loop's end: the world's next user steps at its own rate)."""
        self.switch(False)
