"""The tuner on synthetic monotone responses with known answers (no physics: all numpy, fast).

Every synthetic response uses common random numbers the way an engine does: trial i of a seed is
one uniform draw u_i, a success when u_i < p(value). Tolerances come from the trial counts.
"""

import json
import math
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from sim.errors import NotBracketedError, SpecError
from sim.studies import tuner as tuner_mod
from sim.studies.tuner import _isotonic, save_result, tune, tune_figure


def logistic(x0: float, scale: float, decreasing: bool = False):
    def p(x):
        v = 1.0 / (1.0 + math.exp(-(x - x0) / scale))
        return 1.0 - v if decreasing else v

    return p


def crn(p, calls=None):
    """Common random numbers: the same seed gives the same draws at every value."""

    def evaluate(value, n, seed):
        if calls is not None:
            calls.append((value, n, seed))
        u = np.random.default_rng(seed).random(n)
        return int(np.sum(u < p(value))), n

    return evaluate


def independent(p):
    """No common random numbers: every value draws its own stream (a harder case for the interval)."""

    def evaluate(value, n, seed):
        u = np.random.default_rng([seed, int(round(float(value) * 1e6)) % 2**32]).random(n)
        return int(np.sum(u < p(value))), n

    return evaluate


def slope(p, x, h=1e-4):
    return abs(p(x + h) - p(x - h)) / (2 * h)


def closest_integer(p, lo, hi, target):
    return min(range(lo, hi + 1), key=lambda k: abs(p(k) - target))


def root_sd(p, x, target, n):
    """Standard deviation of the crossing read off n draws: binomial sd of the rate over the slope."""
    return math.sqrt(target * (1 - target) / n) / slope(p, x)


# ------------------------------------------------------------------ convergence ----
@pytest.mark.parametrize("decreasing", [False, True])
@pytest.mark.parametrize("target", [0.5, 0.2])
def test_continuous_logistic_converges_within_its_interval(decreasing, target):
    p = logistic(3.0, 0.5, decreasing)
    z = math.log(target / (1 - target)) * 0.5
    truth = 3.0 - z if decreasing else 3.0 + z
    # 99 % intervals on fixed seeds: a miss here is a 1-in-100 event per case, not bad luck at 1 in 20
    res = tune(crn(p), 0.0, 10.0, target, tolerance=0.1, budget=100_000, seed=11, confidence=0.99)
    assert res.stop == "tolerance" and res.half_width <= 0.1
    assert res.direction == ("decreasing" if decreasing else "increasing")
    assert res.interval[0] <= truth <= res.interval[1]
    assert abs(res.answer - truth) <= 4 * root_sd(p, truth, target, res.final_n)
    assert res.trials <= res.budget and res.trials == sum(pt.rate.n for pt in res.points)


@pytest.mark.parametrize("decreasing", [False, True])
def test_integer_logistic_finds_the_closest_integer(decreasing):
    p = logistic(37.3, 4.0, decreasing)
    best = closest_integer(p, 1, 100, 0.5)
    res = tune(crn(p), 1, 100, 0.5, integer=True, tolerance=1, budget=100_000, seed=5, confidence=0.99)
    assert isinstance(res.answer, int) and all(isinstance(v, int) for v in res.interval)
    assert res.stop == "tolerance" and res.half_width <= 1
    assert res.interval[0] <= best <= res.interval[1]
    # the two integers around the crossing were both measured; the answer is the one closer to target
    assert {37, 38} <= {pt.value for pt in res.points}
    assert abs(res.answer - best) <= 1


def test_step_like_response():
    p = lambda x: 0.1 if x < 4.2 else 0.9  # noqa: E731
    res = tune(crn(p), 0.0, 10.0, 0.5, tolerance=0.05, budget=50_000, seed=3)
    assert res.stop == "tolerance" and res.interval[0] <= 4.2 <= res.interval[1]
    assert res.half_width <= 0.05
    # a jump this large is seen at the first stage: nothing beyond n0 trials per value is needed
    assert res.final_n == res.initial_n


def test_step_like_integer_response():
    p = lambda k: 0.15 if k <= 42 else 0.75  # noqa: E731
    res = tune(crn(p), 0, 200, 0.5, integer=True, budget=50_000, seed=3)
    assert res.interval == (42, 43)
    assert res.answer == 43  # |0.75 - 0.5| < |0.15 - 0.5|


def test_shallow_fight_like_response_fits_the_minute():
    """A fight whose win rate falls only 1.7 points per monster life (logistic scale 15): a coin flip
    within +-1 life must cost well under 600,000 fights (a minute at 10,000 fights/s)."""
    p = logistic(60.4, 15.0, decreasing=True)
    res = tune(crn(p), 1, 200, 0.5, integer=True, tolerance=1, budget=600_000, seed=0)
    assert res.stop == "tolerance"
    assert res.interval[0] <= closest_integer(p, 1, 200, 0.5) <= res.interval[1]
    assert res.trials < 200_000


# ------------------------------------------------------------------ no crossing ----
def test_flat_response_without_crossing_is_a_clear_error():
    with pytest.raises(NotBracketedError) as exc:
        tune(crn(lambda x: 0.3), 0.0, 1.0, 0.5, budget=10_000)
    msg = str(exc.value)
    assert "\n" not in msg and "not inside the response" in msg and "below" in msg
    assert not isinstance(exc.value, SpecError)  # an answer, not bad input: the CLI's exit status 3


def test_flat_response_just_off_target_needs_trials_then_errors():
    calls = []
    with pytest.raises(NotBracketedError):
        tune(crn(lambda x: 0.49, calls), 0.0, 1.0, 0.5, budget=200_000)
    # both ends stay plausible at first (a 1-point gap needs ~10,000 draws to show); the tuner adds
    # draws at the ends, and nothing else, until both are excluded
    assert {v for v, _, _ in calls} == {0.0, 1.0}
    assert sum(n for v, n, _ in calls if v == 0.0) >= 4096


def test_flat_response_at_target_spends_the_budget_and_says_so():
    res = tune(crn(lambda x: 0.5), 0.0, 1.0, 0.5, budget=3000)
    assert res.stop == "budget" and res.direction == "unknown"
    assert res.interval == (0.0, 1.0) and res.interval_at_edge == (True, True)
    assert res.trials <= 3000 and res.notes


def test_wrong_direction_is_an_error():
    with pytest.raises(NotBracketedError, match="increasing"):
        tune(crn(logistic(3.0, 0.5, decreasing=True)), 0.0, 10.0, 0.5, increasing=True)


def test_crossing_beyond_the_range_edge_is_flagged():
    p = logistic(-0.05, 0.5)  # rate at 0 is just above 0.5: the crossing lies (barely) below the range
    res = tune(crn(p), 0.0, 10.0, 0.5, tolerance=0.1, budget=20_000, seed=2)
    assert res.interval_at_edge[0] and res.interval[0] == 0.0
    assert any("not excluded" in note for note in res.notes)


# ------------------------------------------------------------------ determinism and caching ----
def test_same_seed_same_answer_other_seed_other_draws():
    p = logistic(3.0, 0.5)
    a = tune(crn(p), 0.0, 10.0, 0.5, tolerance=0.1, seed=7).to_json()
    b = tune(crn(p), 0.0, 10.0, 0.5, tolerance=0.1, seed=7).to_json()
    c = tune(crn(p), 0.0, 10.0, 0.5, tolerance=0.1, seed=8).to_json()
    assert a == b
    assert a["batch_seeds"] != c["batch_seeds"] and a["points"] != c["points"]


def test_integer_values_are_never_evaluated_twice_as_fresh_points():
    calls = []
    res = tune(crn(logistic(37.3, 4.0), calls), 1, 100, 0.5, integer=True, budget=100_000, seed=5)
    assert all(isinstance(v, int) for v, _, _ in calls)
    # every (value, batch) is evaluated once: extending a value adds batches, never re-runs one
    assert len({(v, s) for v, _, s in calls}) == len(calls)
    first = res.batch_seeds[0]
    fresh = [v for v, _, s in calls if s == first]
    assert len(fresh) == len(set(fresh)) == len(res.points)
    # a value's batches follow the shared schedule, so every value at a stage saw the same draws
    for v in set(fresh):
        seeds = [s for w, _, s in calls if w == v]
        assert seeds == res.batch_seeds[: len(seeds)]
    assert sum(n for _, n, _ in calls) == res.trials


def test_budget_is_never_exceeded():
    res = tune(crn(logistic(3.0, 0.5)), 0.0, 10.0, 0.5, tolerance=0.001, budget=2000, seed=1)
    assert res.stop == "budget" and res.trials <= 2000
    assert res.interval[0] <= res.answer <= res.interval[1]


# ------------------------------------------------------------------ coverage ----
@pytest.mark.parametrize("make", [crn, independent], ids=["common-random-numbers", "independent-draws"])
def test_interval_covers_the_truth_in_most_repetitions(make):
    """K repetitions with different seeds; nominal coverage 95 %: the number of misses must stay
    within the 99.9 % quantile of Binomial(K, 0.05)."""
    k_reps, target = 60, 0.3
    p = logistic(3.0, 0.5)
    truth = 3.0 + 0.5 * math.log(target / (1 - target))
    misses = 0
    for rep in range(k_reps):
        res = tune(make(p), 0.0, 10.0, target, tolerance=0.1, budget=200_000, seed=1000 + rep)
        misses += not (res.interval[0] <= truth <= res.interval[1])
    assert misses <= stats.binom.ppf(0.999, k_reps, 0.05)


# ------------------------------------------------------------------ validation ----
@pytest.mark.parametrize(
    "kwargs, field",
    [
        (dict(target=1.0), "target"),
        (dict(target=0.0), "target"),
        (dict(lo=2.0, hi=1.0), "range"),
        (dict(integer=True, lo=0.5), "range"),
        (dict(integer=True, tolerance=0.5), "tolerance"),
        (dict(tolerance=0.0), "tolerance"),
        (dict(budget=100, initial_n=64), "budget"),
        (dict(confidence=1.5), "confidence"),
    ],
)
def test_bad_arguments_are_spec_errors(kwargs, field):
    args = dict(lo=0.0, hi=10.0, target=0.5) | kwargs
    with pytest.raises(SpecError) as exc:
        tune(crn(lambda x: 0.5), **args)
    assert exc.value.field == field


def test_bad_evaluate_output_is_a_spec_error():
    with pytest.raises(SpecError, match="successes"):
        tune(lambda v, n, s: (n + 1, n), 0.0, 1.0, 0.5)


def test_isotonic_pools_adjacent_violators():
    y = np.array([0.1, 0.5, 0.3, 0.7, 0.6, 0.9])
    w = np.array([1.0, 1.0, 3.0, 1.0, 1.0, 1.0])
    np.testing.assert_allclose(_isotonic(y, w), [0.1, 0.35, 0.35, 0.65, 0.65, 0.9])


# ------------------------------------------------------------------ output ----
def _small_result():
    return tune(crn(logistic(3.0, 0.5)), 0.0, 10.0, 0.5, tolerance=0.2, seed=4, setting="throw.distance", metric="hit rate")


def test_to_json_is_standard_json_with_every_point():
    res = _small_result()
    d = json.loads(json.dumps(res.to_json(), allow_nan=False))
    for key in ("answer", "interval", "target", "points", "method", "stop", "trials", "budget", "confidence"):
        assert key in d
    assert len(d["points"]) == len(res.points)
    for pt in d["points"]:
        assert {"value", "n", "successes", "rate", "lo", "hi", "side", "fit"} <= set(pt)
        assert pt["lo"] <= pt["rate"] <= pt["hi"]


def test_save_writes_json_and_figure(tmp_path):
    res = _small_result()
    paths = save_result(res, tmp_path / "out")
    assert [p.name for p in paths] == ["tune.json", "tune.png"]
    assert json.loads(paths[0].read_text())["answer"] == res.answer
    assert paths[1].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["tune.json", "tune.png"]


def test_save_leaves_nothing_half_written_on_error(tmp_path, monkeypatch):
    res = _small_result()
    out = tmp_path / "out"
    save_result(res, out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def broken(*a, **k):
        raise RuntimeError("figure failed")

    monkeypatch.setattr(tuner_mod, "tune_figure", broken)
    other = tune(crn(logistic(3.0, 0.5)), 0.0, 10.0, 0.5, tolerance=0.2, seed=99)
    with pytest.raises(RuntimeError):
        save_result(other, out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # old files intact, no temp files
    with pytest.raises(RuntimeError):
        save_result(other, tmp_path / "fresh")
    assert not (tmp_path / "fresh").exists()


def test_figure_draws_without_touching_the_backend():
    """No pyplot, no backend choice: the module and its figure use matplotlib's object API only."""
    code = (
        "import sys, numpy as np; import sim.studies.tuner as t; assert 'matplotlib' not in sys.modules; "
        "r = t.tune(lambda v, n, s: (int(np.sum(np.random.default_rng(s).random(n) < v)), n), 0.0, 1.0, 0.5, "
        "tolerance=0.1); f = t.tune_figure(r); assert 'matplotlib.pyplot' not in sys.modules; "
        "assert len(f.axes) == 1"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    fig = tune_figure(_small_result())
    assert fig.axes[0].get_xlabel() == "throw.distance"
