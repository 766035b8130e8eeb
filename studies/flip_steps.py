"""Are a flip's step choices converged? The default flip profile against finer steps, on the same flips.

Usage: python studies/flip_steps.py [-n 200] [--templates weak-point,fireball,armor] [--json]

For each template, flips 0..n-1 of seed 99 (casual) are flown with the default profile and with
variants that each refine one step: the free flight's RK4 at 2 kHz (`flight_hz`, default 500 Hz) and
the landing at 2 kHz throughout (`coarse_step_hz` = `step_hz`; default 500 Hz once the card has
touched down and is slower than `fine_speed_mps`). Prints per variant the share of every landing
status, how many sessions end within 1 mm of the default's, the faces up, the largest rest tilt, and
the CPU ms per flip session. It measures and prints; it asserts nothing.
"""

from __future__ import annotations

import argparse
import collections
import json
import time

import numpy as np

from sim.specs.board import load_board
from sim.specs.flip import FlipProfile
from sim.specs.template import load_template
from sim.world.flip import FlipRequest, FlipWorld, flip_onto

VARIANTS = {
    "default": {},
    "flight 2 kHz": {"flight_hz": 2000.0},
    "landing 2 kHz throughout": {"coarse_step_hz": 2000.0},
}


def run(name: str, n: int, overrides: dict) -> dict:
    """The flips of one template under one profile: statuses, final positions, faces, tilts, cost."""
    board, spec = load_board("magma"), load_template(name)
    world = FlipWorld(board, [(name, spec)], FlipProfile(**overrides))
    try:
        t0 = time.process_time()
        res = [flip_onto(board, [FlipRequest(name, spec, k, "casual")], 99, world=world).results[0] for k in range(n)]
        cpu = time.process_time() - t0
    finally:
        world.physics.close()
    status = collections.Counter(a.status for r in res for a in r.attempts)
    return {"status": status, "pos": np.array([r.attempts[-1].position_mm[:2] for r in res]),
            "faces": collections.Counter(str(r.placed.face_up) if r.placed else "none" for r in res),
            "tilt": max(r.attempts[-1].tilt_deg for r in res), "ms": cpu / n * 1e3}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("--templates", default="weak-point,fireball,armor")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = []
    for name in a.templates.split(","):
        out = {label: run(name, a.n, kw) for label, kw in VARIANTS.items()}
        ref = out["default"]["pos"]
        for label, r in out.items():
            total = sum(r["status"].values())
            rows.append({"template": name, "variant": label, "ms_per_session": round(r["ms"], 1),
                         "status_shares": {k: round(v / total, 3) for k, v in sorted(r["status"].items())},
                         "within_1mm_of_default": int((np.abs(r["pos"] - ref).max(axis=1) < 1.0).sum()),
                         "faces_up": dict(r["faces"]), "max_rest_tilt_deg": round(r["tilt"], 3)})
    if a.json:
        print(json.dumps({"n": a.n, "rows": rows}))
        return
    print(f"{a.n} flips per template and variant (seed 99, casual)")
    for r in rows:
        print(f"  {r['template']:<11} {r['variant']:<26} {r['ms_per_session']:>6.1f} ms  within 1 mm: "
              f"{r['within_1mm_of_default']:>4}  tilt<={r['max_rest_tilt_deg']:.2f}  {r['status_shares']}  {r['faces_up']}")


if __name__ == "__main__":
    main()
