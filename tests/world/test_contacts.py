"""Contact points read by named field (sim/world/contacts.py): on hand-built points in PyBullet's layout,
and on a die resting in a real world."""

from __future__ import annotations

import pytest

from sim.specs.die import load_die
from sim.trace import ContactEvent
from sim.world import contacts as C
from sim.world.physics import Physics


def _point(other: int, at, distance: float, normal=(0.0, 0.0, 1.0), force: float = 1.0) -> tuple:
    """A contact point tuple as PyBullet lays it out (flags, bodyA, bodyB, linkA, linkB, posA, posB,
    normal on B, distance, normal force, ...)."""
    return (0, 1, other, -1, -1, tuple(at), tuple(at), tuple(normal), distance, force)


POINTS = [
    _point(3, (0.0, 0.0, 0.0), -2e-4),
    _point(3, (0.002, 0.0, 0.0), 5e-5, normal=(0.0, 0.1, 0.99)),
    _point(9, (0.5, 0.5, 0.0), 0.0),  # a body the world did not name
    _point(4, (1.0, 1.0, 1.0), 3e-4),  # farther than the touch distance: not touching
]
NAMES = {3: "table", 4: "board"}


def test_touching_points_by_field():
    assert C.touches(POINTS) and not C.touches(POINTS[3:])
    assert C.touched_ids(POINTS) == {3, 9}
    assert C.touching_normals(POINTS) == [(0.0, 0.0, 1.0), (0.0, 0.1, 0.99), (0.0, 0.0, 1.0)]
    assert C.deepest_overlap(POINTS) == pytest.approx(2e-4)
    assert C.deepest_overlap(POINTS, 5e-4) == 5e-4


def test_contact_events_are_one_per_new_body_in_name_order_at_the_mean_point():
    events: list[ContactEvent] = []
    C.start_events(events, 0.25, "die:0", POINTS, C.TOUCH_DISTANCE_M, NAMES, frozenset(), 1.5)
    assert [e.other for e in events] == ["body:9", "table"]
    assert events[1].point_m == pytest.approx((0.001, 0.0, 0.0))
    assert all(e.time_s == 0.25 and e.die == "die:0" and e.speed_mps == 1.5 for e in events)
    again: list[ContactEvent] = []
    C.start_events(again, 0.5, "die:0", POINTS, C.TOUCH_DISTANCE_M, NAMES, frozenset({"table"}), 0.0)
    assert [e.other for e in again] == ["body:9"]  # touched the step before: no new event


def test_a_die_resting_on_the_table_reports_named_contacts():
    ph = Physics()
    try:
        ph.add_table("wood")
        die = load_die("d6")
        ph.add_die(die, "die:0")
        ph.finalize_materials()
        ph.set_state("die:0", (0.0, 0.0, die.inradius_m + 0.002), (0.0, 0.0, 0.0, 1.0))
        assert ph.settle(["die:0"])
        found = ph.contacts("die:0")
        assert found and {c.other for c in found} == {"table"}
        assert all(c.normal_force_n >= 0.0 and c.point_m[2] == pytest.approx(0.0, abs=1e-3) for c in found)
        assert ph.touching("die:0") == frozenset({"table"})
    finally:
        ph.close()
