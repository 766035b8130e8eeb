"""Aim objectives: the aimed release can maximise the hit chance (default), the expected damage, or the
chance to deal at least a monster's remaining life, each solved once and cached under its own key."""

from __future__ import annotations

import numpy as np
import pytest

from sim.engine.worlds import build_thrower
from sim.specs.scenario import Scenario


@pytest.fixture(scope="module")
def thrower():
    return build_thrower(Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual"))


def _reference_value(th, nominal, objective, need=0):
    """The solve's own criterion (objective value summed over its reference throws) for a technique."""
    th.set_objective(objective, need)
    speed, elev = nominal
    rel = th.scenario.shot.release
    aim = th.aim_point()
    hand, u, _dist, _edge = th._geometry(rel.distance_mm * 1e-3, rel.lateral_mm * 1e-3, aim)
    from sim.engine.thrower import NOMINAL_REF_SEED, NOMINAL_REFS
    from sim.seeding import random_quaternion

    rng = np.random.Generator(np.random.PCG64(NOMINAL_REF_SEED))
    refs = [random_quaternion(rng) for _ in range(NOMINAL_REFS)]
    total = 0.0
    for q in refs:
        o = th.throw_releases([th._make_release(speed, elev, rel.azimuth_deg, rel.height_mm * 1e-3, hand, u, q,
                                                np.zeros(3))]).outcome
        total += th._objective_value(o)
    return total


def test_objectives_are_solved_separately_and_each_is_best_at_its_own_criterion(thrower):
    th = thrower
    th.set_objective("hit")
    hit = th.nominal()
    th.set_objective("damage")
    dmg = th.nominal()
    th.set_objective("hit")
    assert th.nominal() == hit  # the default solve is cached under its unchanged key
    assert _reference_value(th, dmg, "damage") >= _reference_value(th, hit, "damage")
    assert _reference_value(th, hit, "hit") >= _reference_value(th, dmg, "hit")
    th.set_objective("hit")


def test_unknown_objective_is_refused(thrower):
    with pytest.raises(ValueError, match="aim objective"):
        thrower.set_objective("glory")
