"""The cost of the aimed-release solve: reference throws per solve, counted, for two versions of the code.

    python benchmarks/aim_cost.py [--other /path/to/other/checkout] [--shot NAME] ... [--skill NAME] ...
    python benchmarks/aim_cost.py --root /path/to/checkout --json before.json   (one version, kept)
    python benchmarks/aim_cost.py --before before.json                          (compared with it)
    python benchmarks/aim_cost.py --compare before.json after.json              (two kept runs, no solve)

Solves each built-in aimed shot (on the magma board with the hero d8) at each skill from an empty cache
(a temporary folder of its own per version) and prints the reference throws each solve made and the
technique it chose, then the mean per solve. With `--other`, the other checkout (its `sim` first on the
path, in its own interpreter) solves the same scenarios, and the table gives both counts and their
ratio. The count is the solve's own: its progress observer is called before every reference throw and
once at the end with (made, made). This checkout's solves also say where their throws went, step by
step (`AimSolver.stages`: the pilot, the hand, the points, the hand again, the finals).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHOTS_DIR = Path(__file__).resolve().parents[1] / "shots"
SKILLS = ("novice", "casual", "expert")

WORKER = """
import json, sys, time
from sim.engine.worlds import build_thrower
from sim.specs.scenario import Scenario
shots, skills = json.loads(sys.argv[1]), json.loads(sys.argv[2])
for shot in shots:
    for skill in skills:
        th = build_thrower(Scenario.build(board="magma", dice=["hero-d8"], shots=shot.split("+"), skill=skill))
        seen = [0]
        def count(made, at_most):
            seen[0] = max(seen[0], made)
        t0 = time.process_time()
        technique = th.technique(progress=count).to_json()  # speed, elevation, grip, spin, axis
        stages = [list(x) for x in getattr(th.aim, "stages", [])]  # a checkout from before: none
        print(json.dumps({"shot": shot, "skill": skill, "refs": seen[0], "cpu_s": time.process_time() - t0,
                          "technique": technique, "stages": stages}), flush=True)
        th.physics.close()
"""


def aimed_shots() -> list[str]:
    """Every built-in shot whose release is aimed (aim other than "none")."""
    import tomllib

    out = []
    for p in sorted(SHOTS_DIR.glob("*.toml")):
        doc = tomllib.loads(p.read_text())
        if doc.get("board", True) and doc.get("release", {}).get("aim", "bullseye") != "none":
            out.append(p.stem)
    return out


def solve_counts(root: Path, shots: list[str], skills: list[str], label: str) -> dict[tuple[str, str], dict]:
    """Each (shot, skill)'s solve by the checkout at `root`, from an empty cache of its own."""
    with tempfile.TemporaryDirectory(prefix="dfsim-aimcost-") as cache:
        env = dict(os.environ, PYTHONPATH=str(root), DFSIM_CACHE_DIR=cache)
        proc = subprocess.Popen(
            [sys.executable, "-c", WORKER, json.dumps(shots), json.dumps(skills)],
            env=env, cwd=root, stdout=subprocess.PIPE, text=True,
        )
        out = {}
        assert proc.stdout is not None
        for line in proc.stdout:
            row = json.loads(line)
            out[(row["shot"], row["skill"])] = row
            print(f"  [{label}] {row['shot']:<22} {row['skill']:<7} {row['refs']:5d} reference throws "
                  f"({row['cpu_s']:.0f} s CPU)", file=sys.stderr, flush=True)
        if proc.wait() != 0:
            raise SystemExit(f"{label}: the solve failed (exit {proc.returncode})")
        return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--other", help="another checkout to count the same solves in (a folder holding sim/)")
    ap.add_argument("--shot", action="append", help="a shot or NAME+NAME (default: every aimed built-in shot)")
    ap.add_argument("--skill", action="append", help="a skill (default: novice, casual, expert)")
    ap.add_argument("--root", help="the checkout to count in (default: this one)")
    ap.add_argument("--before", help="compare with the rows of an earlier --json (in place of --other)")
    ap.add_argument("--json", help="also write this checkout's rows to this file")
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"), help="compare two kept --json runs")
    a = ap.parse_args()
    if a.compare:
        return compare(*a.compare)
    shots = a.shot or aimed_shots()
    skills = a.skill or list(SKILLS)
    t0 = time.perf_counter()
    here = Path(a.root).resolve() if a.root else Path(__file__).resolve().parents[1]
    mine = solve_counts(here, shots, skills, "this")
    theirs = solve_counts(Path(a.other).resolve(), shots, skills, "other") if a.other else None
    if a.before:
        theirs = {(r["shot"], r["skill"]): r for r in json.loads(Path(a.before).read_text())["this"]}
    head = f"{'shot':<22} {'skill':<7} {'this':>6}"
    print(head + (f" {'other':>6} {'ratio':>6}" if theirs else ""))
    tot_mine = tot_theirs = 0
    for shot in shots:
        for skill in skills:
            m = mine[(shot, skill)]["refs"]
            tot_mine += m
            line = f"{shot:<22} {skill:<7} {m:6d}"
            if theirs:
                t = theirs[(shot, skill)]["refs"]
                tot_theirs += t
                line += f" {t:6d} {m / t if t else float('nan'):6.2f}"
            print(line)
    n = len(shots) * len(skills)
    stages: dict[str, list[int]] = {}
    for row in mine.values():
        for name, _candidates, made in row.get("stages", []):
            stages.setdefault(name, []).append(made)
    if stages:  # where this checkout's solves spend their reference throws
        print("this checkout's stages, mean reference throws per solve: " + ", ".join(
            f"{name} {sum(v) / len(v):.0f}" for name, v in stages.items()))
    summary = f"mean per solve: this {tot_mine / n:.0f}"
    if theirs:
        summary += f", other {tot_theirs / n:.0f}, ratio {tot_mine / max(1, tot_theirs):.2f}"
    print(summary + f" ({n} solves, {time.perf_counter() - t0:.0f} s)")
    if a.json:
        Path(a.json).write_text(json.dumps({"root": str(here), "this": list(mine.values())}, indent=1))
    return 0


def compare(before: str, after: str) -> int:
    """The table of two kept runs: each solve's count before and after, their ratio, the means."""
    rows = [{(r["shot"], r["skill"]): r["refs"] for r in json.loads(Path(f).read_text())["this"]} for f in (before, after)]
    keys = [k for k in rows[1] if k in rows[0]]
    print(f"{'shot':<22} {'skill':<7} {'before':>6} {'after':>6} {'ratio':>6}")
    for shot, skill in keys:
        b, a = rows[0][(shot, skill)], rows[1][(shot, skill)]
        print(f"{shot:<22} {skill:<7} {b:6d} {a:6d} {a / b:6.2f}")
    tb, ta = sum(rows[0][k] for k in keys), sum(rows[1][k] for k in keys)
    worst = max(rows[1][k] / rows[0][k] for k in keys)
    print(f"mean per solve: before {tb / len(keys):.0f}, after {ta / len(keys):.0f}, ratio {ta / tb:.2f} "
          f"(largest single ratio {worst:.2f}; {len(keys)} solves)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
