"""Shot profiles: how a specific throw is made (nominal release, noise multipliers, requirements)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator

from sim.errors import FieldError
from sim.specs.base import MAX_BOARD_MM, Name, Place, Spec
from sim.specs.requirements import REQUIREMENT_NAMES

MAX_NOISE_FACTOR = 100.0  # a shot may make a skill's spread at most this many times wider
# how a die can be held (the grip of the release): "random" (as it lies in the hand: any orientation),
# "face" (a face flat down, `grip_face` or the die's first face), "vertex" (the die's first vertex
# straight down); the held orientation is yawed with the throw, so a grip is the same for every aim
Grip = Literal["random", "face", "vertex"]
SpinAxis = Literal["lateral", "side"]
GRIPS: tuple[Grip, ...] = ("random", "face", "vertex")
# the axis of the spin given on purpose: "lateral" (tumbling about the horizontal axis across the throw:
# positive topspin, a forward roll; negative backspin) or "side" (about the vertical axis: positive
# counter-clockwise seen from above)
SPIN_AXES: tuple[SpinAxis, ...] = ("lateral", "side")
MAX_LISTED = 20  # requirements, props of one shot


class ReleaseProfile(Spec):
    """The aimed release; lengths in mm from the board centre, thrower on the -x side."""

    distance_mm: float = Field(gt=0, le=5000)  # horizontal hand-to-board-centre distance
    height_mm: float = Field(gt=0, le=3000)  # release height above the table
    lateral_mm: float = Field(default=0.0, ge=-MAX_BOARD_MM, le=MAX_BOARD_MM)
    aim: Literal["bullseye", "center", "point", "none"] = "bullseye"
    aim_mm: tuple[Place, Place] | None = None  # with aim = "point"
    bounce_gap_mm: float = Field(
        default=120.0, ge=0, le=MAX_BOARD_MM
    )  # nominal first table bounce, before the board edge
    elevation_deg: float = Field(default=15.0, ge=-80, le=80)  # used when aim = "none"
    speed_mps: float = Field(default=2.5, gt=0, le=20)  # used when aim = "none"
    azimuth_deg: float = Field(default=0.0, ge=-180, le=180)
    spin_rps: float = Field(
        default=3.0, ge=-60, le=60
    )  # nominal spin about `spin_axis`; lateral: negative = backspin
    spin_axis: Literal["lateral", "side"] = "lateral"
    # how the die is held at release (GRIPS); the aim solve searches the grips the limits allow, an
    # unaimed shot throws this one
    grip: Literal["random", "face", "vertex"] = "random"
    grip_face: str | None = Field(
        default=None, min_length=1, max_length=40
    )  # with grip "face": the face held down

    @model_validator(mode="after")
    def _aim(self) -> ReleaseProfile:
        if self.aim == "point" and self.aim_mm is None:
            raise FieldError("aim_mm", "is required when aim = 'point'")
        if self.aim != "point" and self.aim_mm is not None:
            raise FieldError("aim_mm", f"applies only with aim = 'point' (aim is '{self.aim}')")
        return self


# the pairs of ReleaseLimits: (field stem, unit suffix)
LIMIT_PAIRS = (("height", "mm"), ("distance", "mm"), ("speed", "mps"), ("elevation", "deg"), ("spin", "rps"))


class ReleaseLimits(Spec):
    """What the body allows: hard ranges every drawn release of the shot is clipped into (None: no
    limit on that side). A thumb flick cannot be thrown hard, a wrist on the table cannot rise far above
    it. Height and distance are those of the hand (`ReleaseProfile`), speed and elevation those of the
    die leaving it, spin its tumble about the lateral axis (rev/s, negative = backspin; spin about
    other axes is the skill's scatter, left as drawn). The aimed release is solved among releases
    inside the limits."""

    height_min_mm: float | None = Field(default=None, gt=0, le=3000)
    height_max_mm: float | None = Field(default=None, gt=0, le=3000)
    distance_min_mm: float | None = Field(default=None, gt=0, le=5000)
    distance_max_mm: float | None = Field(default=None, gt=0, le=5000)
    speed_min_mps: float | None = Field(default=None, gt=0, le=20)
    speed_max_mps: float | None = Field(default=None, gt=0, le=20)
    elevation_min_deg: float | None = Field(default=None, ge=-80, le=80)
    elevation_max_deg: float | None = Field(default=None, ge=-80, le=80)
    spin_min_rps: float | None = Field(default=None, ge=-60, le=60)
    spin_max_rps: float | None = Field(default=None, ge=-60, le=60)
    # the techniques the body allows the aim solve to choose among: grips (GRIPS) and spin axes
    # (SPIN_AXES); a thumb flip or a cup throw holds the die one way only
    grips: tuple[Grip, ...] = Field(default=GRIPS, min_length=1, max_length=3)
    spin_axes: tuple[SpinAxis, ...] = Field(default=SPIN_AXES, min_length=1, max_length=2)

    @field_validator("grips", "spin_axes")
    @classmethod
    def _distinct(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(v)) != len(v):
            raise FieldError("", f"names a technique twice ({', '.join(v)})")
        return v

    @model_validator(mode="after")
    def _ordered(self) -> ReleaseLimits:
        for stem, unit in LIMIT_PAIRS:
            lo, hi = self.bounds(stem)
            if lo is not None and hi is not None and lo > hi:
                raise FieldError(f"{stem}_min_{unit}", f"is above {stem}_max_{unit} ({lo:g} > {hi:g})")
        return self

    def bounds(self, stem: str) -> tuple[float | None, float | None]:
        """(min, max) of one quantity: "height", "distance", "speed", "elevation" or "spin"."""
        unit = dict(LIMIT_PAIRS)[stem]
        return getattr(self, f"{stem}_min_{unit}"), getattr(self, f"{stem}_max_{unit}")

    def clip(self, stem: str, value: float) -> float:
        """The value clipped into the quantity's range."""
        lo, hi = self.bounds(stem)
        if lo is not None and value < lo:
            return lo
        if hi is not None and value > hi:
            return hi
        return value

    def allows(self, stem: str, value: float) -> bool:
        """Whether the value lies in the quantity's range."""
        return self.clip(stem, value) == value

    @property
    def any(self) -> bool:
        """Whether any limit of the ranges is set."""
        return any(
            getattr(self, f"{stem}_{side}_{unit}") is not None
            for stem, unit in LIMIT_PAIRS
            for side in ("min", "max")
        )


class NoiseMultipliers(Spec):
    """Per-component factors on the skill's spreads (a friendly shot is sloppier, a jump adds height
    noise)."""

    speed: float = Field(default=1.0, ge=0, le=MAX_NOISE_FACTOR)
    elevation: float = Field(default=1.0, ge=0, le=MAX_NOISE_FACTOR)
    azimuth: float = Field(default=1.0, ge=0, le=MAX_NOISE_FACTOR)
    height: float = Field(default=1.0, ge=0, le=MAX_NOISE_FACTOR)
    lateral: float = Field(default=1.0, ge=0, le=MAX_NOISE_FACTOR)
    distance: float = Field(default=1.0, ge=0, le=MAX_NOISE_FACTOR)
    spin: float = Field(default=1.0, ge=0, le=MAX_NOISE_FACTOR)
    grip: float = Field(default=1.0, ge=0, le=MAX_NOISE_FACTOR)


class CombineRules(Spec):
    """How this shot changes the release of the shot a combination throws when it is not that shot
    itself (e.g. `--shot firewall --shot far`: the Far Shot steps back 70 cm). See sim/specs/combine.py
    and docs/shots-and-props.md."""

    distance_add_mm: float = Field(default=0.0, ge=-2000, le=5000)
    height_add_mm: float = Field(default=0.0, ge=-2000, le=3000)
    lateral_add_mm: float = Field(default=0.0, ge=-MAX_BOARD_MM, le=MAX_BOARD_MM)  # + to the thrower's left
    # the aimed first bounce moves this much further from the board edge (a longer throw aims its
    # bounce earlier: the Far Shot's 60 -> 150 mm)
    bounce_gap_add_mm: float = Field(default=0.0, ge=-1000, le=2000)
    height_max_mm: float | None = Field(default=None, gt=0, le=3000)
    noise: NoiseMultipliers = NoiseMultipliers()  # multiplied into the technique's multipliers


# What a shot says about a throw, which decides how it combines with others (sim/specs/combine.py):
# where the die starts (grip), whose hand throws (hand), the thrower's body (body), a hand throw tuned to a
# prop the die must pass or bounce on (scene), the plain hand throw (plain: the standard throw and the board
# modifiers), where the thrower stands (stance)
SHOT_ROLES = ("grip", "hand", "body", "scene", "plain", "stance")


class ShotSpec(Spec):
    """A shot data file: nominal release, noise multipliers, throw requirements, props, and how it combines
    with other shots."""

    name: Name
    description: str = ""
    role: Literal["grip", "hand", "body", "scene", "plain", "stance"] = "scene"
    estimated: bool = True
    notes: str = ""
    board: bool = True  # False: the open table only (free rolls)
    # the surface a shot without a board is thrown onto (with a board, the board file names its table)
    table_material: str = Field(default="wood", min_length=1, max_length=200)
    release: ReleaseProfile
    limits: ReleaseLimits = ReleaseLimits()  # what the body allows (docs/shots-and-props.md)
    noise: NoiseMultipliers = NoiseMultipliers()
    requirements: list[str] = Field(default_factory=lambda: ["bounce-before-board"], max_length=MAX_LISTED)
    props: list[Name] = Field(
        default_factory=list, max_length=MAX_LISTED
    )  # prop names or paths (boards/props/)
    combine: CombineRules = CombineRules()
    # shots whose rule a throw of this one also fulfils (the Thumb and Flip Shots have one rule text):
    # combined with them, this one is thrown and they add nothing (sim/specs/combine.py)
    covers: list[Name] = Field(default_factory=list, max_length=MAX_LISTED)

    @model_validator(mode="after")
    def _nominal_in_limits(self) -> ShotSpec:
        rel, lim = self.release, self.limits
        if rel.grip not in lim.grips:
            raise FieldError(
                "release.grip", f"'{rel.grip}' is not among the shot's limits.grips ({', '.join(lim.grips)})"
            )
        if rel.spin_axis not in lim.spin_axes:
            raise FieldError(
                "release.spin_axis",
                f"'{rel.spin_axis}' is not among the shot's limits.spin_axes ({', '.join(lim.spin_axes)})",
            )
        if rel.grip_face is not None and rel.grip != "face":
            raise FieldError("release.grip_face", f"applies only with grip = 'face' (grip is '{rel.grip}')")
        nominal = {"height": rel.height_mm, "distance": rel.distance_mm, "spin": rel.spin_rps}
        if rel.aim == "none":
            nominal |= {"speed": rel.speed_mps, "elevation": rel.elevation_deg}
        for stem, value in nominal.items():
            if not lim.allows(stem, value):
                field = dict(
                    zip(
                        ("height", "distance", "spin", "speed", "elevation"),
                        ("height_mm", "distance_mm", "spin_rps", "speed_mps", "elevation_deg"),
                    )
                )[stem]
                raise FieldError(
                    f"release.{field}",
                    f"{value:g} lies outside the shot's limits ({stem}: {lim.bounds(stem)})",
                )
        return self

    @field_validator("requirements")
    @classmethod
    def _known(cls, v: list[str]) -> list[str]:
        for i, r in enumerate(v):
            if r not in REQUIREMENT_NAMES:
                raise FieldError(
                    str(i), f"unknown requirement '{r[:40]}' (known: {', '.join(sorted(REQUIREMENT_NAMES))})"
                )
        return v


def load_shot(name_or_path: str | Path) -> ShotSpec:
    """A shot by built-in name or TOML path; bad files raise SpecError."""
    return ShotSpec.load(name_or_path, "shot")
