"""Measure hit rates of the built-in skill levels for the standard shot (magma board, hero d8).

Usage: python benchmarks/calibrate_skills.py [N]. Prints each skill's hit rate with a 95 % Wilson
interval; docs/calibration.md records the latest figures. Seed 2024, throws 0..N-1.
"""

from __future__ import annotations

import math
import sys
from collections import Counter

from sim.engine.worlds import thrower_for
from sim.specs.scenario import Scenario


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def main(n: int = 400, board: str = "magma", die: str = "hero-d8") -> None:
    for skill in ("novice", "casual", "expert"):
        th = thrower_for(Scenario.build(board=board, dice=[die], skill=skill))
        reasons = Counter(th.throw(2024, k).outcome.reason for k in range(n))
        hits = reasons["hit"]
        lo, hi = wilson(hits, n)
        print(f"{board} {die} {skill:<7} hit {hits / n:6.1%}  95% CI [{lo:.1%}, {hi:.1%}]  {dict(reasons.most_common())}", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 400)
