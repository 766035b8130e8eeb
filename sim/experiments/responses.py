"""Stochastic responses for the tuner: `evaluate(value, n, seed) -> (successes, trials)` callables.

A response turns "this setting at this value" into Bernoulli trials. The tuner needs common random
numbers: the same seed must give the same underlying draws at every value. Physical throws have that
for free, because throw k of a seed draws its release only from (seed, k) (sim/release.py): at any
value of a setting, trial k is "the same hand" throwing under the changed setting.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import SpecError

# what counts as a success of one throw, by metric name
SHOT_METRICS: dict[str, Callable[[Any], bool]] = {
    "hit": lambda outcome: outcome.result == "hit",  # void throws (not settled) count as not hit, as in summary.json
}


def shot_response(recipe: dict[str, Any], path: str, metric: str = "hit") -> Callable[[Any, int, int], tuple[int, int]]:
    """The rate of `metric` over physical throws of a scenario, as a function of one override.

    `recipe` holds the keyword arguments of `Scenario.build` (board, dice, shots, skill, rules,
    overrides, ...); `path` is a dotted override path such as `shot.release.distance_mm` or
    `skill.speed_sd_frac`, set to the tuned value on top of the recipe's own overrides. Trial k of
    a call is `Scenario.thrower().throw(seed, k)`. The scenario of each value is built once and kept.

    Cost: a new value builds a new physics world; a setting the aimed release depends on (anything
    but the skill) also re-solves the aimed release at each new value (a few hundred reference
    throws), so tuning such a setting costs that much more per explored value.
    """
    from ..scenario import Scenario

    if metric not in SHOT_METRICS:
        raise SpecError("tune", "metric", f"unknown metric '{metric}' for shots (known: {', '.join(SHOT_METRICS)})")
    if not isinstance(path, str) or "." not in path:
        raise SpecError("tune", "setting", f"must be a dotted override path like shot.release.distance_mm, got {path!r}")
    success = SHOT_METRICS[metric]
    base = dict(recipe)
    fixed = dict(base.pop("overrides", None) or {})
    scenarios: dict[Any, Scenario] = {}

    def evaluate(value, n: int, seed: int) -> tuple[int, int]:
        sc = scenarios.get(value)
        if sc is None:
            sc = scenarios[value] = Scenario.build(**base, overrides={**fixed, path: value})
        thrower = sc.thrower()
        hits = sum(bool(success(thrower.throw(seed, k).outcome)) for k in range(int(n)))
        return hits, int(n)

    return evaluate
