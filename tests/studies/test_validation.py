"""`dfsim validate`: the quick run passes and writes its report; every check can fail.

Each verdict is shown failing on data that must fail (the `judge_*` functions), and the physics-level
checks are shown failing on a world that is wrong (gravity, restitution, integrator)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from sim.cli.main import main
from sim.engine.worlds import build_thrower
from sim.specs.scenario import Scenario
from sim.studies import validation as V


@pytest.fixture(scope="module")
def quick_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("validate")
    status = main(["validate", "--quick", "--out", str(out)])
    return status, out


def test_quick_validation_passes_and_writes_the_report(quick_report):
    status, out = quick_report
    assert status == 0
    res = json.loads((out / "results.json").read_text())
    names = [c["name"] for c in res["checks"]]
    assert names == list(V.CHECKS)
    assert res["meta"]["mode"] == "quick" and res["meta"]["passed"] is True
    # the one documented gap is reported as such (docs/physics.md, "Where the end share converges")
    assert res["meta"]["known_gaps"] in ([], ["surface-ends"])
    for c in res["checks"]:
        assert c["status"] in ("pass", "skipped") or (c["status"] == "known gap" and c["known_gap"]), c
        for f in c["figures"]:
            assert (out / f).stat().st_size > 1000
    report = (out / "report.md").read_text()
    assert "Overall: **pass**" in report and "| Not-settled matrix | pass |" in report
    for name in res["meta"]["known_gaps"]:
        assert f"Known gap, {name}:" in report


def test_unknown_check_is_bad_input(capsys, tmp_path):
    assert main(["validate", "--quick", "--only", "nonsense", "--out", str(tmp_path)]) == 2
    assert "unknown check 'nonsense'" in capsys.readouterr().err


def test_each_check_is_announced_as_it_starts(capsys, tmp_path):
    """A check runs for seconds to minutes: its name is printed when it starts, its verdict when it ends."""
    first = next(iter(V.CHECKS))
    assert main(["validate", "--quick", "--only", first, "--out", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["...", first, "(check", "1", "of", "1)"], lines
    assert lines[1].split()[:2] == ["pass", first], lines


def _ctx(tmp_path) -> V.Context:
    return V.Context(quick=True, out_dir=str(tmp_path))


# ------------------------------------------------------------ physics-level failures
def _fresh(dice="hero-d8", shot="standard"):
    return build_thrower(Scenario.build(board="magma", dice=[dice], shots=[shot]))


def test_ballistic_fails_under_wrong_gravity(tmp_path):
    th = _fresh("d6", "roll")
    th.physics.client.setGravity(0, 0, -9.0)
    assert V.check_ballistic(_ctx(tmp_path), world=th).passed is False
    th.physics.client.setGravity(0, 0, -9.81)
    assert V.check_ballistic(_ctx(tmp_path), world=th).passed is True


def test_rebound_fails_when_the_table_restitution_is_off(tmp_path):
    th = _fresh()
    ph = th.physics
    friction, restitution = ph.surface("table")
    ph.set_surface("table", friction, restitution * 1.3)
    c = V.check_rebound(_ctx(tmp_path), world=th)
    assert c.passed is False and c.details["rebound"]["table"][1] > 0.55


def test_energy_check_catches_a_bounce_that_adds_energy(tmp_path):
    th = _fresh()
    ph = th.physics
    for name in ("table", "board"):
        friction, _ = ph.surface(name)
        ph.set_surface(name, friction, 3.0)  # with the die's factor: a pair restitution above 1
    c = V.check_energy(_ctx(tmp_path), world=th)
    assert c.passed is False and c.details["ratios_max"] > 1.01


def _fly_explicit_euler(spec, state, aero, dt, until, max_t=5.0):
    """A poor integrator: Euler's equations in the body frame stepped by explicit Euler at a quarter of
    the rate asked, which lets the spin grow every step (the angular momentum is not conserved)."""
    from sim.specs.die import quat_to_matrix
    from sim.world.flight import _qdot

    inertia = np.asarray(spec.inertia_diagonal)
    dt = 4 * dt
    q = state.q.copy()
    wb = quat_to_matrix(q).T @ state.omega(1.0 / inertia)
    samples, t = [], 0.0
    while t < max_t:
        r = quat_to_matrix(q)
        samples.append((t, r[:, 2].copy(), r @ (inertia * wb)))
        dwb = -np.cross(wb, inertia * wb) / inertia
        q = q + dt * _qdot(q, r @ wb)
        q = q / np.linalg.norm(q)
        wb = wb + dt * dwb
        t += dt
    return state, t, 0.0, samples


def test_precession_fails_for_an_integrator_that_does_not_conserve_angular_momentum(tmp_path):
    ctx = _ctx(tmp_path)
    assert V.check_precession(ctx).passed is True
    assert V.check_precession(ctx, integrator=_fly_explicit_euler).passed is False


# ------------------------------------------------------------ verdicts on data that must fail
def test_judges_fail_on_bad_data():
    assert V.judge_ballistic([0.0, 0.02], [0.01, 0.01], 1 / 240).passed is False
    assert V.judge_rebound([0.1], {"table": [0.58]}, {"table": 0.5}).passed is False
    assert V.judge_energy([0.3, 1.02], 0).passed is False
    assert V.judge_energy([], 5).passed is False  # nothing measured is not a pass
    assert V.judge_precession(np.array([70.0, 71.5])).passed is False
    row = {"psi_deg": 60.0, "formula": V.dhm_same_side(60.0), "catches": 40000, "period_s": 0.01, "window_s": 1.8}
    assert V.judge_same_side([row | {"simulated": 0.5}]).passed is False
    assert V.judge_same_side([row | {"simulated": V.dhm_same_side(60.0)}]).passed is True
    face = {"die": "d6", "n": 600, "void": 0, "cocked": 0, "counts": [100] * 6, "chi2": 0.0, "p": 1.0}
    assert V.judge_faces([face]).passed is True
    assert V.judge_faces([face | {"p": 0.001}]).passed is False
    assert V.judge_faces([face | {"cocked": 1}]).passed is False


def _coin_rows(fractions):
    return [{"contact_damping": 0.99, "ratio": r, "p_side": p} for r, p in zip(V.COIN_RATIOS, fractions)]


def test_coin_edge_verdict():
    assert V.judge_coin_edge(_coin_rows([0.08, 0.24, 0.44, 0.65])).passed is True
    assert V.judge_coin_edge(_coin_rows([0.08, 0.36, 0.44, 0.65])).passed is False  # fair below 1/(2 sqrt 2)
    assert V.judge_coin_edge(_coin_rows([0.05, 0.1, 0.2, 0.65])).passed is False  # fair above 1/sqrt 3
    assert V.judge_coin_edge(_coin_rows([0.08, 0.30, 0.25, 0.65])).passed is False  # not rising
    assert V.fair_ratio([0.0, 1.0], [0.0, 2 / 3]) == pytest.approx(0.5)


def test_settling_and_tunnelling_verdicts():
    good = {"die": "d6", "shot": "roll", "n": 2000, "void": 2, "max_sink_mm": 0.1}
    assert V.judge_settling([good]).passed is True
    assert V.judge_settling([good | {"void": 3}]).passed is False  # above 0.1 %
    assert V.judge_settling([good | {"max_sink_mm": 0.6}]).passed is False
    fast = {"speed_mps": 10.0, "shot": "slap"}
    rows = [{"die": "d4", "throws": 10, "below_top": 0, "min_centre_gap_mm": 2.0}]
    assert V.judge_tunnelling(rows, fast).passed is True
    assert V.judge_tunnelling([rows[0] | {"below_top": 1}], fast).passed is False


def test_dhm_formula_limits():
    assert V.dhm_same_side(40.0) == 1.0
    assert V.dhm_same_side(45.0 + 1e-9) == pytest.approx(1.0, abs=1e-4)
    assert V.dhm_same_side(90.0 - 1e-9) == pytest.approx(0.5, abs=1e-6)


def test_fastest_release_is_a_plausible_hard_throw():
    fast = V.fastest_release_mps()
    assert 5.0 < fast["speed_mps"] < 30.0 and fast["shot"]


# ------------------------------------------------------------ convergence
def test_convergence_verdict():
    row = {"n": 40, "passed": True, "changed_throws": 1}
    assert V.judge_convergence({"roll-d6": row}).passed is True
    assert V.judge_convergence({"roll-d6": row, "reference": row | {"passed": False}}).passed is False


def test_yong_mahadevan_fair_ratios():
    rand, flip = V.yong_mahadevan_side(1 / (2 * math.sqrt(2)))
    assert rand == pytest.approx(1 / 3)
    assert V.yong_mahadevan_side(1 / math.sqrt(3))[1] == pytest.approx(1 / 3)
