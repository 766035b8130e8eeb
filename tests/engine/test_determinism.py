import pytest

from sim.engine.determinism import check_determinism
from sim.engine.release import Release
from sim.engine.worlds import build_thrower, thrower_for
from sim.specs.datafiles import builtin_names
from sim.specs.scenario import Scenario


@pytest.mark.parametrize("shot", builtin_names("shot"))
def test_every_builtin_shot_is_deterministic(shot):
    sc = Scenario.build(shots=[shot])
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
