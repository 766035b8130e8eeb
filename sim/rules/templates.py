"""Classification on templates (pure: no PyBullet). Applied after the board classifier.

Readings of the rulebooks (docs/templates.md):

- A die *touches* a template when the physics reports a contact with body "template:<id>". It lies
  *over* a touched template when at least one corner of its bottom face lies over that template's
  outline; a die merely leaning on a template's edge with every corner outside it is not on it (that
  template is ignored). It is *on* the top one of the templates it lies over ("what is on top is on
  top": the one whose upper face is highest at the corners over its own outline).
- **Fully** on: every bottom corner over the top template and the die touches nothing else (board,
  table, a lower template) -> the template's effect. Any other landing on it is **partial**.
- Partial landings, rule option `partial_template`:
  * "base" (Chambers of Malevolent Magma, the default): "resolve the die as if it wasn't touching
    the Template at all, only the object below it": table -> miss; board -> the normal section;
    only a lower template -> that lower template (resolved again the same way); nothing else ->
    the template.
  * "expansion" (Fire at Will / The Big Wave / Rock and Roll, cases a, b, c checked in order):
    a) touching the board -> normal throw, template ignored; b) touching the table -> miss;
    c) touching only templates -> the top template ("what is on top is on top"). The printed
    difference from "base": a die partly on a template and partly on a lower one counts the TOP one
    here and the LOWER one in the base game; and "board" wins over "table" here.
  * "a", "b", "c": house rules applying one case to every partial landing: "a" always resolves
    normally (section under the die, template ignored), "b" always misses, "c" always counts the
    template.
- Effects: damage regions (most corners, tie -> lower, like board sections), hero damage, healing,
  gold, the icon insta-kill (Weak Point). Armor: while an Armor template is on the board every
  other hit deals 1 less (`apply_armor`, the last step of the pipeline: board, templates, props and
  special dice first; not below 0; an insta-kill is unaffected); a die on it removes it and
  deals 0 (`armor = "base"`, Malevolent Magma) or 1 (`armor = "rock-and-roll"`). Slime: the die is
  moved onto the board touching the curve the arrow points to, at the best / worst / a random
  position along it (`slime_choice`); "random" draws from the die's rest position unless an rng
  is given, so it replays exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from sim.hashing import seed_from_bytes
from sim.rules.footprint import bottom_corners_xy, winning_region
from sim.rules.outcome import Effect, Outcome, Reason
from sim.specs.board import BoardSpec
from sim.specs.die import DieSpec
from sim.specs.rules import RuleSet
from sim.specs.template import PlacedTemplate
from sim.trace import DieRest
from sim.vectors import matmul, norm, row_norms

PARTIAL_OPTIONS = ("base", "expansion", "a", "b", "c")
ARMOR_OPTIONS = ("base", "rock-and-roll")
_UNCHANGEABLE = ("no-bounce", "cocked", "cocked-rethrow")


@dataclass(frozen=True)
class Resolution:
    """What a landing on templates counts as: 'none' (template not involved), 'normal' (board
    classification, template ignored), 'miss', or 'template' (with the template resolved)."""

    kind: str
    template: PlacedTemplate | None = None
    partial: bool = False
    reason: Reason = ""


def _corners(die: DieSpec, rest: DieRest) -> np.ndarray:
    return bottom_corners_xy(die, rest.position_m, rest.orientation_xyzw)


def resolve(rest: DieRest, die: DieSpec, templates: Sequence[PlacedTemplate], option: str) -> Resolution:
    """Which template (if any) a resting die counts on, under partial-template rule `option`."""
    if option not in PARTIAL_OPTIONS:
        raise ValueError(f"partial_template must be one of {', '.join(PARTIAL_OPTIONS)}")
    touched = [t for t in templates if t.body_name in rest.touching]
    if not touched:
        return Resolution("none")
    corners = _corners(die, rest)
    # the templates the die lies over: a touched template under none of its corners is only leaned on
    under = [(t, m) for t in touched if (m := t.covers(corners)).any()]
    if not under:
        return Resolution("none", reason="leaning-on-template")
    # "what is on top is on top": the template whose upper face is highest where it lies under the die
    # (read at the corners over its own outline, never on its plane extended past its edge)
    under.sort(key=lambda tm: float(np.mean([tm[0].top_z_at(c) for c in corners[tm[1]]])), reverse=True)
    top = under[0][0]
    n_on = int(under[0][1].sum())
    lower = [t for t, _ in under[1:]]
    board, table = "board" in rest.touching, "table" in rest.touching
    if n_on == len(corners) and not (board or table or lower):
        return Resolution("template", top, False, "on-template")
    if option == "a":
        return Resolution("normal", None, True, "partial-template:a")
    if option == "b":
        return Resolution("miss", None, True, "partial-template:b")
    if option == "c":
        return Resolution("template", top, True, "partial-template:c")
    if option == "expansion":
        if board:
            return Resolution("normal", None, True, "partial-template:board")
        if table:
            return Resolution("miss", None, True, "partial-template:table")
        return Resolution("template", top, True, "partial-template:only-templates")
    # base: only what is below counts
    if table and not board:
        return Resolution("miss", None, True, "partial-template:table")
    if board:
        return Resolution("normal", None, True, "partial-template:board")
    if lower:
        sub = resolve(rest, die, lower, option)
        if sub.kind == "template":
            return Resolution("template", sub.template, True, "partial-template:below")
        if sub.kind == "none":  # only brushing the lower one: it is still what is below
            return Resolution("template", lower[0], True, "partial-template:below")
        return Resolution(sub.kind, sub.template, True, sub.reason)
    return Resolution("template", top, True, "partial-template:only-template")


def slime_positions(
    die: DieSpec, rest: DieRest, board: BoardSpec, slime: PlacedTemplate, step_m: float = 0.002
):
    """Candidate die placements touching the slime's curve, on the board: [(corners_xy, region)]."""
    curve = slime.spec.slime_curve_local
    corners = _corners(die, rest)
    offsets = corners - np.asarray(rest.position_m[:2])
    # resample the curve every step_m
    seg = row_norms(np.diff(curve, axis=0))
    s = np.concatenate([[0.0], np.cumsum(seg)])
    ts = np.arange(0.0, s[-1] + 1e-12, step_m)
    pts_local = np.column_stack([np.interp(ts, s, curve[:, 0]), np.interp(ts, s, curve[:, 1])])
    pts = slime.to_world(pts_local)
    centre = slime.to_world(np.zeros((1, 2)))[0]
    out = []
    for p in pts:
        n = p - centre
        n = n / max(norm(n), 1e-12)
        reach = float(np.max(matmul(offsets, -n)))  # how far the footprint extends toward the slime
        c = p + n * (reach + 1e-4)
        cxy = c + offsets
        if not bool(np.all(board.on_board(cxy))):
            continue
        out.append((cxy, winning_region(board, cxy)))
    return out


def _region_damage(region, board: BoardSpec, rules: RuleSet) -> float:
    if region.kind != "section":
        return -1.0
    return float(rules.bullseye_damage if region.bullseye else region.value)


def apply_templates(
    out: Outcome,
    rest: DieRest,
    die: DieSpec,
    board: BoardSpec | None,
    templates: Sequence[PlacedTemplate],
    rules: RuleSet,
    rng: np.random.Generator | None = None,
) -> Outcome:
    """Turn the board classification `out` into the classification with `templates` on the board."""
    if not templates or out.result == "void" or board is None:
        return out
    if out.reason in _UNCHANGEABLE or out.reason.startswith("requirement:"):
        return out
    # the board classifier lists every non-board contact as leaning-on; templates are handled here
    names = {t.body_name for t in templates}
    kept = []
    for e in out.effects:
        if e.kind == "leaning-on":
            rest_names = [n for n in e.arg.split(",") if n not in names]
            if not rest_names:
                continue
            e = Effect.of("leaning-on", ",".join(rest_names))
        kept.append(e)
    res = resolve(rest, die, templates, rules.partial_template)
    partial = out.partial_template
    if res.kind != "none":
        partial = res.partial
        if res.partial:
            kept.append(Effect.of("partial-counted-as", res.kind))
    if res.reason == "leaning-on-template":
        kept.append(Effect.of("leaning-on-template"))
    if res.kind == "miss":
        return replace(
            out,
            result="miss",
            reason=res.reason,
            damage=0.0,
            insta_kill=False,
            section=None,
            value=None,
            partial_template=partial,
            effects=[e for e in kept if e != "insta-kill"],
        )
    out = replace(out, partial_template=partial, effects=kept)
    if res.kind == "template":
        out = _apply_effect(out, rest, die, board, res.template, rules, rng)
        out = replace(out, reason=res.reason if res.partial else "template")
    return out


def apply_armor(outcomes: list[Outcome], templates: Sequence[PlacedTemplate]) -> list[Outcome]:
    """The Armor template's "all Hero Hits deal -1 damage" on every hit but the one on the Armor
    itself: applied last in the pipeline, after the props' and special dice's effects, so a die in
    the Volcano's crater or on a Slow token deals 1 less too (never below 0; an insta-kill is
    unaffected). Returns new outcomes (the given ones are unchanged)."""
    if not any(t.spec.effect == "armor" for t in templates):
        return outcomes
    armor = {t.spec.name for t in templates if t.spec.effect == "armor"}
    return [
        replace(o, damage=max(0.0, o.damage - 1.0), effects=[*o.effects, Effect.of("armor", -1)])
        if o.result == "hit" and o.template not in armor and not o.insta_kill and o.damage > 0
        else o
        for o in outcomes
    ]


def _apply_effect(out: Outcome, rest, die, board, t: PlacedTemplate, rules: RuleSet, rng) -> Outcome:
    """The outcome of a die counted on template `t`: its effect (Armor, Slime, or its regions' damage and
    what the template does to the party)."""
    spec = t.spec
    effects = [e for e in out.effects if e != "insta-kill"]
    out = replace(out, template=spec.name, result="hit", insta_kill=False, section=None, value=None)
    corners = _corners(die, rest)
    if spec.effect == "armor":
        damage = 0.0 if rules.armor == "base" else 1.0
        effects.append(Effect.of("remove-template", t.id))
        _mark_bonus_rule(effects, spec.bonus_rule)
        return replace(out, damage=damage, value=int(damage), effects=effects)
    if spec.effect == "slime":
        cands = slime_positions(die, rest, board, t)
        if not cands:
            return replace(out, result="miss", reason="slime-no-room", damage=0.0, effects=effects)
        dmg = [_region_damage(r, board, rules) for _, r in cands]
        if rules.slime_choice == "best":
            k = int(np.argmax(dmg))
        elif rules.slime_choice == "worst":
            k = int(np.argmin(dmg))
        else:
            if rng is None:
                key = np.asarray(rest.position_m, float).round(9).tobytes()
                rng = np.random.Generator(np.random.PCG64(seed_from_bytes(key)))
            k = int(rng.integers(len(cands)))
        cxy, region = cands[k]
        effects.append(Effect.of("slime-moved-to", "{:.1f},{:.1f}".format(*(cxy.mean(axis=0) * 1e3))))
        if region.kind != "section":
            effects.append(Effect.of(f"slime-on-{region.kind}"))
            return replace(out, result="miss", damage=0.0, effects=effects)
        insta = bool(region.bullseye and out.icon and rules.icon_insta_kill)
        if insta:
            effects.append(Effect.of("insta-kill"))
        return replace(
            out,
            section=region.id,
            value=region.value,
            insta_kill=insta,
            effects=effects,
            damage=float(rules.bullseye_damage if region.bullseye else region.value),
        )
    rid, region_damage = t.region_for(corners)
    hero_damage = out.hero_damage
    if rid != "body":
        effects.append(Effect.of("template-region", rid))
    if spec.hero_damage:
        hero_damage += float(spec.hero_damage)
        effects.append(Effect.of("every-hero-suffers", spec.hero_damage))
    if spec.heal:
        effects.append(Effect.of("every-hero-heals", spec.heal))
    if spec.gold:
        effects.append(Effect.of("gold", spec.gold))
    _mark_bonus_rule(effects, spec.bonus_rule)
    insta = bool(spec.icon_insta_kill and out.icon and rules.icon_insta_kill)
    if insta:
        effects.append(Effect.of("insta-kill"))
    return replace(
        out,
        value=int(region_damage),
        damage=float(region_damage),
        hero_damage=hero_damage,
        insta_kill=insta,
        effects=effects,
    )


# the effect that tells the fight engine what may add to a hit on a template (`BONUS_RULES`)
BONUS_EFFECTS = {"equipment": "equipment-bonus-only", "none": "no-bonuses"}


def _mark_bonus_rule(effects: list[Effect], rule: str) -> None:
    if rule in BONUS_EFFECTS:
        effects.append(Effect.of(BONUS_EFFECTS[rule]))


def partial_counts(rest: DieRest, die: DieSpec, templates: Sequence[PlacedTemplate]) -> dict[str, str]:
    """What one landing counts as under every partial-template option (for the odds experiment)."""
    out = {}
    for opt in PARTIAL_OPTIONS:
        r = resolve(rest, die, templates, opt)
        out[opt] = r.kind if r.kind != "template" else f"template:{r.template.spec.name}"
    return out
