"""The rolling checks of `dfsim validate` (sim/studies/rolling.py): each verdict fails on data that
must fail, and the closed forms have their known limits."""

from __future__ import annotations

import math

import pytest

from sim.engine.settling import wilson_interval
from sim.studies import rolling as R


def _ends(surface, ratio, flags):
    seen = [f for f in flags if f is not None]
    return {"surface": surface, "ratio": ratio, "n": len(flags), "void": len(flags) - len(seen), "end": sum(seen),
            "p_end": sum(seen) / len(seen), "ci95": list(wilson_interval(sum(seen), len(seen))), "flags": flags}


def _pair(p_thick, p_thin, n=1000, ratio=1.0):
    """Thick and thin pane rolls on common throws: thin ends are a subset of thick ones."""
    k_thick, k_thin = round(p_thick * n), round(p_thin * n)
    thick = [1] * k_thick + [0] * (n - k_thick)
    thin = [1] * k_thin + [0] * (n - k_thin) if k_thin <= k_thick else [0] * (n - k_thin) + [1] * k_thin
    return [_ends("glass", ratio, thick), _ends("glass-thin", ratio, thin)]


def test_surface_ends_verdict():
    assert R.judge_surface_ends(_pair(0.38, 0.24)).passed is True
    assert R.judge_surface_ends(_pair(0.24, 0.38)).passed is False  # the wrong direction
    assert R.judge_surface_ends(_pair(0.19, 0.15)).passed is False  # right direction, far below both
    assert R.judge_surface_ends(_pair(0.38, 0.36)).passed is False  # the panes not told apart
    assert R.judge_surface_ends(_pair(0.50, 0.24)).passed is False  # the thick pane far above its share
    assert R.judge_surface_ends(_pair(0.45, 0.24, n=150)).passed is True  # ... but not with 150 rolls
    other = _pair(0.10, 0.40, ratio=0.8)  # other ratios are reported (their paired differences), not judged
    c = R.judge_surface_ends(_pair(0.38, 0.24) + other)
    assert c.passed is True and [d["ratio"] for d in c.details["differences"]] == [0.8, 1.0]


def test_surface_ends_is_judged_at_the_converged_step_and_its_failure_is_a_known_gap():
    """The default step's good agreement is the step's: the verdict is the converged rolls', and the
    engine's miss there is reported as the documented gap, not as a pass and not as a broken run."""
    c = R.judge_surface_ends(_pair(0.38, 0.24), finer=_pair(0.13, 0.15, n=500))
    assert c.passed is False and c.status == "known gap" and not c.failed and "0.13" in c.known_gap
    assert "converged impact step" in c.summary and "step_hz = 15360" in c.summary
    assert "thick - thin -0.020" in c.summary  # the paired difference of the converged rolls
    assert "default step (not converged, reported): glass 0.380" in c.summary
    fixed = R.judge_surface_ends(_pair(0.13, 0.15), finer=_pair(0.38, 0.24))  # once the model reproduces them
    assert fixed.passed is True and fixed.status == "pass"


def test_runout_verdict_and_closed_form():
    row = {"surface": "felt", "v0_mps": 0.2, "arm_mm": 0.1, "facets": 24, "engine_mm": 90.0, "closed_mm": 97.0, "round_mm": 306.0}
    free = {"surface": "wood", "v0_mps": 0.2, "arm_mm": 0.0, "facets": 24, "engine_mm": 141.0, "closed_mm": 201.0, "round_mm": None}
    assert R.judge_runout([dict(row), dict(free)]).passed is True  # the surface without resistance is reported only
    assert R.judge_runout([row | {"engine_mm": 50.0}]).passed is False
    assert R.judge_runout([dict(free)]).passed is False  # nothing judged is no pass
    # many facets: the rimless wheel tends to the round roller with rolling resistance alone
    r, v0, arm = 0.01, 0.2, 1e-4
    assert R.rimless_runout_m(20000, v0, r, arm) == pytest.approx(1.5 * r * v0 * v0 / (2 * arm * 9.81), rel=0.01)
    assert R.rimless_runout_m(24, v0, r, arm) < R.rimless_runout_m(48, v0, r, arm) < R.rimless_runout_m(24, v0, r, 0.0) * 10


def test_coin_flip_verdict_and_limits():
    assert R.flip_same_side(0.0, 100, 1)[0] == pytest.approx(0.5)  # spin in the coin's plane: no bias
    p, se = R.flip_same_side(4.5, 20000, 1)
    assert 0.506 < p < 0.510 and se < 1e-3
    good = [{"skill": "casual", "wobble_sd_deg": 4.5, "n": 20000, "same_side": p, "se": se}]
    assert R.judge_coin_flips(good).passed is True
    assert R.judge_coin_flips([good[0] | {"same_side": 0.565}]).passed is False
    assert R.judge_coin_flips([good[0] | {"same_side": 0.500}]).passed is False
    assert math.isclose(R.BARTOS_SAME_SIDE[0], 0.508)
