"""Engine settings as a spec: step, solver, flight, rest test; every field settable as `physics.<field>`."""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field, model_validator

from sim.errors import FieldError
from sim.specs.base import Spec

GRAVITY = 9.81  # m/s^2, standard gravity; the world's -z
# The step budget of one throw: max_time_s x step_hz steps at most. A throw that has not come to rest
# within its budget ends void ("not-settled"); the cap keeps any settings from making one throw (and
# the aim solve's reference throws) run for hours: 240 Hz x 8 s is 1,920 steps, 960 Hz x 60 s 57,600,
# the converged impact step (30720 Hz while fast, docs/physics.md "Rolling bodies") x 8 s 245,760.
MAX_STEPS_PER_THROW = 250_000
# The converged impact step (opt-in): the contact step 16x finer, and used for every motion faster than
# 0.5 m/s instead of 1.5 m/s (slower ones keep the 240 Hz coarse step). End landings of cylinders, the
# d6's faces and the d8's run-out agree with it at half its step; it costs ~11x the default per throw
# of the standard shot (docs/physics.md, "Rolling bodies"). Not the default for that cost.
CONVERGED_IMPACT_STEP = {"step_hz": 15360.0, "fine_speed_mps": 0.5}


class PhysicsSettings(Spec):
    """Engine settings; every field can be overridden as `physics.<field>` in a scenario."""

    # the contact step: the world is stepped at this rate whenever a die is in or near contact
    # (sim/world/stepper.py); 960 Hz passes the convergence check on every scene (docs/physics.md)
    step_hz: float = Field(default=960.0, ge=60, le=40000)
    solver_iterations: int = Field(default=50, ge=1, le=1000)
    max_time_s: float = Field(default=8.0, gt=0, le=120)
    rest_speed_mps: float = Field(default=0.01, gt=0, le=10)
    rest_spin_radps: float = Field(default=0.6, gt=0, le=100)
    rest_hold_s: float = Field(default=0.15, ge=0, le=10)
    world_radius_m: float = Field(default=4.0, gt=0, le=100)
    ccd: bool = True
    # free flight: "analytic" moves the dice along their exact parabola until one could touch something
    # (sim/world/ballistic.py); "step" steps it at step_hz like the rest of the throw
    flight: Literal["analytic", "step"] = "analytic"
    # per-impact step: the world steps at step_hz while any die's fastest point (|v| + |w| x its
    # bounding radius) is faster than fine_speed_mps, at coarse_step_hz otherwise (rolling out,
    # settling, the rest confirmation); step_hz / coarse_step_hz is rounded to a whole number of steps.
    # 240 Hz below 1.5 m/s passes the convergence check on every scene (docs/physics.md)
    coarse_step_hz: float = Field(default=240.0, ge=60, le=40000)
    fine_speed_mps: float = Field(default=1.5, ge=0, le=100)
    # how far (beyond its bounding sphere) a die must stay from every other body's box while its flight
    # is skipped (25 mm, beyond Bullet's 20 mm contact-breaking threshold, changed no outcome)
    flight_margin_mm: float = Field(default=2.0, ge=0, le=1000)
    # rest test (sim/world/rest.py): "support" = quiet windows of rest_window_s, two for a die lying
    # flat and stable, as many as fill 2 x rest_hold_s for a leaning die, rest_balanced_hold_s for one
    # balanced on an edge; "windows" = two quiet windows of rest_hold_s for every die
    rest: Literal["support", "windows"] = "support"
    rest_window_s: float = Field(default=0.025, gt=0, le=10)
    rest_margin_mm: float = Field(default=0.5, ge=0, le=100)
    rest_balanced_hold_s: float = Field(default=2.0, gt=0, le=60)

    @model_validator(mode="after")
    def _budget(self) -> PhysicsSettings:
        if self.max_time_s * self.step_hz > MAX_STEPS_PER_THROW:
            raise FieldError(
                "max_time_s",
                f"max_time_s x step_hz is {self.max_time_s * self.step_hz:.0f} steps; "
                f"a throw may take at most {MAX_STEPS_PER_THROW} (lower one of them)",
            )
        return self

    @property
    def max_steps(self) -> int:
        """The step budget of one throw: its simulated time in steps, never above MAX_STEPS_PER_THROW
        (also for settings that were never validated, e.g. made with model_copy)."""
        steps = self.max_time_s * self.step_hz
        return (
            int(round(steps))
            if math.isfinite(steps) and steps <= MAX_STEPS_PER_THROW
            else MAX_STEPS_PER_THROW
        )

    @property
    def out_of_steps(self) -> Literal["not-settled", "step-budget"]:
        """Why a throw that used all its steps is void: its simulated time ran out ("not-settled"), or
        the step budget cut it shorter than max_time_s ("step-budget")."""
        steps = self.max_time_s * self.step_hz
        return (
            "not-settled" if math.isfinite(steps) and self.max_steps == int(round(steps)) else "step-budget"
        )
