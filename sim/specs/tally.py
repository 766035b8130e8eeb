"""A tally of real throws of one shot, the input of `dfsim fit-skill` (docs/calibration.md).

A player throws the same shot N times and writes down the hits, the misses by reason, optionally the
hits per section value and where off-board misses ended (short, long, left, right as the thrower sees
it). The fit finds the spread scale of a base skill (and an aim bias where the directions support
one) whose simulated throws make this tally most likely.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, model_validator

from sim.errors import FieldError
from sim.specs.base import MAX_INT, Name, Spec
from sim.specs.datafiles import read_toml

MISS_REASONS = ("off-board", "in-hole", "on-bones", "cocked", "no-bounce", "other")
DIRECTIONS = ("short", "long", "left", "right")
Count = Annotated[int, Field(ge=0, le=MAX_INT)]
MissReason = Literal["off-board", "in-hole", "on-bones", "cocked", "no-bounce", "other"]
Direction = Literal["short", "long", "left", "right"]


class TallySpec(Spec):
    """Counts of real throws of one shot, and the scene and base skill to explain them with."""

    name: Name
    notes: str = ""
    board: Name = "magma"
    die: Name = "hero-d8"
    shot: Name = "standard"
    base_skill: Name = "casual"
    materials: Name = "default"  # the material table (a `dfsim calibrate` file: fit the skill on your table)
    throws: int = Field(ge=1, le=MAX_INT)
    hits: int = Field(ge=0, le=MAX_INT)
    misses: dict[MissReason, Count] = Field(default_factory=dict, max_length=len(MISS_REASONS))
    hits_by_value: dict[str, Count] = Field(default_factory=dict, max_length=100)
    miss_directions: dict[Direction, Count] = Field(default_factory=dict, max_length=len(DIRECTIONS))
    simulated_throws: int = Field(default=400, ge=20, le=100_000)  # per candidate skill
    seed: int = Field(default=0, ge=0, le=2**63 - 1)

    @model_validator(mode="after")
    def _adds_up(self) -> TallySpec:
        """Hits and misses make the throws; hits by value make the hits; directions fit the off-board
        misses."""
        missed = sum(self.misses.values())
        if self.hits + missed != self.throws:
            raise FieldError(
                "misses",
                f"hits ({self.hits}) and misses ({missed}) add up to {self.hits + missed}, "
                f"not throws = {self.throws}",
            )
        if self.hits_by_value:
            for k in self.hits_by_value:
                if not k.strip().lstrip("-").isdigit():
                    raise FieldError(f"hits_by_value.{k}", 'keys are section values, e.g. "2" = 5')
            if sum(self.hits_by_value.values()) != self.hits:
                raise FieldError(
                    "hits_by_value", f"adds up to {sum(self.hits_by_value.values())}, not hits = {self.hits}"
                )
        if sum(self.miss_directions.values()) > self.misses.get("off-board", 0):
            raise FieldError(
                "miss_directions",
                f"{sum(self.miss_directions.values())} directions for "
                f"{self.misses.get('off-board', 0)} off-board misses",
            )
        return self


def load_tally(path: str | Path) -> TallySpec:
    """A tally file by path; any problem raises SpecError naming the file and field."""
    p = Path(path)
    return TallySpec.from_dict(read_toml(p), source=p)
