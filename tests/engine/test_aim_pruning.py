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


def _halved(solver: AimSolver, aim, candidates, values, keep, rungs):
    """Successive halving written out: all thrown to each rung, the better half (paired scores on the
    same throws, ties by technique) kept, the best `keep` after the last rung."""
    alive = list(dict.fromkeys(candidates))
    for rung in rungs:
        for c in alive:
            if c not in values:
                values[c] = solver.reference_values(aim, c, rung)
            elif len(values[c]) < rung:
                values[c] = np.vstack(
                    [values[c], solver.reference_values(aim, c, rung - len(values[c]), start=len(values[c]))]
                )
        alive.sort(key=lambda c: (_score_of(values[c][:rung]), c))
        if len(alive) <= keep:
            break
        alive = alive[: max(keep, math.ceil(len(alive) / 2))]
    return alive[:keep]


def _five_steps(solver: AimSolver, aim, pilot_rungs, rungs, again_rungs) -> A.Technique:
    """The solve's five steps written out (sim/engine/aim.py), each halving by `_halved`, the finals
    on every batch in full."""
    values: dict = {}
    grid = solver.grid(aim)
    keep = A.NOMINAL_FINALISTS

    def ways(p):
        return [A.Technique(p.speed_mps, p.elevation_deg, g, r, ax) for g, r, ax in solver.hand_options()]

    pilot = _halved(solver, aim, grid, values, 1, pilot_rungs)[0]
    way = _halved(solver, aim, ways(pilot), values, 1, rungs)[0]
    ranked = sorted(grid, key=lambda p: (_score_of(values[p][: pilot_rungs[0]]), p))
    searched = ranked[: max(keep, round(len(grid) * A.POINTS_SEARCHED))]
    points = [
        A.Technique(p.speed_mps, p.elevation_deg, way.grip, way.spin_rps, way.spin_axis) for p in searched
    ]
    best = _halved(solver, aim, points, values, keep, rungs)
    again_candidates = [w for p in best[: A.AGAIN_POINTS] for w in ways(p)]
    again = _halved(solver, aim, again_candidates, values, keep, again_rungs)
    common = min(
        A.rung_reached(len(set(points)), keep, rungs),
        A.rung_reached(len(set(again_candidates)), keep, again_rungs),
    )
    pool = list(dict.fromkeys(best + again))
    finalists = sorted(pool, key=lambda c: (_score_of(values[c][:common]), c))[:keep]
    refs = A.NOMINAL_FINAL_REFS
    while True:
        full = [
            np.vstack(
                [
                    values[c][: min(len(values[c]), refs)],
                    solver.reference_values(
                        aim, c, refs - min(len(values[c]), refs), start=min(len(values[c]), refs)
                    ),
                ]
            )
            if len(values[c]) < refs
            else values[c][:refs]
            for c in finalists
        ]
        scores = [_score_of(v) for v in full]
        order = sorted(range(len(finalists)), key=lambda i: (scores[i], finalists[i]))
        if len(order) < 2 or refs >= A.NOMINAL_MAX_FINAL_REFS:
            return finalists[order[0]]
        lead = full[order[0]][:, 0] - full[order[1]][:, 0]
        se = float(lead.std(ddof=1)) / math.sqrt(refs)
        if se == 0.0 or float(lead.mean()) > A.NOMINAL_SEPARATION_SE * se:
            return finalists[order[0]]
        refs += min(refs, A.NOMINAL_MAX_FINAL_REFS - refs)


def _exhaustive(solver: AimSolver, aim: tuple[float, float]) -> A.Technique:
    """The solve with every reference throw made: its rungs, no bound."""
    return _five_steps(solver, aim, A.PILOT_RUNGS, A.HALVING_RUNGS, A.AGAIN_RUNGS)


LANDSCAPES = {  # hit chance of a release by its speed (m/s), elevation (deg) and spin (rad/s, the vector)
    "peak": lambda v, el, w: (
        0.75 * math.exp(-((v - 2.0) ** 2) / 0.3 - (el - 20.0) ** 2 / 300.0)
        + (0.2 if abs(w[2]) > 10.0 else 0.0)
    ),  # side spin helps
    "alike": lambda v, el, w: 0.5,
    "never": lambda v, el, w: 0.0,
    "close": lambda v, el, w: 0.55 + 0.03 * math.sin(3.0 * v + el / 10.0),
    # rare hits: few candidates ever separate, and the bound still must not change the choice
    "rare": lambda v, el, w: (
        0.06 + 0.1 * math.exp(-((v - 2.0) ** 2) / 0.5) + (0.08 if abs(w[2]) > 10.0 else 0.0)
    ),
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
        hit = u < landscape(v, el, r.spin_radps)
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
    # the stages read out (benchmarks/aim_cost.py) are the solve's throws, stage by stage
    stages = solvers["bounded"].stages
    assert [name for name, _, _ in stages] == ["pilot", "hand", "points", "hand again", "final"]
    assert sum(made for _, _, made in stages) == counts["bounded"][0] and stages[0][2] > 0
    grid = solvers["bounded"].grid(aim)
    assert stages[0][1] == len(grid) and stages[1][1] == len(solvers["bounded"].hand_options())
    assert stages[2][1] == max(A.NOMINAL_FINALISTS, round(len(grid) * A.POINTS_SEARCHED))
    assert stages[4][1] == A.NOMINAL_FINALISTS
    if landscape == "peak" and objective != "damage":  # the bound bites where candidates differ
        assert counts["bounded"][0] < counts["full"][0], counts


@pytest.mark.parametrize("landscape", sorted(LANDSCAPES))
def test_the_agreement_tools_exhaustive_search_is_the_solve_without_the_halving(landscape, load_script):
    """tools/aim_agreement.py: its exhaustive search is the solve's steps with every candidate of a step
    thrown the step's last rung (written out here, no bound), and the throws it shares with the halving
    solve (each made once) change neither choice."""
    tool = load_script("tools/aim_agreement.py", "aim_agreement")
    rungs = (A.PILOT_RUNGS, A.HALVING_RUNGS, A.AGAIN_RUNGS)
    sc = Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual")
    aim = (0.0, 0.0)
    plain = AimSolver(sc, Hand(sc), _synthetic_throw(LANDSCAPES[landscape], [0]))
    written = _five_steps(plain, aim, A.PILOT_RUNGS[-1:], A.HALVING_RUNGS[-1:], A.AGAIN_RUNGS[-1:])
    made = [0]
    shared_solver = AimSolver(sc, Hand(sc), _synthetic_throw(LANDSCAPES[landscape], made))
    shared = tool.SharedThrows(shared_solver)
    shared_solver.reference_values = shared
    halving = shared_solver.solve(aim, None)
    asked_h, shared.asked = shared.asked, 0
    assert tool.exhaustive(shared_solver, aim) == written
    assert (A.PILOT_RUNGS, A.HALVING_RUNGS, A.AGAIN_RUNGS) == rungs  # put back
    lone = AimSolver(sc, Hand(sc), _synthetic_throw(LANDSCAPES[landscape], [0]))
    assert halving == lone.solve(aim, None)
    assert made[0] == shared.thrown < asked_h + shared.asked  # shared throws were made once
