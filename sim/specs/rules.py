"""Rule set and house rules: named, documented options, never if-statements buried in the physics.

Every option has a default that matches the printed rulebook reading we chose (docs/rules.md).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from sim.specs.base import Spec


class RuleSet(Spec):
    """Rule options. Pass as `rules = {...}` in an experiment, or `--rule KEY=VALUE` on the command line."""

    # A die resting tilted beyond this (deg between the read face and horizontal) is flagged cocked.
    cocked_tolerance_deg: float = Field(default=10.0, gt=0, le=60)
    # What a cocked die counts as: "count" (read the face most nearly up/down and count normally),
    # "miss" (a cocked die is a miss), "rethrow" (void: the throw is taken again).
    cocked: Literal["count", "miss", "rethrow"] = "count"
    # Minimum number of table bounces outside the board before the board is touched.
    min_bounces: int = Field(default=1, ge=0, le=10)
    # What a bounce is (every rule that counts bounces: the standard bounce, min_bounces, the
    # two-bounces house rule, the Firewall's bounce): the die arrives on the surface after leaving
    # every surface for at least bounce_min_airborne_s with a gap of at least bounce_min_height_mm
    # under it at the top of that stretch (after landing: the centre's top height less the die's
    # reach; sim/rules/requirements.py `is_bounce`). A die that rattles or hops a few mm after landing
    # has bounced once, not many times (docs/rules.md, "What a bounce is").
    bounce_min_airborne_s: float = Field(default=0.02, ge=0, le=1)
    bounce_min_height_mm: float = Field(default=3.0, ge=0, le=100)
    bullseye_damage: int = Field(default=10, ge=0, le=1000)
    # Icon on the bullseye: instantly defeats the monster (rulebook "Insta-Kill Effect").
    icon_insta_kill: bool = True
    # Damage a hit deals when the die is in a hole filled by a Slow token (Rock and Roll).
    slow_token_damage: int = Field(default=2, ge=0, le=1000)
    # Extra damage on the section holding a Fire token (Malevolent Magma, Melissa's ability).
    fire_token_bonus: int = Field(default=2, ge=0, le=1000)
    # Partial-template rule (sim/rules/templates.py, docs/templates.md): "base" (Malevolent Magma:
    # resolve as what is below, a lower template included), "expansion" (Fire at Will / Big Wave /
    # Rock and Roll cases a-b-c: board -> normal, table -> miss, only templates -> the top one), or
    # the house rules "a" (every partial landing is a normal throw), "b" (a miss), "c" (the template).
    partial_template: Literal["base", "expansion", "a", "b", "c"] = "base"
    # Armor wording: "base" (Malevolent Magma: a die on Armor is a hit for 0 and removes it) or
    # "rock-and-roll" (deals 1 and removes it).
    armor: Literal["base", "rock-and-roll"] = "base"
    # Slime placement: "best", "worst", or "random" position along the indicated curve.
    slime_choice: Literal["best", "worst", "random"] = "best"
    # A die in a hole. "miss" (the rulebook: "If the die falls into one of the holes of the Target
    # board (and remains there)" it is a Miss) or the house rule "section": it counts as the section
    # the hole is cut into.
    holes: Literal["miss", "section"] = "miss"
    # A die on the bones. "miss" (the rulebook: "If the die lands on one of the bones at the edge of
    # the Target board" it is a Miss) or the house rule "outer-section": it counts as the outer
    # section the bones are printed on.
    bones: Literal["miss", "outer-section"] = "miss"
    # When a die is on the bones (the rulebook: "If the die lands on one of the bones"; it does not
    # say how much of the die): "most-corners" (the default: the bones hold at least as many of its
    # bottom corners on cardboard as any one section; a tie is doubt, and the bones are the lower
    # value) or "any-corner" (one corner on the bones is enough). docs/rules.md, "Where the die stands".
    bones_corners: Literal["most-corners", "any-corner"] = "most-corners"
    # Touching the Firewall. Fire at Will's Firewall Shot: "If the die touches the Firewall in the
    # process, the Hero takes 1 damage, whether or not the die hits the Target board"; Malevolent
    # Magma's has no such cost ("If the die does not pass above the Firewall, the throw counts as a
    # Miss"). Which Firewall requirements charge a touch: "fire-at-will" (only the Fire at Will one,
    # requirement `firewall-fire-at-will`: the default), "always" (Malevolent Magma's `firewall`
    # too) or "never"; and what a touch costs the hero.
    firewall_touch: Literal["fire-at-will", "always", "never"] = "fire-at-will"
    firewall_touch_damage: int = Field(default=1, ge=0, le=20)

    # Rule T4, a flip requested for a template already on the board (Malevolent Magma: "If the
    # Template requested is already on the Target board, the active Hero may choose to leave it as it
    # is or take it and flip it onto the board once more"): "leave" (the default: the hero keeps it
    # where it lies, no flip, no risk of the 1 damage) or "reflip" (it is taken and flipped again).
    template_already_on_board: Literal["leave", "reflip"] = "leave"

    def describe(self) -> dict:
        """The options as a scenario's description (and so its key) holds them: every option, except
        that options added later (LATER_OPTIONS) appear only when set, so that adding them changed no
        existing scenario key and no recorded throw."""
        d = self.model_dump()
        for k in LATER_OPTIONS:
            if d[k] == type(self).model_fields[k].default:
                del d[k]
        return d


# options added after scenario keys were first recorded (see RuleSet.describe)
LATER_OPTIONS: tuple[str, ...] = (
    "holes",
    "bones",
    "bounce_min_airborne_s",
    "bounce_min_height_mm",
    "bones_corners",
    "firewall_touch",
    "firewall_touch_damage",
    "template_already_on_board",
)
