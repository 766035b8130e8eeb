"""Hit rates of the 2nd and 3rd colored die with the earlier dice left on the board vs an empty board.

Usage: python studies/board_dice.py [--sets N] [--seed S] [--skill casual] [--shot standard]

Set f throws red, green, blue in turns 0, 1, 2 of fight f (no retrieval) with physics in the loop
(sim/fights/physics_source.py); the same stream indices thrown by the plain thrower are the same
releases on an empty board. Paired, so the difference is the dice lying on the board, and nothing
else: when it is not zero, resampling throws recorded on an empty board is not valid for later dice.
"""

from __future__ import annotations

import argparse
import json
import math

from sim.engine.worlds import build_thrower
from sim.fights.physics_source import THROWS_PER_FIGHT, PhysicsSource
from sim.fights.throw_source import ThrowRequest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=20)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--skill", default="casual")
    ap.add_argument("--shot", default="standard")
    a = ap.parse_args()
    src = PhysicsSource(a.seed)
    plain = None
    rows = {1: [], 2: []}
    changed = {1: 0, 2: 0}
    moved = 0
    for f in range(a.sets):
        for t, colour in enumerate(("red", "green", "blue")):
            req = ThrowRequest(f, t, "h", colour, "colored", "hero-d8", (a.shot,), a.skill, "magma", turn=t)
            before = len(src.state.dice)
            o = src.throw(req)
            if plain is None:
                plain = build_thrower(src.scenario(req))
            if t == 0:
                continue
            p = plain.throw(a.seed, f * THROWS_PER_FIGHT + t).outcome
            rows[t].append((o.result == "hit", p.result == "hit", before))
            changed[t] += (o.result, o.section) != (p.result, p.section)
        moved = len(src.state.moves)
    out = {"sets": a.sets, "skill": a.skill, "shot": a.shot, "board_dice_moved": moved,
           "section_changes": sum(m["from"] != m["to"] for m in src.state.moves)}
    for t in (1, 2):
        r = rows[t]
        n = len(r)
        hp, he = sum(x[0] for x in r) / n, sum(x[1] for x in r) / n
        disc = sum(x[0] != x[1] for x in r)
        out[f"die{t + 1}"] = {"n": n, "hit_rate_board": round(hp, 3), "hit_rate_empty": round(he, 3),
                              "se": round(math.sqrt(max(hp * (1 - hp), 0.01) / n), 3),
                              "mean_dice_on_board": round(sum(x[2] for x in r) / n, 2),
                              "hit_changed": disc, "result_or_section_changed": changed[t]}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
