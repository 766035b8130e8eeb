"""Hit rates per shot and skill on the same throws, each shot's ceiling, and whether each step of skill is
clearly better where the ceiling leaves room.

    python studies/skill_table.py [N] [--seed S] [--shot NAME[+NAME...]] ... [--family K] [--json FILE]

For every built-in shot and every combination the rulebooks name (or the `--shot`s given): throws
0..N-1 of the seed (default 300, seed 2024) at novice, casual and expert on common random numbers, each
skill with its own solved technique (sim/studies/skill_order.py), and the shot's ceiling: the hit rate
of a perfect thrower (every spread of the skill zero: the casual file with its spreads set to 0) with
the technique solved for it, on the same throws. Each neighbouring step is compared as a paired
difference at a family-wise 95 % (Bonferroni over every comparison); a step is *required* to be clearly
better (the whole interval above zero) when the ceiling lies at least REQUIRED_ROOM above the lower
skill's rate. Prints one row per shot and, at the end, the required steps that are not clearly better;
exit status 1 when there are any.

Uses only what the throw core has long offered (Scenario.build, the thrower, the skill-order study), so
the same script measures an older checkout too: `PYTHONPATH=/path/to/old python studies/skill_table.py`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from sim.engine.worlds import thrower_for
from sim.specs.scenario import Scenario
from sim.specs.skill import SPREADS
from sim.studies.skill_order import RULEBOOK_COMBINATIONS, SKILLS, hits_on_common_throws, skill_steps

SHOTS_DIR = Path(__file__).resolve().parents[1] / "shots"
REQUIRED_ROOM = 0.15  # a step must be clearly better where the ceiling is this far above the lower skill


def all_scenes() -> list[tuple[str, ...]]:
    """Every built-in shot alone, then the rulebooks' combinations."""
    return [(p.stem,) for p in sorted(SHOTS_DIR.glob("*.toml"))] + list(RULEBOOK_COMBINATIONS)


def ceiling_hits(shots: tuple[str, ...], n: int, seed: int) -> np.ndarray:
    """Whether each of throws 0..n-1 hit for a spread-free thrower with its own solved technique."""
    zero = {f"skill.{f}": 0.0 for f in SPREADS}
    th = thrower_for(Scenario.build(board="magma", dice=["hero-d8"], shots=list(shots), skill="casual",
                                    overrides=zero))
    return np.array([th.throw(seed, k).outcome.result == "hit" for k in range(n)])


def family_size(own: int, asked: int | None) -> int:
    """The comparisons the Bonferroni correction covers: this command's own, or the whole family's
    when `--family` names it (never fewer than the command's own)."""
    if asked is None:
        return own
    if asked < own:
        raise ValueError(f"{asked} is fewer than this command's own {own} comparisons")
    return asked


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("n", type=int, nargs="?", default=300)
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument("--shot", action="append", help="NAME or NAME+NAME (default: every shot and combination)")
    p.add_argument("--json", help="also write the rows to this file")
    p.add_argument("--family", type=int, metavar="K",
                   help="Bonferroni over K comparisons (default: this command's own): a shot measured again "
                        "on its own, held to the level of the whole family it belongs to")
    a = p.parse_args()
    scenes = [tuple(s.split("+")) for s in a.shot] if a.shot else all_scenes()
    try:
        comparisons = family_size(len(scenes) * (len(SKILLS) - 1), a.family)
    except ValueError as exc:
        print(f"skill_table: --family: {exc}", file=sys.stderr)
        return 2
    print(f"{'shot':<22} " + " ".join(f"{s:>7}" for s in SKILLS) + f" {'ceiling':>7}  steps (paired diff, "
          f"family-wise 95 % lower bound; * = required by the ceiling)", flush=True)
    rows, failing = [], []
    t_all = time.perf_counter()
    for shots in scenes:
        t0 = time.perf_counter()
        hits = hits_on_common_throws(shots, a.n, a.seed)
        ceil = float(ceiling_hits(shots, a.n, a.seed).mean())
        steps = skill_steps(shots, hits, comparisons)
        notes = []
        row = {"shots": list(shots), "rates": {s: float(hits[s].mean()) for s in SKILLS}, "ceiling": ceil,
               "steps": []}
        for st in steps:
            required = ceil >= st.worse_rate + REQUIRED_ROOM
            clear = st.difference.lo > 0.0
            if required and not clear:
                failing.append(f"{'+'.join(shots)} {st.worse}->{st.better}")
            notes.append(f"{st.worse[0]}->{st.better[0]} {st.difference.value:+.1%} (lo {st.difference.lo:+.1%})"
                         f"{'*' if required else ' '}{'' if clear or not required else ' NOT CLEAR'}")
            row["steps"].append({"worse": st.worse, "better": st.better, "diff": st.difference.value,
                                 "lo": st.difference.lo, "hi": st.difference.hi, "required": required,
                                 "clear": clear})
        rows.append(row)
        print(f"{'+'.join(shots):<22} " + " ".join(f"{hits[s].mean():7.1%}" for s in SKILLS) + f" {ceil:7.1%}  "
              + "; ".join(notes) + f"  ({time.perf_counter() - t0:.0f} s)", flush=True)
    print(f"{len(failing)} required steps not clearly better (N = {a.n}, seed {a.seed}, {comparisons} "
          f"comparisons, {time.perf_counter() - t_all:.0f} s)" + (": " + ", ".join(failing) if failing else ""))
    if a.json:
        Path(a.json).write_text(json.dumps({"n": a.n, "seed": a.seed, "rows": rows}, indent=1))
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
