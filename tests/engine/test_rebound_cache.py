"""A scene's rebound calibration is one per world: throwers of other skills and house rules read it
from the cache folder, and what they read is what they would have calibrated themselves."""

from __future__ import annotations

from sim.engine.thrower import Thrower
from sim.specs.scenario import Scenario


def test_skills_and_rules_share_one_calibration_and_it_is_their_own(cache):
    recipe = {"board": "magma", "dice": ["hero-d8"], "shots": ["standard"]}
    casual = Thrower(Scenario.build(**recipe, skill="casual"))
    assert len(list((cache / "rebound").glob("*.json"))) == 1
    others = [Scenario.build(**recipe, skill="expert"), Scenario.build(**recipe, rules={"min_bounces": 2})]
    for sc in others:
        assert sc.world_key == casual.scenario.world_key and sc.aim_key != casual.scenario.aim_key
        warm = Thrower(sc)  # read from the cache
        assert len(list((cache / "rebound").glob("*.json"))) == 1
        Thrower.disk_cache = False
        try:
            cold = Thrower(sc)  # calibrated afresh in its own world
        finally:
            Thrower.disk_cache = True
        assert warm.physics.rebound == cold.physics.rebound
        assert [warm.physics.surface(n) for n in sorted(warm.physics.rebound)] == [
            cold.physics.surface(n) for n in sorted(cold.physics.rebound)
        ]
    other_die = Scenario.build(board="magma", dice=["d6"], shots=["standard"])
    assert other_die.world_key != casual.scenario.world_key
