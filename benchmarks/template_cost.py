"""CPU cost of a throw with templates against a bare throw of the same draws.

Usage: python benchmarks/template_cost.py [-n 30] [--seed 4004] [--json]

Scenes (magma board, hero d8, standard shot, casual): bare; the Weak Point laid 12 cm right of the
centre; the Weak Point laid and aimed at; the Weak Point flipped before every throw (as the
template-odds experiment has them). Throw k of each scene uses draws (seed, k), so the dice releases
are the same; the aimed release is solved (or read from the cache) before timing. Prints CPU ms per
throw, in this process, and each scene's ratio to the bare throw.
"""

from __future__ import annotations

import argparse
import json
import time

from sim.engine.worlds import build_thrower
from sim.specs.scenario import Scenario

BASE = {"board": "magma", "dice": ["hero-d8"], "shots": ["standard"], "skill": "casual"}
SCENES = {
    "bare": {},
    "laid": {"templates": [{"name": "weak-point", "x_mm": 120, "y_mm": 0}]},
    "laid-aimed": {"templates": [{"name": "weak-point", "x_mm": 120, "y_mm": 0, "aim": True}]},
    "flipped": {"templates": [{"name": "weak-point", "flip": True}]},
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=30, help="throws per scene")
    ap.add_argument("--seed", type=int, default=4004)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = {}
    for name, extra in SCENES.items():
        th = build_thrower(Scenario.build(**BASE, **extra))
        th.nominal()
        c0 = time.process_time()
        hits = sum(th.throw(a.seed, k).outcome.result == "hit" for k in range(a.n))
        rows[name] = {"cpu_ms_per_throw": round((time.process_time() - c0) / a.n * 1e3, 2), "hits": hits}
        th.physics.close()
    bare = rows["bare"]["cpu_ms_per_throw"]
    for r in rows.values():
        r["vs_bare"] = round(r["cpu_ms_per_throw"] / bare, 2)
    if a.json:
        print(json.dumps({"n": a.n, "scenes": rows}))
        return
    print(f"{a.n} throws per scene, CPU of this process")
    for name, r in rows.items():
        print(f"  {name:<11} {r['cpu_ms_per_throw']:>8.2f} ms/throw  {r['vs_bare']:>6.2f}x bare  ({r['hits']} hits)")


if __name__ == "__main__":
    main()
