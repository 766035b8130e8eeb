"""Templates in physics-in-the-loop fights: flipped when the rules engine asks, lying there until removed.

The rulebook: "Monsters and Dungeons may request players to flip a Template at the start of the
combat, while some Equipment may allow the player to choose when to flip it"; a template stays on the
board until "Remove all Templates from the target board during the Resting phase". The physics source
flips each template the engine asks for (`flip_fight_templates`, called from `PhysicsSource.flip`)
onto the board as it lies, and every later throw of that fight meets the templates at the very poses
their last flip left them: `FightTemplateLayer`, a thrower component, lays each template body back at
that pose before every throw (a die that struck and shoved a template does not move it for the next
throw).

Streams: piece p of the fight's j-th template flip of fight f is flipped from flip stream index
8 * flip_index(f, j) + p: it depends on (root seed, f) only. Templates flipped together (the start of
the combat: the monster's and the room's, sorted) land one after the other in one flip world
(`flip_onto`, sim/world/flip.py), with the templates already lying there and the fight's standing
props: each lands on, and may shove, those there before it, so they never lie inside each other or
inside a prop. A flip re-flips until it stays (at most the profile's max_flips; a template that never
stays is not on the board); each landing touching the table costs the flipping hero 1, dealt by the
rules engine from `FlipResult.damage`.

"If the Template lands on a die, remove the die": the dice resting on the board at the flip are put
in the flip world at their poses; a die a template comes to rest on (the flip world's reading), or
whose centre the resting template's footprint covers (the die may have been shoved aside under it in
the flip world, where dice are loose bodies), is removed from the board (`flip_fight_templates` returns
their slots). Dice a template only shoves are left at their poses in the fight.

A template the requests stop listing (the Armor, once a die lands on it: "remove the Shield Template
from the Target board") leaves the board: `FightTemplates.keep`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from shapely.geometry import Point

from sim.engine.thrower import LyingOnBoard, Thrower, ThrowResult
from sim.specs.board import BoardSpec
from sim.specs.die import DieSpec
from sim.specs.flip import FLIP_SKILLS
from sim.specs.template import PlacedTemplate, load_template
from sim.world.flip import FlipRequest, FlipResult, add_template_body, flip_onto
from sim.world.templates import fit_template_materials, templates_on_prism

FLIPS_PER_FIGHT = 8  # flip stream index of template j of fight f: f * FLIPS_PER_FIGHT + j
LATE_FLIPS = 1 << 40  # the fight's flips past the first FLIPS_PER_FIGHT: from here on, per fight
LATE_FLIPS_PER_FIGHT = 1 << 16


def piece_ids(name: str) -> list[str]:
    """The body ids of a template's pieces (Explosion: two), as the flip world names them."""
    spec = load_template(name)
    return [spec.name] if spec.count == 1 else [f"{spec.name}-{k + 1}" for k in range(spec.count)]


@dataclass
class FightTemplates:
    """The templates lying on the board during one fight (shared by all the worlds of a source)."""

    fight: int = -1
    placed: dict[str, PlacedTemplate] = field(default_factory=dict)  # piece id -> pose it was flipped to
    names: dict[str, str] = field(default_factory=dict)  # piece id -> template name
    flips: list[FlipResult] = field(default_factory=list)  # this fight's flips (attempts, damage)

    def reset(self, fight: int) -> None:
        """A new fight: no template on the board ("Remove all Templates from the target board during
        the Resting phase")."""
        self.fight = fight
        self.placed.clear()
        self.names.clear()
        self.flips = []

    def keep(self, names: Sequence[str]) -> list[str]:
        """Only templates still listed stay on the board; returns the piece ids removed."""
        gone = [t for t, n in self.names.items() if n not in names]
        for t in gone:
            self.placed.pop(t, None)
            del self.names[t]
        return gone


def flip_index(fight: int, j: int) -> int:
    """The flip stream index of the fight's j-th template flip: `f * FLIPS_PER_FIGHT + j` for the
    first `FLIPS_PER_FIGHT` (the start of the combat's among them), later ones past every fight's."""
    if j < FLIPS_PER_FIGHT:
        return fight * FLIPS_PER_FIGHT + j
    return LATE_FLIPS + fight * LATE_FLIPS_PER_FIGHT + (j - FLIPS_PER_FIGHT)


def flip_fight_templates(
    state: FightTemplates,
    board: BoardSpec,
    names: Sequence[str],
    seed: int,
    fight: int,
    skill: str = "casual",
    dice: Mapping[str, tuple[DieSpec, Sequence[float], Sequence[float]]] | None = None,
    scenario=None,
    first: int = 0,
) -> list[str]:
    """Flip templates onto the board one after the other in one flip world (each lands on those
    flipped before it, on the templates lying there already and on the `scenario`'s standing props);
    `dice` (slot -> die spec, position m, orientation xyzw) rest on the board. `first`: the fight's
    flips so far (0: the start of the combat, which replaces the last fight's templates); the
    template j of `names` (in the order given) is the fight's flip `first + j` (`flip_index`).
    `state.flips` holds this call's flips. Returns the slots of the dice removed."""
    if first == 0 or state.fight != fight:
        state.placed.clear()
        state.names.clear()
    state.fight = fight
    state.flips = []
    left = dict(dice or {})
    removed: list[str] = []
    sk = skill if skill in FLIP_SKILLS else "casual"
    requests, name_of = [], {}
    for j, name in enumerate(names):
        spec = load_template(name)
        for k, tid in enumerate(piece_ids(name)):
            requests.append(FlipRequest(tid, spec, flip_index(fight, first + j) * 8 + k, sk))
            name_of[tid] = name
    on = [(f"die:{s}", d, p, q) for s, (d, p, q) in left.items()]
    laid = list(state.placed.values())
    session = flip_onto(board, requests, int(seed), laid=laid, dice=on, scenario=scenario)
    final = {t.id: t for t in session.placed}
    for r in session.results:
        state.flips.append(r)
        for a in r.attempts:
            for d in a.dice_removed:
                slot = d.removeprefix("die:")
                if slot in left:
                    del left[slot]
                    removed.append(slot)
        if r.placed is not None:
            # a die whose centre the resting template covers was landed on too (it may have been
            # pushed aside in the flip world, where dice are loose: the rule removes it all the same)
            for slot, (_d, pos, _q) in list(left.items()):
                if r.placed.footprint.contains(Point(float(pos[0]), float(pos[1]))):
                    del left[slot]
                    removed.append(slot)
    # every template where it lies after the last flip (a later one may have shoved it)
    for tid, t in final.items():
        state.placed[tid] = t
        state.names.setdefault(tid, name_of.get(tid, ""))
    return removed


class FightTemplateLayer(LyingOnBoard):
    """A thrower component: bodies for a fight's templates, laid at their flipped poses before every
    throw (parked if not on the board), so the thrown die's outcome reads them."""

    def __init__(
        self, thrower: Thrower, state: FightTemplates, names: Sequence[str], other_dice: Sequence[str] = ()
    ) -> None:
        self.state = state
        ph = thrower.physics
        self.ids = [t for n in sorted(names) for t in piece_ids(n)]
        bodies = [f"template:{t}" for t in self.ids]
        for n in sorted(names):
            spec = load_template(n)
            for t in piece_ids(n):
                add_template_body(
                    ph, spec, f"template:{t}", welded=True
                )  # as in experiments (sim/engine/templates.py)
        board = thrower.scenario.board
        if board is not None and bodies:
            templates_on_prism(ph, board, bodies, [*thrower.die_names, *other_dice])
        fit_template_materials(ph, bodies)
        for b in bodies:
            ph.park(b)

    def lay(self, thrower: Thrower) -> None:
        """Every template at the pose it was flipped to this fight, or parked."""
        ph = thrower.physics
        ph.renew_inertia()  # welded templates start every throw alike (Physics.renew_inertia); all set below
        placed = []
        for t in self.ids:
            p = self.state.placed.get(t)
            if p is None:
                ph.park(f"template:{t}")
            else:
                ph.set_state(f"template:{t}", p.position_m, p.orientation_xyzw)
                placed.append(p)
        thrower.templates = placed

    # ---- the Component protocol ----------------------------------------------------------------
    def prepare(self, thrower: Thrower, seed: int, index: int) -> None:
        """The fight's templates where they were flipped: the state decides, not the last throw."""
        self.lay(thrower)

    @contextlib.contextmanager
    def solving(self, thrower: Thrower) -> Iterator[None]:
        """The aimed release is solved with the templates parked; they come back afterwards."""
        saved, thrower.templates = thrower.templates, []
        for t in self.ids:
            thrower.physics.park(f"template:{t}")
        try:
            yield
        finally:
            thrower.templates = saved
            self.lay(thrower)

    def record_columns(self, thrower: Thrower, result: ThrowResult) -> dict[str, Any]:
        """`tpl_on_board`: the template pieces lying on the board during the throw."""
        return {"tpl_on_board": ",".join(t.id for t in thrower.templates)}
