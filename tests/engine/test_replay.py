"""Thrower.replay: exact releases thrown as throw (seed, index), in that throw's own per-throw state."""

from __future__ import annotations

import pytest

from sim.engine.worlds import thrower_for
from sim.specs.scenario import Scenario


@pytest.mark.parametrize("shot", ["firewall", "cup"])
def test_replay_of_a_throws_releases_is_that_throw(shot):
    th = thrower_for(Scenario.build(shots=[shot]))
    thrown = [th.throw(19, k) for k in range(3)]
    for k in (2, 0, 1):  # out of order, in the same world
        again = th.replay(thrown[k].releases, 19, k)
        assert again.record() == thrown[k].record()
        # (contacts that begin in the same step may be listed in another order after other throws:
        # Bullet's contact order depends on the world's history; the set per step is the same)
        assert sorted(map(_key, again.trace.events)) == sorted(map(_key, thrown[k].trace.events))


def _key(e):
    return (e.time_s, e.die, e.other, e.point_m, e.speed_mps)


def test_replay_uses_the_throws_own_prop_jitter():
    # the cup is hand-held: its pose is jittered per throw, so the same release thrown as another
    # throw index (another jitter) is another throw
    th = thrower_for(Scenario.build(shots=["cup"]))
    a = th.throw(19, 0)
    b = th.replay(a.releases, 19, 1)
    assert (b.seed, b.index) == (19, 1)
    assert b.record()["x_mm"] != a.record()["x_mm"]
