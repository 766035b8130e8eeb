"""Successive halving against the exhaustive search: do the two aimed-release solves choose techniques
whose hit rates agree within the solve's own stopping tolerance? Paired on the same fresh throws.

    nice -n 19 python tools/aim_agreement.py [--throws 2000] [--scenario SHOT/SKILL ...] [--json out.json]

The aim solve (sim/engine/aim.py, `AimSolver.solve`) searches in five steps (a pilot over the
ballistic points thrown the shot's own way, every way of leaving the hand at the pilot point, the better
share of the points thrown that way, every way again at the best two, the finals) by successive
halving: every candidate thrown 4 reference throws, the better half on to 8, then 16 (and 32 for the
hand and the points), before the two finalists are ranked on 32-48 paired throws. The exhaustive search
here takes the same steps with the halving taken out: every candidate of a step thrown that step's last
rung (16 or 32 reference throws), the best kept, the same finals. (Within a rung a candidate stops once
it provably cannot be among those kept: exact, so it is the choice all the rung's throws would give.)
Reference throw i of a technique is the same throw in both searches, so a throw both ask for is made
once; each search counts the throws it asked for.

With `--design FILE.py:CLASS` (a subclass of AimSolver, as tools/aim_replay.py takes it), that
design's solve stands in for this one.

With `--against BEFORE.json` (the rows `python benchmarks/aim_cost.py --root OTHER_CHECKOUT --json
BEFORE.json` kept: each built-in solve's technique under another version of the solve), the second
choice is that version's technique instead of the exhaustive search's: does this solve choose as well
as the other? Every solve of the file is compared unless `--scenario` picks some.

Both choices are then thrown N fresh times (the thrower's real throws: spread and biases, seed
FRESH_SEED, throw k the same draws for both: paired): their hit rates and the paired difference with
its 95 % interval. The solve's stopping tolerance: its finals stop once the leader's paired lead
exceeds NOMINAL_SEPARATION_SE standard errors, or at TOLERANCE_REFS throws (128, the finals' cap),
where two candidates still that close differ by less than the solve can tell; so tolerance =
NOMINAL_SEPARATION_SE x sd(per-throw difference) / sqrt(TOLERANCE_REFS), the sd of the two choices'
difference measured on the fresh throws. It is held at 128 whatever cap a changed solve takes: a
lower cap would widen the yardstick it is judged by. Verdict: "same" (one technique: identical
throws), "within" (the difference's 95 % interval inside +-tolerance), "point within" (the difference
inside, its interval reaching beyond: more throws would tell), "outside". The question that matters
for the halving is one-sided: is its choice worse than the exhaustive one by more than the tolerance?
"no worse" when the difference's 95 % interval stays above -tolerance. Exit status 1 if any choice of
the halving is worse beyond the tolerance.

Scenarios (SCENARIOS): the hero d8 on the magma board, at the three skills, for four shots that span
what the solve must find: `standard` (the plain aimed throw every game starts from), `firewall` (a
prop between hand and board: the lob must bounce before the wall and clear it, a narrow optimum the
grid's elevations straddle), `lava` (the bounce must land on a mat before the board: the bounce point,
not the board, decides) and `far` (the long release, whose faster throw has the largest speed error:
the flattest landscape, where halving on few throws is most at risk). The skills span the spread that
decides which technique is most reliable: the expert's tight one separates candidates sharply, the
novice's broad one leaves many close. The other shots (combined, prop and template-aimed ones) are
the same search over other landscapes, left out to keep the run within about ten minutes on one core
under nice (20-40 s a scenario at 2,000 fresh throws per choice on a loaded 2-core machine);
`--scenario` picks others (SHOT/SKILL, e.g. volcano/casual; SHOT may be NAME+NAME).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import sys
import time
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.engine import aim as A  # noqa: E402
from sim.engine.hand import Technique  # noqa: E402

SHOTS = ("standard", "firewall", "lava", "far")
SKILLS = ("novice", "casual", "expert")
SCENARIOS = [f"{shot}/{skill}" for shot in SHOTS for skill in SKILLS]
FRESH_SEED = 20250611  # the fresh throws' root seed (not the solve's NOMINAL_REF_SEED: other draws)
TOLERANCE_REFS = 128  # the finals' cap that sets the tolerance (the module docstring)
Z95 = 1.959964


class SharedThrows:
    """The solver's reference throws, each made once and counted per search: throw i of a technique is
    deterministic, so the two searches may share it; `asked` counts what the search under way asked."""

    def __init__(self, solver: A.AimSolver) -> None:
        self.real = solver.reference_values
        self.rows: dict[tuple[Technique, int], np.ndarray] = {}
        self.asked = 0
        self.thrown = 0

    def __call__(self, aim, technique, refs=A.NOMINAL_REFS, skill=None, start=0) -> np.ndarray:
        out = []
        for i in range(start, start + refs):
            row = self.rows.get((technique, i))
            if row is None:
                row = self.rows[(technique, i)] = self.real(aim, technique, 1, skill, start=i)[0]
                self.thrown += 1
            out.append(row)
        self.asked += refs
        return np.array(out).reshape(len(out), 2)


def exhaustive(solver: A.AimSolver, aim) -> Technique:
    """The solve with the halving taken out (the module docstring): every candidate of each step thrown
    that step's last rung of reference throws, the best kept, the same finals."""
    one_rung = {name: getattr(A, name)[-1:] for name in ("PILOT_RUNGS", "HALVING_RUNGS", "AGAIN_RUNGS")}
    with mock.patch.multiple(A, **one_rung):
        return A.AimSolver.solve(solver, aim, None)


def hits(th, technique: Technique, n: int) -> np.ndarray:
    """Fresh throws 0..n-1 of FRESH_SEED with this technique: hit or not."""
    th.set_nominal(technique)
    return np.array([th.throw(FRESH_SEED, k).outcome.result == "hit" for k in range(n)], dtype=float)


def agreement(
    name: str, n: int, before: tuple[Technique, int] | None = None, design: type[A.AimSolver] | None = None
) -> dict[str, Any]:
    """Both solves of one scenario and their choices' paired hit rates; with `before` (another version's
    technique and its reference throws), that technique in place of the exhaustive search's; with
    `design` (a subclass of AimSolver), its solve in place of this one."""
    from sim.engine.worlds import build_thrower
    from sim.specs.scenario import Scenario

    shot, skill = name.split("/")
    t0 = time.process_time()
    th = build_thrower(Scenario.build(board="magma", dice=["hero-d8"], shots=tuple(shot.split("+")), skill=skill))
    solver, aim = th.aim, th.aim_point()
    if design is not None:
        solver.__class__ = design  # the same solver (its scenario, hand and throws), the design's steps
    shared = SharedThrows(solver)
    solver.reference_values = shared  # type: ignore[method-assign]
    with th._solving_world():  # the world as the solve sees it (what Thrower.technique does)
        halving = solver.solve(aim, None)
        asked_h, shared.asked = shared.asked, 0
        if before is None:
            full = exhaustive(solver, aim)
            asked_e = shared.asked
        else:
            full, asked_e = before
    solve_s = time.process_time() - t0
    a = hits(th, halving, n)
    b = a if full == halving else hits(th, full, n)
    th.physics.close()
    d = a - b
    sd = float(d.std(ddof=1)) if n > 1 else 0.0
    diff, half = float(d.mean()), Z95 * sd / math.sqrt(n)
    tol = A.NOMINAL_SEPARATION_SE * sd / math.sqrt(TOLERANCE_REFS)
    if full == halving:
        verdict = "same"
    elif abs(diff) + half <= tol:
        verdict = "within"
    elif abs(diff) <= tol:
        verdict = "point within"
    else:
        verdict = "outside"
    return {
        "scenario": name,
        "halving": halving.to_json(),
        "exhaustive": full.to_json(),
        "refs_halving": asked_h,
        "refs_exhaustive": asked_e,
        "refs_made": shared.thrown,
        "throws": n,
        "hit_halving": float(a.mean()),
        "hit_exhaustive": float(b.mean()),
        "difference": diff,
        "difference_lo": diff - half,
        "difference_hi": diff + half,
        "tolerance": tol,
        "verdict": verdict,
        "no_worse": diff - half >= -tol,  # the halving's choice not worse beyond the tolerance
        "cpu_s": round(time.process_time() - t0, 1),
        "solve_cpu_s": round(solve_s, 1),
    }


def technique_text(t: list) -> str:
    speed, elevation, grip, spin, axis = t
    return f"{float(speed):.2f} m/s {float(elevation):.0f} deg {grip} {float(spin):g} {axis}"


def table(rows: list[dict[str, Any]], other: str = "exhaustive") -> str:
    """The markdown table of the note (`other`: what the halving is compared with)."""
    lines = [
        f"| scenario | halving: refs | {other}: refs | same choice | hit rate, halving | hit rate, {other} "
        "| difference [95 %] | tolerance | verdict | halving no worse |",
        "| --- | ---: | ---: | --- | ---: | ---: | --- | ---: | --- | --- |",
    ]
    for r in rows:
        same = "yes" if r["verdict"] == "same" else "no"
        lines.append(
            f"| {r['scenario']} | {r['refs_halving']} | {r['refs_exhaustive']} | {same} | "
            f"{100 * r['hit_halving']:.1f} % | {100 * r['hit_exhaustive']:.1f} % | "
            f"{100 * r['difference']:+.1f} [{100 * r['difference_lo']:+.1f}, {100 * r['difference_hi']:+.1f}] | "
            f"+-{100 * r['tolerance']:.1f} | {r['verdict']} | {'yes' if r['no_worse'] else 'no'} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--throws", type=int, default=2000, help="fresh throws per choice (default 2000)")
    ap.add_argument("--scenario", action="append", help="SHOT/SKILL (default: the eight of SCENARIOS)")
    ap.add_argument("--json", help="also write the rows to this file")
    ap.add_argument("--against", help="benchmarks/aim_cost.py --json rows of another version of the solve")
    ap.add_argument("--design", help="FILE.py:CLASS, a subclass of AimSolver solving in place of this one")
    a = ap.parse_args(argv)
    if a.throws < 2:
        ap.error("--throws must be at least 2")
    befores: dict[str, tuple[Technique, int]] = {}
    if a.against:
        try:
            for r in json.loads(Path(a.against).read_text())["this"]:
                t = Technique.from_json(r["technique"])
                if t is None:
                    raise ValueError(f"{r['shot']}/{r['skill']}: technique is not [speed, elevation, grip, spin, axis]")
                befores[f"{r['shot']}/{r['skill']}"] = (t, int(r["refs"]))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            print(f"aim_agreement: {a.against}: {exc}", file=sys.stderr)
            return 2
    names = a.scenario or (list(befores) if a.against else SCENARIOS)
    missing = [x for x in names if a.against and x not in befores]
    if missing:
        print(f"aim_agreement: {a.against}: no solve of {', '.join(missing)}", file=sys.stderr)
        return 2
    other = "before" if a.against else "exhaustive"
    design = None
    if a.design:
        spec = importlib.util.spec_from_file_location("aim_replay", Path(__file__).with_name("aim_replay.py"))
        assert spec is not None and spec.loader is not None
        replay = importlib.util.module_from_spec(spec)
        sys.modules["aim_replay"] = replay
        spec.loader.exec_module(replay)
        try:
            design = replay.load_design(a.design)
        except replay.Unreadable as exc:
            print(f"aim_agreement: {exc}", file=sys.stderr)
            return 2
    t0 = time.perf_counter()
    rows = []
    for k, name in enumerate(names, 1):
        print(f"[{k}/{len(names)}] {name}: two solves, then {a.throws} fresh throws per choice "
              f"({time.perf_counter() - t0:.0f} s so far)", file=sys.stderr, flush=True)
        r = agreement(name, a.throws, befores.get(name), design)
        print(f"    halving {technique_text(r['halving'])} ({r['refs_halving']} refs), {other} "
              f"{technique_text(r['exhaustive'])} ({r['refs_exhaustive']} refs): {r['verdict']} "
              f"({r['cpu_s']:.0f} s CPU)", file=sys.stderr, flush=True)
        rows.append(r)
    print(table(rows, other))
    h = sum(r["refs_halving"] for r in rows) / len(rows)
    e = sum(r["refs_exhaustive"] for r in rows) / len(rows)
    counts = {v: sum(r["verdict"] == v for r in rows) for v in ("same", "within", "point within", "outside")}
    print(f"\nreference throws asked per solve: halving {h:.0f}, {other} {e:.0f} (ratio {h / e:.2f}); verdicts: "
          + ", ".join(f"{v} {c}" for v, c in counts.items())
          + f"; the halving's choice no worse beyond the tolerance in {sum(r['no_worse'] for r in rows)} of "
          f"{len(rows)}; {a.throws} fresh throws per choice; {time.perf_counter() - t0:.0f} s")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    return 0 if all(r["no_worse"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
