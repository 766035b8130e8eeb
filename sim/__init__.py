"""dfsim: a physical throw simulator for the Dungeon Fighter dexterity dice game.

Public API (imported lazily so `import sim` stays cheap in worker processes; type checkers see every
name through the imports below, which never run):

- `Scenario.build(board=..., dice=[...], shots=[...], skill=..., rules={...}, overrides={...})`
- `thrower_for(scenario).throw(seed, index)` -> `ThrowResult` (releases: `Release`, outcomes: `Outcome`)
  / `.place(x_m, y_m, yaw_deg, up)`: the calling thread's world for a scenario (`build_thrower`: a
  world of your own)
- `run_experiment(path_or_spec, ...)` -> `Results` with `.records` (DataFrame) and `.summary`; a fight
  experiment (docs/experiments.md) gives one record per fight; `RunFolder.open(out)` reads a finished
  run folder (cells, records, the aimed thrower of a cell)
- `load_fight(name_or_path, overrides)`, `load_monster(...)`, `run_fights(spec, source, n)` ->
  `FightResult`s with a throw source such as `ResampleSource(tables_from_results(RESULTS_DIR)[0], seed)`
  (docs/fights.md); `load_game`, `run_game`, `run_games` -> `GameResult`s (docs/game.md)
- `check_determinism(scenario)`; `wilson(count, n)` for an interval of a rate
- the errors: `SpecError` (bad input), `UncoveredThrow`, `FightError`, `ReplayMismatch`, `Interrupted`
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the same names as _LAZY (tests/test_public_api.py keeps the two alike)
    from sim.engine.determinism import check_determinism
    from sim.engine.release import Release
    from sim.engine.run_folder import RunFolder
    from sim.engine.thrower import ThrowResult
    from sim.engine.worlds import build_thrower, thrower_for
    from sim.errors import FightError, Interrupted, ReplayMismatch, SpecError, UncoveredThrow
    from sim.experiments.runner import Results, run_experiment
    from sim.experiments.statistics import wilson
    from sim.fights.engine import FightResult, run_fight, run_fights
    from sim.fights.monster import load_monster
    from sim.fights.resample import ResampleSource, tables_from_results
    from sim.fights.spec import load_fight
    from sim.games.engine import run_game, run_games
    from sim.games.result import GameResult
    from sim.games.spec import load_game
    from sim.rules.outcome import Outcome
    from sim.specs.board import load_board
    from sim.specs.die import load_die
    from sim.specs.scenario import Scenario
    from sim.specs.shot import load_shot
    from sim.specs.skill import load_skill

__version__ = "0.1.0"

_LAZY = {
    "Scenario": "sim.specs.scenario",
    "thrower_for": "sim.engine.worlds",
    "build_thrower": "sim.engine.worlds",
    "ThrowResult": "sim.engine.thrower",
    "Release": "sim.engine.release",
    "Outcome": "sim.rules.outcome",
    "run_experiment": "sim.experiments.runner",
    "Results": "sim.experiments.runner",
    "RunFolder": "sim.engine.run_folder",
    "wilson": "sim.experiments.statistics",
    "check_determinism": "sim.engine.determinism",
    "SpecError": "sim.errors",
    "UncoveredThrow": "sim.errors",
    "FightError": "sim.errors",
    "ReplayMismatch": "sim.errors",
    "Interrupted": "sim.errors",
    "load_board": "sim.specs.board",
    "load_die": "sim.specs.die",
    "load_shot": "sim.specs.shot",
    "load_skill": "sim.specs.skill",
    "load_fight": "sim.fights.spec",
    "load_monster": "sim.fights.monster",
    "load_game": "sim.games.spec",
    "run_fight": "sim.fights.engine",
    "run_fights": "sim.fights.engine",
    "FightResult": "sim.fights.engine",
    "run_game": "sim.games.engine",
    "run_games": "sim.games.engine",
    "GameResult": "sim.games.result",
    "ResampleSource": "sim.fights.resample",
    "tables_from_results": "sim.fights.resample",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'sim' has no attribute {name!r}")


__all__ = ["__version__", *_LAZY]


def __dir__() -> list[str]:
    return sorted(__all__)
