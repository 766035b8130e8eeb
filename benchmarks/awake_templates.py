"""What a template lying on the board costs a step, asleep and awake, and where an awake step goes.

Usage: python benchmarks/awake_templates.py [--steps 1000] [--profile-steps 200] [--seed 4004]
                                             [--throws 60] [--json]

For the template sets a game's throw bank records (Armor, Fireball, Explosion, Armor + Fireball,
Armor + Explosion + Fireball; magma board, hero d8, standard shot, casual), the templates are laid at
the resting poses of one flip (the flip bank's entry of throw (seed, 1)), the die is parked away, and
the world is stepped at the contact step: first as a throw starts (the templates asleep), then with
every template body woken (as Bullet wakes them when a die's bounding box overlaps one, touching it or
not). Prints CPU microseconds per step of this process for both and their ratio to a bare board's
step, and, from Bullet's own profile timings (`STATE_LOGGING_PROFILE_TIMINGS`) over `--profile-steps`
awake steps, the shares of the constraint solver, the narrowphase contact tests and the bounding-box
update, with the contact points and fixed joints the solver meets.

Then, with `--throws N` (default 60), N throws of the Explosion set (the flip bank filled first, so no
flip is timed) split by what happened to the templates: a throw whose die touched one, one that never
touched one but ran longer than twice the bare board's median throw (its die's box overlapped a
template's and woke it), and the rest; each group's count, mean CPU ms and share of the time.

Why: the first game answer's recording is dominated by the Explosion sets (their flips and throws are
stepped with the welded pieces awake); this says which part of Bullet a cheaper Explosion would have to
take from. Awake steps stay below Bullet's deactivation time (2 s of world time), after which resting
bodies fall asleep by themselves.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pybullet as pb

from sim.engine.worlds import build_thrower
from sim.specs.scenario import Scenario

BASE: dict[str, Any] = {"board": "magma", "dice": ["hero-d8"], "shots": ["standard"], "skill": "casual"}
SETS = [[], ["armor"], ["fireball"], ["explosion"], ["armor", "fireball"], ["armor", "explosion", "fireball"]]
DEACTIVATION_S = 2.0  # Bullet's default: a resting body falls asleep after this much world time
# Bullet's profile scopes (each written whole when it ends, so a file lists a scope after those it holds):
# the step, and three disjoint parts of it
STEP_SCOPE = "internalSingleStepSimulation"
PARTS = {"solver": "solveGroup", "narrowphase": "dispatchAllCollisionPairs", "aabbs": "updateAabbs"}
EVENT = re.compile(r'"ts":([\d.]+) ,"ph":"([BE])","name":"([^"]+)"')


def bullet_split(path: Path, steps: int) -> dict[str, float]:
    """Microseconds per step in the whole step and in each of PARTS, read from a profile-timings file
    (Chrome trace events, a begin and an end per scope; Bullet appends a counter to each name)."""
    begun: dict[str, float] = {}
    total = dict.fromkeys(["step", *PARTS], 0.0)
    names = {STEP_SCOPE: "step", **{v: k for k, v in PARTS.items()}}
    for m in EVENT.finditer(path.read_text()):
        ts, kind, name = float(m[1]), m[2], re.sub(r"\d+$", "", m[3])
        part = names.get(name)
        if part is None:
            continue
        if kind == "B":
            begun[name] = ts
        elif name in begun:
            total[part] += ts - begun.pop(name)
    return {k: v / steps for k, v in total.items()}


def measure(names: list[str], steps: int, profile_steps: int, seed: int) -> dict:
    extra: dict[str, Any] = {"templates": [{"name": t, "flip": True} for t in names]} if names else {}
    th = build_thrower(Scenario.build(**BASE, **extra))
    th.nominal()
    th.prepare(seed, 1)
    ph = th.physics
    ph.park("die:0")
    ph.forget_contacts()
    step = ph.fast_calls().step
    if steps >= DEACTIVATION_S / ph.dt:
        raise SystemExit(
            f"--steps must stay below {int(DEACTIVATION_S / ph.dt)} (Bullet's deactivation time)"
        )

    def timed() -> float:
        c0 = time.process_time()
        for _ in range(steps):
            step()
        return (time.process_time() - c0) / steps * 1e6

    asleep = timed()
    bodies = [b for t in th.templates for b in ph.wake(t.body_name)]
    awake = timed() if bodies else asleep
    split: dict[str, float] = {}
    if bodies:
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "timings.json"
            lid = ph.client.startStateLogging(pb.STATE_LOGGING_PROFILE_TIMINGS, str(log))
            for _ in range(profile_steps):
                step()
            ph.client.stopStateLogging(lid)
            files = sorted(Path(tmp).glob("timings.json*"))
            split = bullet_split(files[0], profile_steps) if files else {}
    tpl = set(bodies)
    contacts = sum(1 for c in ph.client.getContactPoints() if c[1] in tpl or c[2] in tpl)
    joints = sum(ph.welded_joints(t.body_name) for t in th.templates)
    ph.close()
    return {
        "set": "+".join(names) or "(none)",
        "asleep_us": asleep,
        "awake_us": awake,
        "bodies": len(bodies),
        "contacts": contacts,
        "joints": joints,
        "split_us": split,
    }


def explosion_throws(n: int, seed: int) -> dict:
    """N throws of the Explosion set and of the bare board (the same draws), the Explosion's grouped by
    what the templates did (the module docstring)."""
    from sim.engine.templates import TemplateLayer

    times: dict[str, list[tuple[bool, float]]] = {}
    scenes: list[tuple[str, dict[str, Any]]] = [
        ("bare", {}),
        ("explosion", {"templates": [{"name": "explosion", "flip": True}]}),
    ]
    for name, extra in scenes:
        th = build_thrower(Scenario.build(**BASE, **extra))
        th.nominal()
        for c in th.components:
            if isinstance(c, TemplateLayer) and c.banked(th):
                c.bank(th).fill()
        rows = []
        for k in range(n):
            r = th.throw(seed, k)
            touched = any(e.other.startswith("template") for e in r.trace.events)
            rows.append((touched, th.last_stats.loop_cpu_s * 1e3))
        times[name] = rows
        th.physics.close()
    bare = sorted(ms for _t, ms in times["bare"])[n // 2]
    groups: dict[str, list[float]] = {"touched": [], "woken, untouched": [], "asleep": []}
    for touched, ms in times["explosion"]:
        key = "touched" if touched else "woken, untouched" if ms > 2 * bare else "asleep"
        groups[key].append(ms)
    total = sum(ms for _t, ms in times["explosion"])
    return {
        "throws": n,
        "bare_median_ms": bare,
        "groups": {
            k: {
                "throws": len(v),
                "mean_ms": sum(v) / len(v) if v else 0.0,
                "share": sum(v) / total if total else 0.0,
            }
            for k, v in groups.items()
        },
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=1000, help="steps timed asleep, then awake")
    ap.add_argument("--profile-steps", type=int, default=200, help="awake steps read from Bullet's timings")
    ap.add_argument("--seed", type=int, default=4004)
    ap.add_argument("--throws", type=int, default=60, help="Explosion throws split by what the templates did")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = [measure(s, a.steps, a.profile_steps, a.seed) for s in SETS]
    bare = rows[0]["asleep_us"]
    throws = explosion_throws(a.throws, a.seed) if a.throws > 0 else None
    if a.json:
        print(json.dumps({"steps": a.steps, "bare_us": bare, "sets": rows, "explosion_throws": throws}))
        return 0
    print(
        f"CPU us per step of this process ({a.steps} steps each), x the bare board's ({bare:.1f} us, the die parked)"
    )
    print(
        f"  {'templates':<26} {'asleep':>8} {'awake':>8} {'x bare':>7}  bodies contacts joints  "
        "awake step, from Bullet's timings"
    )
    for r in rows[1:]:
        s = r["split_us"]
        whole = s.get("step") or 0.0
        shares = "  ".join(f"{k} {100 * s[k] / whole:.0f} %" for k in PARTS if whole) if s else ""
        print(
            f"  {r['set']:<26} {r['asleep_us']:8.1f} {r['awake_us']:8.1f} {r['awake_us'] / bare:7.1f}  "
            f"{r['bodies']:6d} {r['contacts']:8d} {r['joints']:6d}  {shares}"
        )
    if throws:
        print(
            f"{throws['throws']} Explosion throws (a bare board's median throw: {throws['bare_median_ms']:.1f} ms CPU):"
        )
        for k, g in throws["groups"].items():
            print(
                f"  {k:<18} {g['throws']:4d} throws  {g['mean_ms']:7.1f} ms each  {100 * g['share']:3.0f} % of the time"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
