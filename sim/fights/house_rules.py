"""House rules for fights: named options, each with the rulebook text it changes.

Three groups, by who has to honour them:

- *fight rules* (the fight engine applies them): `monster_life_bonus`, `extra_white_dice`,
  `retrieval_half_damage`;
- *classification rules* (the throw source must classify throws under them; a fight passes them in
  every throw request as `rules`): `no_bounce`, `two_bounces`, `partial_templates_hit`,
  `holes_inactive` and `bones_outer_section` map onto `RuleSet` fields (`ruleset_overrides`);
- *release rules* (the physics engine applies them): `eyes_closed` and `off_hand` multiply the
  thrower's release noise (`release_noise_factor`).
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field

from sim.specs.base import Spec

# option -> (the rulebook text it changes, what the house rule does instead)
RULEBOOK: dict[str, tuple[str, str]] = {
    "holes_inactive": (
        'Miss: "If the die falls into one of the holes of the Target board (and remains there)."',
        "a die in a hole is not a miss: it counts as the section the hole is cut into "
        '(`RuleSet.holes = "section"`).',
    ),
    "bones_outer_section": (
        'Miss: "If the die lands on one of the bones at the edge of the Target board."',
        "a die on the bones counts as the outer section they are printed on "
        '(`RuleSet.bones = "outer-section"`).',
    ),
    "no_bounce": (
        '2.2: "In order for the throw to be valid, the die must bounce at least once on the table outside '
        'of the Target board before touching the board and landing on it."',
        "no bounce is required (`RuleSet.min_bounces = 0`).",
    ),
    "two_bounces": (
        '2.2 (as above): "the die must bounce at least once on the table"',
        "two bounces are required (`RuleSet.min_bounces = 2`; a bounce as `RuleSet.bounce_min_airborne_s` "
        "and `bounce_min_height_mm` define it).",
    ),
    "partial_templates_hit": (
        'Templates: "If a die lands partially on a Template while also touching anything below the Template '
        "(the table, Target, or another Template), resolve the die as if it wasn't touching the Template at "
        'all"; expansions, case b: "If the die is touching the table, the throw counts as a miss."',
        "every partial landing on a template counts as a hit on that template "
        '(`RuleSet.partial_template = "c"`).',
    ),
    "eyes_closed": (
        '2.2: "They can throw the die from whatever position they find comfortable"',
        "the thrower keeps their eyes closed: the release noise is multiplied by `eyes_closed_noise`.",
    ),
    "off_hand": (
        "2.2 (as above)",
        "the thrower uses their other hand: the release noise is multiplied by `off_hand_noise`.",
    ),
    "monster_life_bonus": (
        '1.2: "add up the life points on the Monster card with any special effects from the current Dungeon '
        'card and the Difficulty Mode token."',
        "the monster gets this many more (or, negative, fewer; at least 1 remains) life points.",
    ),
    "extra_white_dice": (
        'Setup: "place on it 2 white Bonus dice" (the party\'s chest)',
        "the party has this many more white Bonus dice for the fight.",
    ),
    "retrieval_half_damage": (
        "Running Out of Colored Dice: \"make the entire party of Heroes suffer damage equal to the Monster's "
        'level."',
        "retrieving the colored dice costs half the monster's level, rounded up.",
    ),
}


class HouseRules(Spec):
    """House rules of one fight (`[house_rules]` in a fight file); every default is the printed rule."""

    model_config = ConfigDict(strict=True)

    holes_inactive: bool = False
    bones_outer_section: bool = False
    no_bounce: bool = False
    two_bounces: bool = False
    partial_templates_hit: bool = False
    eyes_closed: bool = False
    off_hand: bool = False
    # release-noise factors (estimates: nobody has measured them yet; the physics engine applies them)
    eyes_closed_noise: float = Field(default=1.6, ge=1.0, le=5.0, allow_inf_nan=False)
    off_hand_noise: float = Field(default=1.3, ge=1.0, le=5.0, allow_inf_nan=False)
    monster_life_bonus: int = Field(default=0, ge=-20, le=50)
    extra_white_dice: int = Field(default=0, ge=0, le=9)
    retrieval_half_damage: bool = False

    def problems(self) -> list[tuple[str, str]]:
        """Cross-field problems as (field, problem)."""
        if self.no_bounce and self.two_bounces:
            return [("two_bounces", "cannot be combined with no_bounce")]
        return []

    def ruleset_overrides(self) -> dict[str, Any]:
        """The house rules that change throw classification, as `RuleSet` fields."""
        out: dict[str, Any] = {}
        if self.no_bounce:
            out["min_bounces"] = 0
        if self.two_bounces:
            out["min_bounces"] = 2
        if self.partial_templates_hit:
            out["partial_template"] = "c"
        if self.holes_inactive:
            out["holes"] = "section"
        if self.bones_outer_section:
            out["bones"] = "outer-section"
        return out

    def throw_rules(self) -> tuple[tuple[str, Any], ...]:
        """Everything a throw source must classify under, sorted (key, value) pairs."""
        return tuple(sorted(self.ruleset_overrides().items()))

    @property
    def release_noise_factor(self) -> float:
        """Multiplier on every release-noise spread (eyes closed x off hand); 1.0 without them."""
        f = 1.0
        if self.eyes_closed:
            f *= self.eyes_closed_noise
        if self.off_hand:
            f *= self.off_hand_noise
        return f

    def retrieval_damage(self, level: int) -> int:
        """Life each hero loses to retrieve the colored dice: the monster's `level` ("suffer damage
        equal to the Monster's level"), or half of it rounded up under `retrieval_half_damage`."""
        return -(-level // 2) if self.retrieval_half_damage else level

    def changed(self) -> dict[str, Any]:
        """The options that differ from the printed rules."""
        default = HouseRules()
        return {k: v for k, v in self.model_dump().items() if v != getattr(default, k)}
