"""The compiled free flight of a flipped template (sim/world/native/plateflight.c) against the Python
reference (sim/world/flight.py `fly`): the same end state to the bit, and the same flip sessions."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim.specs.board import load_board
from sim.specs.flip import FlipProfile
from sim.specs.template import builtin_templates, load_template
from sim.world import compiled
from sim.world.flight import Aero, CentreDown, LowestDown, fly
from sim.world.flip import FlipWorld, flip_template

pytestmark = pytest.mark.skipif(compiled.unavailable() is not None, reason=f"compiled loop: {compiled.unavailable()}")

BOARD = load_board("magma")


def _bits(result) -> tuple:
    end, t, turned, samples = result
    return (end.x.tobytes(), end.v.tobytes(), end.q.tobytes(), end.L.tobytes(), t, turned, len(samples))


def _both(spec, st, aero, dt, until, max_t):
    with compiled.using("python"):
        ref = fly(spec, st, aero, dt, until, max_t=max_t, record=False)
    with compiled.using("compiled"):
        assert compiled.plate_flight() is not None
        got = fly(spec, st, aero, dt, until, max_t=max_t, record=False)
    return ref, got


@pytest.mark.parametrize("name", [s.name for s in builtin_templates()])
@pytest.mark.parametrize("drag", [True, False])
def test_compiled_flights_end_where_the_python_ones_do_to_the_bit(name, drag):
    spec = load_template(name)
    world = FlipWorld.__new__(FlipWorld)  # the release geometry only: no world
    world.profile = FlipProfile(drag=drag)
    world.board = BOARD
    rng = np.random.default_rng(11)
    top = BOARD.thickness_m + spec.thickness_m / 2
    reach = float(np.max(np.hypot(*np.asarray(spec.local_outline.exterior.coords).T))) + spec.thickness_m / 2
    for _ in range(6):
        st = FlipWorld._state(
            world, spec, rng.uniform(0.6, 2.5), rng.uniform(0.8, 2.5), rng.normal(0, 0.2), rng.uniform(1, 8),
            rng.normal(0, 0.3), rng.uniform(0.1, 0.4), rng.uniform(0, 2 * math.pi),
        )  # fmt: skip
        aero = Aero(spec, world.profile)
        for until in (CentreDown(top), LowestDown(0.02 + BOARD.thickness_m, reach, spec)):
            ref, got = _both(spec, st, aero, 1 / 2000, until, 5.0)
            assert _bits(got) == _bits(ref)
            assert ref[1] > 0.05  # a real flight: it left the hand and came down
    # a flight cut short by its time limit ends alike too
    ref, got = _both(spec, st, aero, 1 / 2000, CentreDown(-1.0), 0.05)
    assert _bits(got) == _bits(ref) and ref[1] >= 0.05


def test_flip_sessions_are_the_same_with_either_flight():
    specs = [(n, load_template(n)) for n in ("armor", "explosion", "fireball")]
    sessions = {}
    for loop in ("python", "compiled"):
        with compiled.using(loop):
            out = []
            for index in range(3):
                for _name, spec in specs:
                    for res in flip_template(BOARD, spec, seed=2024, index=index):
                        out.append(repr(res.attempts))
            sessions[loop] = out
    assert sessions["compiled"] == sessions["python"]
