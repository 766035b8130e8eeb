"""Static pieces are built asleep (sim/world/solids.py, `asleep`): Bullet then skips pairs of two static
pieces, and nothing else may change. Checked against the same world with every static piece woken:
the same releases give the same throws to the bit, and a sleeping static body that is moved is met
where it now stands."""

from __future__ import annotations

from sim.engine.worlds import build_thrower
from sim.seeding import Draw
from sim.specs.scenario import Scenario
from sim.world import solids
from sim.world.physics import Physics
from sim.world.solids import box_hull


def _throws(th, n: int) -> list:
    out = []
    for k in range(n):
        res = th.throw_releases(th.release_for(Draw.for_throw(31, k)))
        o = res.outcome
        out.append((o.result, o.reason, tuple(o.position_mm), tuple(o.orientation_xyzw), o.time_s,
                    [(e.time_s, e.other, e.point_m) for e in res.trace.events]))
    return out


def _world_throws(n: int) -> list:
    th = build_thrower(Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual"))
    try:
        th.nominal()
        return _throws(th, n)
    finally:
        th.physics.close()


def test_sleeping_static_pieces_change_no_throw(monkeypatch):
    """The same world built with its static pieces left awake throws the same throws, bit for bit
    (woken later instead, the pairs Bullet then makes come in another order: not the same world)."""
    asleep = _world_throws(12)
    monkeypatch.setattr(solids, "asleep", lambda client, body: None)
    awake = _world_throws(12)
    assert awake == asleep
    assert len({t[0] for t in asleep}) > 1  # hits and misses both: throws that met the board and the table


def test_a_moved_sleeping_static_body_is_met_where_it_stands():
    sc = Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual")
    ph = Physics(sc.physics, sc.materials)
    try:
        ph.add_static_solid("shelf", [box_hull((0.0, 0.0, -0.01), (0.1, 0.1, 0.01))], "wood")
        ph.add_die(sc.dice[0], "die:0")
        ph.finalize_materials()
        ph.set_pose("shelf", (2.0, 0.0, 0.5), (0.0, 0.0, 0.0, 1.0))  # moved after it fell asleep
        ph.set_state("die:0", (2.0, 0.0, 0.6), (0.0, 0.0, 0.0, 1.0))
        ph.forget_contacts()
        for _ in range(600):
            ph.step()
        pos, _q = ph.die_pose("die:0")
        assert 0.5 < pos[2] < 0.52  # resting on the shelf's top, not fallen through to the parking depth
        assert ph.touching("die:0") == {"shelf"}
    finally:
        ph.close()
