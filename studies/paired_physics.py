"""Paired comparison of two physics settings on identical releases (sim/studies/convergence.py).

    python studies/paired_physics.py --scene reference -n 300 \
        --a step_hz=480,flight=step,rest=windows --b step_hz=1920,flight=step,rest=windows

Several --a/--b pairs may be given (matched in order). Prints one table per pair; --json for JSON.
"""

from __future__ import annotations

import argparse
import json

from sim.specs.scenario import Scenario
from sim.studies.convergence import QUICK_SCENES, paired_check, with_physics


def parse(spec: str) -> dict:
    out = {}
    for item in filter(None, spec.split(",")):
        k, v = item.split("=")
        try:
            out[k] = float(v)
        except ValueError:
            out[k] = v
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--scene", default="reference", choices=list(QUICK_SCENES))
    p.add_argument("--skill", default=None)
    p.add_argument("-n", type=int, default=300)
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument("--a", action="append", required=True)
    p.add_argument("--b", action="append", required=True)
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    kw = dict(QUICK_SCENES[a.scene])
    if a.skill:
        kw["skill"] = a.skill
    base = Scenario.build(**kw)
    out = []
    for sa, sb in zip(a.a, a.b):
        tab = paired_check(with_physics(base, **parse(sa)), with_physics(base, **parse(sb)), a.n, a.seed)
        out.append({"scene": a.scene, "skill": a.skill, **tab.as_dict()})
        if not a.json:
            print(f"{a.scene} {a.skill or ''}: {tab.format()}", flush=True)
    if a.json:
        print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
