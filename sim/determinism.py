"""A determinism checker shipped as a utility (as Gymnasium ships its env checker).

Throws the same (seed, index) twice in one world, and once more in a freshly built world, and
compares every record field to the bit. Any built-in or user shot can be checked:
`python -m sim.determinism --shot firewall`.
"""

from __future__ import annotations

import argparse
import math

from .scenario import Scenario


class NondeterminismError(AssertionError):
    pass


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    return a == b


def check_determinism(scenario: Scenario, seed: int = 7, throws: int = 3) -> None:
    """Raise NondeterminismError naming the first field that differs between repeats."""
    from .throw import Thrower

    shared = scenario.thrower()
    fresh = Thrower(scenario)
    try:
        for k in range(throws):
            runs = [shared.throw(seed, k).record(), shared.throw(seed, k).record(), fresh.throw(seed, k).record()]
            for other, label in ((runs[1], "a repeat in the same world"), (runs[2], "a freshly built world")):
                for key, val in runs[0].items():
                    if not _same(val, other[key]):
                        raise NondeterminismError(f"throw {k} of seed {seed}: field '{key}' differs in {label}: {val!r} != {other[key]!r}")
    finally:
        fresh.physics.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m sim.determinism")
    p.add_argument("--shot", action="append", default=None)
    p.add_argument("--board", default="magma")
    p.add_argument("--die", action="append", default=None)
    p.add_argument("--seed", type=int, default=7)
    a = p.parse_args(argv)
    sc = Scenario.build(board=a.board, dice=a.die or ["hero-d8"], shots=a.shot or ["standard"])
    check_determinism(sc, a.seed)
    print("deterministic")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
