"""When a body is at rest: the project's one rest detector (pure numpy on poses the facade reads).

The throw loop (sim/world/stepper.py) and `Physics.settle` (laid templates) both feed a
`RestDetector` the pose of each body at the end of every window of `RestTest.window_steps` steps.
A window is quiet when, across it, the body moved less than rest_speed x window and turned less than
rest_spin x window while touching something, and at its end its speed and spin are below 5x the
thresholds (a die pausing at the top of a topple is not at rest). Per-step velocity thresholds were
rejected: the solver gives a resting body one-step velocity spikes every ~30 steps.

A body is at rest after enough consecutive quiet windows. With the support test
(`physics.rest = "support"`) the count depends on how the body is supported, judged from its pose,
its own collision points and the normals of its touching contacts:
- "flat-stable": every contact pushes straight up (normal within 1.5 degrees of vertical), the body's
  lowest points (those within `LOW_TOL_M` of the lowest: a face lying flat) span a polygon, and the
  centre of mass lies over it with a margin. Such a body cannot topple, so two short windows are
  enough. The polygon comes from the body's own shape, not from the engine's contact points: Bullet
  keeps at most four of those and they often cover only part of the face (a d8 flat on its face had
  its centre 0.4 mm from the edge of their hull).
- "flat-unstable": every contact pushes up but the centre of mass is not inside the support (a die
  balanced on an edge or a corner): only after a long hold (2 s), however still it looks; a d6 stood
  exactly on an edge topples within ~1.5 s, and a die the contact points show no support for but
  which stays put (wedged in a template) must still come to rest.
- "other": it leans on something (a wall, a hole's rim, a tilted prop; cocked dice), or its shape is
  unknown: windows filling 2 x rest_hold_s.
With `physics.rest = "windows"` (the older test, kept as the convergence reference) every body needs
two quiet windows of rest_hold_s.

The template flip world (sim/world/flip.py) keeps a documented extension of this: a thin template
ringing like Euler's disk within a few degrees of flat is read as settled (its wobble criterion).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from sim.specs.physics import PhysicsSettings
from sim.vectors import matmul

FLAT_STABLE, FLAT_UNSTABLE, OTHER = "flat-stable", "flat-unstable", "other"
COS_FLAT = math.cos(
    math.radians(1.5)
)  # a die cocked in a hole leaned on the rim with normals 2-11 degrees off
LOW_TOL_M = 1e-4  # a point this close to the lowest one is on the face the die lies on


def _hull(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Convex hull (counter-clockwise, monotone chain) of a few 2-D points."""
    pts = sorted(set(points))
    if len(pts) <= 2:
        return pts

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[float, float]] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[tuple[float, float]] = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def inside_margin(xy: tuple[float, float], points: list[tuple[float, float]]) -> float:
    """Signed distance of xy inside the convex hull of `points` (negative: outside, or a hull with no
    area: a segment or a point)."""
    hull = _hull(points)
    if len(hull) < 3:
        return -math.inf
    best = math.inf
    for (x0, y0), (x1, y1) in zip(hull, hull[1:] + hull[:1]):
        ex, ey = x1 - x0, y1 - y0
        length = math.hypot(ex, ey)
        if length == 0.0:
            continue
        best = min(best, (ex * (xy[1] - y0) - ey * (xy[0] - x0)) / length)
    return best


def lowest_points(
    points_body: np.ndarray, position: Sequence[float], q: Sequence[float]
) -> list[tuple[float, float]]:
    """World xy of the die's collision points within LOW_TOL_M of its lowest point, for pose (position, q)."""
    x, y, z, w = q
    rot = np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )
    world = matmul(points_body, rot.T)
    low = world[:, 2] <= world[:, 2].min() + LOW_TOL_M
    return [(float(a) + position[0], float(b) + position[1]) for a, b in world[low, :2]]


def support(
    position: Sequence[float],
    q: Sequence[float],
    points_body: np.ndarray,
    normals: list[Sequence[float]],
    margin_m: float,
) -> str:
    """Classify a die's support from its pose, its collision points (body frame) and the normals of its
    touching contacts (pushing on the die)."""
    if not normals:
        return OTHER
    if any(n[2] < COS_FLAT for n in normals):
        return OTHER
    pts = lowest_points(points_body, position, q)
    return FLAT_STABLE if inside_margin((position[0], position[1]), pts) >= margin_m else FLAT_UNSTABLE


@dataclass(frozen=True)
class RestTest:
    """The rest thresholds in steps and squared speeds, for one step length."""

    window_steps: int
    max_disp_m: float  # per window
    max_turn_rad: float  # per window
    spike_v2: float  # (m/s)^2 at the window's end
    spike_w2: float  # (rad/s)^2 at the window's end
    margin_m: float
    use_support: bool
    need_other: int  # quiet windows for a leaning body (and for any body without the support test)
    need_balanced: int  # quiet windows for a body balanced on an edge or a corner

    @classmethod
    def from_settings(cls, st: PhysicsSettings) -> RestTest:
        """The test at the settings' contact step (windows are whole steps)."""
        dt = 1.0 / st.step_hz
        if st.rest == "support":
            win = max(1, int(round(st.rest_window_s * st.step_hz)))
            need_other = max(2, math.ceil(2 * st.rest_hold_s / (win * dt) - 1e-9))
            need_balanced = max(2, math.ceil(st.rest_balanced_hold_s / (win * dt) - 1e-9))
        else:
            win = max(1, int(round(st.rest_hold_s * st.step_hz)))
            need_other = need_balanced = 2
        return cls(
            win,
            st.rest_speed_mps * win * dt,
            st.rest_spin_radps * win * dt,
            (5 * st.rest_speed_mps) ** 2,
            (5 * st.rest_spin_radps) ** 2,
            st.rest_margin_mm * 1e-3,
            st.rest == "support",
            need_other,
            need_balanced,
        )


Velocity = Callable[[], tuple[Sequence[float], Sequence[float]]]
Normals = Callable[[], list[Sequence[float]]]


class RestDetector:
    """Counts each body's consecutive quiet windows; fed at every window end. Velocities and contact
    normals are asked for (callables) only when the pose has already passed, to keep the loop cheap."""

    def __init__(self, test: RestTest, shapes: Sequence[np.ndarray | None]) -> None:
        self.test = test
        self.shapes = list(shapes)  # collision points in the body frame; None: unknown shape ("other")
        n = len(self.shapes)
        self.anchor: list[tuple | None] = [None] * n
        self.quiet_windows = [0] * n
        self.need = [2] * n

    def window(
        self,
        i: int,
        pos: Sequence[float],
        q: Sequence[float],
        touching: bool,
        velocity: Velocity,
        normals: Normals,
    ) -> bool:
        """Body i's pose at a window's end; True when it has now been quiet for as many windows as its
        support asks."""
        t = self.test
        a = self.anchor[i]
        quiet = False
        if a is not None and touching:
            disp = math.dist(pos, a[0])
            a1 = a[1]
            dot = abs(q[0] * a1[0] + q[1] * a1[1] + q[2] * a1[2] + q[3] * a1[3])
            turn = 2 * math.acos(min(1.0, dot))
            if disp < t.max_disp_m and turn < t.max_turn_rad:
                v, w = velocity()
                quiet = (
                    v[0] * v[0] + v[1] * v[1] + v[2] * v[2] < t.spike_v2
                    and w[0] * w[0] + w[1] * w[1] + w[2] * w[2] < t.spike_w2
                )
            # the support sets how many quiet windows this body needs (2 or more), so it is judged from
            # the second consecutive quiet window on: at the first, no count could reach any need yet
            if quiet and t.use_support and self.quiet_windows[i] >= 1:
                shape = self.shapes[i]
                sup = OTHER if shape is None else support(pos, q, shape, normals(), t.margin_m)
                self.need[i] = (
                    2 if sup == FLAT_STABLE else t.need_balanced if sup == FLAT_UNSTABLE else t.need_other
                )
        self.quiet_windows[i] = self.quiet_windows[i] + 1 if quiet else 0
        self.anchor[i] = (pos, q)
        return self.quiet_windows[i] >= self.need[i]
