"""Surfaces as materials: a shot without a board is thrown onto the surface it names, and a surface's
rolling resistance reaches Bullet as the surface's rolling friction (the die's stays 0)."""

from __future__ import annotations

import pytest

from sim.engine.worlds import build_thrower
from sim.errors import SpecError
from sim.specs.material import MaterialTable
from sim.specs.scenario import Scenario


def _roll(die: str = "d6", **overrides):
    return build_thrower(Scenario.build(dice=[die], shots=["roll"], overrides=overrides))


def test_a_free_roll_lands_on_the_surface_its_shot_names():
    th = _roll(**{"shot.table_material": "felt"})
    try:
        ph = th.physics
        assert ph.material_of("table") == "felt"
        arm = MaterialTable.default().pair("plastic", "felt").rolling_resistance_mm * 1e-3
        assert ph.rolling_resistance == {"table": pytest.approx(arm)}
        die_friction = ph.surface("die:0")[0]
        info = ph.client.getDynamicsInfo(ph.body("table"), -1)
        assert info[6] * die_friction == pytest.approx(arm, rel=1e-6)  # Bullet: rolling_table x friction_die
        assert ph.client.getDynamicsInfo(ph.body("die:0"), -1)[6] == 0.0
        assert ph.rebound["table"][1] == pytest.approx(0.2, abs=5e-4)  # the pair's stated rebound
    finally:
        th.physics.close()


def test_the_wooden_table_keeps_no_rolling_resistance():
    th = _roll()
    try:
        assert th.physics.material_of("table") == "wood" and th.physics.rolling_resistance == {}
        assert th.physics.client.getDynamicsInfo(th.physics.body("table"), -1)[6] == 0.0
    finally:
        th.physics.close()


def test_an_unknown_surface_names_the_shot_field():
    with pytest.raises(SpecError, match="table_material"):
        _roll(**{"shot.table_material": "marble"})
