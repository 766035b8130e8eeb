"""The skill order over every shot and every combination the rulebooks name (sim/studies/skill_order.py).

    python studies/skill_order.py [N] [--seed S] [--shot NAME[+NAME...]] ... [--set KEY=NUMBER] ...

Throws 0..N-1 of the seed (default 300, seed 2024) at novice, casual and expert on common random
numbers, each skill with its own technique, and prints each neighbouring pair's paired difference of
hit rates with its interval (Bonferroni over all comparisons: a family-wise 95 %). Exit status 1 when
a better thrower is worse beyond noise.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from sim.studies.skill_order import RULEBOOK_COMBINATIONS, SKILLS, hits_on_common_throws, skill_steps

SHOTS_DIR = Path(__file__).resolve().parents[1] / "shots"


def all_shots() -> list[tuple[str, ...]]:
    """Every built-in shot alone, then the rulebooks' combinations."""
    return [(p.stem,) for p in sorted(SHOTS_DIR.glob("*.toml"))] + list(RULEBOOK_COMBINATIONS)


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("n", type=int, nargs="?", default=300)
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument("--shot", action="append", help="NAME or NAME+NAME (default: every shot and combination)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="a dotted-path override, e.g. shot.limits.speed_max_mps=6 (numbers only)")
    a = p.parse_args()
    overrides = {}
    for item in a.set:
        key, _, value = item.partition("=")
        try:
            overrides[key] = float(value)
        except ValueError:
            p.error(f"--set {item}: expected KEY=NUMBER")
    scenes = [tuple(s.split("+")) for s in a.shot] if a.shot else all_shots()
    comparisons = len(scenes) * (len(SKILLS) - 1)
    bad = 0
    for shots in scenes:
        t0 = time.process_time()
        hits = hits_on_common_throws(shots, a.n, a.seed, overrides=overrides or None)
        for step in skill_steps(shots, hits, comparisons):
            bad += step.out_of_order
            print(step.format(), flush=True)
        print(f"  ({time.process_time() - t0:.0f} s CPU)", flush=True)
    print(f"{bad} of {comparisons} comparisons out of order (N = {a.n}, seed {a.seed}, family-wise 95 %)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
