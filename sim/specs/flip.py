"""Thumb flips as specs: the nominal flip of a template and the spread of a flipper's skill (estimated)."""

from __future__ import annotations

from pydantic import Field, model_validator

from sim.errors import FieldError
from sim.specs.base import MAX_BOARD_MM, Name, Place, Spec

MAX_FLIP_STEPS = 200_000  # free-flight plus engine steps of one flip attempt (the default: 24,000)


class FlipSkill(Spec):
    """Spread of a thumb flip around the nominal one (standard deviations)."""

    name: Name
    speed_sd_frac: float = Field(ge=0, le=1)  # horizontal speed
    up_sd_frac: float = Field(ge=0, le=1)  # upward speed
    azimuth_sd_deg: float = Field(ge=0, le=45)
    spin_sd_frac: float = Field(ge=0, le=1)
    wobble_sd_deg: float = Field(ge=0, le=45)  # spin axis out of the template's plane
    height_sd_mm: float = Field(ge=0, le=200)


# Estimated: nobody publishes template flip statistics. A casual flip lands within roughly +-15 cm of
# where it was meant to; an expert's within about half that. The spin axis's tilt out of the plane
# (wobble) is what makes a caught coin show its starting side more often than not (Diaconis, Holmes &
# Montgomery 2007); people flipping and catching coins did so 0.508 of the time (Bartos et al. 2023,
# 350,757 flips), which a normal wobble of sd 4.5 deg gives (`dfsim validate`, coin-flips): the casual
# flip's, the novice's and the expert's in the same proportion as before (20 : 12 : 6 deg, estimated).
FLIP_SKILLS = {
    "novice": FlipSkill(
        name="novice",
        speed_sd_frac=0.35,
        up_sd_frac=0.3,
        azimuth_sd_deg=12,
        spin_sd_frac=0.35,
        wobble_sd_deg=7.5,
        height_sd_mm=40,
    ),
    "casual": FlipSkill(
        name="casual",
        speed_sd_frac=0.22,
        up_sd_frac=0.2,
        azimuth_sd_deg=8,
        spin_sd_frac=0.25,
        wobble_sd_deg=4.5,
        height_sd_mm=25,
    ),
    "expert": FlipSkill(
        name="expert",
        speed_sd_frac=0.1,
        up_sd_frac=0.1,
        azimuth_sd_deg=4,
        spin_sd_frac=0.15,
        wobble_sd_deg=2.25,
        height_sd_mm=10,
    ),
}


class FlipProfile(Spec):
    """The nominal thumb flip (estimated): from the edge of the table, toward an aim point."""

    distance_mm: float = Field(
        default=380.0, gt=0, le=MAX_BOARD_MM
    )  # hand from the board centre, on the -x side
    lateral_mm: float = Field(default=0.0, ge=-MAX_BOARD_MM, le=MAX_BOARD_MM)
    height_mm: float = Field(default=150.0, gt=0, le=1000)  # thumb above the table
    aim_mm: tuple[Place, Place] = (0.0, 0.0)
    up_speed_mps: float = Field(default=1.6, gt=0, le=10)
    spin_rps: float = Field(default=5.0, gt=0, le=40)
    min_turn_deg: float = Field(default=180.0, ge=0, le=3600)
    max_flips: int = Field(default=25, ge=1, le=1000)
    drag: bool = True
    cd_face: float = Field(default=1.17, ge=0, le=10)  # flat plate broadside (Hoerner)
    cd_edge: float = Field(default=1.0, ge=0, le=10)
    # RK4 of the free flight: at 500 Hz a flight's end state is within ~1 um and 1e-7 (quaternion) of
    # 4 kHz (docs/templates.md); the landing in PyBullet keeps its own step_hz
    flight_hz: float = Field(default=500.0, ge=100, le=20000)
    step_hz: float = Field(default=2000.0, ge=240, le=20000)
    handover_mm: float = Field(default=60.0, gt=0, le=1000)
    # per-impact step of the landing (as the dice have): once the card has touched down and its fastest
    # point (|v| + |w| x its outline's radius) is slower than fine_speed_mps, the world steps at
    # coarse_step_hz (a whole fraction of step_hz) until it is faster again; coarse_step_hz = step_hz
    # turns it off (docs/templates.md: 200 flips each of three templates, 99 % end within 1 mm)
    coarse_step_hz: float = Field(default=500.0, ge=100, le=20000)
    fine_speed_mps: float = Field(default=0.3, ge=0, le=100)
    max_time_s: float = Field(default=6.0, gt=0, le=60)
    rest_speed_mps: float = Field(default=0.01, gt=0, le=10)
    rest_spin_radps: float = Field(default=0.5, gt=0, le=100)
    rest_hold_s: float = Field(default=0.08, ge=0, le=10)
    # A template lying within this tilt of flat and only wobbling in place (Euler's disk: no damping
    # in the engine would make it ring for seconds) has settled where and which side up it lies.
    wobble_tilt_deg: float = Field(default=8.0, ge=0, le=30)
    wobble_spin_radps: float = Field(default=15.0, ge=0, le=1000)
    settle_angular_damping: float = Field(default=0.9, ge=0, lt=1)
    # A flip ends only when the template lies flat (sim/world/flip.py `lies_flat`): its normal (either
    # face) within flat_tilt_deg of the board's normal, and its centre at most flat_rise_mm above where
    # it would lie flat on the board or on the templates it touches. A template standing on its edge,
    # or propped on a prop, is flipped again (status "not-flat", no damage).
    flat_tilt_deg: float = Field(default=10.0, gt=0, le=45)
    flat_rise_mm: float = Field(default=4.0, gt=0, le=100)

    @model_validator(mode="after")
    def _work(self) -> FlipProfile:
        # the work of one flip is bounded like a throw's: flight and contact steps together
        steps = self.max_time_s * (self.flight_hz + self.step_hz)
        if steps > MAX_FLIP_STEPS:
            raise FieldError(
                "max_time_s",
                f"max_time_s x (flight_hz + step_hz) is {steps:.0f} steps; at most {MAX_FLIP_STEPS}",
            )
        return self
