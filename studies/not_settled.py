"""The not-settled matrix at full size: how often throws end `not-settled` or `diverged`, and how far below
its true resting height a die ends, for d4, d6, d8, d12, cuboids of x/y 0.5-2.5 and a cylinder, on free
rolls (shot `roll`, no board) and standard throws at the magma board (sim/engine/settling.py).

    python studies/not_settled.py --n 2000 --workers 1 --out results/not-settled

Writes not_settled.json and not_settled.md (the table in docs/physics.md) into --out. Every throw is
counted: rest + not-settled + diverged = N. One cell is one (die, shot) pair, throws (seed, 0..N-1),
one world per cell, cells spread over --workers processes (results do not depend on the count).
"""

from __future__ import annotations

import argparse
import json
import os
from concurrent.futures import ProcessPoolExecutor

from sim.engine.settling import die_matrix, markdown_table, settle_cell

SEED = 20250601
SHOTS = ("roll", "standard")


def _cell(args):
    case, shot, n, seed = args
    return settle_cell(case, shot, n, seed)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=200, help="throws per (die, shot) cell")
    p.add_argument("--seed", type=int, default=SEED)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--shots", default=",".join(SHOTS))
    p.add_argument("--dice", default="", help="comma-separated labels to run (default: all)")
    p.add_argument("--out", default="results/not-settled")
    a = p.parse_args(argv)
    wanted = {s.strip() for s in a.dice.split(",") if s.strip()}
    cells = [(case, shot, a.n, a.seed) for shot in a.shots.split(",") for case in die_matrix()
             if not wanted or case.label in wanted]
    os.makedirs(a.out, exist_ok=True)
    rows = []
    with ProcessPoolExecutor(max_workers=a.workers) as ex:
        for cell in ex.map(_cell, cells):
            rows.append(cell)
            print(json.dumps(cell.to_json()), flush=True)
    with open(os.path.join(a.out, "not_settled.json"), "w") as fh:
        json.dump([c.to_json() for c in rows], fh, indent=1)
    with open(os.path.join(a.out, "not_settled.md"), "w") as fh:
        fh.write(markdown_table(rows))
    print(markdown_table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
