"""The board reading on dice set down by the placement engine (what `dfsim place` does): a die that
comes to rest on the board with a corner past its edge is on the board (docs/rules.md, "Where the
die stands"); one whose centre of mass is past the edge falls off."""

from __future__ import annotations

import numpy as np

from sim.engine.placement import place_with_templates
from sim.rules.footprint import bottom_corners_xy, winning_region
from sim.specs.scenario import Scenario


def test_die_resting_on_the_edge_with_a_corner_past_it_counts_in_the_lower_section():
    sc = Scenario.build(board="magma", dice=["hero-d8"])
    o = place_with_templates(sc, [], 0.278, 0.0, yaw_deg=60.0).outcome
    # it stays where it was put, on the board, with its three bottom corners on r280-0 (value 1),
    # r280-7 (value 2) and past the edge: the count alone is a three-way tie that went to off-board
    corners = bottom_corners_xy(sc.dice[0], np.array(o.position_mm) * 1e-3, o.orientation_xyzw)
    kinds = sorted(r.id for r in sc.board.regions_at(corners))
    assert kinds == ["off", "r280-0", "r280-7"]
    assert winning_region(sc.board, corners).kind == "off"
    assert o.touching == ["board"]
    assert (o.result, o.reason, o.section, o.damage) == ("hit", "hit", "r280-0", 1.0)


def test_die_whose_centre_is_past_the_edge_falls_off():
    sc = Scenario.build(board="magma", dice=["hero-d8"])
    o = place_with_templates(sc, [], 0.287, 0.0, yaw_deg=60.0).outcome
    assert np.hypot(*o.position_mm[:2]) > 280.0
    assert (o.result, o.reason) == ("miss", "off-board")
