"""A thrower's skill: the spread of their releases around the aimed, nominal one."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from sim.specs.base import Name, Spec

# the spreads of a skill (scaled together by `dfsim fit-skill`)
SPREADS = (
    "speed_sd_frac",
    "elevation_sd_deg",
    "azimuth_sd_deg",
    "height_sd_mm",
    "lateral_sd_mm",
    "distance_sd_mm",
    "spin_sd_rps",
    "grip_sd_deg",
)


class SkillSpec(Spec):
    """Standard deviations of release errors; a shot profile can multiply each of them."""

    name: Name
    estimated: bool = True
    notes: str = ""
    speed_sd_frac: float = Field(ge=0, le=1)
    elevation_sd_deg: float = Field(ge=0, le=45)
    azimuth_sd_deg: float = Field(ge=0, le=45)
    height_sd_mm: float = Field(ge=0, le=500)
    lateral_sd_mm: float = Field(ge=0, le=500)
    distance_sd_mm: float = Field(ge=0, le=500)
    spin_sd_rps: float = Field(ge=0, le=50)
    # how repeatable the grip is: the held orientation turns about each axis by this standard deviation
    # (a loose novice's ~60 deg leaves the die nearly as it lies; an expert's few degrees hold the face)
    grip_sd_deg: float = Field(default=30.0, ge=0, le=180)
    # a thrower's systematic error (`dfsim fit-skill` fits them from where misses end): every release
    # this much faster (+) or slower (-) than the aimed one, and turned this far to the left (+, toward
    # +y) or right; neither is scaled by a shot's noise multipliers
    speed_bias_frac: float = Field(default=0.0, ge=-0.5, le=0.5)
    azimuth_bias_deg: float = Field(default=0.0, ge=-30, le=30)


def load_skill(name_or_path: str | Path) -> SkillSpec:
    """A skill by built-in name or TOML path; bad files raise SpecError."""
    return SkillSpec.load(name_or_path, "skill")
