"""Exact free flight of a die, and the earliest moment it could touch anything (pure: no PyBullet).

In flight a die feels gravity only, and a die with isotropic inertia (every regular polyhedron)
spins at a constant angular velocity, so its state at any later time is closed-form. The throw loop
uses this to skip the flight: it places the die at its exact state one contact step before the first
moment its bounding sphere could reach any body's bounding box, instead of stepping there. The check
is conservative (sphere against axis-aligned boxes), so skipping never misses a contact; it is also
exact where stepping is not (semi-implicit Euler lags the parabola by g*dt*t/2).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

Box = tuple[tuple[float, float, float], tuple[float, float, float]]  # (lo xyz, hi xyz), metres
Interval = tuple[float, float]


def position_at(p0: Sequence[float], v0: Sequence[float], g: float, t: np.ndarray) -> np.ndarray:
    """Centre positions (n, 3) at times t (n,) after the state (p0, v0), gravity g along -z."""
    t = np.asarray(t, dtype=float)[:, None]
    out = np.asarray(p0, dtype=float) + np.asarray(v0, dtype=float) * t
    out[:, 2] -= 0.5 * g * t[:, 0] ** 2
    return out


def quat_after(q0: Sequence[float], w: Sequence[float], t: float) -> tuple[float, float, float, float]:
    """Orientation (x, y, z, w) after turning at the constant world-frame angular velocity w for t."""
    wx, wy, wz = w
    rate = math.sqrt(wx * wx + wy * wy + wz * wz)
    if rate * t == 0.0:
        return tuple(float(v) for v in q0)  # type: ignore[return-value]
    half = 0.5 * rate * t
    s = math.sin(half) / rate
    ax, ay, az, aw = wx * s, wy * s, wz * s, math.cos(half)
    bx, by, bz, bw = q0
    # r = a (x) q0: the turn applied in the world frame
    return (
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    )


def _linear(p: float, v: float, lo: float, hi: float, t_max: float) -> Interval | None:
    """Times in [0, t_max] where lo <= p + v t <= hi."""
    if v == 0.0:
        return (0.0, t_max) if lo <= p <= hi else None
    a, b = (lo - p) / v, (hi - p) / v
    if a > b:
        a, b = b, a
    a, b = max(a, 0.0), min(b, t_max)
    return (a, b) if a <= b else None


def _roots(p: float, v: float, g: float, level: float) -> tuple[float, float] | None:
    """Real times (t1 <= t2) where p + v t - g t^2 / 2 = level, or None."""
    disc = v * v + 2.0 * g * (p - level)
    if disc < 0.0:
        return None
    r = math.sqrt(disc)
    return (v - r) / g, (v + r) / g


def _vertical(p: float, v: float, g: float, lo: float, hi: float, t_max: float) -> list[Interval]:
    """Times in [0, t_max] where lo <= z(t) <= hi for z(t) = p + v t - g t^2 / 2 (g > 0)."""
    above_lo = _roots(p, v, g, lo)
    if above_lo is None:
        return []
    a, b = above_lo  # z >= lo on [a, b]
    spans = [(a, b)]
    above_hi = _roots(p, v, g, hi)
    if above_hi is not None:  # z > hi on (c, d): cut it out
        c, d = above_hi
        spans = [(a, min(b, c)), (max(a, d), b)]
    out = []
    for s, e in spans:
        s, e = max(s, 0.0), min(e, t_max)
        if s <= e:
            out.append((s, e))
    return out


def box_intervals(
    p0: Sequence[float], v0: Sequence[float], g: float, radius: float, box: Box, t_max: float
) -> list[Interval]:
    """Times in [0, t_max] where a sphere of `radius` centred on the parabola overlaps `box`
    (conservatively: the box grown by the radius on every side)."""
    (x0, y0, z0), (x1, y1, z1) = box
    ix = _linear(p0[0], v0[0], x0 - radius, x1 + radius, t_max)
    if ix is None:
        return []
    iy = _linear(p0[1], v0[1], y0 - radius, y1 + radius, t_max)
    if iy is None:
        return []
    s0, e0 = max(ix[0], iy[0]), min(ix[1], iy[1])
    if s0 > e0:
        return []
    out = []
    for s, e in _vertical(p0[2], v0[2], g, z0 - radius, z1 + radius, t_max):
        s, e = max(s, s0), min(e, e0)
        if s <= e:
            out.append((s, e))
    return out


def pair_interval(pa, va, pb, vb, reach: float, t_max: float) -> Interval | None:
    """Times in [0, t_max] where two dice in free flight come within `reach` (sum of their radii):
    both fall alike, so their separation moves on a straight line."""
    d = [pb[i] - pa[i] for i in range(3)]
    u = [vb[i] - va[i] for i in range(3)]
    a = u[0] * u[0] + u[1] * u[1] + u[2] * u[2]
    b = 2.0 * (d[0] * u[0] + d[1] * u[1] + d[2] * u[2])
    c = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] - reach * reach
    if a == 0.0:
        return (0.0, t_max) if c <= 0.0 else None
    disc = b * b - 4.0 * a * c
    if disc < 0.0:
        return None
    r = math.sqrt(disc)
    s, e = max((-b - r) / (2 * a), 0.0), min((-b + r) / (2 * a), t_max)
    return (s, e) if s <= e else None


def merge(intervals: list[Interval]) -> list[Interval]:
    """Union of intervals, sorted."""
    out: list[list[float]] = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def contact_windows(
    states: list[tuple[Sequence[float], Sequence[float]]],
    radii: list[float],
    boxes: list[Box],
    g: float,
    t_max: float,
) -> list[Interval]:
    """Times in [0, t_max] (sorted, merged) where any of these free dice could touch a box or another
    die; outside them every die is surely in free flight."""
    spans: list[Interval] = []
    for (p, v), r in zip(states, radii):
        for box in boxes:
            spans += box_intervals(p, v, g, r, box, t_max)
    for i in range(len(states)):
        for j in range(i + 1, len(states)):
            iv = pair_interval(
                states[i][0], states[i][1], states[j][0], states[j][1], radii[i] + radii[j], t_max
            )
            if iv is not None:
                spans.append(iv)
    return merge(spans)
