"""The throw: release -> step until rest -> classify. One `Thrower` (one world) per scenario per thread (sim.engine.worlds)."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from shapely.geometry import LineString, Point

from sim.engine.records import die_columns, outcome_columns, release_columns
from sim.engine.release import Release
from sim.engine.stepper import StepStats, run
from sim.hashing import json_hash
from sim.rules.classifier import classify
from sim.rules.effects import apply_effects
from sim.rules.outcome import Outcome
from sim.rules.requirements import RequirementContext
from sim.rules.templates import apply_armor, apply_templates
from sim.rules.throw_source import AIM_OBJECTIVES
from sim.rules.trace import EventTrace
from sim.seeding import Draw, random_quaternion
from sim.specs.die import quat_mul
from sim.specs.physics import GRAVITY
from sim.specs.scenario import Scenario
from sim.specs.skill import SPREADS, SkillSpec
from sim.specs.template import PlacedTemplate
from sim.vectors import dot, matmul, norm, row_norms
from sim.world.physics import Physics


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

_NOMINAL_CACHE: dict[tuple, tuple[float, float]] = {}
# rebound calibration: drop points on the board are kept this far inside its edge, on the table in a
# ring this far outside the board
BOARD_DROP_INSET_M = 0.015
TABLE_DROP_RING_M = (0.05, 0.6)
# the aim solve: reference throws (the thrower's own draws from this seed), fastest release considered, the
# miss distance given to a void reference throw, and the weight of the median miss (per metre) against
# one more reference hit
NOMINAL_REF_SEED = 12345
NOMINAL_MAX_SPEED_MPS = 15.0
NOMINAL_VOID_MISS_M = 9.0
NOMINAL_MISS_PER_HIT_M = 100.0
# releases: lowest hand height, and how further dice of one throw leave the same hand (lateral, up)
MIN_RELEASE_HEIGHT_M = 0.02
EXTRA_DIE_OFFSET_M = (0.02, 0.005)
# the solve screens every candidate on NOMINAL_REFS reference throws, then ranks the best
# NOMINAL_FINALISTS again on NOMINAL_FINAL_REFS (the same first throws and more): the choice of the best of
# twenty on sixteen noisy throws alone favours the luckiest candidate. While the leader's paired lead over
# the runner-up is within NOMINAL_SEPARATION_SE standard errors, the finalists throw twice as many
# reference throws, up to NOMINAL_MAX_FINAL_REFS: on a shot hit 20 % of the time (the Firewall) 64
# throws leave a standard error of 5 points, more than the techniques differ, and each skill's
# technique was then a lottery (an expert drew one 6 points below its best, no better than a casual's)
NOMINAL_REFS = 16
NOMINAL_FINALISTS = 3
NOMINAL_FINAL_REFS = 64
NOMINAL_MAX_FINAL_REFS = 256
NOMINAL_SEPARATION_SE = 2.0
NOMINAL_GAP_FACTORS = (0.5, 1.0, 1.5, 2.5)
NOMINAL_ELEVATIONS_DEG = (-10.0, 10.0, 25.0, 40.0, 55.0)


def clear_nominal_cache() -> None:
    """Forget the aimed releases held in memory (the disk cache stays): tests, and long-lived processes
    whose data files changed."""
    _NOMINAL_CACHE.clear()


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
        rec = {"seed": self.seed, "index": self.index, **release_columns(r), **outcome_columns(o, len(self.outcomes))}
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
    # optional progress observer of the aim solve: called (grid points done, total) before each; None = off
    aim_progress: Callable[[int, int], None] | None = None
    # read and write solved aimed releases (and rebound calibrations) in the user's cache folder (sim/diskcache.py)
    disk_cache = True

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.templates: list[PlacedTemplate] = []  # templates lying on the board (set by a component)
        self.components: list[Component] = []
        self._solving = False
        self.objective: tuple[str, int] = ("hit", 0)  # what the aimed release maximises (set_objective)
        sc = scenario
        self.physics = Physics(sc.physics, sc.materials)
        table_material = sc.board.table_material if sc.board else sc.shots[0].table_material
        self.physics.add_table(table_material, board=sc.board)
        if sc.board is not None:
            self.physics.add_board(sc.board)
            r = sc.board.radius_m
            r0, r1 = TABLE_DROP_RING_M
            self.physics.set_drop_points("board", calibration_points(sc.board.surface.buffer(-BOARD_DROP_INSET_M), REBOUND_DROPS),
                                         sc.board.thickness_m)
            ring = Point(0, 0).buffer(r + r1).difference(Point(0, 0).buffer(r + r0))
            self.physics.set_drop_points("table", calibration_points(ring, REBOUND_DROPS), 0.0)
        else:
            self.physics.set_drop_points("table", calibration_points(Point(0, 0).buffer(TABLE_DROP_RING_M[1]), REBOUND_DROPS), 0.0)
        self.die_names = [f"die:{i}" for i in range(len(sc.dice))]
        for name, die in zip(self.die_names, sc.dice):
            self.physics.add_die(die, name)
        from sim.world.props import build_props  # props of the shots; none for plain shots

        self.props = build_props(self.physics, sc)
        self._prop_draw: tuple[int, int] | None = None
        self.last_stats = StepStats()  # where the last throw's steps went (sim/engine/stepper.py)
        # the rebound calibration depends on everything but the skill (as the aim does): cached per machine
        self.physics.finalize_materials(cache_key=[sc.aim_key, "Thrower"] if self.disk_cache else None)
        reach = {name: float(row_norms(die.collision_points_m).max()) for name, die in zip(self.die_names, sc.dice)}
        self.ctx = RequirementContext(board=sc.board, rules=sc.rules, props=self.props.props, die_reach_m=reach)

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

    def _geometry(self, distance_m: float, lateral_m: float, aim: tuple[float, float]):
        hand = np.array([-distance_m, lateral_m])
        tgt = np.array(aim)
        d = tgt - hand
        dist = float(norm(d))
        u = d / dist
        line = LineString([tuple(hand), tuple(tgt)])
        cross = line.intersection(self.scenario.board.outline_geom.exterior)
        if cross.is_empty:
            edge_s = dist - self.scenario.board.radius_m
        else:
            pts = np.array([[g.x, g.y] for g in getattr(cross, "geoms", [cross])])
            edge_s = float(np.min(matmul(pts - hand, u)))
        return hand, u, dist, edge_s

    @staticmethod
    def _ballistic_speed(D: float, h: float, elev_deg: float) -> float:
        th = math.radians(elev_deg)
        denom = 2 * math.cos(th) ** 2 * (D * math.tan(th) + h)
        if denom <= 0:
            return float("nan")
        return math.sqrt(GRAVITY * D * D / denom)

    def nominal(self, skill: SkillSpec | None = None) -> tuple[float, float]:
        """(speed, elevation) of the aimed release: the technique (first bounce around `bounce_gap_mm`
        before the board edge, an elevation from a grid) that scores best over reference throws with the
        thrower's own spread (`reference_values`). Solved once per scenario (and `skill`, when given in
        place of the scenario's), cached in memory and on disk (sim/diskcache.py)."""
        sc = self.scenario
        rel = sc.shot.release
        aim = self.aim_point()
        if aim is None:
            return rel.speed_mps, rel.elevation_deg
        key = self._nominal_key(skill)
        if key in _NOMINAL_CACHE:
            return _NOMINAL_CACHE[key]
        from sim import diskcache  # solved once per machine (sim/diskcache.py)

        cached = _nominal_value(diskcache.load("aim", key, valid=_plausible_aim)) if self.disk_cache else None
        if cached is not None:
            _NOMINAL_CACHE[key] = cached
            return cached
        with contextlib.ExitStack() as stack:
            for c in self.components:
                stack.enter_context(c.solving(self))
            self._solving = True
            try:
                result = self._solve_nominal(aim, skill)
            finally:
                self._solving = False
        _NOMINAL_CACHE[key] = result
        if self.disk_cache:
            diskcache.store("aim", key, list(result), "aimed release [speed_mps, elevation_deg] of one scenario; safe to delete")
        return result

    def _solve_nominal(self, aim: tuple[float, float], skill: SkillSpec | None) -> tuple[float, float]:
        rel = self.scenario.shot.release
        _hand, _u, _dist, edge_s = self._geometry(rel.distance_mm * 1e-3, rel.lateral_mm * 1e-3, aim)
        h = rel.height_mm * 1e-3
        # The thrower's technique: over a grid of bounce points (around bounce_gap_mm before the edge)
        # and elevations, the release whose reference throws (the thrower's own spread around it, the
        # same draws for every candidate) score best (then: rest closest to the aim). A practised
        # thrower converges on the technique most reliable under their own scatter, not on the one a
        # perfect hand would use: that one often skims the board's edge.
        candidates: list[tuple[float, float, float]] = []  # (score, speed, elevation)
        lim = self.scenario.shot.limits
        elevations = _elevations(lim)
        # releases the body allows first; only when none of the grid is (a limit too tight for the
        # aim), the grid's releases clipped into the limits
        total, done = len(NOMINAL_GAP_FACTORS) * len(elevations), 0
        for clipped in (False, True):
            for gap_f in NOMINAL_GAP_FACTORS:
                D = max(0.05, edge_s - rel.bounce_gap_mm * 1e-3 * gap_f)
                for el in elevations:
                    if self.aim_progress is not None:
                        self.aim_progress(done, total)
                    done += 1
                    v = self._ballistic_speed(D, h, el)
                    if not math.isfinite(v) or v > NOMINAL_MAX_SPEED_MPS:
                        continue
                    if not (lim.allows("speed", v) and lim.allows("elevation", el)):
                        if not clipped:
                            continue
                        v, el = lim.clip("speed", v), lim.clip("elevation", el)
                    elif clipped:
                        continue
                    candidates.append((self._score((v, float(el)), NOMINAL_REFS, skill), v, float(el)))
            if candidates or not lim.any:
                break
        if not candidates:
            return rel.speed_mps, rel.elevation_deg
        finalists = [(v, el) for _, v, el in sorted(candidates)[:NOMINAL_FINALISTS]]
        return self._final_choice(finalists, skill)

    def _final_choice(self, finalists: list[tuple[float, float]], skill: SkillSpec | None) -> tuple[float, float]:
        """The finalist that scores best on the final reference throws, thrown in doubling batches until
        the leader's paired lead in the objective exceeds its noise (or the cap is reached)."""
        values = [self.reference_values(c, NOMINAL_FINAL_REFS, skill) for c in finalists]
        while True:
            scores = [_score_of(v) for v in values]
            order = sorted(range(len(finalists)), key=lambda i: (scores[i], finalists[i]))
            refs = len(values[0])
            if len(order) < 2 or refs >= NOMINAL_MAX_FINAL_REFS:
                break
            lead = values[order[0]][:, 0] - values[order[1]][:, 0]  # leader minus runner-up, per throw
            se = float(lead.std(ddof=1)) / math.sqrt(refs)
            if se == 0.0 or float(lead.mean()) > NOMINAL_SEPARATION_SE * se:
                break
            more = min(refs, NOMINAL_MAX_FINAL_REFS - refs)
            values = [np.vstack([v, self.reference_values(c, more, skill, start=refs)]) for c, v in zip(finalists, values)]
        return finalists[order[0]]

    def _score(self, nominal: tuple[float, float], refs: int, skill: SkillSpec | None) -> float:
        return _score_of(self.reference_values(nominal, refs, skill))

    def reference_values(self, nominal: tuple[float, float], refs: int = NOMINAL_REFS,
                         skill: SkillSpec | None = None, start: int = 0) -> np.ndarray:
        """The aim solve's evidence on a technique (speed, elevation): per reference throw (draws
        `start`..`start + refs - 1` of the thrower's own spread, seed `NOMINAL_REF_SEED`; a skill's
        biases left out: they are what the thrower does not know about), the objective's value and the
        miss distance from the aim point in metres; shape (refs, 2)."""
        aim = self.aim_point()
        aim_v = np.zeros(2) if aim is None else np.array(aim)
        rows = []
        for i in range(start, start + refs):
            draw = Draw.for_throw(NOMINAL_REF_SEED, i)
            o = self.throw_releases(self._releases_around(draw, *nominal, skill=skill, biased=False)).outcome
            miss = float(norm(np.array(o.position_mm[:2]) * 1e-3 - aim_v)) if o.result != "void" else NOMINAL_VOID_MISS_M
            rows.append((self._objective_value(o), miss))
        return np.array(rows)

    def _nominal_key(self, skill: SkillSpec | None = None) -> tuple:
        # the scenario's aim key includes the skill: the reference throws carry the thrower's spread
        key: tuple = (self.scenario.aim_key, "Thrower", None)
        for c in self.components:
            key = c.nominal_key(self, key)
        # another skill's technique: only its spreads matter (biases are left out of the solve)
        spreads = None if skill is None else {f: getattr(skill, f) for f in SPREADS}
        if spreads is not None and spreads != {f: getattr(self.scenario.skill, f) for f in SPREADS}:
            key = (*key, "skill", json_hash(spreads))
        if self.objective != ("hit", 0):  # the default key is unchanged, so cached solves stay valid
            key = (*key, self.objective)
        return key

    def set_objective(self, objective: str = "hit", need: int = 0) -> None:
        """What the thrower's technique (the aimed release) maximises over its reference throws: "hit"
        (the chance of a hit: the default), "damage" (the expected damage) or "kill" (the chance to deal
        at least `need` damage, a monster's remaining life). Each objective is solved once and cached."""
        if objective not in AIM_OBJECTIVES:
            raise ValueError(f"aim objective must be one of {', '.join(AIM_OBJECTIVES)}, not {objective!r}")
        self.objective = (objective, int(need) if objective == "kill" else 0)

    def _objective_value(self, o: Outcome) -> float:
        kind, need = self.objective
        if kind == "damage":
            return float(o.damage) if o.result == "hit" else 0.0
        if kind == "kill":
            return float(o.result == "hit" and (o.insta_kill or o.damage >= need))
        return float(o.result == "hit")

    def set_nominal(self, value: tuple[float, float]) -> None:
        """Install an aimed release solved elsewhere (the runner solves it once per run for all workers)."""
        _NOMINAL_CACHE[self._nominal_key()] = (float(value[0]), float(value[1]))

    def _make_release(self, speed, elev_deg, azim_deg, h, hand, u, q, spin_noise, spin_rps=None) -> Release:
        rel = self.scenario.shot.release
        az = math.atan2(u[1], u[0]) + math.radians(azim_deg)
        th = math.radians(elev_deg)
        vel = (speed * math.cos(th) * math.cos(az), speed * math.cos(th) * math.sin(az), speed * math.sin(th))
        rps = rel.spin_rps if spin_rps is None else spin_rps
        # nominal tumble: forward roll about the horizontal axis perpendicular to the throw
        axis = np.array([-math.sin(az), math.cos(az), 0.0])
        w = axis * rps * 2 * math.pi + spin_noise
        tumble = dot(w, axis) / (2 * math.pi)  # rev/s about the lateral axis, noise included
        allowed = self.scenario.shot.limits.clip("spin", tumble)
        if allowed != tumble:
            w = w + axis * (allowed - tumble) * 2 * math.pi
        return Release((float(hand[0]), float(hand[1]), float(h)), tuple(float(x) for x in vel), tuple(float(x) for x in q), tuple(float(x) for x in w))

    def release_for(self, draw: Draw, skill: SkillSpec | None = None) -> list[Release]:
        """The releases (one per die) for a throw's random draw: the shot's nominal release perturbed by
        the skill's noise. Further dice leave the same hand a few mm apart with their own orientation.
        `skill` replaces the scenario's, with its own technique (`dfsim fit-skill` throws the same draws
        with many skills in one world)."""
        return self._releases_around(draw, *self.nominal(skill), skill=skill)

    def _releases_around(self, draw: Draw, speed: float, elev: float, skill: SkillSpec | None = None,
                         biased: bool = True) -> list[Release]:
        sc = self.scenario
        rel, sk, m = sc.shot.release, skill or sc.skill, sc.shot.noise
        speed_bias, azimuth_bias = (sk.speed_bias_frac, sk.azimuth_bias_deg) if biased else (0.0, 0.0)
        z = draw.z
        aim = self.aim_point()
        if aim is None:
            aim = (0.0, 0.0)
        lim = sc.shot.limits  # what the body allows: each drawn component clipped into its range
        dist = _clip_mm(lim, "distance", rel.distance_mm * 1e-3 + sk.distance_sd_mm * 1e-3 * m.distance * z[5])
        lat = rel.lateral_mm * 1e-3 + sk.lateral_sd_mm * 1e-3 * m.lateral * z[4]
        h = max(MIN_RELEASE_HEIGHT_M, _clip_mm(lim, "height", rel.height_mm * 1e-3 + sk.height_sd_mm * 1e-3 * m.height * z[3]))
        if sc.board is None:
            hand, u = np.array([-dist, lat]), np.array([1.0, 0.0])
        else:
            hand = np.array([-dist, lat])
            u = np.array(aim) - hand
            u = u / norm(u)
        speed = lim.clip("speed", max(0.05, speed * (1 + speed_bias + sk.speed_sd_frac * m.speed * z[0])))
        elev = lim.clip("elevation", elev + sk.elevation_sd_deg * m.elevation * z[1])
        azim = rel.azimuth_deg + azimuth_bias + sk.azimuth_sd_deg * m.azimuth * z[2]
        spin_noise = np.array(z[6:9]) * sk.spin_sd_rps * m.spin * 2 * math.pi
        releases = [self._make_release(speed, elev, azim, h, hand, u, draw.orientation_xyzw, spin_noise)]
        for i in range(1, len(sc.dice)):
            # further dice leave the same hand a few mm apart, each with its own orientation
            q = quat_mul(draw.orientation_xyzw, random_quaternion(np.random.Generator(np.random.PCG64(int(draw.extra[i] * 2**32)))))
            off = np.array([0.0, EXTRA_DIE_OFFSET_M[0] * i * (-1) ** i])
            releases.append(self._make_release(speed, elev, azim, h + EXTRA_DIE_OFFSET_M[1] * i, hand + off, u, q, spin_noise))
        return releases

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

    def replay(self, releases: list[Release] | None, seed: int, index: int) -> ThrowResult:
        """Throw (seed, index) in its prepared state; with `releases`, those exact releases instead of the
        drawn ones (a stored throw thrown again: the same record, bit for bit, when they are its own)."""
        self.prepare(seed, index)
        try:
            if releases is None:
                releases = self.release_for(Draw.for_throw(seed, index))
            res = self.throw_releases(list(releases))
        finally:
            self._prop_draw = None
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
        for name in self.die_names[len(releases):]:
            ph.park(name)
        self.props.start(self._prop_draw)
        for name, r in zip(active, releases):
            ph.set_state(name, r.position_m, r.orientation_xyzw, r.velocity_mps, r.spin_radps)
        # the throw loop (adaptive flight, rest test; sim/engine/stepper.py); step counts kept for the bench
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

    def place(self, x_m: float, y_m: float, yaw_deg: float = 0.0, up: str | None = None, drop_mm: float = 1.0) -> ThrowResult:
        """Put die 0 at (x, y) with face `up` read (yaw about z), let it settle, classify it."""
        return self.throw_releases([self.place_release(x_m, y_m, yaw_deg, up, drop_mm)], placed=True)

    def place_release(self, x_m: float, y_m: float, yaw_deg: float = 0.0, up: str | None = None, drop_mm: float = 1.0,
                      surfaces: tuple = ()) -> Release:
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
                raise SpecError(die.source, "faces", f"die has no face labelled '{up}' (faces: {', '.join(die.faces)})") from None
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


def _score_of(per_throw: np.ndarray) -> float:
    """A technique's score from its reference values (lower is better): the objective first (by default
    the share of reference hits); among equals, the smallest median miss."""
    refs = len(per_throw)
    return -float(per_throw[:, 0].mean()) + float(np.median(per_throw[:, 1])) / NOMINAL_MISS_PER_HIT_M / refs


def _clip_mm(lim, stem: str, value_m: float) -> float:
    """A length in metres clipped into a limit given in mm; unchanged to the bit when inside it."""
    allowed = lim.clip(stem, value_m * 1e3)
    return value_m if allowed == value_m * 1e3 else allowed * 1e-3


def _elevations(lim) -> tuple[float, ...]:
    """The aim solve's elevations: the fixed grid, and with elevation limits its values inside them plus
    the limits and their middle (a steep flip has no grid value otherwise)."""
    lo, hi = lim.bounds("elevation")
    if lo is None and hi is None:
        return NOMINAL_ELEVATIONS_DEG
    lo = NOMINAL_ELEVATIONS_DEG[0] if lo is None else lo
    hi = NOMINAL_ELEVATIONS_DEG[-1] if hi is None else hi
    return tuple(sorted({e for e in NOMINAL_ELEVATIONS_DEG if lo <= e <= hi} | {lo, hi, (lo + hi) / 2}))


def _plausible_aim(value: Any) -> bool:
    """Whether a cached aim can be an aimed release: a positive speed below 30 m/s, an elevation within
    +-90 degrees (anything else is a damaged entry, solved again)."""
    v = _nominal_value(value)
    return v is not None and 0.0 < v[0] <= 30.0 and -90.0 <= v[1] <= 90.0


def _nominal_value(value: Any) -> tuple[float, float] | None:
    """A cached aimed release as (speed, elevation), or None when it is not two finite numbers."""
    try:
        speed, elevation = (float(x) for x in value)
    except (TypeError, ValueError):
        return None
    return (speed, elevation) if math.isfinite(speed) and math.isfinite(elevation) else None


def _hull(xy: np.ndarray):
    from shapely.geometry import MultiPoint

    return MultiPoint([tuple(p) for p in xy]).convex_hull
