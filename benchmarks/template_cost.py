"""CPU cost of a throw with templates against a bare throw of the same draws, measured in one run.

Usage: python benchmarks/template_cost.py [-n 60] [--rounds 6] [--seed 4004] [--bank N] [--game] [--json]

Scenes (magma board, hero d8, standard shot, casual): bare; the Weak Point laid 12 cm right of the
centre; the Weak Point laid and aimed at; the Weak Point flipped before every throw from the flip bank
(the default, as the template-odds experiment has it); the same flipped afresh before every throw
(`flip_bank = 0`, the records of before the bank); Explosion (two welded multi-piece templates)
flipped from the bank. Throw k of each scene uses draws (seed, k), so the dice releases are the same.
Before timing, every scene's aimed release is solved and its flip bank made (or both read from the
cache: the bank is a one-off cost per machine, reported apart). The scenes then throw in turn, a
block of n / rounds throws each per round, so a drift of the machine's speed reaches every scene
alike. With `--game`, the scenes are the template sets a game's throw bank records (Armor, Fireball,
Explosion, Armor + Fireball, Armor + Explosion + Fireball, each flipped from the flip bank) and the
headline is the three together. Prints CPU ms per throw of this process and each scene's ratio to the bare throw; exit status
1 when the flipped (bank) scene costs more than `--limit` (1.5) times the bare throw.

Trustworthy timing on a shared machine: run it under farm-bench, e.g.
    farm-bench -n 3 -- sh -c 'exec python benchmarks/template_cost.py --json >>/tmp/tc.jsonl 2>&1'
and quote the median run's ratio.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from sim.engine.templates import TemplateLayer
from sim.engine.worlds import build_thrower
from sim.specs.scenario import Scenario

BASE = {"board": "magma", "dice": ["hero-d8"], "shots": ["standard"], "skill": "casual"}
WEAK_POINT = [{"name": "weak-point", "flip": True}]
SCENES = {
    "bare": {},
    "laid": {"templates": [{"name": "weak-point", "x_mm": 120, "y_mm": 0}]},
    "laid-aimed": {"templates": [{"name": "weak-point", "x_mm": 120, "y_mm": 0, "aim": True}]},
    "flipped": {"templates": WEAK_POINT},
    "flipped-afresh": {"templates": WEAK_POINT, "flip_bank": 0},
    "explosion-flipped": {"templates": [{"name": "explosion", "flip": True}]},
}
# the template sets a game's throw bank records (sim/games/throw_bank.py: every template lying on the
# board flipped from the flip bank), with `--game`
GAME_SETS = [
    ["armor"],
    ["fireball"],
    ["explosion"],
    ["armor", "fireball"],
    ["armor", "explosion", "fireball"],
]
GAME_SCENES = {
    "game:" + "+".join(names): {"templates": [{"name": t, "flip": True} for t in names]}
    for names in GAME_SETS
}
HEADLINE = "flipped"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=60, help="throws per scene")
    ap.add_argument("--rounds", type=int, default=6, help="turns the scenes take (n / rounds throws each)")
    ap.add_argument("--seed", type=int, default=4004)
    ap.add_argument("--bank", type=int, default=None, help="flip bank size (default: the setting's default)")
    ap.add_argument("--limit", type=float, default=1.5, help="the flipped scene's allowed cost, x bare")
    ap.add_argument("--json", action="store_true")
    ap.add_argument(
        "--game", action="store_true", help="the game's template sets instead of the Weak Point's scenes"
    )
    a = ap.parse_args()
    scenes = {"bare": {}, **GAME_SCENES} if a.game else SCENES
    headline = "game:armor+explosion+fireball" if a.game else HEADLINE
    throwers, setup_s = {}, {}
    for name, extra in scenes.items():
        extra = dict(extra)
        if a.bank is not None and "flip_bank" not in extra and "templates" in extra:
            extra["flip_bank"] = a.bank
        c0 = time.process_time()
        th = build_thrower(Scenario.build(**BASE, **extra))
        th.nominal()
        for c in th.components:
            if isinstance(c, TemplateLayer) and c.banked(th):
                c.bank(th).fill()  # every entry made now (or read from the cache), not in the timed throws
        setup_s[name] = time.process_time() - c0
        throwers[name] = th
    cpu = dict.fromkeys(scenes, 0.0)
    hits = dict.fromkeys(scenes, 0)
    block = max(1, a.n // max(1, a.rounds))
    for start in range(0, a.n, block):
        for name, th in throwers.items():
            c0 = time.process_time()
            for k in range(start, min(a.n, start + block)):
                hits[name] += th.throw(a.seed, k).outcome.result == "hit"
            cpu[name] += time.process_time() - c0
    for th in throwers.values():
        th.physics.close()
    bare = cpu["bare"] / a.n
    rows = {
        name: {
            "cpu_ms_per_throw": round(cpu[name] / a.n * 1e3, 2),
            "vs_bare": round(cpu[name] / a.n / bare, 2),
            "hits": hits[name],
            "setup_cpu_s": round(setup_s[name], 2),
        }
        for name in scenes
    }
    ok = rows[headline]["vs_bare"] <= a.limit
    if a.json:
        print(json.dumps({"n": a.n, "limit": a.limit, "ok": ok, "scenes": rows}))
    else:
        print(f"{a.n} throws per scene in {a.rounds} rounds, CPU of this process (setup: aim and flip bank)")
        for name, r in rows.items():
            print(
                f"  {name:<30} {r['cpu_ms_per_throw']:>8.2f} ms/throw  {r['vs_bare']:>6.2f}x bare"
                f"  ({r['hits']} hits; setup {r['setup_cpu_s']:.1f} s)"
            )
        print(f"{headline}: {rows[headline]['vs_bare']:.2f}x bare ({'within' if ok else 'OVER'} {a.limit}x)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
