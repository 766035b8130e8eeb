"""Shot profiles: how a specific throw is made (nominal release, noise multipliers, requirements)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from sim.specs.base import Spec


class ReleaseProfile(Spec):
    """The aimed release; lengths in mm from the board centre, thrower on the -x side."""

    distance_mm: float = Field(gt=0, le=5000)  # horizontal hand-to-board-centre distance
    height_mm: float = Field(gt=0, le=3000)  # release height above the table
    lateral_mm: float = 0.0
    aim: Literal["bullseye", "center", "point", "none"] = "bullseye"
    aim_mm: tuple[float, float] | None = None  # with aim = "point"
    bounce_gap_mm: float = Field(default=120.0, ge=0)  # nominal first table bounce, before the board edge
    elevation_deg: float = Field(default=15.0, ge=-80, le=80)  # used when aim = "none"
    speed_mps: float = Field(default=2.5, gt=0, le=20)  # used when aim = "none"
    azimuth_deg: float = 0.0
    spin_rps: float = Field(default=3.0, ge=-60, le=60)  # nominal tumble about the lateral axis; negative = backspin
    spin_axis: Literal["lateral", "random"] = "lateral"


class NoiseMultipliers(Spec):
    """Per-component factors on the skill's spreads (a friendly shot is sloppier, a jump adds height noise)."""

    speed: float = Field(default=1.0, ge=0)
    elevation: float = Field(default=1.0, ge=0)
    azimuth: float = Field(default=1.0, ge=0)
    height: float = Field(default=1.0, ge=0)
    lateral: float = Field(default=1.0, ge=0)
    distance: float = Field(default=1.0, ge=0)
    spin: float = Field(default=1.0, ge=0)


class CombineRules(Spec):
    """How this shot changes the primary shot's release when it is combined as a secondary one
    (e.g. `--shot firewall --shot far`: the Far Shot steps back 70 cm). See sim/specs/combine.py and docs/shots-and-props.md."""

    distance_add_mm: float = Field(default=0.0, ge=-2000, le=5000)
    height_add_mm: float = Field(default=0.0, ge=-2000, le=3000)
    # the aimed first bounce moves this much further from the board edge (a longer throw aims its
    # bounce earlier: the Far Shot's 60 -> 150 mm)
    bounce_gap_add_mm: float = Field(default=0.0, ge=-1000, le=2000)
    height_max_mm: float | None = Field(default=None, gt=0)
    noise: NoiseMultipliers = NoiseMultipliers()  # multiplied into the primary's multipliers


class ShotSpec(Spec):
    """A shot data file: nominal release, noise multipliers, throw requirements, props, and how it combines
    with other shots."""

    name: str
    description: str = ""
    estimated: bool = True
    notes: str = ""
    board: bool = True  # False: the open table only (free rolls)
    release: ReleaseProfile
    noise: NoiseMultipliers = NoiseMultipliers()
    requirements: list[str] = Field(default_factory=lambda: ["bounce-before-board"])
    props: list[str] = Field(default_factory=list)  # prop names or paths (boards/props/), see sim/prop.py
    combine: CombineRules = CombineRules()


def load_shot(name_or_path: str | Path) -> ShotSpec:
    """A shot by built-in name or TOML path; bad files raise SpecError."""
    return ShotSpec.load(name_or_path, "shot")
