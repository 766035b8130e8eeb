"""What a throw ended as: the classified outcome of one die (its resting state is `sim.trace.DieRest`;
frozen: each step of the rules pipeline returns a changed copy), and the effects it carries (typed
values whose text is the form records store)."""

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
- "not-settled", "diverged", "step-budget" (the `sim.trace.Status` of a die that did not come to rest),
  "cocked-rethrow" (void);
- "free-roll" (result "roll");
- with templates: "template" (counted on one), "slime-no-room", "partial-template:<case>" (case: a, b, c,
  board, table, below, only-template, only-templates; see `sim.rules.templates.resolve`);
- "" only on an outcome still being classified.
"""


class Effect(str):
    """One thing an outcome carries besides its board reading, as a typed value: its `kind` (one of
    `EFFECT_KINDS`) and its argument (`arg`, and `amount` for the counted ones). Its text is the one
    form records store and the resampler reads back ("kind:arg", or the kind alone), so an `Effect`
    compares equal to that text."""

    __slots__ = ()

    def __copy__(self) -> Effect:
        return self

    def __deepcopy__(self, memo: dict) -> Effect:
        return self

    @classmethod
    def of(cls, kind: str, arg: object = None) -> Effect:
        """The effect of a known kind with an argument (None: none); ValueError for an unknown kind."""
        if kind not in EFFECT_KINDS:
            raise ValueError(f"unknown effect kind '{kind}' (one of {', '.join(EFFECT_KINDS)})")
        return cls(kind if arg is None else f"{kind}:{arg}")

    @classmethod
    def read(cls, text: str) -> Effect:
        """An effect from its text (itself when it already is one)."""
        return text if isinstance(text, Effect) else cls(text)

    @property
    def kind(self) -> str:
        return self.partition(":")[0]

    @property
    def arg(self) -> str:
        return self.partition(":")[2]

    @property
    def amount(self) -> int:
        """The signed whole number the effect ends with ("every-hero-suffers:2" -> 2,
        "touched:firewall:-1" -> -1); ValueError when it ends with none."""
        return int(self.rpartition(":")[2])


# every kind of effect an outcome may carry, with what it means (the argument after ':' in brackets)
# what an aimed throw maximises: "hit" (the chance of a hit), "damage" (the expected damage) or "kill"
# (the chance to deal at least a given life): the aim solve's objectives, asked for by throw sources
AIM_OBJECTIVES: tuple[str, ...] = ("hit", "damage", "kill")

EFFECT_KINDS: dict[str, str] = {
    "insta-kill": "the monster is defeated at once (the icon on the bullseye, or on a template that says so)",
    "leaning-on": "[body names] the die rests against these bodies besides the table and the board",
    "leaning-on-template": "the die leans on a template and counts as the template's rule says",
    "partial-counted-as": "[a case] a die partly on a template counts as this (`RuleSet.partial_template`)",
    "remove-template": "[template id] the die knocked this template off the board (the Armor)",
    "slime-moved-to": "[x,y mm] the Slime moved the die here",
    "slime-on-off": "the Slime moved the die off the board",
    "slime-on-hole": "the Slime moved the die into a hole",
    "slime-on-bones": "the Slime moved the die onto the bones",
    "template-region": "[region id] the template region the die counts on",
    "every-hero-suffers": "[n] every hero suffers n damage (the thrower's share is in hero_damage)",
    "every-hero-heals": "[n] every hero of the party heals n life points",
    "gold": "[n] n gold coins to the Chest",
    "equipment-bonus-only": "on this template only equipment bonuses add to the hit",
    "no-bonuses": "on this template nothing adds to the hit",
    "armor": "[-1] the Armor template's -1 on a hit elsewhere",
    "fire-token": "[+n] the Fire token's bonus on its section",
    "touched": "[prop:-n] touching the prop cost the hero n life points",
    "bonus": "[+n] a special die's face adds n damage to a hit",
    "extra-damage": "[+n] a special die's face deals n damage, hit or miss",
    "monster-attack": "[-n] a special die's face makes the hero suffer n damage",
    "water-misses": "[n] n of the Water dice thrown together missed",
    "collective-icon": "the Water dice all hit or all missed: one special icon",
}


@dataclass(frozen=True)
class Outcome:
    """The game meaning of one die's throw: `result` (see `Result`) and `reason` (see `Reason`), the
    section and value read, damage dealt and effects; positions in mm, board frame.

    Frozen, and its lists are never changed in place either: a pipeline step returns a copy
    (`dataclasses.replace`), so a throw source may hand the same outcome to many fights."""

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
    effects: list[Effect] = field(default_factory=list)  # text in, `Effect` values kept
    die: str = "die:0"
    time_s: float = 0.0
    detail: str = (
        ""  # what happened, in words, where the reason alone does not say (a Firewall miss: around it)
    )

    def __post_init__(self) -> None:
        if any(type(e) is not Effect for e in self.effects):
            object.__setattr__(self, "effects", [Effect.read(e) for e in self.effects])

    def to_json(self) -> dict:
        """The outcome as a record (rounded: positions to 1 um, angles to 1e-3 deg, time to 10 us)."""
        d = asdict(self)
        d["effects"] = [str(e) for e in self.effects]
        d["position_mm"] = [round(v, 3) for v in self.position_mm]
        d["orientation_xyzw"] = [round(v, 6) for v in self.orientation_xyzw]
        d["tilt_deg"] = round(self.tilt_deg, 3)
        d["time_s"] = round(self.time_s, 5)
        return d

    @property
    def hit(self) -> bool:
        return self.result == "hit"
