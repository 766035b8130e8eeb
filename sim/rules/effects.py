"""Effects applied after classification: board modifiers (props) and special / element dice.

Called by the Thrower on every throw's outcomes (`apply_effects`). Pure: outcomes, the scenario's
specs, the props' poses and the event trace in; adjusted copies out. What each prop type does is its
entry in `PROP_EFFECTS` (one registry: a new board modifier is one function and one line there).

Board modifiers (Malevolent Magma "Board Modifiers", Rock and Roll "Slow Tokens", Melissa's Fire token):
- Volcano: a die resting on the Volcano (touching it, not the board or table) counts as the
  bullseye when it lies in the crater (`rules.bullseye_damage`, insta-kill with the icon) and as a
  value-0 section anywhere else on it.
- Slow tokens: a die that lands in a hole filled by a Slow token deals `rules.slow_token_damage`
  (2) instead of missing.
- Fire token: a hit on the section holding the token deals `rules.fire_token_bonus` (+2) more.
- Firewall: touching it costs the hero `rules.firewall_touch_damage` (1), whether or not the die
  hits, when the throw's Firewall requirement is one `rules.firewall_touch` charges (by default only
  Fire at Will's, `firewall-fire-at-will`; Malevolent Magma's `firewall` has no touch cost).

Special dice, by face label (the die files in boards/dice/ name their faces with these labels):
- "icon": the special icon (any Hero ability; Water dice have none of their own, see below);
- "+2" (Iron die, Piercing Damage): +2 damage on a hit;
- "+8" (Boulder die, Deep Damage): +8 damage on a hit;
- "monster-attack" (Boulder die): the hero takes +5 damage, hit or miss;
- "fire+1", "fire+2", "fire+3" (Fire element d8): the monster takes 1/2/3 extra damage even if the
  die misses;
- "gold" (Earth element d6): take 3 gold coins (reported as the effect "gold:3").
- Water element dice (a die whose name starts with "water"): three small dice thrown at once; each
  hits or misses on its own, the damage of the hits is summed and so is the count of misses (each
  miss makes the hero suffer the monster's damage); when all of them hit or all of them miss they
  collectively produce one special icon.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Literal, NamedTuple

import numpy as np

from sim.rules.outcome import Effect, Outcome
from sim.specs.prop import PlacedProp, VolcanoShape

HIT_BONUS = {"+2": 2, "+8": 8}
ANY_BONUS = {"fire+1": 1, "fire+2": 2, "fire+3": 3}
HERO_COST = {"monster-attack": 5}
GOLD = {"gold": 3}


def is_water(die) -> bool:
    """Whether a die is a Water element die (its name starts with 'water'): those act together."""
    return die.name.startswith("water")


def _requirement_failed(o: Outcome) -> bool:
    return o.reason == "no-bounce" or o.reason.startswith("requirement:")


def _volcano(o: Outcome, pp: PlacedProp, ctx, trace, placed: bool) -> Outcome:
    names = set(pp.bodies)
    if not (set(o.touching) & names) or {"board", "table"} & set(o.touching) or _requirement_failed(o):
        return o
    if o.result == "void":
        return o
    s = pp.spec.shape
    assert isinstance(s, VolcanoShape)
    loc = pp.to_local(np.array(o.position_mm) * 1e-3)[0]
    in_crater = float(np.hypot(loc[0], loc[1])) < s.crater_radius_mm * 1e-3 and loc[2] < s.height_mm * 1e-3
    rules = ctx.rules
    if o.cocked and rules.cocked == "miss":
        return replace(o, result="miss", reason="cocked")
    effects = [e for e in o.effects if e.kind not in ("insta-kill", "leaning-on")]
    if not in_crater:
        return replace(
            o,
            result="hit",
            reason="hit",
            insta_kill=False,
            effects=effects,
            section="volcano",
            value=0,
            damage=0.0,
        )
    insta = bool(o.icon and rules.icon_insta_kill)
    if insta:
        effects.append(Effect.of("insta-kill"))
    return replace(
        o,
        result="hit",
        reason="hit",
        insta_kill=insta,
        effects=effects,
        section="volcano-crater",
        value=rules.bullseye_damage,
        damage=float(rules.bullseye_damage),
    )


def _slow_tokens(o: Outcome, pp: PlacedProp, ctx, trace, placed: bool) -> Outcome:
    if o.reason != "in-hole":
        return o
    hit = [b for b in pp.bodies if b in o.touching]
    if not hit:
        return o
    return replace(
        o,
        result="hit",
        reason="hit",
        section="slow-token:" + hit[0].split(":")[-1],
        value=ctx.rules.slow_token_damage,
        damage=float(ctx.rules.slow_token_damage),
    )


def _fire_token(o: Outcome, pp: PlacedProp, ctx, trace, placed: bool) -> Outcome:
    if o.result != "hit" or ctx.board is None:
        return o
    region = ctx.board.region_at(float(pp.position[0]), float(pp.position[1]))
    if region.kind != "section" or o.section != region.id:
        return o
    bonus = ctx.rules.fire_token_bonus
    return replace(o, damage=o.damage + bonus, effects=[*o.effects, Effect.of("fire-token", f"+{bonus}")])


# the Firewall requirements whose touches each `RuleSet.firewall_touch` option charges
FIREWALL_TOUCH_CHARGED = {
    "fire-at-will": ("firewall-fire-at-will",),
    "always": ("firewall", "firewall-fire-at-will"),
    "never": (),
}


def _firewall_touch(o: Outcome, pp: PlacedProp, ctx, trace, placed: bool) -> Outcome:
    rules = ctx.rules
    cost = rules.firewall_touch_damage
    if placed or not cost or trace is None:
        return o
    if not any(r in o.requirements for r in FIREWALL_TOUCH_CHARGED[rules.firewall_touch]):
        return o
    if not any(e.other in set(pp.bodies) for e in trace.of(o.die)):
        return o
    touched = Effect.of("touched", f"{pp.name}:-{cost}")
    return replace(o, hero_damage=o.hero_damage + cost, effects=[*o.effects, touched])


PropEffect = Callable[[Outcome, PlacedProp, Any, Any, bool], Outcome]
"""What a prop does to one die's outcome: (outcome, the placed prop, the requirement context, the event
trace or None, whether the die was placed rather than thrown) -> the outcome, a copy when changed."""


class PropRule(NamedTuple):
    """A prop type's effect and its stage: "reading" changes what the die counts as (applied first, for
    every prop), "bonus" adds to what it counts as (applied after every reading)."""

    stage: Literal["reading", "bonus"]
    apply: PropEffect


# one entry per prop type that changes outcomes (types absent here change none); keys are prop types
PROP_EFFECTS: dict[str, PropRule] = {
    "volcano": PropRule("reading", _volcano),
    "slow-tokens": PropRule("reading", _slow_tokens),
    "fire-token": PropRule("bonus", _fire_token),
    "wall": PropRule("bonus", _firewall_touch),
}


def _die_faces(o: Outcome, die) -> Outcome:
    if o.result == "void" or o.face is None:
        return o
    f = o.face
    damage, hero_damage, effects = o.damage, o.hero_damage, list(o.effects)
    if o.result == "hit" and f in HIT_BONUS:
        damage += HIT_BONUS[f]
        effects.append(Effect.of("bonus", f"+{HIT_BONUS[f]}"))
    if f in ANY_BONUS:
        damage += ANY_BONUS[f]  # even on a miss
        effects.append(Effect.of("extra-damage", f"+{ANY_BONUS[f]}"))
    if f in HERO_COST:
        hero_damage += HERO_COST[f]
        effects.append(Effect.of("monster-attack", f"-{HERO_COST[f]}"))
    if f in GOLD:
        effects.append(Effect.of("gold", GOLD[f]))
    if len(effects) == len(o.effects):
        return o
    return replace(o, damage=damage, hero_damage=hero_damage, effects=effects)


def apply_effects(outcomes: list[Outcome], scenario, ctx, trace=None, placed: bool = False) -> list[Outcome]:
    """Apply board modifiers (`PROP_EFFECTS`: readings first, then bonuses) and face effects to each die's
    outcome, then the Water dice's collective icon; returns new outcomes (the given ones are unchanged)."""
    props = list(ctx.props.values()) if ctx is not None else []
    staged = [
        [(rule.apply, pp) for pp in props if (rule := PROP_EFFECTS.get(pp.type)) and rule.stage == stage]
        for stage in ("reading", "bonus")
    ]
    out = []
    for o, die in zip(outcomes, scenario.dice):
        for rules in staged:
            for fn, pp in rules:
                o = fn(o, pp, ctx, trace, placed)
        out.append(_die_faces(o, die))
    water = [k for k, d in enumerate(scenario.dice[: len(out)]) if is_water(d)]
    if len(water) > 1 and all(out[k].result != "void" for k in water):
        if all(out[k].result == "hit" for k in water) or all(out[k].result != "hit" for k in water):
            for k in water:
                out[k] = replace(out[k], effects=[*out[k].effects, Effect.of("collective-icon")])
    return out


def combined_result(outcomes: list[Outcome]) -> dict:
    """The combined result of a multi-dice throw (Water element dice): per-die results summed."""
    hits = [o for o in outcomes if o.result == "hit"]
    misses = [o for o in outcomes if o.result == "miss"]
    collective = any("collective-icon" in o.effects for o in outcomes)
    return {
        "n_dice": len(outcomes),
        "hits": len(hits),
        "misses": len(misses),
        "void": sum(o.result == "void" for o in outcomes),
        "damage": float(sum(o.damage for o in outcomes)),
        "hero_damage": float(sum(o.hero_damage for o in outcomes)),
        "insta_kill": any(o.insta_kill for o in outcomes),
        "icons": sum(bool(o.icon) for o in outcomes) + int(collective),
        "collective_icon": collective,
    }
