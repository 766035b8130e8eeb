"""Effects applied after classification: board modifiers (props) and special / element dice.

Called by the Thrower on every throw's outcomes (`apply_effects`). Pure: outcomes, the scenario's
specs, the props' poses and the event trace in; adjusted outcomes out.

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

import numpy as np

from sim.rules.outcome import Outcome

HIT_BONUS = {"+2": 2, "+8": 8}
ANY_BONUS = {"fire+1": 1, "fire+2": 2, "fire+3": 3}
HERO_COST = {"monster-attack": 5}
GOLD = {"gold": 3}


def is_water(die) -> bool:
    """Whether a die is a Water element die (its name starts with 'water'): those act together."""
    return die.name.startswith("water")


def _requirement_failed(o: Outcome) -> bool:
    return o.reason == "no-bounce" or o.reason.startswith("requirement:")


def _volcano(o: Outcome, pp, ctx) -> None:
    names = set(pp.bodies)
    if not (set(o.touching) & names) or {"board", "table"} & set(o.touching) or _requirement_failed(o):
        return
    if o.result == "void":
        return
    s = pp.spec.shape
    loc = pp.to_local(np.array(o.position_mm) * 1e-3)[0]
    in_crater = float(np.hypot(loc[0], loc[1])) < s.crater_radius_mm * 1e-3 and loc[2] < s.height_mm * 1e-3
    rules = ctx.rules
    if o.cocked and rules.cocked == "miss":
        o.result, o.reason = "miss", "cocked"
        return
    o.result, o.reason = "hit", "hit"
    o.insta_kill = False
    o.effects = [e for e in o.effects if e != "insta-kill" and not e.startswith("leaning-on:")]
    if in_crater:
        o.section, o.value, o.damage = "volcano-crater", rules.bullseye_damage, float(rules.bullseye_damage)
        if o.icon and rules.icon_insta_kill:
            o.insta_kill = True
            o.effects.append("insta-kill")
    else:
        o.section, o.value, o.damage = "volcano", 0, 0.0


def _slow_tokens(o: Outcome, pp, ctx) -> None:
    if o.reason != "in-hole":
        return
    hit = [b for b in pp.bodies if b in o.touching]
    if not hit:
        return
    o.result, o.reason = "hit", "hit"
    o.section = "slow-token:" + hit[0].split(":")[-1]
    o.value = ctx.rules.slow_token_damage
    o.damage = float(ctx.rules.slow_token_damage)


def _fire_token(o: Outcome, pp, ctx) -> None:
    if o.result != "hit" or ctx.board is None:
        return
    region = ctx.board.region_at(float(pp.position[0]), float(pp.position[1]))
    if region.kind == "section" and o.section == region.id:
        o.damage += ctx.rules.fire_token_bonus
        o.effects.append(f"fire-token:+{ctx.rules.fire_token_bonus}")


# the Firewall requirements whose touches each `RuleSet.firewall_touch` option charges
FIREWALL_TOUCH_CHARGED = {"fire-at-will": ("firewall-fire-at-will",), "always": ("firewall", "firewall-fire-at-will"),
                          "never": ()}


def _firewall_touch(o: Outcome, pp, trace, rules) -> None:
    cost = rules.firewall_touch_damage
    if not cost or trace is None or not any(r in o.requirements for r in FIREWALL_TOUCH_CHARGED[rules.firewall_touch]):
        return
    if any(e.other in set(pp.bodies) for e in trace.of(o.die)):
        o.hero_damage += cost
        o.effects.append(f"touched:{pp.name}:-{cost}")


def _die_faces(o: Outcome, die) -> None:
    if o.result == "void" or o.face is None:
        return
    f = o.face
    if o.result == "hit" and f in HIT_BONUS:
        o.damage += HIT_BONUS[f]
        o.effects.append(f"bonus:+{HIT_BONUS[f]}")
    if f in ANY_BONUS:
        o.damage += ANY_BONUS[f]  # even on a miss
        o.effects.append(f"extra-damage:+{ANY_BONUS[f]}")
    if f in HERO_COST:
        o.hero_damage += HERO_COST[f]
        o.effects.append(f"monster-attack:-{HERO_COST[f]}")
    if f in GOLD:
        o.effects.append(f"gold:{GOLD[f]}")


def apply_effects(outcomes: list[Outcome], scenario, ctx, trace=None, placed: bool = False) -> list[Outcome]:
    """Apply board modifiers (volcano, slow tokens, fire token, touch costs) and face effects to each die's
    outcome, then the Water dice's collective icon; outcomes are changed in place and returned."""
    props = list(ctx.props.values()) if ctx is not None else []
    for o, die in zip(outcomes, scenario.dice):
        for pp in props:
            if pp.type == "volcano":
                _volcano(o, pp, ctx)
            elif pp.type == "slow-tokens":
                _slow_tokens(o, pp, ctx)
        for pp in props:
            if pp.type == "fire-token":
                _fire_token(o, pp, ctx)
            if pp.type == "wall" and not placed:
                _firewall_touch(o, pp, trace, ctx.rules)
        _die_faces(o, die)
    water = [o for o, d in zip(outcomes, scenario.dice) if is_water(d)]
    if len(water) > 1 and all(o.result != "void" for o in water):
        if all(o.result == "hit" for o in water) or all(o.result != "hit" for o in water):
            for o in water:
                o.effects.append("collective-icon")
    return outcomes


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
