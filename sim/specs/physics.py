"""Engine settings as a spec: step, solver, rest thresholds; every field settable as `physics.<field>`."""

from __future__ import annotations

from pydantic import Field

from sim.specs.base import Spec

GRAVITY = 9.81  # m/s^2, standard gravity; the world's -z


class PhysicsSettings(Spec):
    """Engine settings; every field can be overridden as `physics.<field>` in a scenario."""

    step_hz: float = Field(default=240.0, ge=60, le=20000)
    solver_iterations: int = Field(default=50, ge=1, le=1000)
    max_time_s: float = Field(default=8.0, gt=0, le=120)
    rest_speed_mps: float = Field(default=0.01, gt=0)
    rest_spin_radps: float = Field(default=0.6, gt=0)
    rest_hold_s: float = Field(default=0.15, ge=0)
    world_radius_m: float = Field(default=4.0, gt=0)
    ccd: bool = True
