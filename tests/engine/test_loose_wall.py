"""The Smash Shot's Stone Wall as the rulebook has it: two loose pieces "touching in the middle"
(boards/props/stone-wall.toml: free = true, gap_mm = 0), every throw bit-reproducible, as a world's
first throw and after any other throws (docs/shots-and-props.md)."""

from __future__ import annotations

import math

import pytest

from sim.engine.determinism import check_determinism
from sim.engine.hand import Technique
from sim.engine.release import Release
from sim.engine.worlds import build_thrower, thrower_for
from sim.specs.scenario import Scenario

THROUGH = Release((-0.65, 0.0, 0.05), (4.0, 0.0, 0.0), (0, 0, 0, 1), (0, 0, 0))  # into the joint: knocks them apart
BESIDE = Release((-0.65, 0.08, 0.05), (4.0, 0.0, 0.0), (0, 0, 0, 1), (0, 0, 0))  # into one piece
SMASH = Scenario.build(shots=["smash"])


def _differ(a: dict, b: dict) -> list[str]:
    return [k for k, v in a.items()
            if not (v == b[k] or (isinstance(v, float) and math.isnan(v) and math.isnan(b[k])))]


@pytest.fixture(scope="module")
def worlds():
    pair = build_thrower(SMASH), build_thrower(SMASH)
    yield pair
    for th in pair:
        th.physics.close()


def test_the_built_in_wall_is_two_loose_pieces_touching_in_the_middle():
    (wall,) = SMASH.props
    assert wall.shape.free and wall.shape.gap_mm == 0


def test_loose_pieces_first_throw_of_a_fresh_world_is_reproducible(worlds):
    a, b = (th.throw_releases([THROUGH]).record() for th in worlds)
    assert a["requirements"].endswith("stone-wall=passed")
    assert _differ(a, b) == []


def test_loose_pieces_after_other_throws(worlds):
    first, _ = worlds
    a = first.throw_releases([THROUGH]).record()
    first.throw_releases([BESIDE])
    assert _differ(a, first.throw_releases([THROUGH]).record()) == []


def test_drawn_smash_throws_are_the_same_after_any_earlier_throw(grid_technique):
    """Each of a seed's throws as a fresh world's first throw, then again after every other one in one
    world (the case that failed: seed 3, throw 0 ended tilted 0.017 deg first and 0.173 deg after).
    Drawn around a candidate of the Smash's aim grid that throws into the wall (`grid_technique`): its
    solve, with the loose pieces, costs half a minute."""
    grid_technique(thrower_for(SMASH))
    fresh = {}
    for k in range(4):
        th = build_thrower(SMASH)
        fresh[k] = th.throw(3, k).record()
        th.physics.close()
    th = build_thrower(SMASH)
    try:
        for j in range(4):
            for k in range(4):
                th.throw(3, j)
                assert _differ(fresh[k], th.throw(3, k).record()) == [], f"throw {k} after throw {j}"
    finally:
        th.physics.close()
    check_determinism(SMASH, seed=3, throws=2)


def test_a_throw_is_the_same_in_any_world_history():
    """Each Smash throw is made in a world built afresh (`Thrower._fresh_each_throw`). Before, the
    expert's throw 0 of seed 2024 at the release its solve then kept (9.5 m/s at -10 deg, side spin)
    ended elsewhere when thrown again in the same world (its reason differed), and a 300-throw run
    differed on one worker and on two."""
    sc = Scenario.build(board="magma", dice=["hero-d8"], shots=["smash"], skill="expert")
    tech = Technique(9.541454555657571, -10.0, "random", 4.0, "side")
    shared, fresh = build_thrower(sc), build_thrower(sc)
    try:
        for th in (shared, fresh):
            th.set_nominal(tech)
        first = shared.throw(2024, 0).record()
        assert _differ(first, shared.throw(2024, 0).record()) == []
        shared.throw(2024, 1)
        assert _differ(first, shared.throw(2024, 0).record()) == []
        assert _differ(first, fresh.throw(2024, 0).record()) == []
    finally:
        shared.physics.close()
        fresh.physics.close()


def test_the_world_counts_every_broadphase_update():
    """Loose pieces align a throw's start on the parity of the world's own updates: every step counts,
    the throw loop's bound steps included."""
    th = build_thrower(SMASH)
    try:
        ph = th.physics
        before = ph.updates
        th.throw_releases([BESIDE])
        stepped = sum(n for kind, n in th.last_stats.schedule if kind == "steps")
        assert stepped == th.last_stats.stepped > 0
        assert ph.updates - before - stepped in (0, 1)  # and the start's one alignment update, when odd
        assert (ph.updates - stepped) % 2 == 0  # so the throw started on an even update
        u = ph.updates
        ph.detect_collisions()
        ph.step()
        assert ph.updates == u + 2
    finally:
        th.physics.close()
