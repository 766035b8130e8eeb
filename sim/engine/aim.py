"""The aim: the thrower's technique (speed, elevation, grip and spin of the aimed release), solved and cached.

A practised thrower converges on the technique most reliable under their own scatter, not on the one
a perfect hand would use (that one often skims the board's edge). The solve judges every candidate on
reference throws: the thrower's own spread around it, the same draws for every candidate (paired),
biases left out (they are what the thrower does not know about); the best scores best at the
objective, then rests closest to the aim point.

The space is searched by successive halving (`halve`: every candidate thrown a rung of reference
throws, the better half thrown to the next rung), the way of leaving the hand first. Thrown the shot's
own way (its grip and spin), a shot's ballistic points (a bounce at each of NOMINAL_GAP_FACTORS of the
shot's gap before the board edge, at each elevation, the ballistic speed that reaches it) often hit
at close and rare rates, and the way the die leaves the hand lifts them far apart (a side-spun vertex
grip takes an expert's Firewall Shot from 28 % to 90 %). So the solve:

1. pilot: halves the ballistic points thrown the shot's own way (PILOT_RUNGS) to one;
2. hand: halves every way of leaving the hand at the pilot point (grips, spins: none, back, top and
   side; HALVING_RUNGS) to one;
3. points: halves the better POINTS_SEARCHED share of the ballistic points (by the pilot's first rung)
   thrown that way to NOMINAL_FINALISTS: the points poor thrown the shot's way are rarely the best
   thrown the chosen way;
4. hand again: halves every way at the AGAIN_POINTS best points of step 3 (AGAIN_RUNGS) to
   NOMINAL_FINALISTS: the pilot point's best way is not always the best way elsewhere;
5. final: the best NOMINAL_FINALISTS of steps 3 and 4, on the throws all of them hold, ranked again on
   more throws, doubling while the leader's paired lead is within its noise (`final_choice`).

Each halving is exact: a candidate stops throwing within a rung once it provably ranks below the ones
that go on. About half the reference throws of a ballistic-first search with rate-scaled rungs, its
choices as good within the finals' stopping tolerance (docs/physics.md, "The aimed release").

The solver throws nothing itself: it is given the thrower's throw function and hand
(sim/engine/hand.py), so it knows no world. Solved techniques are kept on disk per machine
(sim/diskcache.py), under a key naming everything the solve depends on, and in memory by the solver
itself, that is by its thrower: no technique is held for the whole process, so a technique given to one
thrower (a run's prepared aim, a test's made-up one) is thrown by that thrower only.
"""

from __future__ import annotations

import bisect
import contextlib
import math
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import numpy as np
from shapely.geometry import LineString

from sim.engine.hand import Hand, Technique, shot_technique
from sim.engine.release import Release
from sim.hashing import json_hash
from sim.rules.outcome import AIM_OBJECTIVES, Outcome
from sim.seeding import Draw
from sim.specs.physics import GRAVITY
from sim.specs.scenario import Scenario
from sim.specs.skill import SPREADS, SkillSpec
from sim.vectors import matmul, norm

# the aim solve: reference throws (the thrower's own draws from this seed), fastest release considered, the
# miss distance given to a void reference throw, and the weight of the median miss (per metre) against
# one more reference hit
NOMINAL_REF_SEED = 12345
NOMINAL_MAX_SPEED_MPS = 15.0
NOMINAL_VOID_MISS_M = 9.0
NOMINAL_MISS_PER_HIT_M = 100.0
# successive halving: the reference throws every candidate of a stage has made at each rung; after each
# rung the better half (by score on those throws) goes on, until a stage's survivors are few enough. The
# pilot (the ballistic points thrown the shot's own way) and the second search of the hand stop at 16:
# their survivors meet more throws in the later stages and the finals
HALVING_RUNGS = (4, 8, 16, 32)
PILOT_RUNGS = HALVING_RUNGS[:3]
AGAIN_RUNGS = HALVING_RUNGS[:3]
NOMINAL_REFS = HALVING_RUNGS[-1]  # the throws a stage's survivors have made at most
# the share of the ballistic points thrown the chosen way (step 3), the better by the pilot's first rung,
# and the points of step 3 whose every way of leaving the hand is thrown again (step 4)
POINTS_SEARCHED = 0.65
AGAIN_POINTS = 2
# the second stage's spins besides the shot's own: none, backspin and topspin of this rate about the
# lateral axis, side spin of this rate; each clipped into the shot's spin limits
TECHNIQUE_SPIN_RPS = 4.0
# the finalists are ranked again on NOMINAL_FINAL_REFS (the same first throws and more): the choice of the
# best of many on a few noisy throws alone favours the luckiest candidate. While the leader's paired lead
# over the runner-up is within NOMINAL_SEPARATION_SE standard errors, the finalists throw twice as many
# reference throws, up to NOMINAL_MAX_FINAL_REFS (where two candidates are still that close, they differ
# by less than the thrower could tell: a standard error of the lead of ~7 points)
NOMINAL_FINALISTS = 2
NOMINAL_FINAL_REFS = 32
NOMINAL_MAX_FINAL_REFS = 48
NOMINAL_SEPARATION_SE = 2.0
NOMINAL_GAP_FACTORS = (0.5, 1.0, 1.5, 2.5)
NOMINAL_ELEVATIONS_DEG = (-10.0, 10.0, 25.0, 40.0, 55.0)

ThrowFn = Callable[[list[Release]], Outcome]
"""The thrower's throw: exact releases in, the first die's judged outcome out."""


class AimSolver:
    """The technique of one thrower's world: solved on demand per key and kept, read from disk, or given.

    Its memory is its own (one solver per thrower): `solved` holds what it solved or read from disk
    (what a solve here would give), `given` what it was handed (`give`: a run's prepared aim, a test's
    made-up one), looked up first and forgotten by `forget_given`."""

    def __init__(self, scenario: Scenario, hand: Hand, throw: ThrowFn) -> None:
        self.scenario = scenario
        self.hand = hand
        self.throw = throw
        self.objective: tuple[str, int] = ("hit", 0)  # what the technique maximises (set_objective)
        # optional progress observer of the solve: called (reference throws made, at most) before each
        # reference throw and once at the end with both equal; None = off
        self.progress: Callable[[int, int], None] | None = None
        self._made, self._at_most = 0, 0  # the solve under way: reference throws made, at most
        # the last solve's stages, read out for the cost benchmark (benchmarks/aim_cost.py):
        # (stage, candidates, reference throws made in it)
        self.stages: list[tuple[str, int, int]] = []
        self.solved: dict[tuple, Technique] = {}  # solved here or read from disk, by key
        self.given: dict[tuple, Technique] = {}  # handed to this solver (`give`), by key

    # ---------------- what is maximised ----------------
    def set_objective(self, objective: str = "hit", need: int = 0) -> None:
        """What the technique maximises over its reference throws: "hit" (the chance of a hit: the
        default), "damage" (the expected damage) or "kill" (the chance to deal at least `need` damage,
        a monster's remaining life). Each objective is solved once and cached."""
        if objective not in AIM_OBJECTIVES:
            raise ValueError(f"aim objective must be one of {', '.join(AIM_OBJECTIVES)}, not {objective!r}")
        self.objective = (objective, int(need) if objective == "kill" else 0)

    def objective_value(self, o: Outcome) -> float:
        """One reference throw's worth under the objective."""
        kind, need = self.objective
        if kind == "damage":
            return float(o.damage) if o.result == "hit" else 0.0
        if kind == "kill":
            return float(o.result == "hit" and (o.insta_kill or o.damage >= need))
        return float(o.result == "hit")

    def key(self, base: tuple, skill: SkillSpec | None = None) -> tuple:
        """The cache key of a technique: the world's `base` key (scenario and components), another
        skill's spreads when they differ from the scenario's (biases are left out of the solve), and
        the objective unless it is the default (so cached default solves stay valid)."""
        key = base
        spreads = None if skill is None else {f: getattr(skill, f) for f in SPREADS}
        if spreads is not None and spreads != {f: getattr(self.scenario.skill, f) for f in SPREADS}:
            key = (*key, "skill", json_hash(spreads))
        if self.objective != ("hit", 0):  # damage and kills read the faces: dice of one body differ
            key = (*key, self.objective, self.scenario.faces_key)
        return key

    # ---------------- the technique ----------------
    def nominal(
        self,
        aim: tuple[float, float] | None,
        key: tuple,
        skill: SkillSpec | None = None,
        solving: Callable[[], AbstractContextManager[Any]] = contextlib.nullcontext,
        disk_cache: bool = True,
    ) -> Technique:
        """The technique for `aim` under `key` (`self.key`): the shot's own release without an aim;
        else the one given to this solver, or its own memory, the disk, or solved with the world in its
        `solving()` state and kept."""
        rel = self.scenario.shot.release
        if aim is None:
            return shot_technique(self.scenario, rel.speed_mps, rel.elevation_deg)
        if key in self.given:
            return self.given[key]
        if key in self.solved:
            return self.solved[key]
        from sim import diskcache  # solved once per machine (sim/diskcache.py)

        cached = Technique.from_json(diskcache.load("aim", key, valid=plausible_aim)) if disk_cache else None
        if cached is not None:
            self.solved[key] = cached
            return cached
        with solving():
            result = self.solve(aim, skill)
        self.solved[key] = result
        if disk_cache:
            diskcache.store(
                "aim",
                key,
                result.to_json(),
                "aimed release [speed_mps, elevation_deg, grip, spin_rps, spin_axis] of one scenario; "
                "safe to delete",
            )
        return result

    def give(self, key: tuple, value: Technique) -> None:
        """Throw `value` as the technique under `key`, in place of a solve: one solved elsewhere (the
        runner solves each scenario's aim once per run and hands it to every worker with its chunks)."""
        self.given[key] = value

    def forget_given(self) -> None:
        """Forget every technique handed to this solver: it solves (or reads) its own again."""
        self.given.clear()

    def solve(self, aim: tuple[float, float], skill: SkillSpec | None) -> Technique:
        """Solve the technique: the module docstring's five steps (pilot, hand, points, hand again,
        final); each step's reference throws are read out in `stages`."""
        grid = self.grid(aim)
        if not grid:
            rel = self.scenario.shot.release
            return shot_technique(self.scenario, rel.speed_mps, rel.elevation_deg)
        options = self.hand_options()
        searched = max(NOMINAL_FINALISTS, round(len(grid) * POINTS_SEARCHED))
        self._made = 0
        self._at_most = (
            len(grid) * PILOT_RUNGS[-1]
            + (len(options) + searched) * HALVING_RUNGS[-1]
            + AGAIN_POINTS * len(options) * AGAIN_RUNGS[-1]
            + NOMINAL_FINALISTS * NOMINAL_MAX_FINAL_REFS
        )
        values: dict[Technique, np.ndarray] = {}
        self.stages = []
        keep = NOMINAL_FINALISTS

        def ways(p: Technique) -> list[Technique]:
            return [Technique(p.speed_mps, p.elevation_deg, g, r, ax) for g, r, ax in options]

        def stage(name: str, candidates: list[Technique], n: int, rungs: tuple[int, ...]) -> list[Technique]:
            made = self._made
            out = self.halve(aim, candidates, values, skill, n, rungs)
            self.stages.append((name, len(dict.fromkeys(candidates)), self._made - made))
            return out

        pilot = stage("pilot", grid, 1, PILOT_RUNGS)[0]
        way = stage("hand", ways(pilot), 1, HALVING_RUNGS)[0]
        ranked = sorted(grid, key=lambda p: (_score_of(values[p][: PILOT_RUNGS[0]]), p))
        points = [
            Technique(p.speed_mps, p.elevation_deg, way.grip, way.spin_rps, way.spin_axis)
            for p in ranked[:searched]
        ]
        best = stage("points", points, keep, HALVING_RUNGS)
        again_candidates = [w for p in best[:AGAIN_POINTS] for w in ways(p)]
        again = stage("hand again", again_candidates, keep, AGAIN_RUNGS)
        # the finalists: the best of both, on the throws every survivor of the two stages holds
        common = min(
            rung_reached(len(dict.fromkeys(points)), keep, HALVING_RUNGS),
            rung_reached(len(dict.fromkeys(again_candidates)), keep, AGAIN_RUNGS),
        )
        pool = list(dict.fromkeys(best + again))
        finalists = sorted(pool, key=lambda c: (_score_of(values[c][:common]), c))[:keep]
        made = self._made
        choice = self.final_choice(aim, finalists, skill, [values[c] for c in finalists])
        self.stages.append(("final", len(finalists), self._made - made))
        if self.progress is not None:
            self.progress(self._made, self._made)
        return choice

    def hand_options(self) -> list[tuple[str, float, str]]:
        """The ways of leaving the hand the shot allows: each grip of its limits with each spin (the
        shot's own; none, back- and topspin of TECHNIQUE_SPIN_RPS about the lateral axis; side spin of that
        rate), the lateral ones clipped into the spin limits, each once."""
        rel, lim = self.scenario.shot.release, self.scenario.shot.limits
        spins: list[tuple[float, str]] = [(float(rel.spin_rps), rel.spin_axis)]
        if "lateral" in lim.spin_axes:
            for rps in (0.0, -TECHNIQUE_SPIN_RPS, TECHNIQUE_SPIN_RPS):
                spins.append((float(lim.clip("spin", rps)), "lateral"))
        if "side" in lim.spin_axes:
            spins.append((TECHNIQUE_SPIN_RPS, "side"))
        out: list[tuple[str, float, str]] = []
        for grip in lim.grips:
            for rps, axis in spins:
                if (grip, rps, axis) not in out:
                    out.append((grip, rps, axis))
        return out

    def halve(
        self,
        aim: tuple[float, float],
        candidates: list[Technique],
        values: dict[Technique, np.ndarray],
        skill: SkillSpec | None,
        keep: int,
        rungs: tuple[int, ...] = HALVING_RUNGS,
    ) -> list[Technique]:
        """Successive halving: every candidate thrown to `rungs[0]` reference throws, ranked by its score
        on them, the better half thrown to the next rung, ..., the best `keep` after the last rung (best
        first). Throws already made (`values`, by technique, extended in place) are not made again;
        every candidate is ranked on the same throws (paired). Every candidate's first `rungs[0]`
        throws are made in full (the solve ranks the ballistic points on them again, step 3).

        Exact, not a heuristic: a candidate stops throwing within a rung once as many candidates as go on
        scored strictly better than the best it can still reach (`_best_possible`; not for "damage",
        whose values have no upper bound), so the survivors are those all the rung's throws would give.
        Throw i of a technique depends only on (technique, i): the order they are made in changes
        nothing."""
        bounded = self.objective[0] != "damage"
        alive = list(dict.fromkeys(candidates))
        for c in alive:  # the pilot
            have = values.get(c)
            k = 0 if have is None else len(have)
            if k < rungs[0]:
                more = self.reference_values(aim, c, rungs[0] - k, skill, start=k)
                values[c] = more if have is None else np.vstack([have, more])
        for rung in rungs:
            n_next = _survivors(len(alive), keep)
            full: list[float] = []  # the scores of the candidates thrown to the rung, ascending
            done: list[Technique] = []
            # the most promising first (the best partial mean), so that the bar is high early
            for c in sorted(alive, key=lambda c: (-float(values[c][:, 0].mean()) if c in values else 0.0, c)):
                have = values.get(c)
                k = 0 if have is None else len(have)
                while k < rung:
                    if (
                        bounded
                        and have is not None
                        and len(full) >= n_next
                        and full[n_next - 1] < _best_possible(have, rung)
                    ):
                        break  # n_next candidates surely score better: it cannot go on
                    more = self.reference_values(aim, c, 1, skill, start=k)
                    have = more if have is None else np.vstack([have, more])
                    k += 1
                if have is not None:
                    values[c] = have
                if k >= rung:
                    bisect.insort(full, _score_of(have[:rung]))
                    done.append(c)
            done.sort(key=lambda c: (_score_of(values[c][:rung]), c))
            alive = done[:n_next]
            if len(alive) <= keep:
                break
        return alive[:keep]

    def grid(self, aim: tuple[float, float]) -> list[Technique]:
        """The ballistic candidates, thrown the shot's own way (its grip and spin): a bounce at each of
        NOMINAL_GAP_FACTORS of the shot's gap before the board's edge, at each elevation, the ballistic
        speed that reaches it; the releases the body allows, or, only when none of the grid is (a limit
        too tight for the aim), the grid's releases clipped into the limits."""
        rel = self.scenario.shot.release
        edge_s = edge_distance(self.scenario.board, rel.distance_mm * 1e-3, rel.lateral_mm * 1e-3, aim)
        h = rel.height_mm * 1e-3
        lim = self.scenario.shot.limits
        grid: list[Technique] = []
        for clipped in (False, True):
            for gap_f in NOMINAL_GAP_FACTORS:
                D = max(0.05, edge_s - rel.bounce_gap_mm * 1e-3 * gap_f)
                for el in _elevations(lim):
                    v = ballistic_speed(D, h, el)
                    if not math.isfinite(v) or v > NOMINAL_MAX_SPEED_MPS:
                        continue
                    if not (lim.allows("speed", v) and lim.allows("elevation", el)):
                        if not clipped:
                            continue
                        v, el = lim.clip("speed", v), lim.clip("elevation", el)
                    elif clipped:
                        continue
                    grid.append(shot_technique(self.scenario, v, float(el)))
            if grid or not lim.any:
                break
        return grid

    def final_choice(
        self,
        aim: tuple[float, float],
        finalists: list[Technique],
        skill: SkillSpec | None,
        screened: list[np.ndarray],
    ) -> Technique:
        """The finalist that scores best on the final reference throws, thrown in doubling batches until
        the leader's paired lead in the objective exceeds its noise (or the cap is reached).

        At each batch only the leader and the runner-up need all the batch's throws: another finalist
        stops once it provably ranks below them (`_best_possible`: a reference throw's value lies in
        [0, 1] for "hit" and "kill" and the miss term of the score is never negative), and throws its
        missing ones only if a later batch needs them. The choice is the one all throws would give.
        `screened`: each finalist's first reference values, thrown by the halving (the same draws), not
        thrown again. Throw i of a technique depends only on (technique, i), so the order the throws
        are made in changes nothing."""
        bounded = self.objective[0] != "damage"
        values = [v.copy() for v in screened]
        refs = NOMINAL_FINAL_REFS
        while True:
            order = self._top_two(aim, finalists, values, refs, skill, bounded)
            if len(order) < 2 or refs >= NOMINAL_MAX_FINAL_REFS:
                break
            lead = values[order[0]][:refs, 0] - values[order[1]][:refs, 0]  # leader minus runner-up
            se = float(lead.std(ddof=1)) / math.sqrt(refs)
            if se == 0.0 or float(lead.mean()) > NOMINAL_SEPARATION_SE * se:
                break
            refs += min(refs, NOMINAL_MAX_FINAL_REFS - refs)
        return finalists[order[0]]

    def _top_two(
        self,
        aim: tuple[float, float],
        finalists: list[Technique],
        values: list[np.ndarray],
        refs: int,
        skill: SkillSpec | None,
        bounded: bool,
    ) -> list[int]:
        """The finalists in score order over `refs` throws, as far as it is decided: the first two thrown
        in full (`values` extended in place), the others after them in full or once provably below the
        second (`_best_possible`)."""

        def extend(i: int, upto: int) -> None:
            k = len(values[i])
            if upto > k:
                more = self.reference_values(aim, finalists[i], upto - k, skill, start=k)
                values[i] = np.vstack([values[i], more])

        def key(i: int) -> tuple:
            return (_score_of(values[i][:refs]), finalists[i])

        def promise(i: int) -> tuple[float, int]:  # the best partial mean first
            return (-float(values[i][:, 0].mean()) if len(values[i]) else 0.0, i)

        full: list[int] = []
        for i in sorted(range(len(finalists)), key=promise):
            if len(full) < 2 or not bounded:
                extend(i, refs)
                full.append(i)
                continue
            second = sorted(key(j) for j in full)[1][0]
            while len(values[i]) < refs and _best_possible(values[i], refs) <= second:
                extend(i, len(values[i]) + 1)
            if len(values[i]) >= refs:
                full.append(i)
        return sorted(full, key=key)

    def reference_values(
        self,
        aim: tuple[float, float] | None,
        technique: Technique,
        refs: int = NOMINAL_REFS,
        skill: SkillSpec | None = None,
        start: int = 0,
    ) -> np.ndarray:
        """The solve's evidence on a technique: per reference throw (draws `start`..`start + refs - 1`
        of the thrower's own spread, seed `NOMINAL_REF_SEED`, biases left out), the objective's value
        and the miss distance from the aim point in metres; shape (refs, 2)."""
        aim_v = np.zeros(2) if aim is None else np.array(aim)
        rows = []
        for i in range(start, start + refs):
            if self.progress is not None:
                self.progress(self._made, max(self._at_most, self._made + 1))
            self._made += 1
            draw = Draw.for_throw(NOMINAL_REF_SEED, i)
            o = self.throw(self.hand.releases(draw, technique, aim, skill=skill, biased=False))
            miss = (
                float(norm(np.array(o.position_mm[:2]) * 1e-3 - aim_v))
                if o.result != "void"
                else NOMINAL_VOID_MISS_M
            )
            rows.append((self.objective_value(o), miss))
        return np.array(rows)


def edge_distance(board, distance_m: float, lateral_m: float, aim: tuple[float, float]) -> float:
    """How far from the hand at (-distance, lateral) the line to the aim point first crosses the
    board's outline (m)."""
    hand = np.array([-distance_m, lateral_m])
    tgt = np.array(aim)
    u = (tgt - hand) / float(norm(tgt - hand))
    cross = LineString([tuple(hand), tuple(tgt)]).intersection(board.outline_geom.exterior)
    if cross.is_empty:
        return float(norm(tgt - hand)) - board.radius_m
    pts = np.array([[g.x, g.y] for g in getattr(cross, "geoms", [cross])])
    return float(np.min(matmul(pts - hand, u)))


def ballistic_speed(distance_m: float, height_m: float, elevation_deg: float) -> float:
    """Launch speed that carries a point from `height_m` to the table `distance_m` away at this
    elevation (nan when it cannot): the speed of each candidate of the solve's grid."""
    th = math.radians(elevation_deg)
    denom = 2 * math.cos(th) ** 2 * (distance_m * math.tan(th) + height_m)
    if denom <= 0:
        return float("nan")
    return math.sqrt(GRAVITY * distance_m * distance_m / denom)


def rung_reached(n: int, keep: int, rungs: tuple[int, ...]) -> int:
    """The rung a halving of n candidates to `keep` stops at (`AimSolver.halve`: the better half after
    each rung, until `keep` are left or the rungs end): every survivor holds that many throws."""
    for rung in rungs:
        n = _survivors(n, keep)
        if n <= keep:
            return rung
    return rungs[-1]


def _survivors(n: int, keep: int) -> int:
    """How many of n candidates a rung of the halving keeps: the better half, never fewer than `keep`
    (all of them when they are `keep` or fewer already)."""
    return n if n <= keep else max(keep, math.ceil(n / 2))


def _best_possible(per_throw: np.ndarray, refs: int) -> float:
    """The lowest score a technique with these first reference values can still reach over `refs` throws,
    for objectives valued in [0, 1]: every throw it lacks a full value, and no miss (the miss term of
    `_score_of` is never negative)."""
    return -(float(per_throw[:, 0].sum()) + refs - len(per_throw)) / refs


def _score_of(per_throw: np.ndarray) -> float:
    """A technique's score from its reference values (lower is better): the objective first (by default
    the share of reference hits); among equals, the smallest median miss."""
    refs = len(per_throw)
    return -float(per_throw[:, 0].mean()) + float(np.median(per_throw[:, 1])) / NOMINAL_MISS_PER_HIT_M / refs


def _elevations(lim) -> tuple[float, ...]:
    """The solve's elevations: the fixed grid, and with elevation limits its values inside them plus
    the limits and their middle (a steep flip has no grid value otherwise)."""
    lo, hi = lim.bounds("elevation")
    if lo is None and hi is None:
        return NOMINAL_ELEVATIONS_DEG
    lo = NOMINAL_ELEVATIONS_DEG[0] if lo is None else lo
    hi = NOMINAL_ELEVATIONS_DEG[-1] if hi is None else hi
    return tuple(sorted({e for e in NOMINAL_ELEVATIONS_DEG if lo <= e <= hi} | {lo, hi, (lo + hi) / 2}))


def plausible_aim(value: Any) -> bool:
    """Whether a cached aim can be an aimed release: a positive speed below 30 m/s, an elevation within
    +-90 degrees, a known grip and spin axis, a spin within +-60 rev/s (anything else is a damaged
    entry, solved again)."""
    v = Technique.from_json(value)
    return (
        v is not None
        and 0.0 < v.speed_mps <= 30.0
        and -90.0 <= v.elevation_deg <= 90.0
        and abs(v.spin_rps) <= 60.0
    )
