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
    """Successive halving written out: the pilot (every candidate's first rung) sets the rungs' scale,
    then all thrown to each scaled rung, the better half (paired scores on the same throws, ties by
    technique) kept, the best `keep` after the last rung."""
    alive = list(dict.fromkeys(candidates))
    for c in alive:
        if c not in values:
            values[c] = solver.reference_values(aim, c, rungs[0])
    scale = A.rung_scale([values[c][: rungs[0]] for c in alive])
    for rung in (r * scale for r in rungs):
        for c in alive:
            if c not in values:
                values[c] = solver.reference_values(aim, c, rung)
            elif len(values[c]) < rung:
                values[c] = np.vstack([values[c], solver.reference_values(aim, c, rung - len(values[c]),
                                                                          start=len(values[c]))])
        alive.sort(key=lambda c: (_score_of(values[c][:rung]), c))
        if len(alive) <= keep:
            break
        alive = alive[: max(keep, math.ceil(len(alive) / 2))]
    return alive[:keep]


def _exhaustive(solver: AimSolver, aim: tuple[float, float]) -> A.Technique:
    """The solve with every reference throw made: the two halving stages, then the finalists on every
    batch in full."""
    values: dict = {}
    kept = _halved(solver, aim, solver.grid(aim), values, A.BALLISTIC_KEPT, A.BALLISTIC_RUNGS)
    second = [A.Technique(p.speed_mps, p.elevation_deg, g, r, ax) for p in kept for g, r, ax in solver.hand_options()]
    finalists = _halved(solver, aim, kept + second, values, A.NOMINAL_FINALISTS, A.HALVING_RUNGS)
    refs = A.NOMINAL_FINAL_REFS
    while True:
        full = [np.vstack([values[c][: min(len(values[c]), refs)],
                           solver.reference_values(aim, c, refs - min(len(values[c]), refs),
                                                   start=min(len(values[c]), refs))])
                if len(values[c]) < refs else values[c][:refs] for c in finalists]
        scores = [_score_of(v) for v in full]
        order = sorted(range(len(finalists)), key=lambda i: (scores[i], finalists[i]))
        if len(order) < 2 or refs >= A.NOMINAL_MAX_FINAL_REFS:
            return finalists[order[0]]
        lead = full[order[0]][:, 0] - full[order[1]][:, 0]
        se = float(lead.std(ddof=1)) / math.sqrt(refs)
        if se == 0.0 or float(lead.mean()) > A.NOMINAL_SEPARATION_SE * se:
            return finalists[order[0]]
        refs += min(refs, A.NOMINAL_MAX_FINAL_REFS - refs)


LANDSCAPES = {  # hit chance of a release by its speed (m/s), elevation (deg) and spin (rad/s, the vector)
    "peak": lambda v, el, w: 0.75 * math.exp(-((v - 2.0) ** 2) / 0.3 - (el - 20.0) ** 2 / 300.0)
    + (0.2 if abs(w[2]) > 10.0 else 0.0),  # side spin helps
    "alike": lambda v, el, w: 0.5,
    "never": lambda v, el, w: 0.0,
    "close": lambda v, el, w: 0.55 + 0.03 * math.sin(3.0 * v + el / 10.0),
    # rare hits: the rungs are scaled up (`rung_scale`) and the bound still must not change the choice
    "rare": lambda v, el, w: 0.06 + 0.1 * math.exp(-((v - 2.0) ** 2) / 0.5) + (0.08 if abs(w[2]) > 10.0 else 0.0),
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
    assert [name for name, _, _ in stages] == ["ballistic", "technique", "final"]
    assert sum(made for _, _, made in stages) == counts["bounded"][0] and stages[0][2] > 0
    assert stages[0][1] == len(solvers["bounded"].grid(aim)) and stages[2][1] == A.NOMINAL_FINALISTS
    if landscape == "peak" and objective != "damage":  # the bound bites where candidates differ
        assert counts["bounded"][0] < counts["full"][0], counts


def _tool():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "tools" / "aim_agreement.py"
    spec = importlib.util.spec_from_file_location("aim_agreement", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("landscape", sorted(LANDSCAPES))
def test_the_agreement_tools_exhaustive_search_is_the_solve_without_the_halving(landscape):
    """tools/aim_agreement.py: its exhaustive search is the solve's stages with every candidate thrown
    the full NOMINAL_REFS (written out here, no bound), and the throws it shares with the halving
    solve (each made once) change neither choice."""
    tool = _tool()
    sc = Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual")
    aim = (0.0, 0.0)
    plain = AimSolver(sc, Hand(sc), _synthetic_throw(LANDSCAPES[landscape], [0]))
    values: dict = {}
    kept = _halved(plain, aim, plain.grid(aim), values, A.BALLISTIC_KEPT, (A.NOMINAL_REFS,))
    second = [A.Technique(p.speed_mps, p.elevation_deg, g, r, ax) for p in kept for g, r, ax in plain.hand_options()]
    finalists = _halved(plain, aim, kept + second, values, A.NOMINAL_FINALISTS, (A.NOMINAL_REFS,))
    written = plain.final_choice(aim, finalists, None, [values[c] for c in finalists])
    made = [0]
    shared_solver = AimSolver(sc, Hand(sc), _synthetic_throw(LANDSCAPES[landscape], made))
    shared = tool.SharedThrows(shared_solver)
    shared_solver.reference_values = shared
    halving = shared_solver.solve(aim, None)
    asked_h, shared.asked = shared.asked, 0
    assert tool.exhaustive(shared_solver, aim) == written
    lone = AimSolver(sc, Hand(sc), _synthetic_throw(LANDSCAPES[landscape], [0]))
    assert halving == lone.solve(aim, None)
    assert made[0] == shared.thrown < asked_h + shared.asked  # shared throws were made once


def _pilot(rate: float, n: int = 400) -> list[np.ndarray]:
    """A pilot whose throws hit at exactly `rate` (first column), split over candidates of 4 throws."""
    hits = np.zeros(n)
    hits[: round(rate * n)] = 1.0
    return [np.column_stack([hits[i : i + 4], np.ones(4)]) for i in range(0, n, 4)]


@pytest.mark.parametrize(
    ("rate", "scale"),
    [(0.5, 1), (0.4, 2), (0.25, 2), (0.2, 4), (0.12, 4), (0.0, A.RUNG_SCALE_MAX), (0.75, 2), (0.9, A.RUNG_SCALE_MAX)],
)
def test_rungs_grow_until_the_rarer_outcome_is_expected_often_enough(rate, scale):
    # the smallest power of two s with s * NOMINAL_REFS * min(rate, 1 - rate) >= RUNG_EXPECTED_HITS, capped
    assert A.rung_scale(_pilot(rate)) == scale


def test_a_stage_of_rare_hits_is_screened_on_more_throws():
    sc = Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual")
    made = {}
    for name in ("alike", "rare"):
        count = [0]
        AimSolver(sc, Hand(sc), _synthetic_throw(LANDSCAPES[name], count)).solve((0.0, 0.0), None)
        made[name] = count[0]
    assert made["rare"] > 1.3 * made["alike"], made  # 793 against 543 when written
