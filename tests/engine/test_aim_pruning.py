"""The aim solve stops throwing for a candidate once it provably cannot be chosen (sim/engine/aim.py,
`screen` and `final_choice`): the technique must be the one every reference throw would give. Checked
against the solve written out in full, on outcome landscapes where the bound bites (a clear peak), where
it cannot (every candidate alike, nothing ever hit) and for each objective; and once on the real engine."""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest

from sim.engine import aim as A
from sim.engine.aim import AimSolver, _score_of
from sim.engine.hand import Hand
from sim.rules.outcome import Outcome
from sim.specs.scenario import Scenario
from sim.vectors import norm


def _exhaustive(solver: AimSolver, aim: tuple[float, float]) -> A.Technique:
    """The solve with every reference throw made: all candidates on NOMINAL_REFS, the finalists on every
    batch in full."""
    grid = solver.grid(aim)
    screened = sorted((_score_of(solver.reference_values(aim, c, A.NOMINAL_REFS)), *c) for c in grid)
    finalists = [(v, el) for _, v, el in screened[: A.NOMINAL_FINALISTS]]
    values = [solver.reference_values(aim, c, A.NOMINAL_FINAL_REFS) for c in finalists]
    while True:
        scores = [_score_of(v) for v in values]
        order = sorted(range(len(finalists)), key=lambda i: (scores[i], finalists[i]))
        refs = len(values[0])
        if len(order) < 2 or refs >= A.NOMINAL_MAX_FINAL_REFS:
            return finalists[order[0]]
        lead = values[order[0]][:, 0] - values[order[1]][:, 0]
        se = float(lead.std(ddof=1)) / math.sqrt(refs)
        if se == 0.0 or float(lead.mean()) > A.NOMINAL_SEPARATION_SE * se:
            return finalists[order[0]]
        more = min(refs, A.NOMINAL_MAX_FINAL_REFS - refs)
        values = [
            np.vstack([v, solver.reference_values(aim, c, more, start=refs)])
            for c, v in zip(finalists, values)
        ]


LANDSCAPES = {  # hit chance of a release by its speed (m/s) and elevation (deg)
    "peak": lambda v, el: 0.85 * math.exp(-((v - 2.0) ** 2) / 0.3 - (el - 20.0) ** 2 / 300.0),
    "alike": lambda v, el: 0.5,
    "never": lambda v, el: 0.0,
    "close": lambda v, el: 0.55 + 0.03 * math.sin(3.0 * v + el / 10.0),
}


def _synthetic_throw(landscape, count: list[int]):
    """A throw whose outcome is a fixed function of the release (so of the technique and the draw), hit
    with the landscape's chance; position and damage from the same hash."""

    def throw(releases):
        count[0] += 1
        r = releases[0]
        digest = hashlib.sha256(repr((r.velocity_mps, r.spin_radps)).encode()).digest()
        u, x, y = (int.from_bytes(digest[8 * i : 8 * i + 8], "little") / 2.0**64 for i in range(3))
        v = float(norm(np.array(r.velocity_mps)))
        el = math.degrees(math.atan2(r.velocity_mps[2], math.hypot(r.velocity_mps[0], r.velocity_mps[1])))
        hit = u < landscape(v, el)
        return Outcome(
            result="hit" if hit else "miss",
            reason="hit" if hit else "off-board",
            position_mm=[(x - 0.5) * 600.0, (y - 0.5) * 600.0, 0.0],
            damage=float(1 + int(6 * x)) if hit else 0.0,
        )

    return throw


@pytest.mark.parametrize("objective", ["hit", "kill", "damage"])
@pytest.mark.parametrize("landscape", sorted(LANDSCAPES))
def test_the_solve_chooses_what_every_reference_throw_would_choose(landscape, objective):
    sc = Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual")
    counts = {"bounded": [0], "full": [0]}
    solvers = {}
    for name in counts:
        solvers[name] = AimSolver(sc, Hand(sc), _synthetic_throw(LANDSCAPES[landscape], counts[name]))
        solvers[name].set_objective(objective, need=3)
    aim = (0.0, 0.0)
    assert solvers["bounded"].solve(aim, None) == _exhaustive(solvers["full"], aim)
    assert counts["bounded"][0] <= counts["full"][0]
    if landscape == "peak" and objective != "damage":  # the bound bites where candidates differ
        assert counts["bounded"][0] < counts["full"][0], counts
