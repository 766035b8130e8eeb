"""One physical straight drop into the Volcano's crater: no bounce on the table, so a miss."""

from __future__ import annotations

from sim.engine.release import Release
from sim.engine.worlds import thrower_for
from sim.specs.scenario import Scenario


def test_a_straight_drop_into_the_crater_is_a_no_bounce_miss():
    sc = Scenario.build(board="magma", dice=["hero-d8"], shots=["volcano"])
    top = sc.board.thickness_m + 0.06  # the volcano is 60 mm tall, centred at (-100, 100) mm
    res = thrower_for(sc).throw_releases([Release((-0.1, 0.1, top + 0.03), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0),
                                                  (0.0, 0.0, 0.0))])
    o = res.outcome
    assert "prop:volcano" in o.touching  # it did land in the crater
    assert o.requirements["bounce-before-board"] == "failed"
    assert (o.result, o.reason, o.damage, o.insta_kill) == ("miss", "no-bounce", 0.0, False)
