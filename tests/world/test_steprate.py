"""The per-impact step and the divergence test both stepping loops share (sim/world/steprate.py)."""

from __future__ import annotations

import math

from sim.world.steprate import StepRate, fastest_point_speed, inside_world


def test_the_step_changes_only_when_asked_to_change_and_ends_fine():
    calls: list[float] = []
    rate = StepRate(calls.append, 1 / 960, 960.0, 240.0)
    assert rate.ratio == 4 and rate.dt == 1 / 960 and not rate.coarse
    assert not rate.switch(False) and calls == []
    assert rate.switch(True) and rate.dt == 4 * (1 / 960) and calls == [4 * (1 / 960)]
    assert not rate.switch(True) and len(calls) == 1
    rate.restore()
    assert calls == [4 * (1 / 960), 1 / 960] and rate.dt == 1 / 960 and not rate.coarse
    rate.restore()
    assert len(calls) == 2  # already fine: the world is not told again


def test_a_coarse_rate_slower_than_the_contact_step_is_one_step():
    assert StepRate(lambda dt: None, 1 / 960, 960.0, 2000.0).ratio == 1


def test_fastest_point_speed_bounds_every_point_of_a_spinning_body():
    # a body moving at 3 m/s along x spinning at 2 rad/s about z: a point 0.5 m out moves at most 3 + 1
    assert fastest_point_speed((3.0, 0.0, 0.0), (0.0, 0.0, 2.0), 0.5) == 4.0
    assert fastest_point_speed((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), 0.5) == 0.0


def test_inside_the_world_and_not_for_nan():
    assert inside_world((0.1, 0.2, 0.0), 1.0)
    assert not inside_world((1.0, 0.5, 0.0), 1.0)
    assert not inside_world((0.0, 0.0, -0.06), 1.0)
    assert not inside_world((math.nan, 0.0, 0.0), 1.0)
