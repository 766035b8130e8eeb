"""Fights per second of the fight rules engine with the resampling throw source, on one core.

Usage: python benchmarks/fight_bench.py [--fights N] [--records RESULTS_DIR] [--fight NAME] [--json]
       python benchmarks/fight_bench.py --physics N [--fight NAME] [--seed S]

Plays fights 0..N-1 of a fight file (default: the reference fight, three heroes) with the default
policy, without and with the blow-by-blow log, and reports fights/s by wall clock and by this
process's CPU time (the machine may be shared). Without --records the throws come from a synthetic
table shaped like the standard shot thrown by a casual hero (50 % hits, sections 1-6, 1 in 8 icons);
with --records they come from a `dfsim run` folder (e.g. `dfsim run fight-throws`).

`--physics N` plays fights 0..N-1 with physics in the loop (sim/fights/physics_source.py) and then the
very same throws (same scenarios, same stream indices) as plain single throws on an empty board, in
worlds built and aimed beforehand: the CPU-time ratio is what keeping the dice on the board costs,
and the paired outcomes show how often the dice on the board changed a throw's result.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pandas as pd

from sim.fights.engine import run_fights
from sim.fights.resample import ResampleSource, tables_from_results
from sim.fights.spec import load_fight


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


def bench_physics(spec, fights: int, seed: int) -> dict:
    from sim.engine.worlds import build_thrower
    from sim.fights.physics_source import THROWS_PER_FIGHT, PhysicsSource

    src = PhysicsSource(seed, spec.throws.colored_die, spec.throws.white_die)
    reqs: list = []

    class Recording:
        def throw(self, req):
            reqs.append(req)
            return src.throw(req)

    run_fights(spec, Recording(), range(fights, fights + 1))  # warm-up fight: worlds built, aims solved
    reqs.clear()
    c0 = time.process_time()
    res = run_fights(spec, Recording(), fights)
    cpu_fights = time.process_time() - c0
    outs = [None] * len(reqs)
    plain: dict = {}
    for r in reqs:
        key = src.scenario(r).key
        if key not in plain:
            plain[key] = build_thrower(src.scenario(r))
            plain[key].throw(seed, 0)  # aim solved outside the timing, as for the fights
    c0 = time.process_time()
    outs = [plain[src.scenario(r).key].throw(seed, r.fight * THROWS_PER_FIGHT + r.throw).outcome for r in reqs]
    cpu_plain = time.process_time() - c0
    phys_outs: list = []
    src2 = PhysicsSource(seed, spec.throws.colored_die, spec.throws.white_die)

    class Again:
        def throw(self, req):
            o = src2.throw(req)
            phys_outs.append((len(src2.state.dice) - (src2.state.last_slot is not None), o))  # dice there before
            return o

    run_fights(spec, Again(), fights)
    on_board = [k for k, (n, _o) in enumerate(phys_outs) if n > 0]
    differ = sum(phys_outs[k][1].result != outs[k].result for k in on_board)
    return {"fights": fights, "throws": len(reqs), "cpu_fights_s": round(cpu_fights, 2),
            "cpu_plain_s": round(cpu_plain, 2), "ratio": round(cpu_fights / cpu_plain, 2),
            "throws_with_dice_on_board": len(on_board), "result_changed_by_board_dice": differ,
            "hit_rate_physics": round(float(np.mean([o.result == "hit" for _n, o in phys_outs])), 3),
            "hit_rate_plain": round(float(np.mean([o.result == "hit" for o in outs])), 3),
            "win_rate": round(float(np.mean([r.won for r in res])), 3), "board_moves": len(src2.state.moves)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fights", type=int, default=20000)
    ap.add_argument("--fight", default="reference")
    ap.add_argument("--records")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--physics", type=int, metavar="N", help="physics in the loop: N fights vs their throws alone")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    spec = load_fight(a.fight)
    if a.physics:
        r = bench_physics(spec, a.physics, a.seed)
        print(json.dumps(r) if a.json else
              f"{spec.name}: {r['fights']} physics fights, {r['throws']} throws: {r['cpu_fights_s']} s CPU vs "
              f"{r['cpu_plain_s']} s for the same throws alone (x{r['ratio']}); {r['throws_with_dice_on_board']} "
              f"throws had dice on the board, {r['result_changed_by_board_dice']} of them changed result; "
              f"{r['board_moves']} resting dice moved")
        return
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
