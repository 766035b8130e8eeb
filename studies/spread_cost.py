"""What each spread of a skill costs on a shot: the hit rate with one spread at a time set to zero, on
the same throws and with the skill's own solved technique held fixed.

    python studies/spread_cost.py [N] [--seed S] [--shot NAME[+NAME...]] ... [--skill NAME] ... [--scale F]
    python studies/spread_cost.py [N] ... --together F [F ...] [--solve-each]

For each shot and skill: throws 0..N-1 of the seed (default 200, seed 2024) with the skill as it is,
then again with each spread (sim/specs/skill.SPREADS) multiplied by `--scale` (default 0: removed), the
technique the one solved for the full skill (so the difference is the spread's own cost, not a better
technique's gain). Prints the rate and the paired gain per spread, the largest first.

With `--together`, every spread is multiplied by each factor at once instead (technique held): the
hit rate as the whole thrower grows steadier, from the skill (1) to a spread-free thrower (0). Where
the rate stays flat from 1 down to a fraction of the skill's spreads and climbs only near 0, the
shot's outcome is decided by the bounce, not the hand, over the whole range of human throwing.
`--solve-each` solves the technique again for each factor (the best a thrower that steady can do,
not the skill's technique thrown more steadily).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from sim.engine.hand import Technique
from sim.engine.worlds import thrower_for
from sim.seeding import Draw
from sim.specs.scenario import Scenario
from sim.specs.skill import SPREADS, SkillSpec, load_skill


def rate(th, tech: Technique, aim, skill: SkillSpec, seed: int, n: int) -> np.ndarray:
    """Whether each of throws 0..n-1 hit, thrown by `skill`'s spreads around the fixed technique."""
    return np.array([
        th.replay(th.hand.releases(Draw.for_throw(seed, k), tech, aim, skill=skill), seed, k, skill).outcome.result
        == "hit"
        for k in range(n)
    ])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("n", type=int, nargs="?", default=200)
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument("--shot", action="append", help="NAME or NAME+NAME (default: firewall, far, elbow)")
    p.add_argument("--skill", action="append", help="skill name or file (default: casual, expert)")
    p.add_argument("--scale", type=float, default=0.0, help="each spread in turn multiplied by this")
    p.add_argument("--together", type=float, nargs="+", metavar="F",
                   help="every spread at once multiplied by each of these (instead of one at a time)")
    p.add_argument("--solve-each", action="store_true", help="with --together: a technique solved for each factor")
    a = p.parse_args()
    scenes = [tuple(s.split("+")) for s in (a.shot or ["firewall", "far", "elbow"])]
    for shots in scenes:
        th = thrower_for(Scenario.build(board="magma", dice=["hero-d8"], shots=list(shots), skill="casual"))
        aim = th.aim_point()
        for name in a.skill or ["casual", "expert"]:
            t0 = time.perf_counter()
            skill = load_skill(name)
            tech = th.technique(skill)

            base = rate(th, tech, aim, skill, a.seed, a.n)
            if a.together:
                print(f"{'+'.join(shots)} {skill.name}: {base.mean():.1%} with {tech.describe()}", flush=True)
                for k in a.together:
                    steady = skill.model_copy(update={f: getattr(skill, f) * k for f in SPREADS})
                    held = th.technique(steady) if a.solve_each else tech
                    h = rate(th, held, aim, steady, a.seed, a.n)
                    d = h.astype(float) - base
                    how = f"  with {held.describe()}" if a.solve_each else ""
                    print(f"   every spread x{k:<5g}: {h.mean():6.1%}  gain {d.mean():+6.1%} "
                          f"(se {d.std(ddof=1) / np.sqrt(a.n):.1%}){how}", flush=True)
                continue
            rows = []
            for f in SPREADS:
                h = rate(th, tech, aim, skill.model_copy(update={f: getattr(skill, f) * a.scale}), a.seed, a.n)
                d = h.astype(float) - base
                rows.append((d.mean(), f, h.mean(), d.std(ddof=1) / np.sqrt(a.n)))
            print(f"{'+'.join(shots)} {skill.name}: {base.mean():.1%} with {tech.describe()}  "
                  f"({time.perf_counter() - t0:.0f} s)", flush=True)
            for gain, f, r, se in sorted(rows, reverse=True):
                print(f"   {f:<17} x{a.scale:g}: {r:6.1%}  gain {gain:+6.1%} (se {se:.1%})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
