"""What a throw ended as: the classified outcome of one die (its resting state is `sim.trace.DieRest`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

Result = Literal["hit", "miss", "void", "roll"]
"""What a throw counts as: "hit", "miss", "void" (no verdict: the die did not settle, the simulation diverged,
or a cocked die under the re-throw rule) or "roll" (a free roll without a board: only the face counts)."""

Reason = str
"""Why the result is what it is. Open-ended (some values carry a name), so typed as text; the values are:

- "hit"; "off-board", "in-hole", "on-bones", "cocked", "no-bounce" (too few table bounces before the board);
- "requirement:<name>" (the first failed throw requirement, e.g. "requirement:firewall");
- "not-settled", "diverged", "step-budget" (the `sim.trace.Status` of a die that did not come to rest), "cocked-rethrow" (void);
- "free-roll" (result "roll");
- with templates: "template" (counted on one), "slime-no-room", "partial-template:<case>" (case: a, b, c,
  board, table, below, only-template, only-templates; see `sim.rules.templates.resolve`);
- "" only on an outcome still being classified.
"""


@dataclass
class Outcome:
    """The game meaning of one die's throw: `result` (see `Result`) and `reason` (see `Reason`), the
    section and value read, damage dealt and effects; positions in mm, board frame."""

    result: Result
    reason: Reason
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
    detail: str = ""  # what happened, in words, where the reason alone does not say (a Firewall miss: around it)

    def to_json(self) -> dict:
        """The outcome as a record (rounded: positions to 1 um, angles to 1e-3 deg, time to 10 us)."""
        d = asdict(self)
        d["position_mm"] = [round(v, 3) for v in self.position_mm]
        d["orientation_xyzw"] = [round(v, 6) for v in self.orientation_xyzw]
        d["tilt_deg"] = round(self.tilt_deg, 3)
        d["time_s"] = round(self.time_s, 5)
        return d

    @property
    def hit(self) -> bool:
        return self.result == "hit"
