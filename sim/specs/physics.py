"""Engine settings as a spec: step, solver, flight, rest test; every field settable as `physics.<field>`."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from sim.specs.base import Spec

GRAVITY = 9.81  # m/s^2, standard gravity; the world's -z


class PhysicsSettings(Spec):
    """Engine settings; every field can be overridden as `physics.<field>` in a scenario."""

    # the contact step: the world is stepped at this rate whenever a die is in or near contact
    # (sim/engine/stepper.py); 960 Hz passes the convergence check on every scene (docs/physics.md)
    step_hz: float = Field(default=960.0, ge=60, le=20000)
    solver_iterations: int = Field(default=50, ge=1, le=1000)
    max_time_s: float = Field(default=8.0, gt=0, le=120)
    rest_speed_mps: float = Field(default=0.01, gt=0)
    rest_spin_radps: float = Field(default=0.6, gt=0)
    rest_hold_s: float = Field(default=0.15, ge=0)
    world_radius_m: float = Field(default=4.0, gt=0)
    ccd: bool = True
    # free flight: "analytic" moves the dice along their exact parabola until one could touch something
    # (sim/world/ballistic.py); "step" steps it at step_hz like the rest of the throw
    flight: Literal["analytic", "step"] = "analytic"
    # per-impact step: the world steps at step_hz while any die's fastest point (|v| + |w| x its
    # bounding radius) is faster than fine_speed_mps, at coarse_step_hz otherwise (rolling out,
    # settling, the rest confirmation); step_hz / coarse_step_hz is rounded to a whole number of steps.
    # 240 Hz below 1.5 m/s passes the convergence check on every scene (docs/physics.md)
    coarse_step_hz: float = Field(default=240.0, ge=60, le=20000)
    fine_speed_mps: float = Field(default=1.5, ge=0)
    # how far (beyond its bounding sphere) a die must stay from every other body's box while its flight
    # is skipped (25 mm, beyond Bullet's 20 mm contact-breaking threshold, changed no outcome)
    flight_margin_mm: float = Field(default=2.0, ge=0)
    # rest test (sim/world/rest.py): "support" = quiet windows of rest_window_s, two for a die lying
    # flat and stable, as many as fill 2 x rest_hold_s for a leaning die, rest_balanced_hold_s for one
    # balanced on an edge; "windows" = two quiet windows of rest_hold_s for every die
    rest: Literal["support", "windows"] = "support"
    rest_window_s: float = Field(default=0.025, gt=0)
    rest_margin_mm: float = Field(default=0.5, ge=0)
    rest_balanced_hold_s: float = Field(default=2.0, gt=0)
