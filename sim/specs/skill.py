"""A thrower's skill: the spread of their releases around the aimed, nominal one."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from sim.specs.base import Name, Spec


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


def load_skill(name_or_path: str | Path) -> SkillSpec:
    """A skill by built-in name or TOML path; bad files raise SpecError."""
    return SkillSpec.load(name_or_path, "skill")
