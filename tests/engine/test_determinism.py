import pytest

from sim.engine.determinism import check_determinism
from sim.engine.worlds import thrower_for
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
