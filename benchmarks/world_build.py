"""How long building a world takes, this checkout against another, measured in the same run:

    python benchmarks/world_build.py --other /path/to/other/checkout -n 8 --rounds 3

Every command and every pool worker builds worlds (one per cell, one per replayed cell of report.html,
one per candidate of a tune), so their cost is paid across the whole tool and its test suite. Each
round builds, in one fresh interpreter per checkout (alternating which goes first), `n` worlds of each
scene after a first one (the first pays the process's one-off costs; reported apart); prints the median
per-world CPU and wall time of each checkout and their ratio (other / this).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

SCENES = {
    "reference": {"board": "magma", "dice": ["hero-d8"], "shots": ["standard"], "skill": "casual"},
    "firewall": {"board": "magma", "dice": ["hero-d8"], "shots": ["firewall"], "skill": "casual"},
    "template": {"board": "magma", "dice": ["hero-d8"], "templates": [{"name": "explosion", "flip": True}]},
}

WORKER = """
import json, sys, time
from sim.engine.worlds import build_thrower
from sim.specs.scenario import Scenario
scenes, n = json.loads(sys.argv[1]), int(sys.argv[2])
out = {}
for name, recipe in scenes.items():
    sc = Scenario.build(**recipe)
    c0, w0 = time.process_time(), time.perf_counter()
    build_thrower(sc).physics.close()
    first = (time.process_time() - c0, time.perf_counter() - w0)
    c0, w0 = time.process_time(), time.perf_counter()
    for _ in range(n):
        build_thrower(sc).physics.close()
    out[name] = {"first": first, "cpu": (time.process_time() - c0) / max(n, 1),
                 "wall": (time.perf_counter() - w0) / max(n, 1)}
print(json.dumps(out))
"""


def timings(root: Path, n: int, cache: str) -> dict:
    """Per-scene world-build times in a fresh interpreter running the checkout at `root`."""
    env = dict(os.environ, PYTHONPATH=str(root), DFSIM_CACHE_DIR=cache)
    out = subprocess.run([sys.executable, "-c", WORKER, json.dumps(SCENES), str(n)], env=env, cwd=root,
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"world_build.py: the checkout at {root} failed: {out.stderr.strip()[-400:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--other", required=True, help="the other checkout (a folder holding its sim/ package)")
    ap.add_argument("-n", type=int, default=8, help="worlds per scene after the first, per round")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    here, other = Path(__file__).resolve().parents[1], Path(a.other).resolve()
    cache = str(here / "results" / "world-build-cache")  # one rebound calibration per scene, shared
    timings(here, 0, cache)  # calibrations made once, outside the timed rounds
    runs: dict[str, list[dict]] = {"this": [], "other": []}
    for r in range(a.rounds):
        order = [("this", here), ("other", other)] if r % 2 == 0 else [("other", other), ("this", here)]
        for label, root in order:
            runs[label].append(timings(root, a.n, cache))
            print(f"round {r + 1}/{a.rounds}: {label} done", file=sys.stderr, flush=True)
    print(f"{'scene':<10} {'this cpu ms':>12} {'other cpu ms':>13} {'ratio':>6} {'this wall ms':>13} "
          f"{'other wall ms':>14} {'ratio':>6}  first world (this / other, wall ms)")
    for name in SCENES:
        med = {lab: {k: statistics.median(run[name][k] for run in runs[lab]) for k in ("cpu", "wall")}
               for lab in runs}
        first = {lab: statistics.median(run[name]["first"][1] for run in runs[lab]) for lab in runs}
        print(f"{name:<10} {1e3 * med['this']['cpu']:>12.0f} {1e3 * med['other']['cpu']:>13.0f} "
              f"{med['other']['cpu'] / med['this']['cpu']:>6.2f} {1e3 * med['this']['wall']:>13.0f} "
              f"{1e3 * med['other']['wall']:>14.0f} {med['other']['wall'] / med['this']['wall']:>6.2f}  "
              f"{1e3 * first['this']:.0f} / {1e3 * first['other']:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
