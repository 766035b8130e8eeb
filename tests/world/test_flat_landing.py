"""A face landing squarely on the table rebounds straight: no sideways push, no spin (Newton). Bullet
keeps four contact points of a face landing on a face; on a many-sided cylinder cap they could all lie
on one side of the centre and a flat drop was thrown sideways at ~0.7 m/s (docs/physics.md, "Rolling
bodies"), so a cylinder's collision ends are squares."""

from __future__ import annotations

import pytest

from sim.engine.settling import cylinder_case
from sim.engine.worlds import build_thrower
from sim.specs.scenario import Scenario
from sim.studies.rolling import FLAT_KICK_MPS, FLAT_SPIN_RADPS, flat_landing, judge_flat_landing


@pytest.mark.parametrize("radius_mm,height_mm", [(10.0, 20.0), (10.0, 6.0)])
def test_a_cylinder_landing_flat_rebounds_straight(radius_mm, height_mm):
    case = cylinder_case(radius_mm, height_mm)
    th = build_thrower(Scenario.build(dice=[case.base], shots=["roll"], overrides=dict(case.overrides)))
    try:
        row = flat_landing(th, phases=3, yaws=4)
    finally:
        th.physics.close()
    assert row["side_mps"] <= FLAT_KICK_MPS and row["spin_radps"] <= FLAT_SPIN_RADPS, row
    assert row["rebound"] == pytest.approx(0.5, abs=0.05)  # the table's stated rebound


def test_the_flat_landing_verdict_fails_on_a_kick():
    ok = {"die": "d6", "drops": 8, "side_mps": 0.001, "spin_radps": 0.1, "rebound": 0.5}
    assert judge_flat_landing([ok]).passed is True
    assert judge_flat_landing([ok, ok | {"side_mps": 0.55}]).passed is False
    assert judge_flat_landing([ok | {"spin_radps": 63.0}]).passed is False
