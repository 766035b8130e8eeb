"""The classifier: resting die + contacts + event trace + scene spec -> Outcome. Pure, no PyBullet.

Rulebook readings (docs/rules.md):
- miss: no bounce outside the board first; any other failed requirement; fell off the board (its
  centre of mass not over the board, or lying on the table only); fell in a hole (resting on the
  table, or on a Slow token, with its centre or a bottom corner over a hole); on the bones;
- section: among the bottom corners on cardboard, the section holding the most; a tie goes to the
  lower value; corners past the edge or over a hole do not vote (`sim.rules.footprint.read_board`);
  bones when they hold at least as many of those corners as any one section (`rules.bones_corners =
  "most-corners"`) or any one (`"any-corner"`);
- bullseye deals `rules.bullseye_damage`; the icon on the bullseye is an insta-kill;
- cocked: the read face is tilted more than `rules.cocked_tolerance_deg` from level; what it
  counts as is `rules.cocked`;
- house rules: `rules.holes = "section"` counts a die in a hole as the section the hole is cut
  into (what lies under the hole), `rules.bones = "outer-section"` a die on the bones as the outer
  section under them; the cocked rule and the requirements still apply.
"""

from __future__ import annotations

from sim.rules.footprint import bottom_corners_xy, read_board
from sim.rules.outcome import Effect, Outcome, Result
from sim.rules.requirements import FAILED, RequirementContext, bounces_before_board, evaluate, miss_detail
from sim.specs.board import BoardSpec
from sim.specs.die import DieSpec
from sim.specs.rules import RuleSet
from sim.trace import DieRest, EventTrace


def classify(
    rest: DieRest,
    die: DieSpec,
    board: BoardSpec | None,
    trace: EventTrace,
    rules: RuleSet,
    requirements: list[str] | tuple[str, ...] = (),
    ctx: RequirementContext | None = None,
    placed: bool = False,
) -> Outcome:
    """The board reading of one resting die (templates and effects are later steps of the pipeline:
    `sim.rules.templates.apply_templates`, then `sim.rules.effects.apply_effects`, then the Armor's -1,
    `sim.rules.templates.apply_armor`)."""
    ctx = ctx or RequirementContext(board=board, rules=rules)
    face_i, tilt = die.reading_face(rest.orientation_xyzw)
    label = die.faces[face_i]
    touching = sorted(rest.touching)
    others = {t for t in rest.touching if t not in ("table", "board")}
    cocked = tilt > rules.cocked_tolerance_deg
    icon = die.is_icon(label)

    def outcome(result: Result, reason: str, **kw) -> Outcome:
        return Outcome(
            result=result,
            reason=reason,
            face=label,
            icon=icon,
            cocked=cocked,
            tilt_deg=tilt,
            touching=touching,
            position_mm=[v * 1e3 for v in rest.position_m],
            orientation_xyzw=list(rest.orientation_xyzw),
            die=rest.name,
            time_s=rest.time_s,
            **kw,
        )

    if rest.status != "rest":
        return outcome("void", rest.status)
    requirements_met: dict[str, str] = {}
    bounces = 0
    if not placed:
        requirements_met = evaluate(list(requirements), trace, rest.name, ctx)
        bounces = bounces_before_board(trace, rest.name, ctx)
    if board is None:
        return outcome("roll", "free-roll", requirements=requirements_met, bounces_before_board=bounces)
    corners = bottom_corners_xy(die, rest.position_m, rest.orientation_xyzw)
    ignore: tuple[str, ...] = ()
    if rules.holes == "section":
        ignore += ("hole",)  # house rule: the section the hole is cut into
    if rules.bones == "outer-section":
        ignore += ("bones",)  # house rule: the outer section the bones are printed on
    fillers = [b for pp in ctx.props.values() if pp.traits.fills_holes for b in pp.bodies]
    region = read_board(
        board, corners, rest.position_m[:2], rest.touching, rules.bones_corners, ignore, fillers
    ).region
    section, value = (region.id, region.value) if region.kind == "section" else (None, None)
    failed = [n for n, v in requirements_met.items() if v == FAILED]
    result: Result = "miss"
    detail, damage, insta_kill = "", 0.0, False
    effects: list[Effect] = []
    if "bounce-before-board" in failed:
        reason = "no-bounce"
    elif failed:
        reason = f"requirement:{failed[0]}"
        detail = miss_detail(failed[0], trace, rest.name, ctx)
    elif region.kind == "off":
        reason = "off-board"
    elif region.kind == "hole":
        reason = "in-hole"
    elif region.kind == "bones":
        reason = "on-bones"
    elif cocked and rules.cocked == "miss":
        reason = "cocked"
    elif cocked and rules.cocked == "rethrow":
        return outcome(
            "void",
            "cocked-rethrow",
            requirements=requirements_met,
            bounces_before_board=bounces,
            section=section,
            value=value,
        )
    else:
        result, reason = "hit", "hit"
        bullseye = board.section(region.id).bullseye
        damage = float(rules.bullseye_damage if bullseye else region.value)
        if bullseye and icon and rules.icon_insta_kill:
            insta_kill = True
            effects.append(Effect.of("insta-kill"))
    if others:
        effects.append(Effect.of("leaning-on", ",".join(sorted(others))))
    return outcome(
        result,
        reason,
        requirements=requirements_met,
        bounces_before_board=bounces,
        detail=detail,
        damage=damage,
        insta_kill=insta_kill,
        effects=effects,
        section=section,
        value=value,
    )
