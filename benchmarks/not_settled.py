"""How often a throw ends `not-settled` (or `diverged`), and how far below its true resting height a die
ends, over a matrix of die shapes: free rolls on the open table and standard throws at the magma board.

    python benchmarks/not_settled.py --n 2000 --workers 1 --out results/not-settled

Writes `not_settled.json` and `not_settled.md` (the table in docs/physics.md) into --out. Every throw
is counted: rest, not-settled and diverged add up to N, nothing is dropped. "Sunk" is how far the
die's lowest point ends below the surface under it (the table at z = 0, or the board's top where the
point lies over cardboard more than 0.3 mm inside its edge; a die leaning on the board's edge rests
against the edge wall). A cell is one (die, shot) pair: throws (seed, 0..N-1), one world per cell.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from concurrent.futures import ProcessPoolExecutor

SEED = 20250601
DENSITY_G_MM3 = 1.19e-3  # acrylic
CUBOID_SIDE_MM = 14.0
CUBOID_RATIOS = (0.5, 0.75, 1.0, 1.5, 2.0, 2.5)
SHOTS = ("roll", "standard")


def die_matrix() -> list[tuple[str, str, dict]]:
    """(label, base die, overrides) for every die of the matrix."""
    out = [(n, n, {}) for n in ("d4", "d6", "d8", "d12")]
    a = CUBOID_SIDE_MM
    for r in CUBOID_RATIOS:
        dims = [round(r * a, 3), a, a]
        out.append((f"cuboid x/y={r:g}", "d6", {
            "die.shape": "cuboid", "die.dims_mm": dims, "die.mass_g": round(dims[0] * dims[1] * dims[2] * DENSITY_G_MM3, 3),
            "die.edge_radius_mm": 1.0,
        }))
    r_mm, h_mm = 10.0, 6.0
    out.append(("cylinder d=20 h=6", "d6", {
        "die.shape": "cylinder", "die.radius_mm": r_mm, "die.height_mm": h_mm, "die.edge_radius_mm": 0.0,
        "die.mass_g": round(math.pi * r_mm * r_mm * h_mm * DENSITY_G_MM3, 3), "die.faces": ["top", "bottom"],
    }))
    return out


def sink_mm(die, board, outcome) -> float:
    """How far the die's lowest point is below the surface under it (0 if not below)."""
    import numpy as np
    import shapely

    from sim.specs.die import quat_to_matrix

    pts = die.collision_points_m @ quat_to_matrix(outcome.orientation_xyzw).T + np.array(outcome.position_mm) * 1e-3
    top = np.zeros(len(pts))
    if board is not None:
        inside = shapely.contains_xy(board.surface.buffer(-0.0003), pts[:, 0], pts[:, 1])
        top = np.where(inside, board.thickness_m, 0.0)
    return max(0.0, float(-(pts[:, 2] - top).min()) * 1e3)


def run_cell(args: tuple) -> dict:
    label, base, overrides, shot, n, seed = args
    from sim.engine.worlds import thrower_for
    from sim.specs.scenario import Scenario

    t0 = time.perf_counter()
    sc = Scenario.build(board="magma", dice=[base], shots=[shot], skill="casual", overrides=overrides)
    th = thrower_for(sc)
    die = sc.dice[0]
    counts = {"rest": 0, "not-settled": 0, "diverged": 0}
    sunk_over = 0
    worst = 0.0
    examples: list[int] = []
    for k in range(n):
        o = th.throw(seed, k).outcome
        status = o.reason if o.reason in ("not-settled", "diverged") else "rest"
        counts[status] += 1
        if status != "rest" and len(examples) < 5:
            examples.append(k)
        if status != "diverged":
            s = sink_mm(die, sc.board, o)
            worst = max(worst, s)
            sunk_over += s > 0.5
    return {"die": label, "shot": shot, "n": n, "seed": seed, **counts, "sunk_over_0.5mm": sunk_over,
            "max_sink_mm": round(worst, 3), "examples": examples, "seconds": round(time.perf_counter() - t0, 1)}


def wilson_upper(k: int, n: int, z: float = 1.96) -> float:
    """Upper end of the 95 % Wilson interval of a proportion."""
    if n == 0:
        return 1.0
    p = k / n
    d = 1 + z * z / n
    c = p + z * z / (2 * n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (c + h) / d


def markdown(rows: list[dict]) -> str:
    lines = ["| die | shot | N | rest | not-settled | diverged | not-settled % (95 % upper) | sunk > 0.5 mm | max sink (mm) |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        ns = r["not-settled"]
        lines.append(f"| {r['die']} | {r['shot']} | {r['n']} | {r['rest']} | {ns} | {r['diverged']} | "
                     f"{100 * ns / r['n']:.2f} ({100 * wilson_upper(ns, r['n']):.2f}) | {r['sunk_over_0.5mm']} | {r['max_sink_mm']:.2f} |")
    return "\n".join(lines) + "\n"


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
    cells = [(label, base, ov, shot, a.n, a.seed) for shot in a.shots.split(",") for label, base, ov in die_matrix()
             if not wanted or label in wanted]
    os.makedirs(a.out, exist_ok=True)
    rows = []
    with ProcessPoolExecutor(max_workers=a.workers) as ex:
        for r in ex.map(run_cell, cells):
            rows.append(r)
            print(json.dumps(r), flush=True)
    with open(os.path.join(a.out, "not_settled.json"), "w") as fh:
        json.dump(rows, fh, indent=1)
    with open(os.path.join(a.out, "not_settled.md"), "w") as fh:
        fh.write(markdown(rows))
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
