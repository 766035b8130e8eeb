"""`dfsim validate` checks of rolling and tumbling bodies against the world: a flat landing rebounds
straight, h = d cylinders end on an end more often on a thick glass pane than on a thin one (as
published), a cylinder rolled along a table runs out as far as the closed form says, and flipped and
caught coins show their starting side as often as a large human experiment found.

Each check measures with the engine, then a pure `judge_*` function decides (the tests show every
verdict failing on data that must fail). Sample sizes are in `sim.studies.validation.SIZES`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sim.specs.physics import CONVERGED_IMPACT_STEP, GRAVITY
from sim.vectors import dot, matmul


def _save(plt, fig, ax, path: str) -> None:
    """Legend, layout, write, close: the end of every figure here."""
    from sim.files import save_figure

    ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------- flat landings rebound straight
FLAT_DICE = ("d4", "d6", "d8", "d12", "hero-d8")
FLAT_CYLINDERS = ((10.0, 20.0), (10.0, 6.0))  # (radius, height) mm: h = d and the not-settled matrix's
FLAT_KICK_MPS = 0.02  # sideways speed a straight, still, flat landing may gain (10 cm drop: 1.4 m/s)
FLAT_SPIN_RADPS = 2.0


def flat_landing(th, phases: int, yaws: int) -> dict:
    """Drop die 0 of a board-less world flat (on the face its rebound is calibrated on), still, from
    10 cm at spread step phases and yaws; read right after the step that meets the table the sideways
    speed and the spin it gained, and the centre's rebound. A face meeting a face squarely takes its
    impulse through the centre: no sideways push, no torque (Newton), whatever the face's shape."""
    from sim.specs.die import quat_mul, quat_to_matrix

    ph = th.physics
    spec = th.scenario.dice[0]
    hz = ph.settings.step_hz
    v0 = math.sqrt(2 * GRAVITY * 0.10)
    base = spec.orientation_with_face(len(spec.faces) - 1, up=False)
    side, spin, rebound = [], [], []
    for j in range(yaws):
        a = math.pi * j / yaws / 2
        q = quat_mul((0.0, 0.0, math.sin(a), math.cos(a)), base)
        low = float(matmul(spec.collision_points_m, quat_to_matrix(q).T)[:, 2].min())
        for i in range(phases):
            gap = 0.003 + (i + 0.5) / phases * v0 / hz
            ph.set_state("die:0", (0.0, 0.0, gap - low), q, (0.0, 0.0, -v0), (0.0, 0.0, 0.0))
            for _ in range(int(gap / v0 * hz) + 3):
                ph.tick()
                if ph.contacts("die:0"):
                    break
            v, w = ph.die_velocity("die:0")
            side.append(math.hypot(v[0], v[1]))
            spin.append(math.sqrt(dot(w, w)))
            rebound.append(v[2] / v0)
    ph.park("die:0")
    return {
        "die": spec.name
        if spec.shape != "cylinder"
        else f"cylinder d={2 * spec.radius_mm:g} h={spec.height_mm:g}",
        "drops": len(side),
        "side_mps": float(max(side)),
        "spin_radps": float(max(spin)),
        "rebound": float(np.mean(rebound)),
    }


def check_flat_landing(ctx) -> Any:
    """Flat, still drops of d4, d6, d8, d12, the hero d8 and two sharp cylinders on the open table."""
    from sim.engine.settling import cylinder_case
    from sim.engine.worlds import build_thrower
    from sim.specs.scenario import Scenario

    phases, yaws = (4, 2) if ctx.quick else (8, 4)
    rows = []
    for name in FLAT_DICE:
        th = build_thrower(Scenario.build(dice=[name], shots=["roll"]))
        rows.append(flat_landing(th, phases, yaws))
        th.physics.close()
    for r, h in FLAT_CYLINDERS:
        case = cylinder_case(r, h)
        th = build_thrower(Scenario.build(dice=[case.base], shots=["roll"], overrides=dict(case.overrides)))
        rows.append(flat_landing(th, phases, yaws))
        th.physics.close()
    return judge_flat_landing(rows)


def judge_flat_landing(rows: list[dict], kick: float = FLAT_KICK_MPS, spin: float = FLAT_SPIN_RADPS):
    """Pass when no flat landing gained more than `kick` m/s sideways or `spin` rad/s."""
    from sim.studies.physics_check import Check

    ok = all(r["side_mps"] <= kick and r["spin_radps"] <= spin for r in rows)
    txt = ", ".join(f"{r['die']}: {r['side_mps']:.3f} m/s, {r['spin_radps']:.1f} rad/s" for r in rows)
    return Check(
        "flat-landing",
        "Flat landings rebound straight",
        ok,
        f"largest sideways speed and spin gained by a flat, still 10 cm drop: {txt} "
        f"(allowed {kick} m/s, {spin} rad/s)",
        "Newton: a face landing squarely on a face takes its impulse through the centre",
        {"rows": rows, "kick_mps": kick, "spin_radps": spin},
    )


# ---------------------------------------------------------------- end landings on two glass panes
# An automated roller rolled h = d cylinders thousands of times onto two glass tables and read each rest
# from a silhouette: on a 15.50 mm pane 38 % ended on an end, on a 2.40 mm pane 24 % ("Dice physics:
# the three-sided die", geocities.ws/dicephysics, 2002, "General comments and conclusions").
PUBLISHED_ENDS = {"glass": 0.38, "glass-thin": 0.24}
SURFACE_RATIOS = (0.577, 0.8, 1.0, 1.25)  # height / diameter; published shares only at 1
SURFACE_DIAMETER_MM = 20.0


def end_landings(surface: str, ratio: float, n: int, seed: int, physics: dict | None = None) -> dict:
    """Free rolls (shot `roll`) of a sharp acrylic cylinder 20 mm across onto `surface`: how many rest on
    an end (axis within 60 deg of vertical); voids left out and counted. Returns the per-throw flags too,
    for paired comparisons (the same releases on every surface)."""
    from sim.engine.settling import cylinder_case, wilson_interval
    from sim.engine.worlds import build_thrower
    from sim.specs.die import quat_to_matrix
    from sim.specs.scenario import Scenario

    case = cylinder_case(SURFACE_DIAMETER_MM / 2, round(ratio * SURFACE_DIAMETER_MM, 4))
    th = build_thrower(
        Scenario.build(
            dice=[case.base],
            shots=["roll"],
            physics=physics,
            overrides=dict(case.overrides) | {"shot.table_material": surface},
        )
    )
    flags: list[int | None] = []
    for k in range(n):
        o = th.throw(seed, k).outcome
        flags.append(None if o.result == "void" else int(abs(quat_to_matrix(o.orientation_xyzw)[2, 2]) > 0.5))
    th.physics.close()
    seen = [f for f in flags if f is not None]
    lo, hi = wilson_interval(sum(seen), len(seen))
    return {
        "surface": surface,
        "ratio": ratio,
        "n": n,
        "void": n - len(seen),
        "end": sum(seen),
        "p_end": sum(seen) / max(1, len(seen)),
        "ci95": [lo, hi],
        "flags": flags,
    }


# the open gap between the engine and the published end landings (docs/physics.md, "Rolling bodies")
SURFACE_ENDS_GAP = (
    "converged in the step, h = d cylinders end on an end about 0.13 of the time on both panes, not the "
    "published 0.38 (thick) and 0.24 (thin), and the thick pane does not lead; no lever PyBullet exposes "
    "closes it (friction, the release, the rebound); what is missing, an impact's tangential response and "
    'a pane\'s own flexure, is not in its contact model (docs/physics.md, "The model\'s levers at the '
    'converged step")'
)


def check_surface_ends(ctx) -> Any:
    """h/d 0.577-1.25 cylinders (quick mode: h = d only) rolled onto the thick and the thin glass pane,
    the same releases on both."""
    from sim.studies.physics_check import figure_pyplot as _plt

    n = ctx.size("surface_rolls")
    ratios = (1.0,) if ctx.quick else SURFACE_RATIOS
    rows = [end_landings(s, r, n, ctx.seed) for r in ratios for s in PUBLISHED_ENDS]
    # the same h = d rolls (the first quarter) at the converged impact step: reported, not judged
    finer = [
        end_landings(s, 1.0, max(20, n // 4), ctx.seed, dict(CONVERGED_IMPACT_STEP)) for s in PUBLISHED_ENDS
    ]
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.6, 3.5))
    for s, color in zip(PUBLISHED_ENDS, ("C0", "C1")):
        rs = [r for r in rows if r["surface"] == s]
        ax.errorbar(
            [r["ratio"] for r in rs],
            [r["p_end"] for r in rs],
            yerr=[[r["p_end"] - r["ci95"][0] for r in rs], [r["ci95"][1] - r["p_end"] for r in rs]],
            fmt="o-",
            color=color,
            capsize=3,
            label=f"engine, {s}",
        )
        ax.plot([1.0], [PUBLISHED_ENDS[s]], "*", color=color, ms=12, label=f"published, {s}")
    ax.set(xlabel="height / diameter", ylabel="P(rests on an end)", title="cylinders rolled onto glass")
    _save(plt, fig, ax, ctx.figure("surface_ends.png"))
    return judge_surface_ends(rows, finer)


def paired_difference(a: list, b: list) -> tuple[float, float, float]:
    """Share of ends in `a` minus in `b` over the throws both rested in, with a Newcombe paired 95 %
    interval (the same releases on both surfaces)."""
    from sim.experiments.statistics import newcombe_paired

    both = only_a = only_b = neither = 0
    for x, y in zip(a, b):
        if x is None or y is None:
            continue
        both += x and y
        only_a += x and not y
        only_b += y and not x
        neither += not x and not y
    e = newcombe_paired(both, only_a, only_b, neither)
    return e.value, e.lo, e.hi


def judge_surface_ends(rows: list[dict], finer: list[dict] | None = None) -> Any:
    """Pass when, at h = d, each pane's end share (its 95 % interval) comes within half the published
    thick-thin gap of its published share (the band that tells the two panes apart) and the thick
    pane's share is above the thin one's (paired 95 % interval of the difference above 0). Judged on
    `finer`, the h = d rolls at the converged impact step, when given: at the default step the shares
    are the step's, not the physics' (docs/physics.md, "Where the end share converges"), so the
    default step's rows, at every ratio, are reported, not judged. A failure is the known gap
    `SURFACE_ENDS_GAP`."""
    from sim.studies.physics_check import Check

    tol = 0.5 * abs(PUBLISHED_ENDS["glass"] - PUBLISHED_ENDS["glass-thin"])
    diffs = []
    for ratio in sorted({r["ratio"] for r in rows}):
        thick = next(r for r in rows if r["ratio"] == ratio and r["surface"] == "glass")
        thin = next(r for r in rows if r["ratio"] == ratio and r["surface"] == "glass-thin")
        d, lo, hi = paired_difference(thick["flags"], thin["flags"])
        diffs.append({"ratio": ratio, "difference": d, "ci95": [lo, hi]})
    judged = finer if finer else [r for r in rows if r["ratio"] == 1.0]
    by = {r["surface"]: r for r in judged}
    d, lo, hi = paired_difference(by["glass"]["flags"], by["glass-thin"]["flags"])
    ok = lo > 0
    for r in judged:
        r["published"] = PUBLISHED_ENDS[r["surface"]]
        ok = ok and r["ci95"][0] - tol <= r["published"] <= r["ci95"][1] + tol
    where = (
        "at the converged impact step (physics "
        + ", ".join(f"{k} = {v:g}" for k, v in CONVERGED_IMPACT_STEP.items())
        + ")"
        if finer
        else "at the default step"
    )
    txt = (
        f"{where}: "
        + ", ".join(
            f"{r['surface']} {r['p_end']:.3f} of {r['n'] - r['void']} (published {r['published']:.2f})"
            for r in judged
        )
        + f", thick - thin {d:+.3f} [{lo:+.3f}, {hi:+.3f}]"
    )
    if finer:
        at1 = [r for r in rows if r["ratio"] == 1.0]
        txt += "; at the default step (not converged, reported): " + ", ".join(
            f"{r['surface']} {r['p_end']:.3f}" for r in at1
        )
        txt += ", thick - thin " + ", ".join(
            f"h/d {x['ratio']:g}: {x['difference']:+.3f} [{x['ci95'][0]:+.3f}, {x['ci95'][1]:+.3f}]"
            for x in diffs
        )
    slim = [{k: v for k, v in r.items() if k != "flags"} for r in rows]
    fine = [{k: v for k, v in r.items() if k != "flags"} for r in finer or []]
    return Check(
        "surface-ends",
        "Cylinders ending on an end: thick against thin glass",
        ok,
        f"h = d {txt} (the 95 % interval within +-{tol:.2f} of each published share)",
        "Dice physics: the three-sided die (geocities.ws/dicephysics, 2002): h = d cylinders rolled "
        "by machine end on an end 38 % on 15.50 mm glass, 24 % on 2.40 mm glass",
        {"rows": slim, "differences": diffs, "tolerance": tol, "finer_step": fine},
        ["surface_ends.png"],
        known_gap=SURFACE_ENDS_GAP,
    )


# ---------------------------------------------------------------- rolling run-out against a closed form
RUNOUT_SPEEDS_MPS = (0.1, 0.15, 0.2, 0.25)  # slow enough that the rim stays on the table (v^2 < g R)
RUNOUT_TOLERANCE = 0.15  # relative; deterministic runs: a model tolerance, not a noise one
RUNOUT_RADIUS_MM = 10.0


def rimless_runout_m(facets: int, v0: float, radius_m: float, arm_m: float, k: float = 0.5) -> float:
    """How far a prism of `facets` rim sides rolls from lying on a side at speed v0 (rolling at v0 / R):
    a rimless wheel (McGeer 1990, Passive dynamic walking, Int. J. Robot. Res. 9(2), 62) with rolling
    resistance. Each new side lands without slip or bounce, keeping the angular momentum about its
    leading corner: the spin falls by rho = (k + cos 2a) / (k + 1), a = pi / facets, k = I / (m R^2);
    between landings the resisting torque arm x m g takes arm x g x 2a (per kg) and the centre rises
    R (1 - cos a) and falls back. It stops at the first corner it cannot climb over. With arm = 0 and
    many facets it tends to no loss; a round roller with resistance alone runs (1 + k) R v0^2 / (2 arm g)."""
    a = math.pi / facets
    rho = (k + math.cos(2 * a)) / (k + 1)
    energy = 0.5 * (1 + k) * v0 * v0 * rho * rho  # per kg, pivoting about the leading corner
    x, side = 0.0, 2 * radius_m * math.sin(a)
    while energy > GRAVITY * (radius_m * (1 - math.cos(a)) + arm_m * a) and x < 100.0:
        energy = (energy - 2 * arm_m * GRAVITY * a) * rho * rho
        x += side
    return x


def runout(th, v0: float) -> float:
    """Set die 0 (a cylinder) on its side, axis across the x direction, rolling at v0 along x without
    slip, contact damping off; the distance (m) along x to where it stops."""
    ph = th.physics
    spec = th.scenario.dice[0]
    facets = len(spec.face_geometry[0].corners)
    radius = spec.radius_mm * 1e-3
    ph.set_damping("die:0", 0.0)
    q = (math.sin(math.pi / 4), 0.0, 0.0, math.cos(math.pi / 4))  # body z (the axis) along world -y
    ph.set_state(
        "die:0",
        (0.0, 0.0, radius * math.cos(math.pi / facets) + 1e-5),
        q,
        (v0, 0.0, 0.0),
        (0.0, v0 / radius, 0.0),
    )
    hz = ph.settings.step_hz
    for k in range(int(10 * hz)):
        ph.tick()
        if k > hz / 20 and k % int(hz / 40) == 0:
            v, w = ph.die_velocity("die:0")
            if dot(v, v) < 4e-6 and dot(w, w) < 0.04:
                break
    x = float(ph.die_pose("die:0")[0][0])
    ph.park("die:0")
    return x


def check_runout(ctx) -> Any:
    """An h = d acrylic cylinder rolled on its side along the felt mat (the surface with a rolling
    resistance) and along the wooden table (none), at 0.1-0.25 m/s, against the rimless wheel with the
    surface's rolling resistance."""
    from sim.engine.settling import cylinder_case
    from sim.engine.worlds import build_thrower
    from sim.specs.scenario import Scenario
    from sim.studies.physics_check import figure_pyplot as _plt

    case = cylinder_case(RUNOUT_RADIUS_MM, 2 * RUNOUT_RADIUS_MM)
    speeds = RUNOUT_SPEEDS_MPS if not ctx.quick else RUNOUT_SPEEDS_MPS[::3]
    rows = []
    for surface in ("felt", "wood"):
        th = build_thrower(
            Scenario.build(
                dice=[case.base],
                shots=["roll"],
                overrides=dict(case.overrides) | {"shot.table_material": surface},
            )
        )
        arm = th.physics.rolling_resistance.get("table", 0.0)
        spec = th.scenario.dice[0]
        facets = len(spec.face_geometry[0].corners)
        for v0 in speeds:
            rows.append(
                {
                    "surface": surface,
                    "v0_mps": v0,
                    "arm_mm": arm * 1e3,
                    "facets": facets,
                    "engine_mm": 1e3 * runout(th, v0),
                    "closed_mm": 1e3 * rimless_runout_m(facets, v0, RUNOUT_RADIUS_MM * 1e-3, arm),
                    "round_mm": 1e3 * 1.5 * RUNOUT_RADIUS_MM * 1e-3 * v0 * v0 / (2 * arm * GRAVITY)
                    if arm
                    else None,
                }
            )
        th.physics.close()
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.6, 3.5))
    for surface, color in (("felt", "C0"), ("wood", "C1")):
        rs = [r for r in rows if r["surface"] == surface]
        ax.plot(
            [r["v0_mps"] for r in rs],
            [r["engine_mm"] for r in rs],
            "o",
            color=color,
            label=f"engine, {surface}",
        )
        ax.plot(
            [r["v0_mps"] for r in rs],
            [r["closed_mm"] for r in rs],
            "--",
            color=color,
            label=f"rimless wheel, {surface}",
        )
    ax.set(xlabel="rolling speed (m/s)", ylabel="run-out (mm)", title="h = d cylinder rolled on its side")
    _save(plt, fig, ax, ctx.figure("runout.png"))
    return judge_runout(rows)


def judge_runout(rows: list[dict], tol: float = RUNOUT_TOLERANCE) -> Any:
    """Pass when every run-out on the surface with rolling resistance is within `tol` (relative) of the
    closed form. The table without any is reported, not judged: there each landing of a rim side,
    resolved in a step or two at the contact step, loses more than the ideal one, and the cylinder
    stops at 60-70 % of the closed form (it converges to it at 15 kHz; docs/physics.md, "Rolling bodies")."""
    from sim.studies.physics_check import Check

    judged = [r for r in rows if r["arm_mm"] > 0]
    for r in rows:
        r["ratio"] = r["engine_mm"] / r["closed_mm"] if r["closed_mm"] > 0 else math.inf
    ok = bool(judged) and all(abs(r["ratio"] - 1) <= tol for r in judged)
    txt = "; ".join(
        f"{r['surface']} {r['v0_mps']:g} m/s: {r['engine_mm']:.0f} mm vs {r['closed_mm']:.0f} mm"
        + (f" (round roller {r['round_mm']:.0f} mm)" if r["round_mm"] else "")
        for r in rows
    )
    return Check(
        "run-out",
        "Rolling run-out against the closed form",
        ok,
        f"{txt} (allowed {tol:.0%} where the surface resists rolling)",
        "rimless wheel (McGeer 1990, Int. J. Robot. Res. 9(2) 62) with rolling resistance arm x normal force",
        {"rows": rows, "tolerance": tol},
        ["runout.png"],
    )


# ---------------------------------------------------------------- coins flipped by people
# Bartos et al. (2023), Fair coins tend to land on the same side they started: evidence from 350,757
# flips (arXiv:2310.04153): 48 people flipped and caught coins; 0.508 landed the side up they started,
# 95 % interval [0.506, 0.509].
BARTOS_SAME_SIDE = (0.508, 0.506, 0.509)


def flip_same_side(wobble_sd_deg: float, n: int, seed: int, inertia=(1.0, 1.0, 2.0)) -> tuple[float, float]:
    """Same-side probability of a caught coin flipped the way the template flip model flips (spin about
    a horizontal axis tilted out of the coin's plane by a normal draw of sd `wobble_sd_deg`): the
    Diaconis-Holmes-Montgomery probability of each draw's angle between normal and angular momentum,
    averaged over n draws (mean and its standard error). A thin disk's inertia is (1, 1, 2) x I."""
    from sim.studies.physics_check import dhm_same_side

    rng = np.random.Generator(np.random.PCG64(seed))
    w = np.radians(wobble_sd_deg) * rng.standard_normal(n)
    lh = inertia[0] * np.cos(w)  # angular momentum across the coin and along its normal
    ln = inertia[2] * np.sin(w)
    psi = np.degrees(np.arctan2(np.abs(lh), np.abs(ln)))
    p = np.array([dhm_same_side(float(x)) for x in psi])
    return float(p.mean()), float(p.std(ddof=1) / math.sqrt(n))


def check_coin_flips(ctx) -> Any:
    """The casual thumb flip's spread of the spin axis (sim/specs/flip.py) against the people's flips."""
    from sim.specs.flip import FLIP_SKILLS

    n = ctx.size("coin_flips")
    rows = [
        {
            "skill": s,
            "wobble_sd_deg": k.wobble_sd_deg,
            "n": n,
            **dict(zip(("same_side", "se"), flip_same_side(k.wobble_sd_deg, n, ctx.seed))),
        }
        for s, k in FLIP_SKILLS.items()
    ]
    return judge_coin_flips(rows)


def judge_coin_flips(rows: list[dict]) -> Any:
    """Pass when the casual flip's same-side probability lies within Bartos et al.'s 95 % interval,
    widened by two standard errors of its own average."""
    from sim.studies.physics_check import Check

    p, lo, hi = BARTOS_SAME_SIDE
    casual = next(r for r in rows if r["skill"] == "casual")
    ok = lo - 2 * casual["se"] <= casual["same_side"] <= hi + 2 * casual["se"]
    txt = ", ".join(f"{r['skill']} (wobble sd {r['wobble_sd_deg']:g} deg) {r['same_side']:.4f}" for r in rows)
    return Check(
        "coin-flips",
        "Flipped and caught coins: same side as people's flips",
        ok,
        f"{txt}; published {p} [{lo}, {hi}] (casual judged)",
        "Bartos et al. (2023), Fair coins tend to land on the same side they started, arXiv:2310.04153 "
        "(350,757 flips): 0.508; Diaconis, Holmes & Montgomery (2007) for each flip",
        {"rows": rows, "published": list(BARTOS_SAME_SIDE)},
    )
