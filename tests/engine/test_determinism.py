import numpy as np
import pytest

from sim.engine.determinism import check_determinism
from sim.engine.release import Release
from sim.engine.worlds import build_thrower, thrower_for
from sim.specs.datafiles import builtin_names
from sim.specs.scenario import Scenario


@pytest.mark.parametrize("shot", builtin_names("shot"))
def test_every_builtin_shot_is_deterministic_and_its_aim_solve_throws(shot, grid_technique):
    """Every shot's throws are the same in a repeat, a fresh world and the Python loop; and each aimed
    shot's solve starts as it should: a grid of candidates its limits allow, reference throws thrown
    and judged in the solving world (its components' solving states), finite. The throws are made from
    a candidate of the solve's own grid (`grid_technique`, tests/conftest.py), not the solved aim:
    solving every shot cost a minute and a half of the suite, and the aim changes only where the die
    flies, not what is checked (the shot's own release is no stand-in: it skips the table). The whole solve of a real scene:
    tests/engine/test_aim_pruning.py, test_aim_cache.py; unaimed shots throw their own release."""
    sc = Scenario.build(shots=[shot])
    th = thrower_for(sc)
    grid = grid_technique(th)
    if grid is not None:
        limits = sc.shot.limits
        assert grid, f"{shot}: no candidate release"
        assert all(limits.allows("speed", t.speed_mps) and limits.allows("elevation", t.elevation_deg) for t in grid), shot
        with th._solving_world():
            values = th.aim.reference_values(th.aim_point(), grid[0], 2)
        assert values.shape == (2, 2) and np.isfinite(values).all(), (shot, values)
        assert ((values[:, 0] == 0.0) | (values[:, 0] == 1.0)).all(), values  # a hit or not
    check_determinism(sc, seed=3, throws=2)


def test_throw_depends_only_on_seed_and_index(magma_d8):
    th = thrower_for(magma_d8)
    a = th.throw(8, 5).record()
    th.throw(8, 1)
    th.throw(9, 5)
    b = th.throw(8, 5).record()
    assert a == b


def _throws_onto_templates(th, indices):
    """Throw k: the templates flipped for throw (5, k), then a die dropped across the first one (it lands
    on it and knocks it), in this thrower's world; each throw's record and the templates' poses after."""
    out = []
    for k in indices:
        th.prepare(5, k)
        x, y, z = th.templates[0].position_m
        rel = Release((x - 0.03, y + 0.01, z + 0.04), (0.6, -0.2, -0.5), (0.1, 0.2, 0.3, 0.927362), (4.0, -9.0, 3.0))
        rec = th.throw_releases([rel]).record()
        poses = [tuple(float(v) for v in p) for t in th.templates for p in th.physics.die_pose(t.body_name)]
        out.append((rec["x_mm"], rec["y_mm"], rec["result"], poses))
    return out


@pytest.mark.parametrize("template", ["explosion", "major-healing"])
@pytest.mark.parametrize("bank", [0, 3])
def test_multi_piece_template_throw_is_the_same_in_a_reused_world(template, bank):
    """A throw at a flipped template of several convex pieces equals, to the bit, the same throw in a
    fresh world, whatever the same world threw before (welded pieces, sim/world/welded.py), flipped
    afresh or laid at a flip bank's poses."""
    sc = Scenario.build(templates=[{"name": template, "flip": True}], flip_bank=bank)
    th = build_thrower(sc)
    try:
        reused = _throws_onto_templates(th, range(3))
    finally:
        th.physics.close()
    for k in (1, 2):
        fresh_world = build_thrower(sc)
        try:
            fresh = _throws_onto_templates(fresh_world, [k])[0]
        finally:
            fresh_world.physics.close()
        assert fresh == reused[k], k
