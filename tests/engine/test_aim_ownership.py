"""A technique given to a thrower (a run's prepared aim, a replay's, a test's made-up one) is that
thrower's only: no other thrower, and no later caller of the thread's world, throws it."""

from __future__ import annotations

import sim.engine.aim as aim_module
from sim.engine.thrower import Thrower
from sim.engine.worlds import clear_worlds, thrower_for
from sim.seeding import Draw
from sim.specs.scenario import Scenario


def test_a_given_technique_stays_with_its_thrower(magma_d8):
    made_up = (2.5, 30.0)
    a, b = Thrower(magma_d8), Thrower(magma_d8)
    try:
        a.set_nominal(made_up)
        assert a.nominal() == made_up
        assert b.aim.given == {} and b.aim.solved == {}  # the other world holds nothing of it
        b.set_nominal((3.5, 10.0))
        draw = Draw.for_throw(9, 0)
        assert a.release_for(draw) != b.release_for(draw)  # each throws its own
    finally:
        a.physics.close()
        b.physics.close()


def test_the_threads_world_forgets_what_an_earlier_caller_gave_it():
    sc = Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="novice")
    clear_worlds()
    try:
        first = thrower_for(sc)
        first.set_nominal((2.5, 30.0))
        again = thrower_for(sc)
        assert again is first  # the same world, reused
        assert again.aim.given == {}  # but not the aim its earlier caller gave it
    finally:
        clear_worlds()


def test_no_module_holds_techniques():
    """The aim module keeps no dictionary of techniques for the process (only constants)."""
    assert [n for n, v in vars(aim_module).items() if isinstance(v, dict) and not n.startswith("__")] == []
