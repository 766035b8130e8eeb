"""Measure hit rates of the built-in skill levels for the standard shot (magma board, hero d8).

Usage: python studies/calibrate_skills.py [N] [--table]. Prints each skill's hit rate with a 95 %
Wilson interval (--table: as the Markdown table docs/calibration.md quotes, which
tools/doc_numbers.py makes again). Seed 2024, throws 0..N-1.
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


def main(n: int = 400, board: str = "magma", die: str = "hero-d8", table: bool = False) -> None:
    if table:
        print("| skill | hit rate | 95 % CI | misses by reason |\n| --- | --- | --- | --- |")
    for skill in ("novice", "casual", "expert"):
        th = thrower_for(Scenario.build(board=board, dice=[die], skill=skill))
        reasons = Counter(th.throw(2024, k).outcome.reason for k in range(n))
        hits = reasons["hit"]
        lo, hi = wilson(hits, n)
        if table:
            misses = ", ".join(f"{r} {c}" for r, c in reasons.most_common() if r != "hit")
            print(f"| {skill} | {100 * hits / n:.1f} % | {100 * lo:.1f}–{100 * hi:.1f} % | {misses} |", flush=True)
        else:
            print(f"{board} {die} {skill:<7} hit {hits / n:6.1%}  95% CI [{lo:.1%}, {hi:.1%}]  {dict(reasons.most_common())}",
                  flush=True)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--table"]
    main(int(args[0]) if args else 400, table="--table" in sys.argv[1:])
