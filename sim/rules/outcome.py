"""What a throw ended as: the resting die handed to the classifier, and the classified outcome."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

Status = Literal["rest", "not-settled", "diverged"]


@dataclass(frozen=True)
class DieRest:
    """Plain numbers about one die at the end of a throw (no PyBullet handles)."""

    name: str
    position_m: tuple[float, ...]
    orientation_xyzw: tuple[float, ...]
    touching: frozenset[str]
    status: Status
    time_s: float


@dataclass
class Outcome:
    """The game meaning of one die's throw. `result` is hit / miss, or void (not settled, diverged)."""

    result: str
    reason: str
    section: str | None = None
    value: int | None = None
    face: str | None = None
    icon: bool = False
    cocked: bool = False
    tilt_deg: float = 0.0
    template: str | None = None
    partial_template: bool = False
    touching: list[str] = field(default_factory=list)
    position_mm: list[float] = field(default_factory=list)
    orientation_xyzw: list[float] = field(default_factory=list)
    requirements: dict[str, str] = field(default_factory=dict)
    bounces_before_board: int = 0
    damage: float = 0.0
    insta_kill: bool = False
    hero_damage: float = 0.0
    effects: list[str] = field(default_factory=list)
    die: str = "die:0"
    time_s: float = 0.0

    def to_json(self) -> dict:
        d = asdict(self)
        d["position_mm"] = [round(v, 3) for v in self.position_mm]
        d["orientation_xyzw"] = [round(v, 6) for v in self.orientation_xyzw]
        d["tilt_deg"] = round(self.tilt_deg, 3)
        d["time_s"] = round(self.time_s, 5)
        return d

    @property
    def hit(self) -> bool:
        return self.result == "hit"
