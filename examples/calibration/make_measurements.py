"""Write the worked example's measurements: what a player would measure if the die-on-table pair had
known values, simulated in the calibration rig (sim/engine/rigs.py) and blurred by reading errors.

Usage: python examples/calibration/make_measurements.py [OUT.toml]. The true values are `TRUTH`; the
test tests/studies/test_calibration.py checks that `dfsim calibrate` recovers them within its
intervals. Rows: flat drops from five heights, twice each (a rebound read from a 240 fps video, sd
3 mm); six tilts (a phone level, sd 1 deg); five ramps, four releases each at a random turn of the
die (a ruler, sd 3 mm). The two steep, high ramps run the die out 10-40 mm, far enough for the contact
damping to show: with the three low ones alone, one chaotic run-out more or less decided whether it
was identified at all.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from sim.engine.rigs import MaterialRig, PairFactors
from sim.specs.die import load_die

TRUTH = {"friction": 0.40, "restitution": 0.45, "contact_damping": 0.95}
DIE, SURFACE, SEED = "hero-d8", "wood", 20261130
DROPS_MM = (50, 100, 150, 200, 300)
RAMPS = ((40.0, 30.0), (80.0, 30.0), (60.0, 35.0), (100.0, 40.0), (150.0, 35.0))  # (lowest point mm, ramp deg)
SD = {"drops": 3.0, "tilts": 1.0, "ramps": 3.0}
OUT = Path(__file__).with_name("kitchen-table.toml")


def measurements(seed: int = SEED, truth: dict | None = None, drops_mm=DROPS_MM, drop_repeats: int = 2,
                 tilts: int = 6, ramps=RAMPS, ramp_repeats: int = 4) -> dict:
    """The rows a player with these true pair values would write down (a dict in the file's layout)."""
    t = truth or TRUTH
    rng = np.random.Generator(np.random.PCG64(seed))
    rig = MaterialRig(load_die(DIE), SURFACE)
    try:
        rig.set_pair(PairFactors(t["friction"], 0.5, t["contact_damping"]))
        rig.factor_for(t["restitution"])
        drops = [{"drop_mm": float(h), "rebound_mm": round(max(0.0, rig.drop(h) + rng.normal(0, SD["drops"])), 1)}
                 for h in drops_mm for _ in range(drop_repeats)]
        slide = rig.slide_angle()
        tilt_rows = [{"angle_deg": round(slide + rng.normal(0, SD["tilts"]), 1)} for _ in range(tilts)]
        ramp_rows = [{"height_mm": h, "angle_deg": a,
                      "distance_mm": round(rig.ramp(h, a, rng.uniform(0, 120)) + rng.normal(0, SD["ramps"]), 1)}
                     for h, a in ramps for _ in range(ramp_repeats)]
    finally:
        rig.close()
    return {"name": "kitchen-table", "die": DIE, "surface": SURFACE, "materials": "default",
            "notes": f"synthetic: simulated with friction {t['friction']}, restitution {t['restitution']}, "
                     f"contact damping {t['contact_damping']} (examples/calibration/make_measurements.py, seed {seed})",
            "drops": drops, "tilts": tilt_rows, "ramps": ramp_rows}


def to_toml(m: dict) -> str:
    """The measurements as a TOML file."""
    out = ["# Worked example for `dfsim calibrate` (docs/calibration.md): SYNTHETIC rows, made by",
           "# examples/calibration/make_measurements.py from known values, as a player would write them down.",
           f'name = "{m["name"]}"', f'die = "{m["die"]}"', f'surface = "{m["surface"]}"',
           f'materials = "{m["materials"]}"', f'notes = "{m["notes"]}"']
    for kind in ("drops", "tilts", "ramps"):
        for row in m[kind]:
            out += ["", f"[[{kind}]]"] + [f"{k} = {v!r}" for k, v in row.items()]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    out.write_text(to_toml(measurements()))
    print(f"wrote {out}")
