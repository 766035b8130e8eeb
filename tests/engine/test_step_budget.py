"""A throw never hangs: it has a step budget (sim/specs/physics.py) and ends void when it is used up."""

from __future__ import annotations

import sim.specs.physics as physics_settings
from sim.engine.release import Release
from sim.engine.worlds import build_thrower

# a die still in the air: it cannot come to rest within a few hundred steps
IN_FLIGHT = Release((-0.65, 0.0, 0.1), (2.0, 0.0, 1.0), (0.0, 0.0, 0.0, 1.0), (0.0, 25.0, 0.0))


def test_out_of_budget_throw_is_void_step_budget(magma_d8, monkeypatch):
    monkeypatch.setattr(physics_settings, "MAX_STEPS_PER_THROW", 300)  # below this scene's 8 s x 240 Hz
    th = build_thrower(magma_d8)
    try:
        res = th.throw_releases([IN_FLIGHT])
    finally:
        th.physics.close()
    assert (res.outcome.result, res.outcome.reason) == ("void", "step-budget")
    assert len(res.trace.path_t) == 300


def test_out_of_time_throw_is_void_not_settled(magma_d8):
    # the budget is the simulated time when that is within the cap: the reason stays "not-settled"
    short = magma_d8.physics.model_copy(update={"max_time_s": 0.05})
    assert short.max_steps == round(0.05 * short.step_hz) and short.out_of_steps == "not-settled"
