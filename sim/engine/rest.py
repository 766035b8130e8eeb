"""How a die is supported, from its contact points (pure: no PyBullet).

A die is only ever declared at rest after quiet windows (it moved and turned less than the rest
thresholds across each). The support test decides how long it must stay quiet:
- "flat-stable": every contact pushes straight up (normal within 1.5 degrees of vertical), the die's
  lowest points (those within `LOW_TOL_M` of the lowest: a face lying flat) span a polygon, and the
  centre of mass lies over it with a margin. Such a die cannot topple, so two short windows are
  enough. The polygon comes from the die's own shape, not from the engine's contact points: Bullet
  keeps at most four of those and they often cover only part of the face (a d8 flat on its face had
  its centre 0.4 mm from the edge of their hull).
- "flat-unstable": every contact pushes up but the centre of mass is not inside the support (a die
  balanced on an edge or a corner): only after a long hold (2 s), however still it looks; a d6 stood
  exactly on an edge topples within ~1.5 s, and a die the contact points show no support for but
  which stays put (wedged in a template) must still come to rest.
- "other": it leans on something (a wall, a hole's rim, a tilted prop; cocked dice): the long hold.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

FLAT_STABLE, FLAT_UNSTABLE, OTHER = "flat-stable", "flat-unstable", "other"
COS_FLAT = math.cos(math.radians(1.5))  # a die cocked in a hole leaned on the rim with normals 2-11 degrees off
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


def lowest_points(points_body: np.ndarray, position: Sequence[float], q: Sequence[float]) -> list[tuple[float, float]]:
    """World xy of the die's collision points within LOW_TOL_M of its lowest point, for pose (position, q)."""
    x, y, z, w = q
    rot = np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])
    world = points_body @ rot.T
    low = world[:, 2] <= world[:, 2].min() + LOW_TOL_M
    return [(float(a) + position[0], float(b) + position[1]) for a, b in world[low, :2]]


def support(position: Sequence[float], q: Sequence[float], points_body: np.ndarray,
            normals: list[Sequence[float]], margin_m: float) -> str:
    """Classify a die's support from its pose, its collision points (body frame) and the normals of its
    touching contacts (pushing on the die)."""
    if not normals:
        return OTHER
    if any(n[2] < COS_FLAT for n in normals):
        return OTHER
    pts = lowest_points(points_body, position, q)
    return FLAT_STABLE if inside_margin((position[0], position[1]), pts) >= margin_m else FLAT_UNSTABLE
