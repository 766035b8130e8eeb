"""Paired check of two versions of the code on identical throws: the same records, bit for bit?

    python tools/paired_code.py --other /path/to/other/checkout -n 100

Runs this checkout and the other one (each in its own interpreter, the other's `sim` first on the
path) over the same scenes and throws (seed, index), and compares the records field by field: for a
change meant to save time only (a faster loop, a cheaper rest test), every record must be identical.
Scenes: the reference throw (hero d8 on magma), free rolls of a d6, d4 and d12 (cocked dice, edges,
balanced dice) and the firewall shot (a path predicate). Prints the differing records, if any, and
exits 1 when there are any.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

SCENES = {
    "reference": {"board": "magma", "dice": ["hero-d8"], "shots": ["standard"], "skill": "casual"},
    "d6-roll": {"dice": ["d6"], "shots": ["roll"]},
    "d4-roll": {"dice": ["d4"], "shots": ["roll"]},
    "d12-roll": {"dice": ["d12"], "shots": ["roll"]},
    "firewall": {"board": "magma", "dice": ["hero-d8"], "shots": ["firewall"], "skill": "casual"},
}

WORKER = """
import json, sys
from sim.engine.worlds import build_thrower
from sim.specs.scenario import Scenario
scenes, n, seed = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
out = {}
for name, recipe in scenes.items():
    th = build_thrower(Scenario.build(**recipe))
    out[name] = [th.throw(seed, k).record() for k in range(n)]
    th.physics.close()
print(json.dumps(out))
"""


def records(root: Path, n: int, seed: int) -> dict:
    """Every scene's records thrown by the checkout at `root`."""
    env = dict(os.environ, PYTHONPATH=str(root))
    out = subprocess.run([sys.executable, "-c", WORKER, json.dumps(SCENES), str(n), str(seed)], env=env, cwd=root,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--other", required=True, help="the other checkout (a folder holding its sim/ package)")
    ap.add_argument("-n", type=int, default=100, help="throws per scene")
    ap.add_argument("--seed", type=int, default=31)
    a = ap.parse_args()
    here = Path(__file__).resolve().parents[1]
    mine, theirs = records(here, a.n, a.seed), records(Path(a.other).resolve(), a.n, a.seed)
    differ = 0
    for name in SCENES:
        diffs = [k for k, (x, y) in enumerate(zip(mine[name], theirs[name])) if x != y]
        differ += len(diffs)
        results = {r["result"] for r in mine[name]}
        print(f"{name:<10} {a.n} throws, {len(diffs)} differ (results seen: {', '.join(sorted(results))})")
        for k in diffs[:5]:
            x, y = mine[name][k], theirs[name][k]
            print(f"  throw {k}: " + ", ".join(f"{f}: {y[f]!r} -> {x[f]!r}" for f in x if x[f] != y.get(f)))
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
