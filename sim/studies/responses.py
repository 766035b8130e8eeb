"""Stochastic responses for the tuner: `evaluate(value, n, seed) -> (successes, trials)` callables.

A response turns "this setting at this value" into Bernoulli trials. The tuner needs common random
numbers: the same seed must give the same underlying draws at every value. Physical throws have that
for free, because throw k of a seed draws its release only from (seed, k) (sim/engine/release.py): at
any value of a setting, trial k is "the same hand" throwing under the changed setting. Fights have it
because fight k of a seed draws its resampled throws only from the stream (seed, fight k)
(sim/fights/resample.py): at any value of a fight setting, fight k throws the same recorded throws.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sim.engine.worlds import build_thrower
from sim.errors import SpecError
from sim.fights.engine import FightError, resolve_policy, run_fights
from sim.fights.resample import ResampleSource, UncoveredThrow, tables_from_results
from sim.fights.spec import FightSpec, load_fight
from sim.specs.scenario import Scenario
from sim.studies.metrics import FIGHT_METRICS, SHOT_METRICS


def shot_response(
    recipe: dict[str, Any],
    path: str,
    metric: str = "hit",
    max_worlds: int = 6,
    tick: Callable[[], None] | None = None,
    aim_progress: Callable[[int, int], None] | None = None,
) -> Callable[[Any, int, int], tuple[int, int]]:
    """The rate of `metric` over physical throws of a scenario, as a function of one override.

    `recipe` holds the keyword arguments of `Scenario.build` (board, dice, shots, skill, rules,
    overrides, ...); `path` is a dotted override path such as `shot.release.distance_mm` or
    `skill.speed_sd_frac`, set to the tuned value on top of the recipe's own overrides. Trial k of
    a call is throw k of the seed, `throw(seed, k)`, exactly as `thrower_for(scenario).throw(seed, k)`.

    Memory: each value needs its own physics world (about 36 MB). `thrower_for` keeps every world
    for the life of the thread, so this builds its own (`build_thrower`) and keeps at most
    `max_worlds` most recently used ones, closing the others; a value that comes back gets a freshly built
    world, which
    throws bit-identically (the determinism checker tests exactly that).

    Cost: a new world takes about half a second; a setting the aimed release depends on (anything
    but the skill) also solves the aimed release once per new value (a few hundred reference throws).
    `tick` (a progress bar's) is called after every throw, `aim_progress` during each new value's aim
    solve (the solver's observer: reference throws made, at most).
    """
    if metric not in SHOT_METRICS:
        raise SpecError(
            "tune", "metric", f"unknown metric '{metric}' for shots (known: {', '.join(SHOT_METRICS)})"
        )
    if not isinstance(path, str) or "." not in path:
        raise SpecError(
            "tune", "setting", f"must be a dotted override path like shot.release.distance_mm, got {path!r}"
        )
    success = SHOT_METRICS[metric]
    base = dict(recipe)
    fixed = dict(base.pop("overrides", None) or {})
    worlds: OrderedDict[Any, Any] = OrderedDict()

    def thrower(value):
        th = worlds.pop(value, None)
        if th is None:
            th = build_thrower(Scenario.build(**base, overrides={**fixed, path: value}))
            th.aim.progress = aim_progress
        worlds[value] = th
        while len(worlds) > max(1, max_worlds):
            worlds.popitem(last=False)[1].physics.close()
        return th

    def evaluate(value, n: int, seed: int) -> tuple[int, int]:
        th = thrower(value)
        hits = 0
        for k in range(int(n)):
            hits += bool(success(th.throw(seed, k).outcome))
            if tick is not None:
                tick()
        return hits, int(n)

    return evaluate


class FightResponse:
    """The rate of `metric` over fights played with resampled recorded throws, as a function of one
    fight setting: `FightResponse("reference", "house_rules.monster_life_bonus", "results/fight-throws")`.

    A call `response(value, n, seed)` plays fights 0..n-1 of the fight file with `path` set to `value`
    (on top of `overrides`), each fight drawing its throws from `ResampleSource(tables, seed)`: fight k
    draws only from the stream (seed, k). So at every value fight k throws the same recorded throws in
    the same order, and the tuner's comparisons are paired (common random numbers). More monster life
    on the same throws can only turn a won fight into a lost one, except where the policy decides by
    the monster's life (aim, spendables); the tuner's interval leans on that near-monotonicity.

    The records are read once (`tables_from_results`, as `dfsim fight --records` does); each value's
    fight spec is validated once and kept.
    """

    def __init__(
        self,
        fight: str | Path,
        path: str,
        records: str | Path,
        *,
        overrides: dict[str, Any] | None = None,
        metric: str = "won",
        variant: str | None = None,
        policy: str | None = None,
    ) -> None:
        if metric not in FIGHT_METRICS:
            raise SpecError(
                "tune", "metric", f"unknown metric '{metric}' for fights (known: {', '.join(FIGHT_METRICS)})"
            )
        if not isinstance(path, str) or not path or path.startswith(".") or path.endswith("."):
            raise SpecError(
                "tune",
                "setting",
                f"must be a dotted fight setting like house_rules.monster_life_bonus, got {path!r}",
            )
        self.fight, self.path, self.records, self.metric = fight, path, str(records), metric
        self.overrides = dict(overrides or {})
        self.base = load_fight(fight, self.overrides)
        self.current = _read_path(self.base, path)
        load_fight(
            fight, {**self.overrides, path: self.current}
        )  # a path the fight file cannot take fails here
        # an int field (not a bool) takes integers only: the CLI asks for --integer
        self.integer_setting = isinstance(self.current, int) and not isinstance(self.current, bool)
        self.policy = resolve_policy(
            policy or self.base.policy, "command line" if policy else self.base.source
        )
        throws = self.base.throws
        self.tables, self.notes = tables_from_results(
            records, variant or throws.variant, white_die=throws.white_die, colored_die=throws.colored_die
        )
        self._success = FIGHT_METRICS[metric]
        self._specs: dict[Any, FightSpec] = {}
        self.used: dict[str, Any] = {}  # label -> table, of every table a fight has drawn from

    def spec_at(self, value: Any) -> FightSpec:
        """The fight spec with the tuned setting at `value` (validated once per value)."""
        spec = self._specs.get(value)
        if spec is None:
            if self.integer_setting and not float(value).is_integer():
                raise SpecError(
                    "tune",
                    self.path,
                    f"takes integers (now {self.current!r}), got {value!r}: tune it with --integer",
                )
            v = int(value) if self.integer_setting else value
            spec = self._specs[value] = load_fight(self.fight, {**self.overrides, self.path: v})
        return spec

    def __call__(self, value: Any, n: int, seed: int) -> tuple[int, int]:
        """(successes, n) over fights 0..n-1 at `value`, their throws drawn from the streams of `seed`."""
        spec = self.spec_at(value)
        source = ResampleSource(self.tables, seed=seed)
        try:
            results = run_fights(spec, source, range(int(n)), self.policy)
        except UncoveredThrow as exc:
            raise SpecError(
                self.records, "records", f"{exc} (record these throws with `dfsim run`)"
            ) from None
        except FightError as exc:
            raise SpecError(spec.source, "policy", str(exc)) from None
        self.used.update(source.used)
        return sum(bool(self._success(r)) for r in results), int(n)


def _read_path(spec: Any, path: str) -> Any:
    """The value at a dotted path of a spec (None where the path does not exist yet)."""
    obj = spec
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj
