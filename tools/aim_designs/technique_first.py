"""A design of the aim solve for tools/aim_replay.py: the way of leaving the hand first, then the point.

    python tools/aim_replay.py replay DIR --design tools/aim_designs/technique_first.py:TechniqueFirst

Why: thrown the shot's own way, a shot's ballistic points hit at close, often rare rates (the expert's
Firewall Shot: 0-28 % over its 24 points), so the solve in sim/engine/aim.py ranks them on up to 32
throws each (its rungs scaled to the rate) before it searches the hand at the best two; a side-spun
vertex grip takes the best of them to 90 %. This design searches the hand first and ranks the points
where they differ:

1. pilot: every ballistic point thrown the shot's own way on 4 throws, the best kept;
2. hand: every way of leaving the hand at the pilot point, halved (4, 8, 16, 32) to the best;
3. point: every ballistic point thrown that way, halved to the best two;
4. hand again: every way at the best of those points, halved to the best two;
5. final: the best two of steps 3 and 4, on the throws all of them hold, ranked as the solve ranks its
   finalists, its throws capped at 64 (not 128).

No rung is scaled to a stage's rate. Measured (docs/notes/speed-measurements.md, "The aim solve,
technique first"): half the reference throws over the 60 built-in solves, as good on average, but
five solves worse than the solve's stopping tolerance (the Far Shot's casual and expert among them: a
pilot point whose best way is not the best way elsewhere), so it is not the solve. `TwoPointsAgain`
(below) removes those at 0.58 of the throws: neither is yet the solve the issue asks for.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np

from sim.engine import aim as A
from sim.engine.hand import Technique

RUNGS = (4, 8, 16, 32)
FINAL_CAP = 64


@contextlib.contextmanager
def _constants() -> Iterator[None]:
    """No scaled rungs and the finals' cap, for the solve's length (the module's constants put back)."""
    old = (A.RUNG_SCALE_MAX, A.NOMINAL_MAX_FINAL_REFS)
    A.RUNG_SCALE_MAX, A.NOMINAL_MAX_FINAL_REFS = 1, FINAL_CAP
    try:
        yield
    finally:
        A.RUNG_SCALE_MAX, A.NOMINAL_MAX_FINAL_REFS = old


def _rung_reached(n: int, keep: int, rungs: tuple[int, ...]) -> int:
    """The rung a halving of n candidates to `keep` stops at (AimSolver.halve: the better half after
    each rung, until `keep` are left or the rungs end): every survivor holds that many throws."""
    for rung in rungs:
        n = n if n <= keep else max(keep, -(-n // 2))
        if n <= keep:
            return rung
    return rungs[-1]


class TechniqueFirst(A.AimSolver):
    """The solve of the module docstring; its steps' rungs and the points searched again are class
    attributes, so that a variant is a subclass."""

    PILOT_RUNGS: tuple[int, ...] = (RUNGS[0],)
    HAND_RUNGS: tuple[int, ...] = RUNGS
    POINT_RUNGS: tuple[int, ...] = RUNGS
    AGAIN_RUNGS: tuple[int, ...] = RUNGS
    AGAIN_POINTS = 1  # the best points of step 3 whose every way is thrown again

    def solve(self, aim: tuple[float, float], skill) -> Technique:
        grid = self.grid(aim)
        if not grid:
            return super().solve(aim, skill)
        options = self.hand_options()
        values: dict[Technique, np.ndarray] = {}
        keep = A.NOMINAL_FINALISTS

        def ways(p: Technique) -> list[Technique]:
            return [Technique(p.speed_mps, p.elevation_deg, g, r, ax) for g, r, ax in options]

        with _constants():
            pilot = self.halve(aim, grid, values, skill, 1, self.PILOT_RUNGS)[0]
            way = self.halve(aim, ways(pilot), values, skill, 1, self.HAND_RUNGS)[0]
            points = [
                Technique(p.speed_mps, p.elevation_deg, way.grip, way.spin_rps, way.spin_axis)
                for p in self.points_to_search(grid, values)
            ]
            best = self.halve(aim, points, values, skill, keep, self.POINT_RUNGS)
            again_candidates = [w for p in best[: self.AGAIN_POINTS] for w in ways(p)]
            again = self.halve(aim, again_candidates, values, skill, keep, self.AGAIN_RUNGS)
            common = min(
                _rung_reached(len(dict.fromkeys(points)), keep, self.POINT_RUNGS),
                _rung_reached(len(dict.fromkeys(again_candidates)), keep, self.AGAIN_RUNGS),
            )
            pool = list(dict.fromkeys(best + again))
            finalists = sorted(pool, key=lambda c: (A._score_of(values[c][:common]), c))[:keep]
            return self.final_choice(aim, finalists, skill, [values[c] for c in finalists])

    def points_to_search(self, grid: list[Technique], values: dict[Technique, np.ndarray]) -> list[Technique]:
        """The ballistic points step 3 throws the chosen way (every one; `values` holds the pilot's)."""
        return grid


class TwoPointsAgain(TechniqueFirst):
    """The pilot point halved on 4, 8 and 16 throws of the shot's own way (not picked on 4), and every
    way thrown again at the best two points of step 3 (on 4, 8 and 16): the Far Shot's casual and
    expert solves no longer end on a pilot point whose best way is poor elsewhere."""

    PILOT_RUNGS = (4, 8, 16)
    AGAIN_RUNGS = (4, 8, 16)
    AGAIN_POINTS = 2


class FewerPoints(TwoPointsAgain):
    """`TwoPointsAgain` with step 3 throwing the chosen way at the better FRACTION of the ballistic
    points only (ranked on the pilot's first 4 throws of the shot's own way): the points that were
    poor thrown the shot's way are rarely the best thrown the chosen way."""

    FRACTION = 0.7

    def points_to_search(self, grid: list[Technique], values: dict[Technique, np.ndarray]) -> list[Technique]:
        ranked = sorted(grid, key=lambda p: (A._score_of(values[p][: RUNGS[0]]), p))
        return ranked[: max(A.NOMINAL_FINALISTS, round(len(grid) * self.FRACTION))]


class FewerPointsHalf(FewerPoints):
    """`FewerPoints` at half the ballistic points."""

    FRACTION = 0.5
