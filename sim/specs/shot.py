"""Shot profiles: how a specific throw is made (nominal release, noise multipliers, requirements)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator

from sim.errors import FieldError
from sim.specs.base import MAX_BOARD_MM, Name, Place, Spec
from sim.specs.requirements import REQUIREMENT_NAMES

MAX_NOISE_FACTOR = 100.0  # a shot may make a skill's spread at most this many times wider
MAX_LISTED = 20  # requirements, props of one shot


class ReleaseProfile(Spec):
    """The aimed release; lengths in mm from the board centre, thrower on the -x side."""

    distance_mm: float = Field(gt=0, le=5000)  # horizontal hand-to-board-centre distance
    height_mm: float = Field(gt=0, le=3000)  # release height above the table
    lateral_mm: float = Field(default=0.0, ge=-MAX_BOARD_MM, le=MAX_BOARD_MM)
    aim: Literal["bullseye", "center", "point", "none"] = "bullseye"
    aim_mm: tuple[Place, Place] | None = None  # with aim = "point"
    bounce_gap_mm: float = Field(default=120.0, ge=0, le=MAX_BOARD_MM)  # nominal first table bounce, before the board edge
    elevation_deg: float = Field(default=15.0, ge=-80, le=80)  # used when aim = "none"
    speed_mps: float = Field(default=2.5, gt=0, le=20)  # used when aim = "none"
    azimuth_deg: float = Field(default=0.0, ge=-180, le=180)
    spin_rps: float = Field(default=3.0, ge=-60, le=60)  # nominal tumble about the lateral axis; negative = backspin
    spin_axis: Literal["lateral", "random"] = "lateral"

    @model_validator(mode="after")
    def _aim(self) -> ReleaseProfile:
        if self.aim == "point" and self.aim_mm is None:
            raise FieldError("aim_mm", "is required when aim = 'point'")
        return self


class NoiseMultipliers(Spec):
    """Per-component factors on the skill's spreads (a friendly shot is sloppier, a jump adds height noise)."""

    speed: float = Field(default=1.0, ge=0, le=MAX_NOISE_FACTOR)
    elevation: float = Field(default=1.0, ge=0, le=MAX_NOISE_FACTOR)
    azimuth: float = Field(default=1.0, ge=0, le=MAX_NOISE_FACTOR)
    height: float = Field(default=1.0, ge=0, le=MAX_NOISE_FACTOR)
    lateral: float = Field(default=1.0, ge=0, le=MAX_NOISE_FACTOR)
    distance: float = Field(default=1.0, ge=0, le=MAX_NOISE_FACTOR)
    spin: float = Field(default=1.0, ge=0, le=MAX_NOISE_FACTOR)


class CombineRules(Spec):
    """How this shot changes the primary shot's release when it is combined as a secondary one
    (e.g. `--shot firewall --shot far`: the Far Shot steps back 70 cm). See sim/specs/combine.py and docs/shots-and-props.md."""

    distance_add_mm: float = Field(default=0.0, ge=-2000, le=5000)
    height_add_mm: float = Field(default=0.0, ge=-2000, le=3000)
    # the aimed first bounce moves this much further from the board edge (a longer throw aims its
    # bounce earlier: the Far Shot's 60 -> 150 mm)
    bounce_gap_add_mm: float = Field(default=0.0, ge=-1000, le=2000)
    height_max_mm: float | None = Field(default=None, gt=0, le=3000)
    noise: NoiseMultipliers = NoiseMultipliers()  # multiplied into the primary's multipliers


class ShotSpec(Spec):
    """A shot data file: nominal release, noise multipliers, throw requirements, props, and how it combines
    with other shots."""

    name: Name
    description: str = ""
    estimated: bool = True
    notes: str = ""
    board: bool = True  # False: the open table only (free rolls)
    release: ReleaseProfile
    noise: NoiseMultipliers = NoiseMultipliers()
    requirements: list[str] = Field(default_factory=lambda: ["bounce-before-board"], max_length=MAX_LISTED)
    props: list[Name] = Field(default_factory=list, max_length=MAX_LISTED)  # prop names or paths (boards/props/)
    combine: CombineRules = CombineRules()

    @field_validator("requirements")
    @classmethod
    def _known(cls, v: list[str]) -> list[str]:
        for i, r in enumerate(v):
            if r not in REQUIREMENT_NAMES:
                raise FieldError(str(i), f"unknown requirement '{r[:40]}' (known: {', '.join(sorted(REQUIREMENT_NAMES))})")
        return v


def load_shot(name_or_path: str | Path) -> ShotSpec:
    """A shot by built-in name or TOML path; bad files raise SpecError."""
    return ShotSpec.load(name_or_path, "shot")
