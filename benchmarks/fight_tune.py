"""How fast and how well `dfsim tune` finds the monster life that makes a fight a coin flip.

Usage: python benchmarks/fight_tune.py [--records results/fight-throws] [--fight reference] [--runs 20]
                                       [--lo -8] [--hi 3] [--truth-fights 10000] [--json]

Needs the throws of `dfsim run fight-throws` (about a minute on 2 cores). Then:

1. the truth: the win rate at every integer `house_rules.monster_life_bonus` in [lo, hi] from
   `--truth-fights` fights each (a seed no tuner run uses), the integer closest to 50 %, and how often
   the response is not monotone fight by fight (won at life L + 1, lost at L on the same throws);
2. `--runs` tuner runs (seeds 1000, 1001, ...: target 0.5, --integer, tolerance +-1, the default
   budget), each timed by wall clock and by this process's CPU time (the machine may be shared):
   trials, answer, interval, and whether the answer is within 1 of the truth and the interval holds it;
3. the whole command once, `python -m sim.cli tune ...` in a fresh process (imports and reading the
   records included), by wall clock.

docs/tuning.md records the latest figures. The tuner runs on one core.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

from sim.fights.engine import run_fights
from sim.fights.resample import ResampleSource
from sim.studies.responses import FightResponse
from sim.studies.tuner import tune

SETTING = "house_rules.monster_life_bonus"
TRUTH_SEED = 987_654_321


def truth(resp: FightResponse, lo: int, hi: int, fights: int) -> dict:
    """Win rates at every value from `fights` fights each, on the same throws (common random numbers)."""
    won = {}
    for v in range(lo, hi + 1):
        src = ResampleSource(resp.tables, seed=TRUTH_SEED)
        won[v] = np.array([r.won for r in run_fights(resp.spec_at(v), src, fights, resp.policy)])
    rates = {v: float(w.mean()) for v, w in won.items()}
    best = min(rates, key=lambda v: abs(rates[v] - 0.5))
    # more life on the same throws should never win a fight the smaller life lost
    flips = sum(int((won[v + 1] & ~won[v]).sum()) for v in range(lo, hi))
    return {"rates": rates, "coin_flip": best, "monster_life": resp.spec_at(best).monster_life,
            "non_monotone_fights": flips, "pairs": fights * (hi - lo)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", default="results/fight-throws")
    ap.add_argument("--fight", default="reference")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--lo", type=int, default=-8)
    ap.add_argument("--hi", type=int, default=3)
    ap.add_argument("--truth-fights", type=int, default=10_000)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()

    t0 = time.perf_counter()
    resp = FightResponse(a.fight, SETTING, a.records)
    load_s = time.perf_counter() - t0
    tr = truth(resp, a.lo, a.hi, a.truth_fights)
    runs = []
    for seed in range(1000, 1000 + a.runs):
        w0, c0 = time.perf_counter(), time.process_time()
        res = tune(resp, a.lo, a.hi, 0.5, integer=True, budget=200_000, seed=seed, setting=SETTING, metric="win rate")
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        lo, hi = res.interval
        runs.append({"seed": seed, "trials": res.trials, "answer": res.answer, "interval": [lo, hi],
                     "stop": res.stop, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
                     "within_1": abs(res.answer - tr["coin_flip"]) <= 1, "covers": lo <= tr["coin_flip"] <= hi})
    cmd = [sys.executable, "-m", "sim.cli", "tune", a.fight, "--records", a.records, "--set",
           f"{SETTING}={a.lo}:{a.hi}", "--integer", "--target", "0.5", "--json"]
    w0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    cli_s = time.perf_counter() - w0
    cli = json.loads(out.stdout)

    trials = np.array([r["trials"] for r in runs])
    wall = np.array([r["wall_s"] for r in runs])
    cpu = np.array([r["cpu_s"] for r in runs])
    summary = {
        "fight": a.fight, "records": a.records, "range": [a.lo, a.hi], "records_load_s": round(load_s, 2),
        "truth": tr, "runs": len(runs),
        "trials_median": int(np.median(trials)), "trials_max": int(trials.max()),
        "wall_s_median": round(float(np.median(wall)), 2), "wall_s_max": round(float(wall.max()), 2),
        "cpu_s_median": round(float(np.median(cpu)), 2), "cpu_s_max": round(float(cpu.max()), 2),
        "fights_per_cpu_s": int(trials.sum() / cpu.sum()),
        "within_1": sum(r["within_1"] for r in runs), "covers": sum(r["covers"] for r in runs),
        "answers": sorted({r["answer"] for r in runs}),
        "cli": {"wall_s": round(cli_s, 2), "answer": cli["answer"], "interval": cli["interval"],
                "trials": cli["trials"], "monster_life_at_answer": cli["context"].get("monster_life_at_answer")},
        "load_average": os.getloadavg()[0],
    }
    if a.json:
        print(json.dumps(summary | {"per_run": runs}))
        return
    print(f"{a.fight}: win rate by {SETTING} ({a.truth_fights} fights each, common throws):")
    print("  " + "  ".join(f"{v:+d}: {100 * r:.1f}%" for v, r in tr["rates"].items()))
    print(f"  coin flip at {tr['coin_flip']:+d} (monster life {tr['monster_life']}); "
          f"non-monotone fights: {tr['non_monotone_fights']} of {tr['pairs']} pairs")
    s = summary
    print(f"{s['runs']} tuner runs: trials median {s['trials_median']}, max {s['trials_max']}; "
          f"wall median {s['wall_s_median']} s, max {s['wall_s_max']} s; CPU median {s['cpu_s_median']} s, "
          f"max {s['cpu_s_max']} s ({s['fights_per_cpu_s']} fights per CPU second); answers {s['answers']}; "
          f"within +-1 of the truth: {s['within_1']}/{s['runs']}; interval holds it: {s['covers']}/{s['runs']}")
    c = s["cli"]
    print(f"the command, fresh process: {c['wall_s']} s wall, answer {c['answer']} {c['interval']} "
          f"(monster life {c['monster_life_at_answer']}), {c['trials']} fights; records read in {s['records_load_s']} s; "
          f"load average {s['load_average']:.1f}")


if __name__ == "__main__":
    main()
