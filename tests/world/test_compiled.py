"""The compiled throw loop (sim/world/compiled.py): it loads, drives the very world Python built, and
gives the Python loop's records to the bit on this machine."""

from __future__ import annotations

import pytest

from sim.engine.worlds import build_thrower
from sim.specs.scenario import Scenario
from sim.world import compiled
from sim.world.physics import Physics

pytestmark = pytest.mark.skipif(compiled.unavailable() is not None, reason=f"compiled loop: {compiled.unavailable()}")


def _world_with_a_falling_die(magma_d8) -> Physics:
    ph = Physics(magma_d8.physics, magma_d8.materials)
    ph.add_table(magma_d8.board.table_material, board=magma_d8.board)
    ph.add_board(magma_d8.board)
    ph.add_die(magma_d8.dice[0], "die:0")
    ph.finalize_materials()
    ph.set_state("die:0", (0.05, 0.02, 0.012), (0.1, 0.2, 0.0, 0.9747), (0.3, 0.0, -0.5), (0.0, 4.0, 1.0))
    return ph


def test_the_plugin_loads_and_steps_the_world_python_built(magma_d8):
    ph, twin = _world_with_a_falling_die(magma_d8), _world_with_a_falling_die(magma_d8)
    try:
        touched = 0
        for _ in range(150):  # the die lands on the board within these steps
            pos, vel, n_points = compiled.probe(ph, "die:0")
            twin.step()
            # what the plugin read is this world's state, and the plugin's step is PyBullet's step
            p, _q = ph.die_pose("die:0")
            assert pos == tuple(p.tolist()) == tuple(twin.die_pose("die:0")[0].tolist())
            assert vel == tuple(twin.die_velocity("die:0")[0].tolist())
            assert n_points == len(twin.client.getContactPoints(bodyA=twin.body("die:0")))
            touched += n_points > 0
        assert touched
    finally:
        ph.close()
        twin.close()


def _record(res) -> tuple:
    stats = res_stats = res.stats
    return repr(res.outcomes), repr(res.trace), res_stats.flight, res_stats.contact, res_stats.rest, stats.skipped, \
        stats.coarse, repr(stats.schedule)


@pytest.mark.parametrize("skill", ["casual", "expert"])
def test_the_compiled_and_python_loops_give_the_same_records(skill):
    sc = Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill=skill)  # the quickstart's
    th = build_thrower(sc)
    try:
        seen = set()
        for k in range(40):
            if k >= 10 and len(seen) > 1:
                break
            got = {}
            for loop in ("python", "compiled", "python"):
                with compiled.using(loop):
                    res = th.throw(20240601, k)
                res.stats = th.last_stats
                assert th.last_stats.loop == loop
                got.setdefault(loop, []).append(_record(res))
            assert got["compiled"][0] == got["python"][0] == got["python"][1]
            seen.add(res.outcomes[0].result)
        assert len(seen) > 1  # hits and misses both compared
    finally:
        th.physics.close()


def test_asking_for_the_python_loop_runs_it(monkeypatch, magma_d8):
    monkeypatch.setenv("DFSIM_LOOP", "python")
    assert not compiled.active()
    monkeypatch.setenv("DFSIM_LOOP", "compiled")
    assert compiled.active()


def test_a_changed_contact_damping_reaches_the_compiled_loop():
    """A calibration sets the dice's contact damping between throws of one world: the compiled loop's
    table of it follows (it once kept the first throw's, and the calibration example's contact damping
    could not be fitted)."""
    sc = Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual")
    th = build_thrower(sc)
    try:
        with compiled.using("compiled"):
            th.throw(20240601, 0)  # the loop's tables are built for this world
        for other in ("board", "table"):
            th.physics.set_pair_damping("die:0", other, 0.6)
        got = {}
        for loop in ("python", "compiled"):
            with compiled.using(loop):
                res = th.throw(20240601, 3)
            res.stats = th.last_stats
            got[loop] = _record(res)
        assert got["compiled"] == got["python"]
    finally:
        th.physics.close()
