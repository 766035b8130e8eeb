"""Physics in the loop: every throw of a fight is thrown in one persistent scene, with the dice of
earlier throws still lying where they came to rest.

The rulebook leaves thrown dice on the board until they are picked up: "Retrieve the 3 colored dice
from the board", "All dice are removed from the Target board when the Party retrieves dice and at the
end of each combat", and a re-throw "retrieves the die they just threw and throws it again". So a
later throw can strike a resting die, knock it into another section, or land on it. Resampling
recorded throws (sim/fights/resample.py) cannot see that; this source can.

How: `BoardDice` is a thrower component (like the templates' layer). It holds a pool of extra die
bodies in the thrower's world, one per colored die and a few for white dice, parked below the table.
The dice lying on the board are data, a `BoardState` shared by all the worlds of one source (a
fight's throws may need several worlds: heroes of different skill, weapons' shots): before every
throw each pool body is set at the pose its die rests at (or parked). The thrower always throws its
own die body; when that die comes to rest on the board, its pose is handed to the pool body of its
colour and the thrown body is parked. A die resting off the board (on the table: a miss) is picked
up. After the throw, board dice the throw moved are settled (the whole world stepped until they
rest) and read again: their new sections are recorded in `BoardState.moves` (the fight rules use no
section of a die already on the board, so nothing else reads them).

Streams: throw t of fight f is throw index `f * 1000 + t` of the source's root seed (the plain
thrower's `Draw.for_throw(seed, f * 1000 + t)`); the board is cleared when fight f starts. A fight
depends on (root seed, f) only, never on the worker count or on other fights; with an empty board a
throw is the very throw the plain thrower makes with that index.

Templates: the rules engine asks for every flip (`flip`: at the start of the combat, and when a card
flips one during it), from the stream (root seed, fight); the templates lie at the poses their flips
left them for every later throw of the fight; a template the requests stop listing (the Armor after a
die landed on it) leaves the board, and a template flipped onto a die resting on the board removes
that die (sim/fights/board_templates.py).

Aiming: the aimed release is solved with the board dice parked (an empty board, shared with the plain
scenario) for the request's objective: "hit" (most hits, the default), "damage" (the highest expected
damage) or "kill" (the best chance to deal the monster's remaining life), each solved once per scenario
and cached; an `Aim` with a target point aims there.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from shapely.geometry import Point

from sim.engine.thrower import LyingOnBoard, Thrower, ThrowResult
from sim.engine.worlds import build_thrower
from sim.fights.board_templates import FightTemplateLayer, FightTemplates, flip_fight_templates
from sim.fights.monster import WATER
from sim.fights.party import CHEST_DICE, COLOURS
from sim.fights.throw_source import TemplateFlip, TemplateFlipRequest, ThrowRequest
from sim.rules.classifier import classify
from sim.rules.outcome import Outcome
from sim.specs.die import DieSpec, load_die
from sim.specs.scenario import Scenario
from sim.specs.skill import SPREADS
from sim.specs.template import load_template
from sim.trace import DieRest
from sim.vectors import dot, norm
from sim.world.templates import fit_template_materials

THROWS_PER_FIGHT = 1000  # stream index of throw t of fight f: f * THROWS_PER_FIGHT + t
# white dice that can lie on the board at once: every white die of a full Chest ("You cannot have
# more than 9 Bonus dice in your Chest!"; each is thrown once per combat)
WHITE_SLOTS = CHEST_DICE
MOVED_M = 0.5e-3  # a board die displaced more than this (or turned more than MOVED_DEG) was struck
MOVED_DEG = 1.0
SETTLE_S = 3.0  # longest settle of struck dice after the thrown die rests


@dataclass
class BoardDie:
    """A die lying on the board: which slot (colour or white-k), its die file, where it rests and how
    it reads there."""

    slot: str
    die: str
    position_m: tuple[float, ...]
    orientation_xyzw: tuple[float, ...]
    section: str | None
    result: str


@dataclass
class BoardState:
    """The dice lying on the board during one fight, and the log of dice later throws moved."""

    fight: int = -1
    turn: int = -1
    retrievals: int = 0
    last_slot: str | None = None
    dice: dict[str, BoardDie] = field(default_factory=dict)
    moves: list[dict[str, Any]] = field(default_factory=list)  # (fight, throw, slot, from/to section)

    def clear(self) -> None:
        """Every die leaves the board (a retrieval, a new fight)."""
        self.dice.clear()
        self.last_slot = None


def _slot_body(slot: str) -> str:
    return f"die:board-{slot}"


class BoardDice(LyingOnBoard):
    """A thrower component: pool bodies for the dice lying on the board (see the module docstring)."""

    def __init__(self, thrower: Thrower, state: BoardState, colored: DieSpec, white: DieSpec) -> None:
        self.state = state
        ph = thrower.physics
        thrown = thrower.die_names[0]
        self.specs: dict[str, DieSpec] = {c: colored for c in COLOURS}
        self.specs.update({f"white-{k}": white for k in range(WHITE_SLOTS)})
        names = []
        for slot, spec in self.specs.items():
            name = _slot_body(slot)
            ph.add_die(spec, name)
            names.append(name)
        # surfaces: a pool die of the thrown die's material gets its factor (the same body, as solved);
        # another material is fitted against the final bodies (templates do the same)
        same = [
            n for n, s in zip(names, self.specs.values()) if s.material == thrower.scenario.dice[0].material
        ]
        f, e = ph.surface(thrown)
        for n in same:
            ph.set_surface(n, f, e)
        other = [n for n in names if n not in same]
        if other:
            fit_template_materials(ph, other)
        for n in names:
            pair = ph.materials.pair(ph.material_of(thrown), ph.material_of(n))
            if pair is not None and pair.contact_damping > 0:
                ph.set_pair_damping(thrown, n, pair.contact_damping)
            ph.park(n)
        self.bodies = names

    # ---- the Component protocol ----------------------------------------------------------------
    def place(self, thrower: Thrower) -> None:
        """Every pool body at its die's resting pose, or parked."""
        ph = thrower.physics
        for slot in self.specs:
            d = self.state.dice.get(slot)
            if d is None:
                ph.park(_slot_body(slot))
            else:
                ph.set_state(_slot_body(slot), d.position_m, d.orientation_xyzw)

    def prepare(self, thrower: Thrower, seed: int, index: int) -> None:
        """The board dice where they rest: the state decides, never what the world did before."""
        self.place(thrower)

    @contextlib.contextmanager
    def solving(self, thrower: Thrower) -> Iterator[None]:
        """The aimed release is solved on the empty board; the board dice come back afterwards."""
        for n in self.bodies:
            thrower.physics.park(n)
        try:
            yield
        finally:
            self.place(thrower)

    def record_columns(self, thrower: Thrower, result: ThrowResult) -> dict[str, Any]:
        """`board_dice`: the slots of the dice lying on the board during the throw."""
        return {"board_dice": ",".join(sorted(self.state.dice))}

    # ---- after a throw ---------------------------------------------------------------------------
    def after_throw(
        self, thrower: Thrower, result: ThrowResult, slot: str | None, die: str, req: ThrowRequest
    ) -> None:
        """Settle and re-read the board dice the throw moved; leave the thrown die on the board (or pick
        it up from the table)."""
        ph = thrower.physics
        sc = thrower.scenario
        moved = []
        for s, d in self.state.dice.items():
            p, q = ph.die_pose(_slot_body(s))
            dq = abs(dot(q, d.orientation_xyzw))
            turned = math.degrees(2 * math.acos(min(1.0, dq)))
            if float(norm(p - np.array(d.position_m))) > MOVED_M or turned > MOVED_DEG:
                moved.append(s)
        thrown = thrower.die_names[0]
        if moved:
            ph.settle([_slot_body(s) for s in moved] + [thrown], SETTLE_S)
            for s in moved:
                d = self.state.dice[s]
                name = _slot_body(s)
                p, q = ph.die_pose(name)
                rest = DieRest(
                    name,
                    tuple(float(v) for v in p),
                    tuple(float(v) for v in q),
                    ph.touching(name),
                    "rest",
                    0.0,
                )
                o = classify(
                    rest, self.specs[s], sc.board, result.trace, sc.rules, [], thrower.ctx, placed=True
                )
                self.state.moves.append(
                    {
                        "fight": req.fight,
                        "throw": req.throw,
                        "slot": s,
                        "from": d.section,
                        "to": o.section,
                        "from_result": d.result,
                        "to_result": o.result,
                        "shift_mm": round(float(norm(p - np.array(d.position_m))) * 1e3, 2),
                    }
                )
                if o.result == "void" or not _on_board(sc, p):
                    del self.state.dice[s]  # knocked off the board onto the table: picked up
                else:
                    self.state.dice[s] = BoardDie(
                        s, d.die, tuple(float(v) for v in p), tuple(float(v) for v in q), o.section, o.result
                    )
        o = result.outcome
        p, q = ph.die_pose(thrown)
        if slot is not None and o.result != "void" and _on_board(sc, p):
            self.state.dice[slot] = BoardDie(
                slot, die, tuple(float(v) for v in p), tuple(float(v) for v in q), o.section, o.result
            )
            self.state.last_slot = slot
        else:
            self.state.last_slot = None
        ph.park(thrown)
        self.place(thrower)


def _on_board(sc: Scenario, p) -> bool:
    return sc.board is not None and bool(sc.board.outline_geom.contains(Point(float(p[0]), float(p[1]))))


class PhysicsSource:
    """`ThrowSource` throwing every request in a physics world with the fight's dice on the board.

    `PhysicsSource(seed, colored_die="hero-d8", white_die="white-d8")`; `physics` are settings for
    every scenario (e.g. `{"step_hz": 480}`). One source per thread: its worlds are its own."""

    def __init__(
        self,
        seed: int,
        colored_die: str = "hero-d8",
        white_die: str = "white-d8",
        physics: dict[str, Any] | None = None,
    ) -> None:
        self.seed = int(seed)
        self.colored_die, self.white_die = colored_die, white_die
        self.colored, self.white = load_die(colored_die), load_die(white_die)
        self.physics = dict(physics or {})
        self.state = BoardState()
        self.templates = FightTemplates()
        self.throwers: dict[tuple, tuple[Thrower, BoardDice]] = {}
        self.throws = 0
        self.last: ThrowResult | None = None
        # what a command shows while fights play: called after every throw (throws so far), and with a
        # new scenario's aim solve (reference throws made, at most)
        self.on_throw: Callable[[int], None] | None = None
        self.aim_progress: Callable[[int, int], None] | None = None

    def scenario(self, req: ThrowRequest) -> Scenario:
        """The request's scenario: its die, shots, skill, board and rules, noise and aim point (its
        templates are no part of it: they are the fight's, see `world`)."""
        overrides: dict[str, Any] = {}
        if req.noise_factor != 1.0:
            from sim.specs.skill import load_skill

            sk = load_skill(req.skill)
            overrides.update({f"skill.{k}": getattr(sk, k) * req.noise_factor for k in SPREADS})
        if req.aim.target_mm is not None:
            overrides.update({"shot.release.aim": "point", "shot.release.aim_mm": list(req.aim.target_mm)})
        return Scenario.build(
            board=req.board,
            dice=[req.die],
            shots=list(req.shots),
            skill=req.skill,
            rules=dict(req.rules),
            overrides=overrides,
            physics=self.physics,
            source="physics fight",
        )

    def world(self, req: ThrowRequest) -> tuple[Thrower, BoardDice]:
        """The request's world (built once per scenario) with its board-dice component and, if the request
        lists templates, a component laying the fight's flipped templates (sim/fights/board_templates.py)."""
        key = (
            req.die,
            req.shots,
            req.skill,
            req.board,
            req.templates,
            req.rules,
            req.noise_factor,
            req.aim.target_mm,
        )
        w = self.throwers.get(key)
        if w is None:
            th = build_thrower(self.scenario(req))
            th.aim.progress = self.aim_progress
            layer = BoardDice(th, self.state, self.colored, self.white)
            th.attach(layer)
            if req.templates:
                th.attach(FightTemplateLayer(th, self.templates, req.templates, layer.bodies))
            w = self.throwers[key] = (th, layer)
        return w

    def _pick_up(self, req: ThrowRequest) -> None:
        st = self.state
        if req.fight != st.fight:  # "at the end of each combat": a new fight starts on an empty board
            st.clear()
            st.fight, st.turn, st.retrievals = req.fight, req.turn, req.retrievals
            return
        if req.retrievals != st.retrievals:
            st.clear()
            st.retrievals = req.retrievals
        elif req.turn == st.turn and st.last_slot is not None:  # a re-throw picks up the die just thrown
            st.dice.pop(st.last_slot, None)
        st.turn = req.turn

    def flip(self, request: TemplateFlipRequest) -> list[TemplateFlip]:
        """The hero flips the request's templates onto the board as it lies now (dice, templates,
        the standing props of the fight's shots), re-flipped until each stays; dice they land on are
        removed. The fight's first flip starts the fight's board afresh."""
        if request.fight != self.state.fight:  # a new fight: last fight's dice are gone
            self.state.clear()
            self.state.fight, self.state.turn, self.state.retrievals = request.fight, -1, request.retrievals
        elif request.retrievals != self.state.retrievals:
            self.state.clear()
            self.state.retrievals = request.retrievals
        if request.fight != self.templates.fight:
            self.templates.reset(request.fight)
        else:
            self.templates.keep(request.on_board)
        sc = Scenario.build(
            board=request.board,
            dice=[self.colored_die],
            shots=list(request.shots or ("standard",)),
            skill="casual",
            physics=self.physics,
            source="physics fight",
        )
        assert sc.board is not None, "templates are flipped onto a board"
        dice = {s: (load_die(d.die), d.position_m, d.orientation_xyzw) for s, d in self.state.dice.items()}
        for slot in flip_fight_templates(
            self.templates,
            sc.board,
            request.templates,
            self.seed,
            request.fight,
            request.skill,
            dice,
            scenario=sc,
            first=request.flip,
        ):
            self.state.dice.pop(slot, None)
        out = []
        for name in request.templates:
            mine = [r for r in self.templates.flips if r.template == load_template(name).name]
            out.append(
                TemplateFlip(
                    name,
                    any(r.placed is not None for r in mine),
                    sum(r.damage for r in mine),
                    sum(r.flips for r in mine),
                )
            )
        return out

    def _templates(self, req: ThrowRequest) -> None:
        """The templates lying on the board: those flipped this fight (`flip`) that the request still
        lists (the Armor leaves once a die landed on it). A caller that never flips (a bare request
        listing templates) gets them flipped at the fight's first throw, as a start-of-combat flip."""
        if req.fight != self.templates.fight:
            self.templates.reset(req.fight)
            if req.templates:
                self.flip(
                    TemplateFlipRequest(
                        req.fight,
                        0,
                        req.hero,
                        tuple(sorted(req.templates)),
                        req.skill,
                        req.board,
                        (),
                        req.turn,
                        req.retrievals,
                        req.shots,
                    )
                )
        else:
            self.templates.keep(req.templates)

    def _slot(self, req: ThrowRequest) -> str | None:
        if req.kind == "special":  # thrown among the board's dice, then back to the supply (no pool body)
            return None
        if req.kind != "white":
            return req.colour
        for k in range(WHITE_SLOTS):
            if f"white-{k}" not in self.state.dice:
                return f"white-{k}"
        raise RuntimeError(f"more than {WHITE_SLOTS} white dice on the board at once")

    def throw(self, request: ThrowRequest) -> Outcome:
        """Pick up what leaves the board, throw (seed, f * 1000 + t), leave the die where it rests."""
        if request.kind == "special" and request.die == WATER:
            raise NotImplementedError(
                "the three Water dice are not thrown with physics in the loop yet: "
                "play with --engine resample (the throw bank)"
            )
        if not 0 <= request.throw < THROWS_PER_FIGHT:
            raise ValueError(f"throw index {request.throw} outside 0..{THROWS_PER_FIGHT - 1}")
        self._pick_up(request)
        self._templates(request)
        th, layer = self.world(request)
        slot = self._slot(request)
        if slot is not None:
            self.state.dice.pop(slot, None)  # the die thrown is in the hand, not on the board
        th.set_objective(request.aim.objective, request.monster_life)
        res = th.throw(self.seed, request.fight * THROWS_PER_FIGHT + request.throw)
        layer.after_throw(th, res, slot, request.die, request)
        self.throws += 1
        self.last = res
        if self.on_throw is not None:
            self.on_throw(self.throws)
        return res.outcome
