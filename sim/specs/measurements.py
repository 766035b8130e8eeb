"""Home measurements of a die on a surface, the input of `dfsim calibrate` (docs/calibration.md).

A player measures with a phone, a book and a ruler: flat drops and how high the die rebounds, the
tilt at which the die starts to slide on a plank of the surface, how far the die runs out on the
surface after sliding down a ramp of the surface leant on a book, and how far a round roller (a
cylinder of the die's material, laid on its side) rolls out after rolling down that ramp. Each kind
of row informs some of the pair's values: drops the restitution, tilts the friction, ramps the
friction and the contact damping, rolls the rolling resistance. The file says which values to fit
(`fit`, by default the first three); the others keep the base table's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator

from sim.errors import FieldError
from sim.specs.base import Name, Spec
from sim.specs.datafiles import read_toml

Parameter = Literal["restitution", "friction", "contact_damping", "rolling_resistance"]
PARAMETERS: tuple[Parameter, ...] = ("restitution", "friction", "contact_damping", "rolling_resistance")
DEFAULT_FIT: tuple[Parameter, ...] = PARAMETERS[:3]  # what a file without `fit` fits (rolls came later)
MAX_ROWS = 500


class DropRow(Spec):
    """A flat drop from rest: the die's bottom face `drop_mm` above the surface, and the highest its
    bottom face rose after the first impact (read frame by frame from a video)."""

    drop_mm: float = Field(ge=10, le=2000)
    rebound_mm: float = Field(ge=0, le=2000)


class TiltRow(Spec):
    """The tilt of a plank of the surface (deg from level) at which a die lying flat on it started to move."""

    angle_deg: float = Field(ge=0, le=80)


class RampRow(Spec):
    """A die released at rest, flat on a ramp of the surface leant at `angle_deg`, its lowest point
    `height_mm` above the table: how far past the ramp's foot its centre came to rest (negative: it
    stopped on the ramp)."""

    height_mm: float = Field(ge=2, le=500)
    angle_deg: float = Field(ge=5, le=75)
    distance_mm: float = Field(ge=-500, le=3000)


class RollRow(Spec):
    """The roller laid on its side across a ramp of the surface leant at `angle_deg` (its axis level),
    its lowest point `height_mm` above the table, and let go: how far past the ramp's foot its centre
    came to rest, along the slope (negative: it stopped on the ramp)."""

    height_mm: float = Field(ge=2, le=300)
    angle_deg: float = Field(ge=2, le=45)
    distance_mm: float = Field(ge=-500, le=1900)


class RollerSpec(Spec):
    """The round body of the roll rows: a plain cylinder of the die's material (a thick counter, a
    plastic bottle cap, a cylinder die), its diameter and length (along its axis) in mm."""

    diameter_mm: float = Field(ge=8, le=80)
    length_mm: float = Field(ge=5, le=100)


class MeasurementsSpec(Spec):
    """A measurements file: the die, the surface material, the base material table, which values to
    fit, and the rows."""

    name: Name
    notes: str = ""
    die: Name = "hero-d8"
    surface: Name
    materials: Name = "default"
    fit: list[Parameter] = Field(default_factory=lambda: list(DEFAULT_FIT), min_length=1, max_length=4)
    drops: list[DropRow] = Field(default_factory=list, max_length=MAX_ROWS)
    tilts: list[TiltRow] = Field(default_factory=list, max_length=MAX_ROWS)
    ramps: list[RampRow] = Field(default_factory=list, max_length=MAX_ROWS)
    roller: RollerSpec | None = None
    rolls: list[RollRow] = Field(default_factory=list, max_length=MAX_ROWS)

    @field_validator("fit")
    @classmethod
    def _once(cls, v: list[str]) -> list[str]:
        for i, p in enumerate(v):
            if p in v[:i]:
                raise FieldError(str(i), f"'{p}' is listed twice")
        return v

    @field_validator("drops")
    @classmethod
    def _rebounds(cls, v: list[DropRow]) -> list[DropRow]:
        for i, row in enumerate(v):
            if row.rebound_mm >= row.drop_mm:
                raise FieldError(
                    f"{i}.rebound_mm",
                    f"a die cannot rebound higher than it fell ({row.rebound_mm:g} mm "
                    f"after a {row.drop_mm:g} mm drop): were the two swapped?",
                )
        return v

    @model_validator(mode="after")
    def _roller(self) -> MeasurementsSpec:
        if self.rolls and self.roller is None:
            raise FieldError(
                "roller",
                "roll rows need the roller they were measured with: "
                "[roller] diameter_mm = ..., length_mm = ...",
            )
        return self


def load_measurements(path: str | Path) -> MeasurementsSpec:
    """A measurements file by path; any problem raises SpecError naming the file and field."""
    p = Path(path)
    data = read_toml(p)
    return MeasurementsSpec.from_dict(data, source=p)
