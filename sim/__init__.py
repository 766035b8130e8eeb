"""dfsim: a physical throw simulator for the Dungeon Fighter dexterity dice game.

Public API (imported lazily so `import sim` stays cheap in worker processes):

- `Scenario.build(board=..., dice=[...], shots=[...], skill=..., rules={...}, overrides={...})`
- `thrower_for(scenario).throw(seed, index)` / `.place(x_m, y_m, yaw_deg, up)`: the calling thread's
  world for a scenario
- `run_experiment(path_or_spec, ...)` -> results with `.records` (DataFrame) and `.summary`; a fight
  experiment (docs/experiments.md) gives one record per fight
- `load_fight(name_or_path, overrides)`, `load_monster(...)`, `run_fights(spec, source, n)` with a
  throw source such as `ResampleSource(tables_from_results(RESULTS_DIR)[0], seed)` (docs/fights.md)
- `check_determinism(scenario)`
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "Scenario": ("sim.specs.scenario", "Scenario"),
    "thrower_for": ("sim.engine.worlds", "thrower_for"),
    "run_experiment": ("sim.experiments.runner", "run_experiment"),
    "check_determinism": ("sim.engine.determinism", "check_determinism"),
    "SpecError": ("sim.errors", "SpecError"),
    "load_board": ("sim.specs.board", "load_board"),
    "load_die": ("sim.specs.die", "load_die"),
    "load_shot": ("sim.specs.shot", "load_shot"),
    "load_skill": ("sim.specs.skill", "load_skill"),
    "load_fight": ("sim.specs.fight", "load_fight"),
    "load_monster": ("sim.specs.monster", "load_monster"),
    "run_fight": ("sim.rules.fight", "run_fight"),
    "run_fights": ("sim.rules.fight", "run_fights"),
    "ResampleSource": ("sim.engine.resample", "ResampleSource"),
    "tables_from_results": ("sim.engine.resample", "tables_from_results"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        mod, attr = _LAZY[name]
        return getattr(importlib.import_module(mod), attr)
    raise AttributeError(f"module 'sim' has no attribute {name!r}")


__all__ = ["__version__", *_LAZY]


def __dir__() -> list[str]:
    return sorted(__all__)
