"""Throw requirements as pure predicates over the event trace and the die's sampled path.

A predicate answers "passed", "failed" or "touched" (met, but with a contact the rules charge for, e.g.
brushing the Firewall). Shot profiles list requirement names (`sim.specs.requirements`); combined shots
ask each distinct name once. Every predicate is registered explicitly in `PREDICATES` at the end.

Specific throws: each predicate finds its prop in `RequirementContext.props` (by shape type), reads the
die's path in the prop's frame (for the pose the prop had during this throw) and the ordered contact
events. Path crossings are linearly interpolated between the path samples and tested with the die's
centre: a centre that clears a prop while an edge brushes it shows up as a contact event, hence
"touched".

- firewall:   a table bounce on the thrower's side before the die crosses the wall's plane, and the
              crossing above the wall top, within its width (Malevolent Magma's Firewall Shot).
- firewall-fire-at-will: the same test (Fire at Will's Firewall Shot); what differs is the touch
              cost, "If the die touches the Firewall in the process, the Hero takes 1 damage, whether
              or not the die hits the Target board", charged by `sim.rules.effects` as the rule
              options `firewall_touch` and `firewall_touch_damage` say.
- fire-ring:  the crossing of the ring's plane inside its hole, then a table contact before the
              first board contact (touching the ring costs nothing: "touched").
- lava-mat:   a contact with the mat before the first board contact. The mat also counts as the table
              for the standard bounce rule ("that counts as bouncing on the table").
- puddle:     a table contact inside the puddle's hole before the first board contact, and no contact
              with the puddle itself at any time (touching it is a miss).
- gate:       the crossing of the gate's plane through its opening.
- stone-wall: the crossing of the wall's plane between its two pieces (below their top, within their
              width) - the Smash Shot throws the die through the joint.
- waterfall:  after sliding on the ramp, the die leaves it over the far short edge (not a side, not the
              near edge; a die that stops on the ramp fails).
- cup-cast:   the die leaves the cup: its last contact with the cup comes before its first contact
              with the table or board.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from sim.errors import SpecError
from sim.specs.board import BoardSpec
from sim.specs.requirements import REQUIREMENT_NAMES
from sim.specs.rules import RuleSet
from sim.trace import ContactEvent, EventTrace

PASSED, FAILED, TOUCHED = "passed", "failed", "touched"
BOARD_PREFIXES = ("board", "template")


@dataclass
class RequirementContext:
    """What a predicate may look at besides the trace."""

    board: BoardSpec | None
    rules: RuleSet
    props: dict[str, Any] = field(default_factory=dict)  # prop name -> placed prop (its spec and pose)
    # die name -> its farthest point from its centre (m): what bounds the gap under a turning die
    die_reach_m: dict[str, float] = field(default_factory=dict)


Predicate = Callable[[EventTrace, str, RequirementContext], str]


def touches_board(e: ContactEvent, ctx: RequirementContext) -> bool:
    """Whether a contact is a touch of the board for the bounce rule: the board, a template, a prop lying
    on the board (Volcano, Fire token, Slow tokens), or any other body that is neither the table nor a
    prop off the board (another die) met over the board's outline."""
    if e.other == "table":
        return False
    if e.other.startswith(BOARD_PREFIXES):
        return True
    for pp in ctx.props.values():
        if e.other in pp.bodies:
            return pp.traits.on_board  # lying on the board, it is the board ("before touching the board")
    return ctx.board is not None and bool(ctx.board.on_board(np.array([e.point_m[:2]]))[0])


def is_bounce(trace: EventTrace, e: ContactEvent, rules: RuleSet, reach_m: float | None = None) -> bool:
    """Whether contact `e` ends a real flight: the die touched nothing since its last lift-off (or its
    release) for at least `rules.bounce_min_airborne_s`, and, at the top of that stretch, there was a gap
    of at least `rules.bounce_min_height_mm` under it. The arrival from the hand (the die's first contact)
    measures the gap as the centre's fall onto the arrival. Once the die has landed, a turning die lifts
    and drops its centre by up to its reach less its resting height (3.6 mm for the hero d8) without any
    gap under it, so the gap is bounded below by the centre's top height above the table less `reach_m`
    (the die's farthest point from its centre; without it, the centre's height at the arrival): a die
    that rattles or hops a few millimetres after landing has not bounced again. A trace without contact
    state (`lift_offs` None) or without the die's path counts every contact."""
    if trace.lift_offs is None:
        return True
    t_path, path = _times_path(trace, e.die)
    if len(path) == 0:
        return True
    start = max((t for t in trace.lift_offs.get(e.die, []) if t <= e.time_s), default=0.0)
    earlier = [o for o in trace.of(e.die) if o.time_s < e.time_s]
    if any(start < o.time_s for o in earlier):
        return False  # it touched something in between: not airborne since the lift-off
    if e.time_s - start < rules.bounce_min_airborne_s - 1e-9:
        return False
    stretch = path[(t_path >= start - 1e-9) & (t_path <= e.time_s + 1e-9), 2]
    if len(stretch) == 0:
        return True  # no samples in the stretch (a sparse hand-built path): the contact counts
    if not earlier or reach_m is None:
        gap = float(stretch.max() - stretch[-1])  # from the hand, or the die's size unknown
    else:
        gap = float(stretch.max()) - e.point_m[2] - reach_m  # the surface it arrived on is at the contact
    return gap * 1e3 >= rules.bounce_min_height_mm - 1e-9


def bounces_before_board(trace: EventTrace, die: str, ctx: RequirementContext) -> int:
    """Table bounces (`is_bounce`) that began outside the board outline before the die first touched the
    board (or anything lying on it: `touches_board`).

    "Before" is by time: a table contact that starts in the same step as the first board touch (a die
    landing across the board's edge) is not before it, whichever of the two the engine lists first (the
    order of one step's contacts follows Bullet's internal pair order and means nothing)."""
    board = ctx.board
    events = trace.of(die)
    t_board = min((e.time_s for e in events if touches_board(e, ctx)), default=math.inf)
    n = 0
    for e in events:
        if e.time_s >= t_board:
            break
        if e.other == "table" and is_bounce(trace, e, ctx.rules, ctx.die_reach_m.get(die)):
            if board is None or not bool(board.on_board(np.array([e.point_m[:2]]))[0]):
                n += 1
    return n


def standard_bounce(trace: EventTrace, die: str, ctx: RequirementContext) -> str:
    """The standard rule: at least `rules.min_bounces` table bounces outside the board before the die
    first touches the board or anything lying on it ("the die must bounce at least once on the table
    outside of the Target board before touching the board")."""
    if not any(touches_board(e, ctx) for e in trace.of(die)):
        return PASSED  # never reached the board nor anything on it: a landing miss, not a bounce failure
    return PASSED if bounces_before_board(trace, die, ctx) >= ctx.rules.min_bounces else FAILED


def _prop(ctx: RequirementContext, kind: str, name: str, hole: bool | None = None):
    for pp in ctx.props.values():
        if pp.type != kind:
            continue
        if hole is not None and (pp.spec.shape.hole is not None) != hole:
            continue
        return pp
    raise SpecError(
        "<scenario>", f"requirements.{name}", f"needs a '{kind}' prop; add one to the shot's props"
    )


def _times_path(trace: EventTrace, die: str) -> tuple[np.ndarray, np.ndarray]:
    p = trace.path(die)
    t = trace.times()[: len(p)]
    return t, p


def _crossing(trace: EventTrace, die: str, pp, x0: float = 0.0) -> tuple[float, np.ndarray] | None:
    """First time the die's centre crosses the prop's local plane x = x0 going +x: (time, local point)."""
    t, p = _times_path(trace, die)
    if len(p) < 2:
        return None
    loc = pp.to_local(p)
    x = loc[:, 0] - x0
    idx = np.nonzero((x[:-1] < 0) & (x[1:] >= 0))[0]
    if len(idx) == 0:
        return None
    i = int(idx[0])
    f = -x[i] / (x[i + 1] - x[i])
    return float(t[i] + f * (t[i + 1] - t[i])), loc[i] + f * (loc[i + 1] - loc[i])


def _touched(trace: EventTrace, die: str, pp, before: float = np.inf) -> bool:
    names = set(pp.bodies)
    return any(e.other in names and e.time_s <= before for e in trace.of(die))


def _first_time(trace: EventTrace, die: str, prefixes: tuple[str, ...]) -> float:
    for e in trace.of(die):
        if e.other.startswith(prefixes):
            return e.time_s
    return np.inf


def firewall(trace: EventTrace, die: str, ctx: RequirementContext) -> str:
    """Passed when the die bounced on the table on the thrower's side of the wall and crossed its plane
    above the top, within its width; touched when it also brushed the wall."""
    pp = _prop(ctx, "wall", "firewall")
    s = pp.spec.shape
    cross = _crossing(trace, die, pp)
    if cross is None:
        return FAILED  # never got past the wall
    tc, loc = cross
    bounced = any(
        e.other == "table"
        and e.time_s < tc
        and pp.to_local(np.array(e.point_m))[0, 0] < 0
        and is_bounce(trace, e, ctx.rules, ctx.die_reach_m.get(die))
        for e in trace.of(die)
    )
    over = loc[2] > s.height_mm * 1e-3 and abs(loc[1]) <= s.width_mm * 1e-3 / 2
    if not (bounced and over):
        return FAILED
    return TOUCHED if _touched(trace, die, pp) else PASSED


def firewall_miss(trace: EventTrace, die: str, ctx: RequirementContext) -> str:
    """What a die that failed the Firewall did, in words: into it, under it, around it, short of it, or
    over it without the table bounce first (the reason "requirement:firewall" says only that it failed)."""
    pp = _prop(ctx, "wall", "firewall")
    s = pp.spec.shape
    cross = _crossing(trace, die, pp)
    if cross is None:
        return (
            "into it: stopped by the wall" if _touched(trace, die, pp) else "short of it: never past the wall"
        )
    _, loc = cross
    beyond_mm = abs(float(loc[1])) * 1e3 - s.width_mm / 2
    if beyond_mm > 0:
        return f"around it, {beyond_mm:.0f} mm past its end"
    if loc[2] <= s.height_mm * 1e-3:
        return "under it, below the wall's top"
    return "over it, but without a table bounce on the thrower's side first"


def fire_ring(trace: EventTrace, die: str, ctx: RequirementContext) -> str:
    """Passed when the die's centre crossed the ring's plane inside its hole and then touched the table
    before the board; touched when it also touched the ring."""
    pp = _prop(ctx, "ring", "fire-ring")
    cross = _crossing(trace, die, pp)
    if cross is None:
        return FAILED
    tc, loc = cross
    if float(np.hypot(loc[1], loc[2])) >= pp.spec.shape.inner_radius_mm * 1e-3:
        return FAILED  # went past the ring, not through it
    tb = _first_time(trace, die, BOARD_PREFIXES)
    if not any(e.other == "table" and tc < e.time_s < tb for e in trace.of(die)):
        if np.isfinite(tb):
            return FAILED  # no table contact between the ring and the board
    return TOUCHED if _touched(trace, die, pp) else PASSED


def lava_mat(trace: EventTrace, die: str, ctx: RequirementContext) -> str:
    """Passed when the die touched the mat before its first board contact (or never reached the board)."""
    pp = _prop(ctx, "mat", "lava-mat", hole=False)
    tb = _first_time(trace, die, BOARD_PREFIXES)
    if not np.isfinite(tb):
        return PASSED  # never reached the board: a landing miss, not a requirement failure
    return PASSED if _touched(trace, die, pp, before=tb) else FAILED


def puddle(trace: EventTrace, die: str, ctx: RequirementContext) -> str:
    """Passed when the die touched the table inside the puddle's hole before the board and never touched
    the puddle."""
    pp = _prop(ctx, "mat", "puddle", hole=True)
    if _touched(trace, die, pp):
        return FAILED  # touching the puddle itself is a miss
    tb = _first_time(trace, die, BOARD_PREFIXES)
    if not np.isfinite(tb):
        return PASSED
    h = pp.spec.shape.hole
    for e in trace.of(die):
        if e.time_s >= tb:
            break
        if e.other == "table":
            loc = pp.to_local(np.array(e.point_m))[0]
            if ((loc[0] * 1e3 - h.x_mm) / h.rx_mm) ** 2 + ((loc[1] * 1e3 - h.y_mm) / h.ry_mm) ** 2 <= 1.0:
                return PASSED
    return FAILED


def gate(trace: EventTrace, die: str, ctx: RequirementContext) -> str:
    """Passed when the die's centre crossed the gate's plane through its opening; touched if it brushed the
    gate."""
    pp = _prop(ctx, "gate", "gate")
    s = pp.spec.shape
    cross = _crossing(trace, die, pp)
    if cross is None:
        return FAILED
    _, loc = cross
    inside = abs(loc[1]) < s.opening_width_mm * 1e-3 / 2 and 0.0 <= loc[2] < s.opening_height_mm * 1e-3
    if not inside:
        return FAILED
    return TOUCHED if _touched(trace, die, pp) else PASSED


def stone_wall(trace: EventTrace, die: str, ctx: RequirementContext) -> str:
    """Passed when the die's centre crossed the split wall's plane between the two pieces, below their top."""
    pp = _prop(ctx, "split-wall", "stone-wall")
    s = pp.spec.shape
    cross = _crossing(trace, die, pp)
    if cross is None:
        return FAILED
    _, loc = cross
    between = abs(loc[1]) < (s.piece_width_mm + s.gap_mm / 2) * 1e-3 and loc[2] < s.height_mm * 1e-3
    return PASSED if between else FAILED


def waterfall(trace: EventTrace, die: str, ctx: RequirementContext) -> str:
    """Passed when the die, after touching the ramp, first leaves it over the far short edge."""
    pp = _prop(ctx, "ramp", "waterfall")
    s = pp.spec.shape
    names = set(pp.bodies)
    first = next((e.time_s for e in trace.of(die) if e.other in names), None)
    if first is None:
        return FAILED  # never on the ramp
    t, p = _times_path(trace, die)
    loc = pp.to_local(p)
    L, W2 = s.length_mm * 1e-3, s.width_mm * 1e-3 / 2
    over = (
        (loc[:, 0] >= 0) & (loc[:, 0] <= L) & (np.abs(loc[:, 1]) <= W2) & (loc[:, 2] > -s.thickness_mm * 1e-3)
    )
    after = np.nonzero((t >= first) & ~over)[0]
    if len(after) == 0:
        return FAILED  # stayed on the ramp
    i = int(after[0])
    return PASSED if loc[i, 0] > L and abs(loc[i, 1]) <= W2 + 0.01 else FAILED


def cup_cast(trace: EventTrace, die: str, ctx: RequirementContext) -> str:
    """Passed when the die leaves the cup: its last cup contact comes before its first table or board
    contact."""
    pp = _prop(ctx, "cup", "cup-cast")
    names = set(pp.bodies)
    evs = trace.of(die)
    last_cup = max((e.time_s for e in evs if e.other in names), default=-1.0)
    first_out = _first_time(trace, die, ("table",) + BOARD_PREFIXES)
    return PASSED if np.isfinite(first_out) and last_cup < first_out else FAILED


def bounce_before_board(trace: EventTrace, die: str, ctx: RequirementContext) -> str:
    """The standard rule, where a Lava mat "counts as bouncing on the table": with a hole-less mat in
    the scene, the die's contacts with it are read as table contacts. Without one it is unchanged."""
    mats = {
        b for pp in ctx.props.values() if pp.type == "mat" and pp.spec.shape.hole is None for b in pp.bodies
    }
    if not mats:
        return standard_bounce(trace, die, ctx)
    events = [replace(e, other="table") if e.other in mats else e for e in trace.events]
    return standard_bounce(
        EventTrace(events=events, path_t=trace.path_t, paths=trace.paths, lift_offs=trace.lift_offs), die, ctx
    )


PREDICATES: dict[str, Predicate] = {
    "bounce-before-board": bounce_before_board,
    "firewall": firewall,
    "firewall-fire-at-will": firewall,
    "fire-ring": fire_ring,
    "lava-mat": lava_mat,
    "puddle": puddle,
    "gate": gate,
    "stone-wall": stone_wall,
    "waterfall": waterfall,
    "cup-cast": cup_cast,
}
assert tuple(PREDICATES) == REQUIREMENT_NAMES, "every requirement name has exactly one predicate"


# what a failed requirement's die did, where it can be told in words (see firewall_miss)
MISS_DETAILS: dict[str, Predicate] = {"firewall": firewall_miss, "firewall-fire-at-will": firewall_miss}


def miss_detail(name: str, trace: EventTrace, die: str, ctx: RequirementContext) -> str:
    """How the die failed requirement `name` ("" when there is nothing more to say than that)."""
    fn = MISS_DETAILS.get(name)
    return fn(trace, die, ctx) if fn is not None else ""


def evaluate(
    names: list[str] | tuple[str, ...], trace: EventTrace, die: str, ctx: RequirementContext
) -> dict[str, str]:
    """Each distinct requirement once (the rulebook: identical requirements count as one)."""
    return {n: PREDICATES[n](trace, die, ctx) for n in dict.fromkeys(names)}
