"""Convergence and coverage of the tuner (sim/studies/tuner.py) on synthetic responses.

Usage: python tools/tuner_convergence.py [K]. For each case, K tuner runs with seeds
1000..1000+K-1; prints the trials used (median, 90th percentile, max), the interval width (median),
the answer's root-mean-square error against the known truth, and how often the 95 % interval missed
the truth (expected: at most about 5 %). Pure numpy, no physics: about a minute at K = 200.
docs/tuning.md records the latest figures.

Responses: logistic curves p(x) = 1 / (1 + exp(-(x - x0) / s)), increasing or decreasing; trial i of
a seed is one uniform draw u_i, a success when u_i < p(value) (common random numbers), or, for the
"independent" cases, a fresh stream per value.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

from sim.studies.tuner import tune


def logistic(x0, s, decreasing=False):
    def p(x):
        v = 1.0 / (1.0 + math.exp(-(x - x0) / s))
        return 1.0 - v if decreasing else v

    return p


def crn(p):
    def evaluate(value, n, seed):
        return int(np.sum(np.random.default_rng(seed).random(n) < p(value))), n

    return evaluate


def independent(p):
    def evaluate(value, n, seed):
        u = np.random.default_rng([seed, int(round(float(value) * 1e6)) % 2**32]).random(n)
        return int(np.sum(u < p(value))), n

    return evaluate


def step(x):
    return 0.1 if x < 4.2 else 0.9


CASES = [
    # name, response maker, p, lo, hi, integer, tolerance, target, truth (continuous crossing)
    ("logistic s=0.5, t=0.5, tol 0.1", crn, logistic(3.0, 0.5), 0, 10, False, 0.1, 0.5, 3.0),
    ("logistic s=0.5, t=0.2, tol 0.1", crn, logistic(3.0, 0.5), 0, 10, False, 0.1, 0.2, 3.0 + 0.5 * math.log(0.25)),
    ("decreasing s=0.5, t=0.5, tol 0.1", crn, logistic(3.0, 0.5, True), 0, 10, False, 0.1, 0.5, 3.0),
    ("same, independent draws", independent, logistic(3.0, 0.5), 0, 10, False, 0.1, 0.5, 3.0),
    ("step 0.1 -> 0.9 at 4.2, tol 0.05", crn, step, 0, 10, False, 0.05, 0.5, 4.2),
    ("integer s=4, decreasing, +-1", crn, logistic(37.3, 4.0, True), 1, 100, True, 1, 0.5, 37.3),
    ("integer s=4, +-3", crn, logistic(37.3, 4.0), 1, 100, True, 3, 0.5, 37.3),
    ("integer s=15 (shallow fight), +-1", crn, logistic(60.4, 15.0, True), 1, 200, True, 1, 0.5, 60.4),
    ("integer s=4, independent, +-1", independent, logistic(37.3, 4.0), 1, 100, True, 1, 0.5, 37.3),
]


def main(k: int = 200) -> None:
    print(f"{'case':<36} {'trials median':>13} {'p90':>7} {'max':>7} {'width':>7} {'rmse':>6} {'missed':>8}")
    for name, make, p, lo, hi, integer, tol, target, truth in CASES:
        t0 = time.time()
        trials, widths, errors, missed = [], [], [], 0
        best = min(range(lo, hi + 1), key=lambda v: abs(p(v) - target)) if integer else truth
        for rep in range(k):
            res = tune(make(p), lo, hi, target, integer=integer, tolerance=tol, budget=10**7, seed=1000 + rep)
            a, b = res.interval
            missed += not a <= best <= b
            trials.append(res.trials)
            widths.append(b - a)
            errors.append(res.answer - best)
        tr = np.array(trials)
        print(f"{name:<36} {np.median(tr):>13.0f} {np.percentile(tr, 90):>7.0f} {tr.max():>7} "
              f"{np.median(widths):>7.3g} {math.sqrt(np.mean(np.square(errors))):>6.3f} {missed:>4}/{k}"
              f"   ({time.time() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
