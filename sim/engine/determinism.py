"""A determinism checker shipped as a utility (as Gymnasium ships its env checker).

Throws the same (seed, index) twice in one world, and once more in a freshly built world, and
compares every record field to the bit; when the compiled throw loop runs (sim/world/compiled.py),
once more in the Python loop it must match (sim/world/stepper.py, the reference). Any built-in or user shot
can be checked:
`dfsim determinism --shot firewall`. The fresh world is built exactly as a run builds
its world (templates and props attached), so what is checked is what runs.
"""

from __future__ import annotations

import math

from sim.engine.worlds import build_thrower, thrower_for
from sim.errors import NondeterminismError
from sim.specs.scenario import Scenario
from sim.world import compiled


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    return a == b


def check_determinism(scenario: Scenario, seed: int = 7, throws: int = 3) -> None:
    """Raise NondeterminismError naming the first field that differs between repeats."""
    shared = thrower_for(scenario)
    fresh = build_thrower(scenario)
    try:
        for k in range(throws):
            runs = [
                shared.throw(seed, k).record(),
                shared.throw(seed, k).record(),
                fresh.throw(seed, k).record(),
            ]
            checks = [(runs[1], "a repeat in the same world"), (runs[2], "a freshly built world")]
            if compiled.active():
                with compiled.using("python"):
                    checks.append((shared.throw(seed, k).record(), "the Python throw loop"))
            for other, label in checks:
                for key, val in runs[0].items():
                    if not _same(val, other[key]):
                        raise NondeterminismError(
                            f"throw {k} of seed {seed}: field '{key}' differs in {label}: {val!r} != "
                            f"{other[key]!r}"
                        )
    finally:
        fresh.physics.close()
