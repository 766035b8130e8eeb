"""Fights per second of the fight rules engine with the resampling throw source, on one core.

Usage: python benchmarks/fight_bench.py [--fights N] [--records RESULTS_DIR] [--fight NAME] [--json]

Plays fights 0..N-1 of a fight file (default: the reference fight, three heroes) with the default
policy, without and with the blow-by-blow log, and reports fights/s by wall clock and by this
process's CPU time (the machine may be shared). Without --records the throws come from a synthetic
table shaped like the standard shot thrown by a casual hero (50 % hits, sections 1-6, 1 in 8 icons);
with --records they come from a `dfsim run` folder (e.g. `dfsim run fight-throws`).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pandas as pd

from sim.engine.resample import ResampleSource, tables_from_results
from sim.rules.fight import run_fights
from sim.specs.fight import load_fight


def synthetic_table(n: int = 4000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    hit = rng.random(n) < 0.5
    val = rng.choice([1, 2, 3, 4, 5, 6, 10], n, p=[0.22, 0.22, 0.18, 0.18, 0.08, 0.08, 0.04])
    face = np.where(rng.random(n) < 0.125, "icon", "blank")
    return pd.DataFrame({
        "result": np.where(hit, "hit", "miss"), "reason": np.where(hit, "hit", "off-board"),
        "section": np.where(hit, np.char.add("s", val.astype(str)), ""), "value": np.where(hit, val, -1),
        "face": face, "icon": face == "icon", "damage": np.where(hit, val, 0).astype(float),
        "insta_kill": hit & (val == 10) & (face == "icon"), "template": "", "partial_template": False,
        "hero_damage": 0.0,
    })


def bench(spec, source_factory, fights: int, log: bool) -> dict:
    src = source_factory()
    run_fights(spec, src, min(200, fights), log=log)  # warm-up: imports, table choice cache
    src = source_factory()
    w0, c0 = time.perf_counter(), time.process_time()
    res = run_fights(spec, src, fights, log=log)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    return {"log": log, "fights": fights, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
            "fights_per_s_wall": round(fights / wall), "fights_per_s_cpu": round(fights / cpu),
            "throws_per_fight": round(float(np.mean([r.throws for r in res])), 2),
            "win_rate": round(float(np.mean([r.won for r in res])), 4)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fights", type=int, default=20000)
    ap.add_argument("--fight", default="reference")
    ap.add_argument("--records")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    spec = load_fight(a.fight)
    if a.records:
        tables, _ = tables_from_results(a.records, spec.throws.variant, spec.throws.white_die, spec.throws.colored_die)

        def factory():
            return ResampleSource(tables, seed=spec.seed)
    else:
        df = synthetic_table()

        def factory():
            return ResampleSource(df, seed=spec.seed)
    out = {"fight": spec.name, "heroes": len(spec.party.heroes), "records": a.records or "synthetic",
           "runs": [bench(spec, factory, a.fights, log=False), bench(spec, factory, a.fights, log=True)]}
    if a.json:
        print(json.dumps(out))
        return
    for r in out["runs"]:
        print(f"{out['fight']} ({out['heroes']} heroes, {out['records']}), log {'on ' if r['log'] else 'off'}: "
              f"{r['fights_per_s_cpu']} fights/s CPU ({r['fights_per_s_wall']} wall), "
              f"{r['throws_per_fight']} throws/fight, won {100 * r['win_rate']:.1f}%")


if __name__ == "__main__":
    main()
