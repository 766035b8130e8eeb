"""The throw: release -> step until rest -> classify. One `Thrower` (one world) per scenario per thread
(sim.engine.worlds).

The Thrower assembles the world of a scenario (table, board, dice, props, the rebound calibration),
holds its components (templates, a fight's board dice), throws, replays and places dice in it and
runs the rules pipeline on what the world's throw loop (sim/world/stepper.py) reports. The releases
come from its hand (sim/engine/hand.py) and the technique from its aim (sim/engine/aim.py), which
throws through this world's throw function.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from shapely.geometry import Point

from sim.engine.aim import AimSolver
from sim.engine.hand import Hand, Technique, shot_technique
from sim.engine.records import die_columns, outcome_columns, release_columns
from sim.engine.release import Release
from sim.rules.classifier import classify
from sim.rules.effects import apply_effects
from sim.rules.outcome import Outcome
from sim.rules.requirements import RequirementContext
from sim.rules.templates import apply_armor, apply_templates
from sim.seeding import Draw
from sim.specs.scenario import Scenario
from sim.specs.skill import SkillSpec
from sim.specs.template import PlacedTemplate
from sim.trace import EventTrace
from sim.vectors import matmul, row_norms
from sim.world.loop import run
from sim.world.physics import Physics
from sim.world.stepper import StepStats


def calibration_points(region, n: int, seed: int = 20241129) -> list[tuple[float, float]]:
    """Fixed pseudo-random points in a region for the rebound drop tests: the rebound of a flat drop
    varied with where the die met a triangle mesh (sd ~0.1 on the table; on convex solids it does not,
    sd < 0.001), so the calibration
    matches the *mean* over points, as dice land anywhere."""
    rng = np.random.Generator(np.random.PCG64(seed))
    if region.is_empty or region.area <= 0:
        raise ValueError("no area to drop calibration dice on")  # BoardSpec refuses boards without room
    x0, y0, x1, y1 = region.bounds
    pts: list[tuple[float, float]] = []
    while len(pts) < n:
        x, y = rng.uniform(x0, x1), rng.uniform(y0, y1)
        if region.contains(Point(x, y)):
            pts.append((float(x), float(y)))
    return pts


# drops per surface for the rebound calibration: one drop's rebound varies with where it lands and at
# which step phase (sd ~0.08 on the table), so the calibrated mean of 40 is good to ~0.013
REBOUND_DROPS = 40

# rebound calibration: drop points on the board are kept this far inside its edge, on the table in a
# ring this far outside the board
BOARD_DROP_INSET_M = 0.015
TABLE_DROP_RING_M = (0.05, 0.6)


@dataclass
class ThrowResult:
    """One throw: what went in (seed, releases) and what came out (per-die outcomes, trace)."""

    scenario_key: str
    seed: int | None
    index: int | None
    releases: list[Release]
    outcomes: list[Outcome]
    trace: EventTrace = field(repr=False, default_factory=EventTrace)
    # extra record columns contributed by attached components (templates: tpl_*, partial_as_*)
    extra: dict[str, Any] = field(default_factory=dict)
    # templates lying on the board after a `place` with templates (id, template, position_mm, yaw_deg)
    templates: list[dict[str, Any]] = field(default_factory=list)

    @property
    def outcome(self) -> Outcome:
        return self.outcomes[0]

    def to_json(self) -> dict:
        """The record of one throw: the first die's outcome plus seed, index, release, events, and per-die
        outcomes with the combined result when several dice were thrown."""
        d = self.outcome.to_json()
        d["seed"] = self.seed
        d["index"] = self.index
        d["release"] = self.releases[0].to_json() if self.releases else None
        d["events"] = [e.to_json() for e in self.trace.events]
        if self.templates:
            d["templates"] = self.templates
        if len(self.outcomes) > 1:
            d["dice"] = [o.to_json() for o in self.outcomes]
            from sim.rules.effects import combined_result

            d["combined"] = combined_result(self.outcomes)
        return d

    def record(self) -> dict:
        """Flat record of primitives: every input needed to replay the throw, and its outcome."""
        o = self.outcome
        r = self.releases[0]
        rec = {
            "seed": self.seed,
            "index": self.index,
            **release_columns(r),
            **outcome_columns(o, len(self.outcomes)),
        }
        for i, d in enumerate(self.outcomes[1:], start=1):
            rec.update(die_columns(i, d))
        rec.update(self.extra)
        return rec


class Component(Protocol):
    """Something attached to a thrower's world that takes part in every throw (templates on the board).

    Components are data and bodies in the same world, never subclasses of the thrower: the thrower
    asks each one, in order, to set up a throw, to say where to aim, to take part in solving the aimed
    release, and to add record columns."""

    def prepare(self, thrower: Thrower, seed: int, index: int) -> None:
        """Put this component's bodies in throw (seed, index)'s state."""

    def aim_point(self, thrower: Thrower) -> tuple[float, float] | None:
        """Where the thrower aims instead of the shot's aim point (None: the shot decides)."""

    def nominal_key(self, thrower: Thrower, key: tuple) -> tuple:
        """The cache key of the aimed release with this component attached."""

    def solving(self, thrower: Thrower) -> AbstractContextManager[None]:
        """The world state (and judging) while the aimed release is solved."""

    def judge_reference(self, outcomes: list[Outcome]) -> None:
        """Re-judge a reference throw of the aim solve (e.g. only hits on the aimed template count)."""

    def record_columns(self, thrower: Thrower, result: ThrowResult) -> dict[str, Any]:
        """Extra record columns of a throw."""


class LyingOnBoard:
    """The defaults of a component that only lies on the board (a fight's board dice or templates): no
    aim of its own, the aimed release solved as without it (under its own key), reference throws
    judged as usual. Subclasses add prepare, solving and record_columns."""

    def aim_point(self, thrower: Thrower) -> tuple[float, float] | None:
        """No aim of its own: the shot (or the request's target point) decides."""
        return None

    def nominal_key(self, thrower: Thrower, key: tuple) -> tuple:
        """The plain scenario's key: the aim is solved without this component's bodies."""
        return key

    def judge_reference(self, outcomes: list[Outcome]) -> None:
        """Reference throws are judged as usual."""
        return None


class Thrower:
    """Owns the PyBullet world for one scenario and throws in it."""

    # optional read-only observer of the throw loop (the viewer's trajectory recorder): an object with
    # start(physics, dice), sample(t) after every step and finish(t, trace); None = off
    recorder = None
    # read and write solved aimed releases (and rebound calibrations) in the user's cache folder
    # (sim/diskcache.py)
    disk_cache = True

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.templates: list[PlacedTemplate] = []  # templates lying on the board (set by a component)
        self.components: list[Component] = []
        self._solving = False
        # the release model and the technique's solver (it throws through this world's throw function)
        self.hand = Hand(scenario)
        self.aim = AimSolver(scenario, self.hand, self._reference_throw)
        self._prop_draw: tuple[int, int] | None = None
        # the skill of the releases `replay` throws, when not the scenario's (held props follow it)
        self._prop_skill: SkillSpec | None = None
        self.last_stats = StepStats()  # where the last throw's steps went (sim/world/stepper.py)
        self._build_world()
        # A scene with loose pieces (the Smash Shot's Stone Wall) carried some of its world's history
        # into a throw in its last digits (the cause in Bullet is not found), so its records followed
        # the order a world threw them in and the number of workers. Each of its throws is made in a
        # world built afresh, as a world's first throw: reproducible by construction, at a build's
        # cost each (55-70 ms against a 20 ms Smash throw). Not with templates attached (their
        # components own bodies).
        self._fresh_each_throw = any(rebuild is not None for _, _, rebuild in self.props.dynamic)

    def _build_world(self) -> None:
        """The PyBullet world of the scenario: table, board, dice, props, the rebound calibration."""
        sc = self.scenario
        self.physics = Physics(sc.physics, sc.materials)
        table_material = sc.board.table_material if sc.board else sc.shots[0].table_material
        self.physics.add_table(table_material, board=sc.board)
        if sc.board is not None:
            self.physics.add_board(sc.board)
            r = sc.board.radius_m
            r0, r1 = TABLE_DROP_RING_M
            self.physics.set_drop_points(
                "board",
                calibration_points(sc.board.surface.buffer(-BOARD_DROP_INSET_M), REBOUND_DROPS),
                sc.board.thickness_m,
            )
            ring = Point(0, 0).buffer(r + r1).difference(Point(0, 0).buffer(r + r0))
            self.physics.set_drop_points("table", calibration_points(ring, REBOUND_DROPS), 0.0)
        else:
            self.physics.set_drop_points(
                "table", calibration_points(Point(0, 0).buffer(TABLE_DROP_RING_M[1]), REBOUND_DROPS), 0.0
            )
        self.die_names = [f"die:{i}" for i in range(len(sc.dice))]
        for name, die in zip(self.die_names, sc.dice):
            self.physics.add_die(die, name)
        from sim.world.props import build_props  # props of the shots; none for plain shots

        self.props = build_props(self.physics, sc)
        # the rebound calibration depends on the world only, built before any throw: cached per machine
        # under the world's key (not the skill's, nor the rules')
        self.physics.finalize_materials(cache_key=[sc.world_key, "Thrower"] if self.disk_cache else None)
        reach = {
            name: float(row_norms(die.collision_points_m).max()) for name, die in zip(self.die_names, sc.dice)
        }
        self.ctx = RequirementContext(
            board=sc.board, rules=sc.rules, props=self.props.props, die_reach_m=reach
        )

    def _afresh(self) -> None:
        """Before a throw of a scene with loose pieces: the world built again (see `_fresh_each_throw`).
        Always, the first throw too: the first world of a scene may have calibrated its rebounds by
        dropping dice in it, the next ones read the calibration from the cache and drop none."""
        if self._fresh_each_throw and not self.components:
            self.physics.close()
            self._build_world()

    # ---------------- releases ----------------
    def attach(self, component: Component) -> None:
        """Attach a component (its bodies are already in this world)."""
        self.components.append(component)

    def aim_point(self) -> tuple[float, float] | None:
        """The point (m) the thrower aims at: a component's, else the shot's (None: no aim)."""
        for c in self.components:
            p = c.aim_point(self)
            if p is not None:
                return p
        rel = self.scenario.shot.release
        if rel.aim == "none" or self.scenario.board is None:
            return None
        if rel.aim == "bullseye":
            return self.scenario.board.bullseye_center_m
        if rel.aim == "center":
            return (0.0, 0.0)
        if rel.aim_mm is None:
            from sim.errors import SpecError

            raise SpecError(self.scenario.shot.source, "release.aim_mm", "is required when aim = 'point'")
        return (rel.aim_mm[0] * 1e-3, rel.aim_mm[1] * 1e-3)

    def technique_key(self, skill: SkillSpec | None = None) -> tuple:
        """The cache key of this world's technique: the scenario's aim key (it includes the skill: the
        reference throws carry the thrower's spread), as each component keys it, then the solver's."""
        key: tuple = (self.scenario.aim_key, "Thrower", None)
        for c in self.components:
            key = c.nominal_key(self, key)
        return self.aim.key(key, skill)

    @contextlib.contextmanager
    def _solving_world(self) -> Iterator[None]:
        """The world while the technique is solved: every component's solving state, reference throws
        judged by the components."""
        with contextlib.ExitStack() as stack:
            for c in self.components:
                stack.enter_context(c.solving(self))
            self._solving = True
            try:
                yield
            finally:
                self._solving = False

    def _reference_throw(self, releases: list[Release]) -> Outcome:
        self._afresh()
        return self.throw_releases(releases).outcome

    def technique(
        self, skill: SkillSpec | None = None, progress: Callable[[int, int], None] | None = None
    ) -> Technique:
        """The aimed release as practised (speed, elevation, grip, spin): the one given to this thrower
        (`set_nominal`), else solved once per scenario (and `skill`, when given in place of the
        scenario's) and kept by this thrower and on disk (sim/engine/aim.py). `progress`: the solve's
        observer for this call only (`AimSolver.progress`: reference throws made, at most)."""
        before = self.aim.progress
        if progress is not None:
            self.aim.progress = progress
        try:
            return self.aim.nominal(
                self.aim_point(), self.technique_key(skill), skill, self._solving_world, self.disk_cache
            )
        finally:
            self.aim.progress = before

    def nominal(
        self, skill: SkillSpec | None = None, progress: Callable[[int, int], None] | None = None
    ) -> tuple[float, float]:
        """(speed, elevation) of the aimed release (`technique`'s ballistic part)."""
        return self.technique(skill, progress).ballistic

    def set_objective(self, objective: str = "hit", need: int = 0) -> None:
        """What the aimed release maximises: "hit", "damage" or "kill" (`AimSolver.set_objective`)."""
        self.aim.set_objective(objective, need)

    def set_nominal(self, value: Technique | tuple[float, float]) -> None:
        """Throw `value` as this thrower's aimed release (under its current objective), in place of a
        solve: one solved elsewhere (the runner solves it once per run and passes it with each chunk);
        a bare (speed, elevation) is thrown the shot's own way (its grip and spin). This thrower only:
        `thrower_for` hands its world to the next caller without it."""
        if not isinstance(value, Technique):
            value = shot_technique(self.scenario, float(value[0]), float(value[1]))
        self.aim.give(self.technique_key(), value)

    def release_for(self, draw: Draw, skill: SkillSpec | None = None) -> list[Release]:
        """The releases (one per die) for a throw's random draw: the shot's nominal release perturbed by
        the skill's noise (sim/engine/hand.py). `skill` replaces the scenario's, with its own technique
        (`dfsim fit-skill` throws the same draws with many skills in one world)."""
        return self.hand.releases(draw, self.technique(skill), self.aim_point(), skill=skill)

    # ---------------- throwing ----------------
    def throw(self, root_seed: int, index: int) -> ThrowResult:
        """Throw k of a seed: its drawn releases, in its own per-throw world state."""
        return self.replay(None, root_seed, index)

    def prepare(self, seed: int, index: int) -> None:
        """Put the world in throw (seed, index)'s own per-throw state, exactly as `throw` does: components
        set up (templates laid back or flipped), and hand-held props are jittered by the throw's prop
        stream when it starts. The state holds for the next throw `replay` or `throw` runs."""
        for c in self.components:
            c.prepare(self, seed, index)
        self._prop_draw = (int(seed), int(index))

    def replay(
        self, releases: list[Release] | None, seed: int, index: int, skill: SkillSpec | None = None
    ) -> ThrowResult:
        """Throw (seed, index) in its prepared state; with `releases`, those exact releases instead of the
        drawn ones (a stored throw thrown again: the same record, bit for bit, when they are its own).
        `skill`: the skill `releases` were drawn with when it is not the scenario's (`release_for`'s
        `skill`), so that props held by the thrower are held as steadily as that skill holds them."""
        self._afresh()
        self.prepare(seed, index)
        self._prop_skill = skill
        try:
            if releases is None:
                releases = self.release_for(Draw.for_throw(seed, index), skill)
            res = self.throw_releases(list(releases))
        finally:
            self._prop_draw = None
            self._prop_skill = None
        res.seed, res.index = int(seed), int(index)
        for c in self.components:
            res.extra.update(c.record_columns(self, res))
        return res

    def throw_releases(self, releases: list[Release], placed: bool = False) -> ThrowResult:
        """Throw the dice from exact releases and run the rules pipeline (classify, templates, effects,
        the Armor's -1);
        dice without a release are parked. `placed`: dice set down by hand, no throw requirements."""
        ph = self.physics
        if len(releases) > len(self.die_names):
            raise ValueError(f"{len(releases)} releases for {len(self.die_names)} dice")
        active = self.die_names[: len(releases)]
        for name in self.die_names[len(releases) :]:
            ph.park(name)
        self.props.start(self._prop_draw, self._prop_skill)
        for name, r in zip(active, releases):
            ph.set_state(name, r.position_m, r.orientation_xyzw, r.velocity_mps, r.spin_radps)
        # the throw loop (adaptive flight, rest test; sim/world/stepper.py); step counts kept for the bench
        rests, trace, self.last_stats = run(ph, self.scenario.physics, self.props, active, self.recorder)
        # the rules pipeline: board reading -> templates on the board -> props' and special dice's effects
        sc = self.scenario
        templates = self.templates
        outcomes = []
        for rest, die in zip(rests, sc.dice):
            o = classify(rest, die, sc.board, trace, sc.rules, sc.requirements, self.ctx, placed=placed)
            if templates and o.result != "void":
                o = apply_templates(o, rest, die, sc.board, templates, sc.rules)
            outcomes.append(o)
        outcomes = apply_effects(outcomes, sc, self.ctx, trace, placed=placed)
        if templates:
            outcomes = apply_armor(outcomes, templates)
        if self._solving:
            for c in self.components:
                c.judge_reference(outcomes)
        return ThrowResult(self.scenario.key, None, None, list(releases), outcomes, trace)

    def place(
        self, x_m: float, y_m: float, yaw_deg: float = 0.0, up: str | None = None, drop_mm: float = 1.0
    ) -> ThrowResult:
        """Put die 0 at (x, y) with face `up` read (yaw about z), let it settle, classify it."""
        return self.throw_releases([self.place_release(x_m, y_m, yaw_deg, up, drop_mm)], placed=True)

    def place_release(
        self,
        x_m: float,
        y_m: float,
        yaw_deg: float = 0.0,
        up: str | None = None,
        drop_mm: float = 1.0,
        surfaces: tuple = (),
    ) -> Release:
        """The motionless release `drop_mm` above whatever lies under (x, y): table, board, the
        scenario's props, or any of `surfaces` ((footprint polygon, top z in m) pairs, e.g. laid
        templates)."""
        from sim.errors import SpecError
        from sim.specs.die import quat_to_matrix

        die = self.scenario.dice[0]
        face = 0
        if up is not None:
            try:
                face = die.face_index(up)
            except KeyError:
                raise SpecError(
                    die.source, "faces", f"die has no face labelled '{up}' (faces: {', '.join(die.faces)})"
                ) from None
        q = die.orientation_with_face(face, up=die.reading_rule == "top", yaw_deg=yaw_deg)
        pts = matmul(die.collision_points_m, quat_to_matrix(q).T)
        foot = _hull(pts[:, :2] + np.array([x_m, y_m]))
        board = self.scenario.board
        z_surface = board.thickness_m if board is not None and board.surface.intersects(foot) else 0.0
        for footprint, top in surfaces:
            if footprint.intersects(foot):
                z_surface = max(z_surface, top)
        props = [n for n in self.physics.names() if n.startswith("prop:")]
        if props:  # a prop under the die (the Volcano, a Slow token): set down on its highest point there
            xy = np.vstack([pts[:, :2] + np.array([x_m, y_m]), [[x_m, y_m]]])
            top = self.physics.top_under(xy, props)
            if top is not None:
                z_surface = max(z_surface, top)
        z = z_surface - pts[:, 2].min() + drop_mm * 1e-3
        return Release((x_m, y_m, z), (0.0, 0.0, 0.0), tuple(float(t) for t in q), (0.0, 0.0, 0.0))


def _hull(xy: np.ndarray):
    from shapely.geometry import MultiPoint

    return MultiPoint([tuple(p) for p in xy]).convex_hull
