"""Templates in experiments: laid at fixed poses, or flipped before every throw.

A scenario (and so an experiment variant) may carry `templates = [...]`, each entry a table:

    { name = "fireball", x_mm = 0, y_mm = 0, yaw_deg = 0 }        # laid flat there, face up
    { name = "weak-point", flip = true, skill = "casual" }        # flipped before every throw
    { name = "weak-point", flip = true, aim_mm = [100, 0] }       # ... aimed at a point
    aim = true                                                     # the thrower aims at this one

A laid template is settled once and put back at exactly its settled pose before every throw.
Flipped templates lie where a flip session onto the empty board (sim/world/flip.py: laid templates and
the props standing at a flip there, re-flips included) left them. The scenario's `flip_bank` decides
which session: by default one of its flip bank's sessions, each made once per machine when a throw first
takes it (sim/engine/flip_bank.py: throw k of seed s takes the entry its own stream STREAM_FLIP_BANK
picks); with `flip_bank = 0` a session
made afresh before every throw (the records of before the bank), where throw k of seed s uses flip
8k + j of seed s for its j-th flipped template (random stream STREAM_TEMPLATES). Either way the throw's
own stream is untouched, so a variant with and without the template throw the same dice releases.
With `aim = true` on a laid template the thrower aims at its centre instead of the shot's aim point
(a flipped template's aim is where it was meant to land, `aim_mm` or the board centre: the thrower's
technique is solved once per scenario, not per throw).

Each throw's record gains: `tpl_flips`, `tpl_flip_damage` (1 per landing touching the table),
`tpl_turned_too_little`, `tpl_not_flat` (landings not lying flat, flipped again), `tpl_hangs_off`,
`tpl_stayed` (every flipped piece stayed), `tpl_on_board`
(templates lying on the board at the throw), `tpl_full` (the die was fully on a template), and
`partial_as_<option>` for every partial-template option (what this landing would count as:
"", "none", "normal", "miss" or "template:<name>").
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from sim.engine.flip_bank import CACHE_KIND, BankEntry, FlipBank, FlipTally, bank_stem
from sim.engine.thrower import Thrower, ThrowResult
from sim.rules.outcome import Outcome
from sim.rules.templates import PARTIAL_OPTIONS, partial_counts
from sim.specs.flip import FlipProfile
from sim.specs.scenario import Scenario
from sim.specs.template import PlacedTemplate, TemplateSpec, flat_pose, load_template
from sim.specs.template_setup import TemplateSetup
from sim.trace import DieRest
from sim.world.flip import (
    RENEWALS,
    FlipRequest,
    FlipResult,
    FlipWorld,
    add_template_body,
    flip_onto,
    props_at_flip,
)
from sim.world.templates import fit_template_materials, templates_on_prism

# a prop's placement spreads (sim/specs/prop.py, Jitter): any of them set moves it from throw to throw
_PLACEMENT_SPREADS = ("x_sd_mm", "y_sd_mm", "z_sd_mm", "yaw_sd_deg", "tilt_sd_deg")


class TemplateLayer:
    """The templates of a scenario as a component of a thrower's world: bodies laid once (or flipped
    before every throw), the aim they offer, and the record columns they add."""

    def __init__(self, thrower: Thrower) -> None:
        scenario = thrower.scenario
        ph = thrower.physics
        self.pieces: list[tuple[str, TemplateSpec, TemplateSetup]] = []
        counts: dict[str, int] = {}
        for setup in scenario.templates:
            spec = load_template(setup.name)
            n = spec.count if setup.flip else 1
            for _ in range(n):
                counts[spec.name] = counts.get(spec.name, 0) + 1
                tid = spec.name if counts[spec.name] == 1 else f"{spec.name}-{counts[spec.name]}"
                self.pieces.append((tid, spec, setup))
        # Rule T4 (RuleSet.template_already_on_board): a flipped entry whose template is already on the
        # board (an earlier entry laid or flipped it) is left out ("leave") or takes that template
        # off the board to flip it again ("reflip")
        self._flip_worlds: dict[tuple, FlipWorld] = {}  # reused by `prepare` (sim/world/flip.py, new_session)
        self.left: set[int] = set()  # id() of flipped setups not flipped: their template lies there
        self.taken: set[str] = set()  # piece ids taken off the board to be flipped again
        lying: dict[str, list[str]] = {}  # template name -> piece ids on the board so far
        seen: set[int] = set()
        for tid, spec, setup in self.pieces:
            first = id(setup) not in seen
            seen.add(id(setup))
            if id(setup) in self.left:
                continue
            if first and setup.flip and lying.get(spec.name):
                if scenario.rules.template_already_on_board == "leave":
                    self.left.add(id(setup))
                    continue
                self.taken.update(lying.pop(spec.name))
            lying.setdefault(spec.name, []).append(tid)
        for tid, spec, _ in self.pieces:
            # a multi-piece template as convex bodies welded together (sim/world/welded.py: a compound's
            # contacts made a throw depend on the throws before it in this reused world)
            add_template_body(ph, spec, f"template:{tid}", welded=True)
        if scenario.board is not None and self.pieces:
            templates_on_prism(
                ph, scenario.board, [f"template:{t}" for t, _, _ in self.pieces], thrower.die_names
            )
        fit_template_materials(ph, [f"template:{t}" for t, _, _ in self.pieces])
        for name in thrower.die_names:
            ph.park(name)
        self.laid: dict[str, PlacedTemplate] = {}
        for tid, _spec, _setup in self.pieces:
            ph.park(f"template:{tid}")
        for tid, spec, setup in self.pieces:
            if setup.flip:
                continue
            pos, q = flat_pose(spec, setup.x_mm, setup.y_mm, setup.yaw_deg, 0.0)
            local = PlacedTemplate(tid, spec, pos, q)
            on_board = scenario.board is not None and scenario.board.surface.intersects(local.footprint)
            base = scenario.board.thickness_m if on_board else 0.0
            for other in self.laid.values():
                if other.footprint.intersects(local.footprint):
                    base = max(base, other.top_z_m)
            ph.set_state(f"template:{tid}", (pos[0], pos[1], base + spec.thickness_m / 2 + 0.001), q)
            ph.settle([f"template:{t}" for t in self.laid] + [f"template:{tid}"])
            for t in [*self.laid, tid]:
                p, qq = ph.die_pose(f"template:{t}")
                sp = spec if t == tid else self.laid[t].spec
                self.laid[t] = PlacedTemplate(t, sp, tuple(float(v) for v in p), tuple(float(v) for v in qq))
        thrower.templates = list(self.laid.values())
        self.specs = {tid: spec for tid, spec, _ in self.pieces}
        self.last_tally = FlipTally()  # the flip columns of the last throw's flips
        self.last_flips: list[FlipResult] = []  # the last throw's flips when made for it (not banked)
        self.aiming_at: str | None = None
        self._bank: FlipBank | None = None
        self._flips = bool(self._requests(0))  # whether any template is flipped before a throw
        self._banked: bool | None = None  # whether those flips come from the flip bank (`banked`)
        self._installed: str | None = None  # the key of the bank whose shipped entries are kept

    def _aim_target(self) -> str | None:
        for tid, _spec, setup in self.pieces:
            if setup.aim and tid in self.laid:
                return tid
        return None

    def aim_point(self, thrower: Thrower) -> tuple[float, float] | None:
        """The centre of the laid template marked `aim = true`, if any."""
        target = self._aim_target()
        if target is None:
            return None
        x, y = self.laid[target].position_m[:2]
        return (float(x), float(y))

    def nominal_key(self, thrower: Thrower, key: tuple) -> tuple:
        """Aiming at the board as usual: the template-free key, so variants with and without templates
        share one aimed release (and throw the very same releases); aiming at a template: its own."""
        target = self._aim_target()
        if target is None:
            return (thrower.scenario.board_aim_key, key[1], key[2])
        return (key[0], "templates", self.laid[target].spec.name)

    @contextlib.contextmanager
    def solving(self, thrower: Thrower) -> Iterator[None]:
        """Aimed at a template, the technique is the one that lands most reference throws fully or partly
        ON it; aimed at the board, it is solved with every template parked out of the way (bodies in
        separate islands never touch the die's bits), exactly as on the bare board."""
        target = self._aim_target()
        if target is not None:
            self.aiming_at = self.laid[target].spec.name
            try:
                yield
            finally:
                self.aiming_at = None
            return
        saved, thrower.templates = thrower.templates, []
        for tid, _spec, _setup in self.pieces:
            thrower.physics.park(f"template:{tid}")
        try:
            yield
        finally:
            thrower.templates = saved

    def judge_reference(self, outcomes: list[Outcome]) -> None:
        """While solving an aim at a template, a hit elsewhere is no success (the list's outcomes are
        replaced by copies that say so)."""
        if self.aiming_at is None:
            return
        for k, o in enumerate(outcomes):
            if o.result == "hit" and o.template != self.aiming_at:
                outcomes[k] = replace(o, result="miss")

    def prepare(self, thrower: Thrower, seed: int | None, index: int | None) -> None:
        """Lay every laid template back at its settled pose, and put the flipped ones where this throw's
        flip left them: the entry of the scenario's flip bank the throw picks (`flip_bank` > 0, see
        sim/engine/flip_bank.py; flipped now if it was never made), or a flip session made now
        (`flip_bank` = 0), one after the other in one flip world with the scenario's props (throw k's
        j-th flipped entry, piece p: flip stream index 8 (8k + j) + p of the run's seed); a flipped
        template lands on, and may shove, the templates already lying there."""
        ph = thrower.physics
        laid = self._laid()
        tally, placed = FlipTally(), laid
        self.last_flips = []
        if seed is not None and self._flips:
            if self.banked(thrower):
                entry = self.bank(thrower).pick(int(seed), int(index or 0))
                tally = entry.tally
                placed = [PlacedTemplate(tid, self.specs[tid], pos, q) for tid, pos, q in entry.placed]
            else:
                results, placed = self._session(thrower, int(seed), int(index or 0))
                tally, self.last_flips = FlipTally.of(results), results
        self.last_tally = tally
        # templates of several pieces (welded solids) start every throw with the same hidden state
        ph.renew_inertia()
        on = {t.id for t in placed}
        for tid, _spec, _setup in self.pieces:
            if tid not in on:
                ph.park(f"template:{tid}")
        for t in placed:
            ph.set_state(t.body_name, t.position_m, t.orientation_xyzw)
            # asleep until a die touches it: a card lying still on the board costs a bare throw's
            # step again each step it is awake (docs/physics.md, Cost); the throw loop rebuilds its
            # broadphase proxy before the first step, so nothing of its previous pose carries over
            ph.put_to_sleep(t.body_name)
        thrower.templates = placed

    def _laid(self) -> list[PlacedTemplate]:
        """The laid templates on the board at every throw (not those taken off to be flipped again)."""
        return [
            self.laid[tid] for tid, _spec, setup in self.pieces if not setup.flip and tid not in self.taken
        ]

    def _requests(self, index: int) -> list[FlipRequest]:
        """The flips of throw `index`: every piece of every flipped entry flipped (not left, Rule T4)."""
        requests: list[FlipRequest] = []
        flipped_done: set[int] = set()
        for _tid, spec, setup in self.pieces:
            if not setup.flip or id(setup) in flipped_done:
                continue
            flipped_done.add(id(setup))
            j = len(flipped_done) - 1
            if id(setup) in self.left:
                continue
            prof = FlipProfile(aim_mm=setup.aim_mm) if setup.aim_mm is not None else None
            ids = [t for t, _s, st in self.pieces if st is setup]
            for k, tid2 in enumerate(ids):
                requests.append(FlipRequest(tid2, spec, 8 * (8 * index + j) + k, setup.skill, prof))
        return requests

    def _session(
        self, thrower: Thrower, seed: int, index: int
    ) -> tuple[list[FlipResult], list[PlacedTemplate]]:
        """Flip throw (seed, index)'s templates now: the flips and the templates lying there after them."""
        laid = self._laid()
        requests = self._requests(index)
        board = thrower.scenario.board
        assert board is not None, "flipped templates need a board (checked when the scenario is built)"
        draw = (seed, index)
        specs = [(t.id, t.spec) for t in laid] + [(r.id, r.spec) for r in requests]
        key = tuple((tid, spec.name) for tid, spec in specs)
        world = None
        if not laid:  # sessions with laid templates get a world of their own (sim/world/flip.py, flip_onto)
            world = self._flip_worlds.get(key)
            if world is None or world.sessions >= RENEWALS:
                # one flip world per set of templates, reused (each session starts afresh, so a session
                # is the same in it as in a new world) and built again now and then (see RENEWALS)
                if world is not None:
                    world.physics.close()
                world = self._flip_worlds[key] = FlipWorld(
                    board, specs, scenario=thrower.scenario, prop_draw=draw
                )
        session = flip_onto(
            board, requests, seed, laid=laid, scenario=thrower.scenario, prop_draw=draw, world=world
        )
        placed = [PlacedTemplate(t.id, t.spec, t.position_m, t.orientation_xyzw) for t in session.placed]
        return session.results, placed

    # ---------------- the flip bank (sim/engine/flip_bank.py) ----------------
    def banked(self, thrower: Thrower) -> bool:
        """Whether this scenario's flips come from its flip bank: `flip_bank` > 0 and every prop
        standing at a flip at the same place for every throw (a prop jittered per throw would be met
        by the banked flips where another throw put it)."""
        if self._banked is None:  # the scenario and the templates left lying are the layer's for good
            self._banked = (
                thrower.scenario.flip_bank > 0
                and self._flips
                and not any(
                    getattr(spec.jitter, f)
                    for spec in props_at_flip(thrower.scenario)
                    for f in _PLACEMENT_SPREADS
                )
            )
        return self._banked

    def bank_key(self, thrower: Thrower) -> list:
        """What the bank's flips depend on (`flip_bank_key`, with the laid templates' settled poses)."""
        return flip_bank_key(thrower.scenario, self._laid())

    def bank(self, thrower: Thrower) -> FlipBank:
        """This scenario's flip bank, its entries flipped here (in this layer's flip worlds) when first
        needed and neither in memory nor on disk."""
        if self._bank is None:
            self._bank = FlipBank(
                self.bank_key(thrower),
                thrower.scenario.flip_bank,
                frozenset(self.specs),
                lambda seed, e: BankEntry(*_entry_of(self._session(thrower, seed, e))),
            )
        return self._bank

    def install_bank(self, thrower: Thrower, value: Any) -> None:
        """Keep the entries a run shipped to all its workers (prepared.json's `flip_bank`)."""
        bank = self.bank(thrower)
        if self._installed == bank.key and isinstance(value, dict) and value.get("key") == bank.key:
            return  # installed for an earlier chunk of this run
        bank.install(value)
        self._installed = bank.key

    def record_columns(self, thrower: Thrower, result: ThrowResult) -> dict[str, Any]:
        """The tpl_* and partial_as_* columns of a throw (see the module docstring)."""
        cols = _template_columns(result, thrower, self.last_tally)
        cols["tpl_left_on_board"] = len(self.left)  # flip entries not flipped: already there (Rule T4)
        return cols


def flip_bank_key(scenario: Scenario, laid: Sequence[PlacedTemplate] = ()) -> list:
    """What a scenario's flip bank's flips depend on (sim/engine/flip_bank.py): board, materials, props,
    templates (the laid ones at their settled poses), the rule choosing the flipped ones, the flip
    profile, the size; the code and the machine are the disk cache's salt."""
    d = scenario.describe()
    return [
        "flip-bank",
        scenario.flip_bank,
        {k: d.get(k) for k in ("board", "materials", "props", "templates")},
        scenario.rules.template_already_on_board,
        [[t.id, list(t.position_m), list(t.orientation_xyzw)] for t in laid],
        FlipProfile().model_dump(mode="json"),
    ]


def flips_on_disk(scenario: Scenario) -> tuple[str, int, int] | None:
    """For a scenario whose every template is flipped from its flip bank (as a game's bank scenarios
    are), without a world: the bank's name, its size and how many of its entries this machine holds
    (a recording's time estimate counts the others). None when its flips come from no bank, or the
    bank's key needs a world (templates laid, whose settled poses key it)."""
    from sim import diskcache

    if not scenario.templates or scenario.flip_bank <= 0 or not all(t.flip for t in scenario.templates):
        return None
    if any(getattr(spec.jitter, f) for spec in props_at_flip(scenario) for f in _PLACEMENT_SPREADS):
        return None
    key = flip_bank_key(scenario)
    held = sum(diskcache.entry_path(CACHE_KIND, [key, j]).exists() for j in range(scenario.flip_bank))
    return bank_stem(key), scenario.flip_bank, held


def install_flip_bank(thrower: Thrower, value: Any) -> None:
    """Give a thrower's templates the flip bank entries a run shipped (prepared.json's `flip_bank`)."""
    layers = [c for c in thrower.components if isinstance(c, TemplateLayer)]
    if not layers or not layers[0].banked(thrower):
        raise ValueError("a flip bank was prepared for a scenario that draws no flips from one")
    layers[0].install_bank(thrower, value)


def prepared_flip_bank(thrower: Thrower) -> dict[str, Any]:
    """The flip bank of a thrower's templates as a run ships it to all workers: the entries already
    made on this machine (in memory or on disk; none flipped now, the workers flip the rest when a
    throw first needs one); {} when its flips do not come from a bank."""
    for c in thrower.components:
        if isinstance(c, TemplateLayer) and c.banked(thrower):
            bank = c.bank(thrower)
            bank.known()
            return {"flip_bank": bank.to_json()}
    return {}


def attach_templates(thrower: Thrower) -> TemplateLayer:
    """Attach the scenario's templates to a thrower's world."""
    layer = TemplateLayer(thrower)
    thrower.attach(layer)
    return layer


def _entry_of(session: tuple[list[FlipResult], list[PlacedTemplate]]) -> tuple[FlipTally, tuple]:
    """A flip session as a bank entry's fields (poses as plain floats)."""
    results, placed = session
    tally = FlipTally.of(results)
    poses = tuple(
        (t.id, tuple(float(v) for v in t.position_m), tuple(float(v) for v in t.orientation_xyzw))
        for t in placed
    )
    return tally, poses


def _template_columns(res: ThrowResult, th: Thrower, flips: FlipTally) -> dict[str, Any]:
    o = res.outcome
    rest = DieRest(
        o.die,
        tuple(v * 1e-3 for v in o.position_mm),
        tuple(o.orientation_xyzw),
        frozenset(o.touching),
        "rest" if o.result != "void" else "not-settled",
        o.time_s,
    )
    die = th.scenario.dice[0]
    counts = partial_counts(rest, die, th.templates) if th.templates and o.result != "void" else {}
    extra = {
        "tpl_flips": flips.flips,
        "tpl_flip_damage": flips.damage,
        "tpl_turned_too_little": flips.turned_too_little,
        "tpl_not_flat": flips.not_flat,
        "tpl_flip_ok": flips.ok,
        "tpl_pieces": flips.pieces,
        "tpl_hangs_off": flips.hangs_off,
        "tpl_stayed": flips.stayed,
        "tpl_reflips": flips.reflips,
        "tpl_on_board": ",".join(t.id for t in th.templates),
        "tpl_full": bool(o.template is not None and not o.partial_template),
    }
    for opt in PARTIAL_OPTIONS:
        extra[f"partial_as_{opt}"] = counts.get(opt, "")
    return extra


def flip_summary(records) -> dict[str, Any]:
    """Flip statistics from records (a pandas DataFrame with the tpl_ columns of flipped variants)."""
    n = len(records)
    flips = float(records["tpl_flips"].sum()) if n else 0.0
    pieces = float(records["tpl_pieces"].sum()) if n else 0.0
    if n == 0 or flips == 0:
        return {"n": n, "flips": 0}
    return {
        "n": n,
        "flips": int(flips),
        "p_lands_on_board": float(records["tpl_flip_ok"].sum() / flips),
        "p_hangs_off": float(records["tpl_hangs_off"].sum() / flips),
        "p_turned_too_little": float(records["tpl_turned_too_little"].sum() / flips),
        # landings not lying flat (on an edge, propped up); records from before the rule have no column
        "p_not_flat": float(records["tpl_not_flat"].sum() / flips) if "tpl_not_flat" in records else None,
        "mean_reflips": float((flips - pieces) / pieces),
        "mean_flips_until_it_stays": float(flips / pieces),
        "mean_flip_damage": float(records["tpl_flip_damage"].sum() / pieces),
        "p_never_stayed": float(1 - records["tpl_stayed"].mean()),
    }
