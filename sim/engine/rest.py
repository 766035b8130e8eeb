"""How a die is supported, from its contact points (pure: no PyBullet).

A die is only ever declared at rest after quiet windows (it moved and turned less than the rest
thresholds across each). The support test decides how long it must stay quiet:
- "flat-stable": every contact pushes straight up (normal within ~14 degrees of vertical) and the
  centre of mass lies over the support polygon with a margin. Such a die cannot topple, so two short
  windows are enough.
- "flat-unstable": every contact pushes up but the centre of mass is not inside the support (a die
  balanced on an edge or a corner): it is never at rest, however still it looks.
- "other": it leans on something (a wall, a hole's rim, a tilted prop; cocked dice): the long hold.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

FLAT_STABLE, FLAT_UNSTABLE, OTHER = "flat-stable", "flat-unstable", "other"
COS_FLAT = math.cos(math.radians(14.0))


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


def support(com: Sequence[float], contacts: list[tuple[Sequence[float], Sequence[float]]], margin_m: float) -> str:
    """Classify a die's support from (point, normal pushing on the die) pairs of its touching contacts."""
    if not contacts:
        return OTHER
    if any(n[2] < COS_FLAT for _, n in contacts):
        return OTHER
    pts = [(p[0], p[1]) for p, _ in contacts]
    return FLAT_STABLE if inside_margin((com[0], com[1]), pts) >= margin_m else FLAT_UNSTABLE
