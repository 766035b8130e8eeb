"""Wall and CPU time of single `dfsim` commands as subprocesses, cold (empty cache folder) and warm.

Usage: python benchmarks/single_commands.py [--repeat N] [--json]

Each command runs in a fresh interpreter, as a user types it. "cold" runs with an empty cache folder
(DFSIM_CACHE_DIR pointed at a new temporary folder: the aimed release, rebound calibration and flip
speed are solved); "warm" runs again with that folder filled (the best of --repeat runs). CPU is the
child's user + system time, which a loaded machine inflates much less than wall time. It measures and
prints; it asserts nothing (the tests check what the cache returns, not how fast).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

COMMANDS = [
    ["--help"],
    ["boards"],
    ["dice"],
    ["shots"],
    ["skills"],
    ["templates"],
    ["props"],
    ["throw", "--seed", "7", "--json"],
    ["place", "--x", "0", "--y", "0", "--json"],
    ["flip", "fireball", "--seed", "3", "--json"],
]


def timed(args: list[str], cache: str) -> tuple[float, float]:
    """(wall s, CPU s) of one `python -m sim.cli ARGS` run with this cache folder."""
    env = dict(os.environ, DFSIM_CACHE_DIR=cache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "sim.cli", *args], env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="warm runs per command (the best is shown)")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="dfsim-bench-cache-") as cache:
        for args in COMMANDS:
            cold = timed(args, cache)
            warm = min((timed(args, cache) for _ in range(a.repeat)), key=lambda t: t[0])
            rows.append({"command": "dfsim " + " ".join(args), "cold_wall_s": round(cold[0], 3), "cold_cpu_s": round(cold[1], 3),
                         "warm_wall_s": round(warm[0], 3), "warm_cpu_s": round(warm[1], 3)})
    load = os.getloadavg()[0]
    if a.json:
        print(json.dumps({"cores": os.cpu_count(), "load_1min": load, "rows": rows}))
        return
    print(f"{os.cpu_count()} cores, 1-minute load {load:.1f} at the end")
    print(f"{'command':<46} {'cold wall':>9} {'cold cpu':>9} {'warm wall':>9} {'warm cpu':>9}")
    for r in rows:
        print(f"{r['command']:<46} {r['cold_wall_s']:>9.2f} {r['cold_cpu_s']:>9.2f} {r['warm_wall_s']:>9.2f} {r['warm_cpu_s']:>9.2f}")


if __name__ == "__main__":
    main()
