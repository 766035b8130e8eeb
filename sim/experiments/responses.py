"""Stochastic responses for the tuner: `evaluate(value, n, seed) -> (successes, trials)` callables.

A response turns "this setting at this value" into Bernoulli trials. The tuner needs common random
numbers: the same seed must give the same underlying draws at every value. Physical throws have that
for free, because throw k of a seed draws its release only from (seed, k) (sim/engine/release.py): at
any value of a setting, trial k is "the same hand" throwing under the changed setting.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from sim.engine.worlds import build_thrower
from sim.errors import SpecError
from sim.specs.scenario import Scenario

# what counts as a success of one throw, by metric name
SHOT_METRICS: dict[str, Callable[[Any], bool]] = {
    "hit": lambda outcome: outcome.result == "hit",  # void throws (not settled) count as not hit, as in summary.json
}


def shot_response(
    recipe: dict[str, Any], path: str, metric: str = "hit", max_worlds: int = 6
) -> Callable[[Any, int, int], tuple[int, int]]:
    """The rate of `metric` over physical throws of a scenario, as a function of one override.

    `recipe` holds the keyword arguments of `Scenario.build` (board, dice, shots, skill, rules,
    overrides, ...); `path` is a dotted override path such as `shot.release.distance_mm` or
    `skill.speed_sd_frac`, set to the tuned value on top of the recipe's own overrides. Trial k of
    a call is throw k of the seed, `throw(seed, k)`, exactly as `thrower_for(scenario).throw(seed, k)`.

    Memory: each value needs its own physics world (about 36 MB). `thrower_for` keeps every world
    for the life of the thread, so this builds its own (`build_thrower`) and keeps at most
    `max_worlds` most recently used ones, closing the others; a value that comes back gets a freshly built world, which
    throws bit-identically (the determinism checker tests exactly that).

    Cost: a new world takes about half a second; a setting the aimed release depends on (anything
    but the skill) also solves the aimed release once per new value (a few hundred reference throws).
    """
    if metric not in SHOT_METRICS:
        raise SpecError("tune", "metric", f"unknown metric '{metric}' for shots (known: {', '.join(SHOT_METRICS)})")
    if not isinstance(path, str) or "." not in path:
        raise SpecError("tune", "setting", f"must be a dotted override path like shot.release.distance_mm, got {path!r}")
    success = SHOT_METRICS[metric]
    base = dict(recipe)
    fixed = dict(base.pop("overrides", None) or {})
    worlds: OrderedDict[Any, Any] = OrderedDict()

    def thrower(value):
        th = worlds.pop(value, None)
        if th is None:
            th = build_thrower(Scenario.build(**base, overrides={**fixed, path: value}))
        worlds[value] = th
        while len(worlds) > max(1, max_worlds):
            worlds.popitem(last=False)[1].physics.close()
        return th

    def evaluate(value, n: int, seed: int) -> tuple[int, int]:
        th = thrower(value)
        hits = sum(bool(success(th.throw(seed, k).outcome)) for k in range(int(n)))
        return hits, int(n)

    return evaluate

