"""Exact free flight (sim/world/ballistic.py): closed-form parabola and spin, conservative contact windows."""

import math

import numpy as np
import pytest

from sim.specs.physics import GRAVITY
from sim.world import ballistic


def test_parabola_and_constant_spin_match_closed_form():
    p0, v0, w = (0.1, -0.2, 0.5), (1.0, 0.5, 2.0), (3.0, -4.0, 12.0)
    t = np.array([0.0, 0.1, 0.37])
    p = ballistic.position_at(p0, v0, GRAVITY, t)
    np.testing.assert_allclose(p[2], [p0[0] + v0[0] * 0.37, p0[1] + v0[1] * 0.37, p0[2] + v0[2] * 0.37 - 0.5 * GRAVITY * 0.37**2])
    q = ballistic.quat_after((0.0, 0.0, 0.0, 1.0), w, 0.25)
    rate = math.sqrt(sum(x * x for x in w))
    assert q[3] == pytest.approx(math.cos(rate * 0.25 / 2))  # turned by |w| t about w
    np.testing.assert_allclose(np.array(q[:3]) / math.sin(rate * 0.25 / 2), np.array(w) / rate, atol=1e-12)


def test_contact_windows_are_conservative():
    """Sampled finely, the sphere never overlaps a box outside the returned windows."""
    rng = np.random.default_rng(3)
    boxes = [((-5, -5, -0.02), (5, 5, 0.0)), ((-0.28, -0.28, -0.02), (0.28, 0.28, 0.002)), ((-0.45, -0.1, 0.0), (-0.44, 0.1, 0.12))]
    for _ in range(50):
        p, v = rng.uniform([-0.7, -0.2, 0.05], [-0.5, 0.2, 0.4]), rng.uniform([0.5, -0.3, -1], [3, 0.3, 2])
        wins = ballistic.contact_windows([(p, v)], [0.012], boxes, GRAVITY, 1.0)
        ts = np.linspace(0, 1.0, 20001)
        pts = ballistic.position_at(p, v, GRAVITY, ts)
        for lo, hi in boxes:
            d = np.linalg.norm(np.maximum(0, np.maximum(np.array(lo) - pts, pts - np.array(hi))), axis=1)
            hit = ts[d <= 0.012 - 1e-9]
            for t in hit:
                assert any(a - 1e-9 <= t <= b + 1e-9 for a, b in wins), (t, wins)
