"""Which model lever moves how rolling bodies end up: the end-landing share of an h = d cylinder and
the run-out of a d8, free rolls (shot `roll`) on the open table, one lever changed at a time.

    python studies/rolling_levers.py --n 1000 --d8 400 --out results/rolling-levers

Levers: the number of rim facets of the cylinder (a prism of N sides, built as a polyhedron die), the
die's rolling and spinning friction (Bullet's torque limits, off by default), the table's restitution
(the flat-drop rebound the material table states), Bullet's restitution velocity threshold (impacts
slower than it get no restitution), the contact damping knob, soft contact (the table's stiffness and
damping in N/m and N s/m, the flat rebound calibrated again), and the solver's contact ERP and CFM.
Besides the table of levers it measures how Bullet's restitution acts at an edge impact against a
face impact (`--impacts`): the normal speed of the impacting point after / before; and how a near-flat
landing on an end or on the side tumbles the cylinder at each step (`--near-flat`): the one measurement
here that is not converged in the step (docs/physics.md, "Rolling bodies"); and where the end share converges
in the impact step (`--converge`: rigid and soft contact, with the d8 run-out and the d6 faces); and, at that
converged step, the levers left (`--converged-levers`): the friction of plastic on the panes, the roll's release
(gentler, harder, a still drop) and the glass's rebound, paired on the same rolls, on glass and glass-thin.

End share: the cylinder rests with its axis within 60 deg of vertical (Wilson 95 % interval, voids
left out and counted). Run-out: horizontal distance from the d8's first touch of the table to where it
rests (mean with its 95 % t interval). Throws (seed, 0..n-1) of one seed: every setting throws the
same releases (common random numbers). Writes levers.json and levers.md into --out.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sim.engine.settling import DENSITY_G_MM3, cylinder_case
from sim.engine.worlds import build_thrower
from sim.experiments.statistics import mean_interval, wilson
from sim.files import write_atomic
from sim.specs.die import quat_to_matrix
from sim.specs.physics import CONVERGED_IMPACT_STEP
from sim.specs.scenario import Scenario
from sim.vectors import dot, matmul

SEED = 20260126
CYL_RADIUS_MM = 10.0  # the h = d cylinder: 20 mm across, 20 mm high, acrylic


@dataclass(frozen=True)
class Setting:
    """One lever setting: how the world differs from the default one."""

    lever: str
    value: str
    facets: int = 24  # rim facets of the cylinder (24: the built-in cylinder itself)
    overrides: dict = field(default_factory=dict)  # scenario overrides (physics.*)
    materials: dict = field(default_factory=dict)  # plastic-wood pair fields changed
    poke: dict = field(default_factory=dict)  # engine settings applied after the world is built
    d8: bool = True  # whether the lever can move a d8 at all


SETTINGS: tuple[Setting, ...] = (
    Setting("default", "-"),
    Setting("rim facets", "12", facets=12, d8=False),
    Setting("rim facets", "48", facets=48, d8=False),
    Setting("rim facets", "8", facets=8, d8=False),
    Setting("rolling friction (m)", "2e-5", poke={"rolling": 2e-5}),
    Setting("rolling friction (m)", "1e-4", poke={"rolling": 1e-4}),
    Setting("rolling friction (m)", "5e-4", poke={"rolling": 5e-4}),
    Setting("spinning friction (m)", "1e-4", poke={"spinning": 1e-4}),
    Setting("table rebound", "0.3", materials={"restitution": 0.3}),
    Setting("table rebound", "0.7", materials={"restitution": 0.7}),
    Setting("table rebound", "0.85", materials={"restitution": 0.85}),
    Setting("restitution threshold (m/s)", "0.02", poke={"threshold": 0.02}),
    Setting("restitution threshold (m/s)", "0.5", poke={"threshold": 0.5}),
    Setting("contact damping", "0", materials={"contact_damping": 0.0}),
    Setting("contact damping", "0.9", materials={"contact_damping": 0.9}),
    Setting("table stiffness (N/m)", "3e3", poke={"stiffness": 3e3}),
    Setting("table stiffness (N/m)", "3e4", poke={"stiffness": 3e4}),
    Setting("contact ERP", "0.05", poke={"contact_erp": 0.05}),
    Setting("contact ERP", "0.8", poke={"contact_erp": 0.8}),
    Setting("global CFM", "1e-3", poke={"cfm": 1e-3}),
)


def faceted_cylinder(radius_mm: float, height_mm: float, facets: int) -> dict:
    """Overrides turning the d6 file into a sharp cylinder whose rim is a prism of `facets` sides (a
    polyhedron die: two caps and `facets` side faces; 24 is the built-in cylinder's own polygon)."""
    t = np.linspace(0.0, 2 * math.pi, facets, endpoint=False)
    ring = [(radius_mm * math.cos(a), radius_mm * math.sin(a)) for a in t]
    verts = [(x, y, z) for z in (height_mm / 2, -height_mm / 2) for x, y in ring]
    area = 0.5 * facets * radius_mm * radius_mm * math.sin(2 * math.pi / facets)
    return {"die.shape": "polyhedron", "die.size_mm": None, "die.vertices_mm": verts, "die.edge_radius_mm": 0.0,
            "die.mass_g": round(area * height_mm * DENSITY_G_MM3, 3),
            "die.faces": ["cap"] * 2 + ["side"] * facets, "die.icon_labels": []}


def _materials_file(changes: dict, out_dir: str, surface: str = "wood") -> str:
    """A copy of the default material table with the plastic-`surface` pair's fields changed."""
    if not changes:
        return "default"
    import tomllib

    from sim.specs.datafiles import resolve

    with open(resolve("material", "default"), "rb") as fh:
        data = tomllib.load(fh)
    for p in data["pairs"]:
        if {p["a"], p["b"]} == {"plastic", surface}:
            p.update(changes)
    lines = [f"name = {json.dumps(data['name'])}", f"estimated = {str(data['estimated']).lower()}",
             f"materials = {json.dumps(data['materials'])}", ""]
    for p in data["pairs"]:
        lines.append("[[pairs]]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in p.items()]
        lines.append("")
    tag = "-".join(f"{k}{v:g}" for k, v in sorted(changes.items()))
    path = os.path.join(out_dir, f"materials-{tag}.toml" if surface == "wood" else f"materials-{surface}-{tag}.toml")
    write_atomic(path, "\n".join(lines))
    return path


def _apply(th, poke: dict) -> None:
    """Engine settings the scenario files cannot state, set on the built world; a change of contact
    model calibrates the flat-drop rebound again, so the table still rebounds a flat drop as stated."""
    ph = th.physics
    c = ph.client
    die = ph.body("die:0")
    table_friction = ph.surface("table")[0]
    if "rolling" in poke:  # Bullet combines a_rolling x b_friction + b_rolling x a_friction
        c.changeDynamics(die, -1, rollingFriction=poke["rolling"] / table_friction)
    if "spinning" in poke:
        c.changeDynamics(die, -1, spinningFriction=poke["spinning"] / table_friction)
    if "threshold" in poke:
        c.setPhysicsEngineParameter(restitutionVelocityThreshold=poke["threshold"])
    if "contact_erp" in poke:
        c.setPhysicsEngineParameter(contactERP=poke["contact_erp"])
    if "cfm" in poke:
        c.setPhysicsEngineParameter(globalCFM=poke["cfm"])
    if "stiffness" in poke:
        k = poke["stiffness"]
        for b in ph._bodies("table"):
            c.changeDynamics(b, -1, contactStiffness=k, contactDamping=0.02 * math.sqrt(k))
    if poke.keys() & {"threshold", "contact_erp", "cfm", "stiffness"}:
        ph._calibrate_rebounds()


def _thrower(die: str, overrides: dict, s: Setting, out_dir: str):
    # a world of its own (the per-thread world cache would carry one setting's engine changes into the next)
    th = build_thrower(Scenario.build(dice=[die], shots=["roll"], overrides=overrides | s.overrides,
                                      materials=_materials_file(s.materials, out_dir)))
    _apply(th, s.poke)
    return th


def end_share(s: Setting, n: int, seed: int, out_dir: str) -> dict:
    """How often the h = d cylinder rests on an end (cap down or up)."""
    h = 2 * CYL_RADIUS_MM
    if s.facets == 24:
        case = cylinder_case(CYL_RADIUS_MM, h)
        th = _thrower(case.base, dict(case.overrides), s, out_dir)
    else:
        th = _thrower("d6", faceted_cylinder(CYL_RADIUS_MM, h, s.facets), s, out_dir)
    end = void = 0
    for k in range(n):
        o = th.throw(seed, k).outcome
        if o.result == "void":
            void += 1
            continue
        end += int(abs(quat_to_matrix(o.orientation_xyzw)[2, 2]) > 0.5)
    th.physics.close()
    r = wilson(end, n - void)
    return {"end": end, "n": n - void, "void": void, "share": r.rate, "lo": r.lo, "hi": r.hi,
            "rebound": th.physics.rebound.get("table", (None, None))[1]}


def run_out(s: Setting, n: int, seed: int, out_dir: str) -> dict:
    """Horizontal distance (mm) from the d8's first touch of the table to its rest."""
    th = _thrower("d8", {}, s, out_dir)
    dist = []
    void = 0
    for k in range(n):
        res = th.throw(seed, k)
        o = res.outcome
        first = next((e for e in res.trace.events if e.other == "table"), None)
        if o.result == "void" or first is None:
            void += 1
            continue
        dist.append(math.hypot(o.position_mm[0] - 1e3 * first.point_m[0], o.position_mm[1] - 1e3 * first.point_m[1]))
    th.physics.close()
    e = mean_interval(dist)
    return {"n": len(dist), "void": void, "mean_mm": e.value, "lo": e.lo, "hi": e.hi,
            "median_mm": float(np.median(dist)) if dist else math.nan}


# ---------------------------------------------------------------- edge against face impacts
IMPACT_TILTS_DEG = (0.0, 10.0, 30.0, 60.0, 90.0)


def impact_response(facets: int = 24, tilts_deg=IMPACT_TILTS_DEG, phases: int = 8, yaws: int = 3) -> list[dict]:
    """Drop the h = d cylinder (`facets` rim facets) from 10 cm, not spinning, its axis tilted from
    vertical by each angle (0: flat on its end, a face impact; 10-60: one rim corner first, an edge
    impact; 90: on its side), on the default table as calibrated, at spread step phases and yaws. Read
    right after the step that met the table: the normal speed of the body point that struck, after /
    before (what Bullet's restitution sets per contact point), the centre's upward speed / impact speed,
    and the sideways speed (m/s) and spin (rad/s) the impact gave a body that fell straight and still."""
    from sim.world.physics import GRAVITY

    th = build_thrower(Scenario.build(dice=["d6"], shots=["roll"],
                                      overrides=faceted_cylinder(CYL_RADIUS_MM, 2 * CYL_RADIUS_MM, facets)))
    ph = th.physics
    pts = th.scenario.dice[0].collision_points_m
    hz = ph.settings.step_hz
    v0 = math.sqrt(2 * GRAVITY * 0.10)
    rows = []
    for tilt in tilts_deg:
        point, centre, side, spin = [], [], [], []
        for j in range(yaws):
            yaw = math.pi / facets * j / yaws  # within one facet's half-angle: every relative pose
            for i in range(phases):
                q = _tilt_yaw(math.radians(tilt), yaw)
                rot = quat_to_matrix(q)
                world = matmul(pts, rot.T)
                k = int(np.argmin(world[:, 2]))
                corner_body = pts[k]
                gap = 0.003 + (i + 0.5) / phases * v0 / hz
                ph.set_state("die:0", (0.0, 0.0, gap - world[k, 2]), q, (0.0, 0.0, -v0), (0.0, 0.0, 0.0))
                for _ in range(int(gap / v0 * hz) + 3):
                    ph.tick()
                    if ph.contacts("die:0"):
                        break
                v, w = ph.die_velocity("die:0")
                _, q_now = ph.die_pose("die:0")
                arm = matmul(quat_to_matrix(q_now), corner_body)
                point.append((v[2] + w[0] * arm[1] - w[1] * arm[0]) / v0)
                centre.append(v[2] / v0)
                side.append(math.hypot(v[0], v[1]))
                spin.append(float(math.sqrt(dot(w, w))))
        rows.append({"facets": facets, "tilt_deg": tilt, "point_rebound": float(np.mean(point)),
                     "point_rebound_sd": float(np.std(point, ddof=1)), "centre_rebound": float(np.mean(centre)),
                     "side_mps": float(np.mean(side)), "spin_radps": float(np.mean(spin)), "drops": len(point)})
    ph.close()
    return rows


def _tilt_yaw(tilt: float, yaw: float) -> tuple[float, float, float, float]:
    """xyzw quaternion: turn by `yaw` about the body axis, then tilt by `tilt` about world x."""
    cy, sy = math.cos(yaw / 2), math.sin(yaw / 2)
    ct, st = math.cos(tilt / 2), math.sin(tilt / 2)
    # q_tilt (x axis) * q_yaw (z axis)
    return (st * cy, -st * sy, ct * sy, ct * cy)


# ---------------------------------------------------------------- near-flat landings against the step
NEAR_FLAT_HZ = (960.0, 1920.0, 3840.0, 7680.0)
NEAR_FLAT_TILTS_DEG = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)


def near_flat_response(landing: str, hz: float, tilts_deg=NEAR_FLAT_TILTS_DEG, drops: int = 6,
                       surface: str = "glass", stiffness: float = 0.0) -> list[dict]:
    """Drop the h = d cylinder from 10 cm, not spinning, nearly flat on an end (`landing` "end") or on its
    side ("side"), its axis tilted by each small angle from that pose about a horizontal axis, onto
    `surface`, the world stepped uniformly at `hz` (the rebound calibrated at that step; `stiffness` N/m:
    a soft contact instead, damping 0.02 sqrt(k), calibrated again). Read 12 ms later, after the impact:
    the tumbling rate it gave (rad/s about the tilt axis) and the centre's rebound (upward speed / impact
    speed), each the mean over `drops` step phases. A rigid body's response to a landing of tilt e is
    continuous in e only while its corners' impacts overlap in time; a step-long impact makes every
    landing flatter than about v dt / width simultaneous, so this is where the step enters a result."""
    from sim.world.physics import GRAVITY

    case = cylinder_case(CYL_RADIUS_MM, 2 * CYL_RADIUS_MM)
    th = build_thrower(Scenario.build(dice=[case.base], shots=["roll"],
                                      physics={"step_hz": hz, "coarse_step_hz": hz, "max_time_s": 5.0},
                                      overrides=dict(case.overrides) | {"shot.table_material": surface}))
    if stiffness:
        _apply(th, {"stiffness": stiffness})
    ph = th.physics
    ph.set_damping("die:0", 0.0)
    pts = th.scenario.dice[0].collision_points_m
    v0 = math.sqrt(2 * GRAVITY * 0.10)
    base = 0.0 if landing == "end" else 90.0
    rows = []
    for tilt in tilts_deg:
        tumble, rebound = [], []
        for j in range(drops):
            # on the side, every other drop lands on a rim facet rather than a rim edge
            q = _tilt_yaw(math.radians(base + tilt), (math.pi / 24 if landing == "side" and j % 2 else 0.0) + 1e-3 * j)
            low = float(matmul(pts, quat_to_matrix(q).T)[:, 2].min())
            gap = 0.002 + (j + 0.5) / drops * v0 / hz
            ph.set_state("die:0", (0.0, 0.0, gap - low), q, (0.0, 0.0, -v0), (0.0, 0.0, 0.0))
            for _ in range(int(hz * 0.012)):
                ph.tick()
            v, w = ph.die_velocity("die:0")
            tumble.append(abs(w[0]))
            rebound.append(v[2] / v0)
        rows.append({"landing": landing, "hz": hz, "tilt_deg": tilt, "stiffness": stiffness, "surface": surface,
                     "tumble_radps": float(np.mean(tumble)), "rebound": float(np.mean(rebound)), "drops": drops})
    ph.close()
    return rows


def near_flat_markdown(rows: list[dict]) -> str:
    """The near-flat table (docs/physics.md): tumble (rad/s) / rebound per landing, step and tilt."""
    tilts = sorted({r["tilt_deg"] for r in rows})
    out = ["| landing | contact | step (Hz) | " + " | ".join(f"{t:g} deg" for t in tilts) + " |",
           "|---|---|---|" + "---|" * len(tilts)]
    keys = sorted({(r["landing"], r["stiffness"], r["hz"]) for r in rows}, key=lambda k: (k[0] != "end", k[1], k[2]))
    for landing, k, hz in keys:
        cells = {r["tilt_deg"]: r for r in rows if (r["landing"], r["stiffness"], r["hz"]) == (landing, k, hz)}
        out.append(f"| {landing} | {'rigid' if not k else f'{k:g} N/m'} | {hz:.0f} | "
                   + " | ".join(f"{cells[t]['tumble_radps']:.1f} / {cells[t]['rebound']:.2f}" for t in tilts) + " |")
    return "\n".join(out) + "\n"


def markdown(rows: list[dict]) -> str:
    """The lever table (docs/physics.md)."""
    out = ["| lever | value | end share (h = d cylinder) | 95 % | d8 run-out mean (mm) | 95 % |",
           "|---|---|---|---|---|---|"]
    for r in rows:
        e, d = r["end"], r.get("d8")
        d8 = (f"{d['mean_mm']:.0f} | [{d['lo']:.0f}, {d['hi']:.0f}]" if d else "- | -")
        out.append(f"| {r['lever']} | {r['value']} | {e['share']:.3f} | [{e['lo']:.3f}, {e['hi']:.3f}] | {d8} |")
    return "\n".join(out) + "\n"


def impact_markdown(rows: list[dict]) -> str:
    """The impact table (docs/physics.md)."""
    out = ["| rim facets | tilt (deg) | struck point's rebound (sd) | centre's rebound | sideways kick (m/s) | spin (rad/s) |",
           "|---|---|---|---|---|---|"]
    out += [f"| {r['facets']} | {r['tilt_deg']:g} | {r['point_rebound']:.3f} ({r['point_rebound_sd']:.3f}) | "
            f"{r['centre_rebound']:.3f} | {r['side_mps']:.3f} | {r['spin_radps']:.1f} |" for r in rows]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- where the end share converges
CONVERGE_HZ = (3840.0, 7680.0, 15360.0, 30720.0)  # the contact step while a die moves faster than 0.5 m/s
CONVERGE_SEED = 20250607
SOFT_STIFFNESS = 1e4  # N/m per contact point: a ~1.4 ms flat landing, which 30 kHz resolves


def _impact_step(hz: float | None) -> dict:
    """Scenario overrides: the per-impact step at `hz` above 0.5 m/s (None: the default engine)."""
    return {} if hz is None else {"physics.step_hz": hz, "physics.fine_speed_mps": 0.5}


def _soften(th, stiffness: float, surface: str) -> float | None:
    """A compliant table: Bullet's contact stiffness per point, restitution 0, and the contact damping
    (N s/m) solved by bisection so a flat 10 cm drop rebounds as the material says (an implicit
    spring-damper loses energy of its own, so zeta = -ln e / sqrt(pi^2 + ln^2 e) would overshoot the
    loss). None when the undamped contact already rebounds lower (a step too coarse for the stiffness)."""
    ph = th.physics
    target = ph.materials.pair("plastic", surface).restitution
    spec, points = ph._die_specs["die:0"], ph._drop_points["table"]

    def miss(c: float) -> float:
        for b in ph._bodies("table"):
            ph.client.changeDynamics(b, -1, contactStiffness=stiffness, contactDamping=c, restitution=0.0)
        return ph._mean_rebound("die:0", spec, points) - target

    lo, hi = 0.0, 2 * math.sqrt(stiffness * 0.0075)  # 0 .. about critical for the die
    if miss(lo) < 0:
        ph.park("die:0")
        return None
    mid = lo
    for _ in range(30):
        mid = 0.5 * (lo + hi)
        f = miss(mid)
        if abs(f) < 5e-4:
            break
        lo, hi = (mid, hi) if f > 0 else (lo, mid)
    ph.park("die:0")
    return mid


def converge_share(hz: float | None, n: int, surface: str = "glass", soft: bool = False) -> dict:
    """End share of n h = d rolls onto `surface` at the impact step `hz` (rigid, or the soft table), with
    the per-throw flags (for paired differences) and the CPU seconds per roll."""
    case = cylinder_case(CYL_RADIUS_MM, 2 * CYL_RADIUS_MM)
    th = build_thrower(Scenario.build(dice=[case.base], shots=["roll"],
                                      overrides=dict(case.overrides) | {"shot.table_material": surface}
                                      | _impact_step(hz)))
    damping = _soften(th, SOFT_STIFFNESS, surface) if soft else None
    flags: list[int | None] = []
    t0 = time.process_time()
    if not soft or damping is not None:
        for k in range(n):
            o = th.throw(CONVERGE_SEED, k).outcome
            flags.append(None if o.result == "void" else int(abs(quat_to_matrix(o.orientation_xyzw)[2, 2]) > 0.5))
    cpu = (time.process_time() - t0) / max(1, len(flags))
    th.physics.close()
    seen = [f for f in flags if f is not None]
    r = wilson(sum(seen), len(seen))
    return {"hz": hz, "surface": surface, "soft": soft, "damping": damping, "n": len(seen), "void": len(flags) - len(seen),
            "share": r.rate, "lo": r.lo, "hi": r.hi, "cpu_s": cpu, "flags": flags}


def converge_dice(hz: float | None, n8: int, n6: int, seed: int = SEED) -> dict:
    """The d8's free-roll run-out (mm) and the d6's face counts at the impact step `hz`."""
    th = build_thrower(Scenario.build(dice=["d8"], shots=["roll"], overrides=_impact_step(hz)))
    runs: list[float | None] = []
    for k in range(n8):
        res = th.throw(seed, k)
        first = next((e for e in res.trace.events if e.other == "table"), None)
        o = res.outcome
        runs.append(None if o.result == "void" or first is None else
                    math.hypot(o.position_mm[0] - 1e3 * first.point_m[0], o.position_mm[1] - 1e3 * first.point_m[1]))
    th.physics.close()
    dist = [d for d in runs if d is not None]
    th = build_thrower(Scenario.build(dice=["d6"], shots=["roll"], overrides=_impact_step(hz)))
    faces = [th.throw(seed, k).outcome for k in range(n6)]
    th.physics.close()
    counts: dict[str, int] = {}
    for o in faces:
        if o.result != "void":
            counts[str(o.face)] = counts.get(str(o.face), 0) + 1
    e = mean_interval(dist)
    return {"hz": hz, "d8_n": len(dist), "d8_mm": e.value, "d8_lo": e.lo, "d8_hi": e.hi, "d6": dict(sorted(counts.items())),
            "d8_runs": runs, "d6_faces": [None if o.result == "void" else str(o.face) for o in faces]}


def converge(n: int, n8: int, n6: int) -> dict:
    """Every measurement of docs/physics.md "Where the end share converges", in one run."""
    from sim.experiments.statistics import paired_rate_difference

    def paired(a: dict, b: dict) -> list[float]:
        return _paired(a["flags"], b["flags"])

    steps: list[float | None] = [None, *CONVERGE_HZ]
    cases = ([("glass", hz, False) for hz in steps] + [("glass-thin", hz, False) for hz in (None, 15360.0)]
             + [("glass", 30720.0, True)])
    shares = []
    for i, (surface, hz, soft) in enumerate(cases, 1):
        shares.append(converge_share(hz, n, surface, soft))
        r = shares[-1]
        print(f"[{i}/{len(cases) + 3}] {surface} {'default' if hz is None else f'{hz:.0f} Hz'}{' soft' if soft else ''}: "
              f"{r['share']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}], {1e3 * r['cpu_s']:.0f} ms a roll", file=sys.stderr, flush=True)
    dice = []
    for j, hz in enumerate((None, 15360.0, 30720.0), len(cases) + 1):
        dice.append(converge_dice(hz, n8, n6))
        print(f"[{j}/{len(cases) + 3}] d8 and d6 at {'default' if hz is None else f'{hz:.0f} Hz'}", file=sys.stderr, flush=True)
    # the dice at the converged step against half of it: the d8's paired mean run-out, and the d6 face
    # whose share differs most (paired, Bonferroni-widened over the faces)
    from sim.experiments.statistics import paired_mean_difference

    a, b = dice[1], dice[2]
    both = [(x, y) for x, y in zip(a["d8_runs"], b["d8_runs"]) if x is not None and y is not None]
    d8 = paired_mean_difference([x for x, _ in both], [y for _, y in both])
    faces = sorted({f for f in a["d6_faces"] + b["d6_faces"] if f is not None})
    diffs = [(f, paired_rate_difference([x == f for x in a["d6_faces"]], [y == f for y in b["d6_faces"]],
                                        confidence=1 - 0.05 / len(faces))) for f in faces]
    face, worst = max(diffs, key=lambda fd: abs(fd[1].value))
    get = {(r["surface"], r["hz"], r["soft"]): r for r in shares}
    pairs = {"15360 vs 30720 Hz, glass": paired(get[("glass", 15360.0, False)], get[("glass", 30720.0, False)]),
             "default vs 15360 Hz, glass": paired(get[("glass", None, False)], get[("glass", 15360.0, False)]),
             "soft vs rigid, 30720 Hz, glass": paired(get[("glass", 30720.0, True)], get[("glass", 30720.0, False)]),
             "glass - glass-thin, default": paired(get[("glass", None, False)], get[("glass-thin", None, False)]),
             "glass - glass-thin, 15360 Hz": paired(get[("glass", 15360.0, False)], get[("glass-thin", 15360.0, False)]),
             "d8 run-out (mm), 15360 vs 30720 Hz": [d8.value, d8.lo, d8.hi],
             f"d6 face {face} (the largest difference; Bonferroni over the faces), 15360 vs 30720 Hz":
                 [worst.value, worst.lo, worst.hi]}
    return {"shares": shares, "dice": dice, "paired": pairs}


def converge_markdown(out: dict) -> str:
    """The tables of docs/physics.md "Where the end share converges"."""
    lines = ["| surface | contact | step while faster than 0.5 m/s | end share | 95 % | CPU per roll (ms) |",
             "|---|---|---|---|---|---|"]
    for r in out["shares"]:
        step = "default (960 Hz above 1.5 m/s)" if r["hz"] is None else f"{r['hz']:.0f} Hz"
        contact = f"soft {SOFT_STIFFNESS:g} N/m, damping {r['damping']:.4f} N s/m" if r["soft"] else "rigid"
        lines.append(f"| {r['surface']} | {contact} | {step} | {r['share']:.3f} | [{r['lo']:.3f}, {r['hi']:.3f}] | "
                     f"{1e3 * r['cpu_s']:.0f} |")
    lines += ["", "| paired difference | value | 95 % |", "|---|---|---|"]
    lines += [f"| {k} | {v[0]:+.3f} | [{v[1]:+.3f}, {v[2]:+.3f}] |" for k, v in out["paired"].items()]
    lines += ["", "| step while faster than 0.5 m/s | d8 run-out (mm) | 95 % | d6 faces (counts) |", "|---|---|---|---|"]
    for d in out["dice"]:
        step = "default" if d["hz"] is None else f"{d['hz']:.0f} Hz"
        lines.append(f"| {step} | {d['d8_mm']:.0f} | [{d['d8_lo']:.0f}, {d['d8_hi']:.0f}] | "
                     + ", ".join(f"{k}: {v}" for k, v in d["d6"].items()) + " |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- the model's levers at the converged step
@dataclass(frozen=True)
class ConvergedLever:
    """One setting of the converged-step lever runs: the plastic-pane pair, the roll shot's release, or a
    still drop in place of the roll."""

    lever: str
    value: str
    surfaces: tuple[str, ...] = ("glass", "glass-thin")
    pair: dict = field(default_factory=dict)  # plastic-<surface> pair fields changed
    release: dict = field(default_factory=dict)  # scenario overrides of the roll shot
    drop: bool = False  # released still, in a random orientation, 10-20 cm up


def _release(height_mm: float, speed_mps: float, spin_rps: float) -> dict:
    """The roll shot at another nominal height, speed and tumble, its height and spin spreads scaled with
    the nominal (the shot's are 15 cm and 6 rps), so a gentler roller is also a steadier one."""
    return {"shot.release.height_mm": height_mm, "shot.release.speed_mps": speed_mps,
            "shot.release.spin_rps": spin_rps, "shot.noise.height": height_mm / 150.0,
            "shot.noise.spin": 3.0 * spin_rps / 6.0}


CONVERGED_LEVERS: tuple[ConvergedLever, ...] = (
    ConvergedLever("today", "friction 0.35; roll 15 cm, 1.5 m/s, 6 rps; rebound 0.85 / 0.65"),
    ConvergedLever("friction, plastic on the pane", "0.05", pair={"friction": 0.05}),
    ConvergedLever("friction, plastic on the pane", "0.15", pair={"friction": 0.15}),
    ConvergedLever("friction, plastic on the pane", "0.6", pair={"friction": 0.6}),
    ConvergedLever("release", "gentle: 5 cm, 0.5 m/s, 2 rps", release=_release(50.0, 0.5, 2.0)),
    ConvergedLever("release", "hard: 30 cm, 2.5 m/s, 12 rps", release=_release(300.0, 2.5, 12.0)),
    ConvergedLever("release", "still drop, random orientation, 10-20 cm", drop=True),
    ConvergedLever("glass rebound (flat 10 cm drop)", "0.3", surfaces=("glass",), pair={"restitution": 0.3}),
    ConvergedLever("glass rebound (flat 10 cm drop)", "0.5", surfaces=("glass",), pair={"restitution": 0.5}),
    ConvergedLever("glass rebound (flat 10 cm drop)", "0.65", surfaces=("glass",), pair={"restitution": 0.65}),
)


def _drop_release(seed: int, k: int):
    """Roll k's still drop: the cylinder's centre 10-20 cm over the table, at rest, in the throw's own
    uniform orientation."""
    from sim.engine.release import Release
    from sim.seeding import Draw

    d = Draw.for_throw(seed, k)
    return [Release((0.0, 0.0, 0.10 + 0.10 * float(d.extra[0])), (0.0, 0.0, 0.0), d.orientation_xyzw, (0.0, 0.0, 0.0))]


def lever_share(lv: ConvergedLever, surface: str, n: int, hz: float | None, out_dir: str) -> dict:
    """End share of n h = d rolls (seed 20250607, the converge run's) onto `surface` under one lever, at
    the impact step `hz` (None: the default engine), with the per-roll flags for paired differences."""
    case = cylinder_case(CYL_RADIUS_MM, 2 * CYL_RADIUS_MM)
    th = build_thrower(Scenario.build(dice=[case.base], shots=["roll"],
                                      overrides=dict(case.overrides) | {"shot.table_material": surface}
                                      | lv.release | _impact_step(hz),
                                      materials=_materials_file(lv.pair, out_dir, surface)))
    flags: list[int | None] = []
    t0 = time.process_time()
    for k in range(n):
        res = th.throw_releases(_drop_release(CONVERGE_SEED, k)) if lv.drop else th.throw(CONVERGE_SEED, k)
        o = res.outcome
        flags.append(None if o.result == "void" else int(abs(quat_to_matrix(o.orientation_xyzw)[2, 2]) > 0.5))
    cpu = (time.process_time() - t0) / max(1, n)
    rebound = th.physics.rebound.get("table", (None, None))[1]
    th.physics.close()
    seen = [f for f in flags if f is not None]
    r = wilson(sum(seen), len(seen))
    return {"lever": lv.lever, "value": lv.value, "surface": surface, "hz": hz, "n": len(seen),
            "void": len(flags) - len(seen), "share": r.rate, "lo": r.lo, "hi": r.hi, "cpu_s": cpu,
            "rebound": rebound, "flags": flags}


def _paired(a: list, b: list) -> list[float]:
    """Paired difference of two runs' end rates (Newcombe) over the rolls both rested in."""
    from sim.experiments.statistics import paired_rate_difference

    both = [(x, y) for x, y in zip(a, b) if x is not None and y is not None]
    e = paired_rate_difference([bool(x) for x, _ in both], [bool(y) for _, y in both])
    return [e.value, e.lo, e.hi]


def converged_levers(n: int, n_default: int, out_dir: str) -> dict:
    """Every lever of CONVERGED_LEVERS on each of its surfaces at the converged impact step (n rolls), and
    at the default step (n_default rolls, 0: not run) for comparison; paired differences against today
    and between the panes."""
    hz = CONVERGED_IMPACT_STEP["step_hz"]
    runs = [(lv, s, h, m) for h, m in ((hz, n), (None, n_default)) if m for lv in CONVERGED_LEVERS for s in lv.surfaces]
    rows = []
    t0 = time.process_time()
    for i, (lv, surface, h, m) in enumerate(runs, 1):
        rows.append(lever_share(lv, surface, m, h, out_dir))
        r = rows[-1]
        print(f"[{i}/{len(runs)}] {'converged' if h else 'default'} step, {surface}, {lv.lever} = {lv.value}: "
              f"{r['share']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}] of {r['n']} ({1e3 * r['cpu_s']:.0f} ms a roll, "
              f"{time.process_time() - t0:.0f} s CPU)", file=sys.stderr, flush=True)
    get = {(r["lever"], r["value"], r["surface"], r["hz"]): r for r in rows}
    today = CONVERGED_LEVERS[0]
    for r in rows:
        base = get[(today.lever, today.value, r["surface"], r["hz"])]
        r["vs_today"] = None if r is base else _paired(r["flags"], base["flags"])
        thin = get.get((r["lever"], r["value"], "glass-thin", r["hz"]))
        r["thick_thin"] = _paired(r["flags"], thin["flags"]) if r["surface"] == "glass" and thin else None
    return {"seed": CONVERGE_SEED, "step": CONVERGED_IMPACT_STEP, "n": n, "n_default": n_default, "rows": rows}


def converged_levers_markdown(out: dict) -> str:
    """The table of docs/physics.md "The model's levers at the converged step"."""
    def cell(r: dict | None) -> str:
        if r is None:
            return "-"
        left = f" ({r['void']} of {r['n'] + r['void']} void)" if r["void"] else ""
        return f"{r['share']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}]{left}"

    def diff(v: list | None) -> str:
        return "-" if v is None else f"{v[0]:+.3f} [{v[1]:+.3f}, {v[2]:+.3f}]"

    hz = CONVERGED_IMPACT_STEP["step_hz"]
    get = {(r["lever"], r["value"], r["surface"], r["hz"]): r for r in out["rows"]}
    lines = ["| lever | setting | glass | glass - today | glass-thin | glass-thin - today | glass - glass-thin "
             "| default step: glass / glass-thin |", "|---|---|---|---|---|---|---|---|"]
    for lv in CONVERGED_LEVERS:
        g, t = get.get((lv.lever, lv.value, "glass", hz)), get.get((lv.lever, lv.value, "glass-thin", hz))
        dg, dt = get.get((lv.lever, lv.value, "glass", None)), get.get((lv.lever, lv.value, "glass-thin", None))
        default = " / ".join("-" if d is None else f"{d['share']:.3f}" for d in (dg, dt))
        lines.append(f"| {lv.lever} | {lv.value} | {cell(g)} | {diff(g and g['vs_today'])} | {cell(t)} | "
                     f"{diff(t and t['vs_today'])} | {diff(g and g['thick_thin'])} | {default} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1000, help="cylinder rolls per setting")
    p.add_argument("--d8", type=int, default=400, help="d8 rolls per setting (0: skip the run-out)")
    p.add_argument("--seed", type=int, default=SEED)
    p.add_argument("--only", default="", help="comma-separated levers to run (default: all)")
    p.add_argument("--impacts", action="store_true", help="also measure edge against face impacts")
    p.add_argument("--near-flat", action="store_true",
                   help="only measure near-flat end and side landings against the step (rigid, and a soft 3e3 N/m contact)")
    p.add_argument("--converge", action="store_true",
                   help="only measure where the end share converges in the impact step (rigid and soft contact), "
                        "with the d8 run-out and the d6 faces (--n rolls each, --d8 d8 rolls, --d6 d6 rolls)")
    p.add_argument("--converged-levers", action="store_true",
                   help="only measure the model's levers (the plastic-pane friction, the roll's release, the glass "
                        "rebound) at the converged impact step, --n rolls a setting and pane (and --default-n at "
                        "the default step)")
    p.add_argument("--default-n", type=int, default=400, help="rolls a setting at the default step (--converged-levers)")
    p.add_argument("--d6", type=int, default=600, help="d6 rolls per step (--converge)")
    p.add_argument("--out", default="results/rolling-levers")
    a = p.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    if a.converged_levers:
        lev = converged_levers(a.n, a.default_n, a.out)
        slim = lev | {"rows": [{k: v for k, v in r.items() if k != "flags"} for r in lev["rows"]]}
        write_atomic(os.path.join(a.out, "converged-levers.json"), json.dumps(slim, indent=1))
        write_atomic(os.path.join(a.out, "converged-levers.md"), converged_levers_markdown(lev))
        print(converged_levers_markdown(lev))
        return 0
    if a.converge:
        conv = converge(a.n, a.d8, a.d6)
        slim = conv | {"shares": [{k: v for k, v in r.items() if k != "flags"} for r in conv["shares"]],
                       "dice": [{k: v for k, v in d.items() if k not in ("d8_runs", "d6_faces")} for d in conv["dice"]]}
        write_atomic(os.path.join(a.out, "converge.json"), json.dumps(slim, indent=1))
        write_atomic(os.path.join(a.out, "converge.md"), converge_markdown(conv))
        print(converge_markdown(conv))
        return 0
    if a.near_flat:
        cases = [(landing, 0.0, hz) for landing in ("end", "side") for hz in NEAR_FLAT_HZ]
        cases += [("end", 3e3, hz) for hz in NEAR_FLAT_HZ]
        flat: list[dict] = []
        for i, (landing, k, hz) in enumerate(cases, 1):
            flat += near_flat_response(landing, hz, stiffness=k)
            print(f"[{i}/{len(cases)}] near-flat {landing} landings, {'rigid' if not k else f'{k:g} N/m'}, {hz:.0f} Hz",
                  file=sys.stderr, flush=True)
        write_atomic(os.path.join(a.out, "near-flat.json"), json.dumps(flat, indent=1))
        write_atomic(os.path.join(a.out, "near-flat.md"), near_flat_markdown(flat))
        print(near_flat_markdown(flat))
        return 0
    wanted = {w.strip() for w in a.only.split(",") if w.strip()}
    settings = [s for s in SETTINGS if not wanted or s.lever in wanted or s.lever == "default"]
    rows: list[dict[str, Any]] = []
    t0 = time.process_time()
    for i, s in enumerate(settings, 1):
        row: dict[str, Any] = {"lever": s.lever, "value": s.value, "end": end_share(s, a.n, a.seed, a.out)}
        if a.d8 and s.d8:
            row["d8"] = run_out(s, a.d8, a.seed, a.out)
        rows.append(row)
        e = row["end"]
        print(f"[{i}/{len(settings)}] {s.lever} = {s.value}: end {e['share']:.3f} [{e['lo']:.3f}, {e['hi']:.3f}]"
              + (f", d8 run-out {row['d8']['mean_mm']:.0f} mm" if "d8" in row else "")
              + f" ({time.process_time() - t0:.0f} s CPU)", file=sys.stderr, flush=True)
    out: dict[str, Any] = {"seed": a.seed, "n": a.n, "d8_n": a.d8, "rows": rows}
    if a.impacts:
        out["impacts"] = [r for f in (12, 24, 48) for r in impact_response(f)]
    write_atomic(os.path.join(a.out, "levers.json"), json.dumps(out, indent=1))
    write_atomic(os.path.join(a.out, "levers.md"), markdown(rows) + ("\n" + impact_markdown(out["impacts"]) if a.impacts else ""))
    print(markdown(rows))
    if a.impacts:
        print(impact_markdown(out["impacts"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
