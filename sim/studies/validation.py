"""`dfsim validate`: the engine against known results, one check each, with a report folder.

Every check measures something the simulator does, compares it with a closed form, a published result or
a stated tolerance, and says pass or fail; the numbers go to results.json, one figure per check to PNG,
and a summary to report.md. Quick mode (CI) runs every check on fewer samples; the sizes are in
`SIZES` and printed in the report.

The checks measure with pure functions kept apart from the judging (`judge_*`), so that the tests can
show each verdict failing on data that should fail.
"""

from __future__ import annotations

import json
import math
import os
import platform
import time
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import numpy as np

from sim.engine.run_folder import REPORT
from sim.files import save_figure, write_atomic
from sim.specs.physics import GRAVITY
from sim.studies.physics_check import SEED, SIZES, Check, Context, dhm_same_side
from sim.studies.physics_check import figure_pyplot as _plt
from sim.vectors import dot, matmul, norm, row_norms


def _world(dice="hero-d8", shot="standard", **kw):
    from sim.engine.worlds import thrower_for
    from sim.specs.scenario import Scenario

    return thrower_for(Scenario.build(board="magma", dice=[dice], shots=[shot], skill="casual", **kw))


def _energy(ph, name: str, spec) -> float:
    """Kinetic (translation and rotation) plus potential energy of a die, J."""
    from sim.specs.die import quat_to_matrix

    p, q = ph.die_pose(name)
    v, w = ph.die_velocity(name)
    r = quat_to_matrix(q)
    inertia = matmul(matmul(r, np.diag(spec.inertia_diagonal)), r.T)
    return float(spec.mass_kg * (0.5 * dot(v, v) + GRAVITY * p[2]) + 0.5 * dot(w, matmul(inertia, w)))


# ---------------------------------------------------------------- 1. ballistic flight
def check_ballistic(ctx: Context, world=None) -> Check:
    """A die in free flight against the closed-form parabola. Bullet integrates semi-implicit Euler, whose
    position after n steps is x0 + v0 t + g t^2/2 + g dt t/2: the check allows that and 1e-9 m more."""
    th = world or _world("d6", "roll")
    ph = th.physics
    p0, v0, w0 = np.array([-2.0, 2.0, 2.0]), np.array([1.0, -0.5, 2.0]), np.array([3.0, 1.0, -2.0])
    ph.set_damping("die:0", 0.0)
    ph.set_state("die:0", p0, (0, 0, 0, 1), v0, w0)
    n = int(round(0.5 / ph.dt))
    t = np.arange(1, n + 1) * ph.dt
    trail = []
    for _ in range(n):
        ph.step()
        trail.append(ph.die_pose("die:0")[0])
    pos = np.array(trail)
    g = np.array([0.0, 0.0, -GRAVITY])
    exact = p0 + np.outer(t, v0) + 0.5 * np.outer(t * t, g)
    err = row_norms(pos - exact)
    bound = GRAVITY * ph.dt * t / 2 + 1e-9
    ph.park("die:0")
    plt = _plt()
    fig, ax = plt.subplots(1, 2, figsize=(9, 3.2))
    ax[0].plot(t, exact[:, 2], "k-", label="parabola")
    ax[0].plot(t[::6], pos[::6, 2], "o", ms=3, label="engine")
    ax[0].set(xlabel="t (s)", ylabel="z (m)", title="free flight")
    ax[0].legend()
    ax[1].plot(t, err * 1e3, label="|engine - parabola|")
    ax[1].plot(t, bound * 1e3, "--", label="g dt t / 2")
    ax[1].set(xlabel="t (s)", ylabel="mm", title="position error")
    ax[1].legend()
    fig.tight_layout()
    save_figure(fig, ctx.figure("ballistic.png"), dpi=110)
    plt.close(fig)
    return judge_ballistic(err, bound, ph.dt)


def judge_ballistic(err, bound, dt: float) -> Check:
    """Pass when every sample lies within the Euler bound."""
    ok = bool(np.all(np.asarray(err) <= np.asarray(bound)))
    return Check(
        "ballistic",
        "Ballistic flight",
        ok,
        f"max error {max(err) * 1e3:.3f} mm over 0.5 s (allowed: the Euler term g dt t/2, "
        f"{max(bound) * 1e3:.3f} mm)",
        "closed-form parabola x0 + v0 t - g t^2/2",
        {"max_error_mm": float(max(err) * 1e3), "allowed_mm": float(max(bound) * 1e3), "dt_s": dt},
        ["ballistic.png"],
    )


# ---------------------------------------------------------------- 2. rebound over drop heights
REBOUND_HEIGHTS_M = (0.01, 0.02, 0.05, 0.1, 0.2, 0.4, 0.8)
REBOUND_TOLERANCE = 0.05


def drop_rebound_at(ph, name: str, spec, xy, top: float, height_m: float) -> float:
    """Rebound / impact speed of a flat drop (the calibration's orientation) from `height_m`."""
    from sim.specs.die import quat_to_matrix

    q = spec.orientation_with_face(len(spec.faces) - 1, up=False)
    pts = matmul(spec.collision_points_m, quat_to_matrix(q).T)
    ph.set_state(name, (xy[0], xy[1], top - pts[:, 2].min() + height_m), q, (0, 0, 0), (0, 0, 0))
    vz = []
    for _ in range(int((math.sqrt(2 * height_m / GRAVITY) + 0.15) / ph.dt)):
        ph.step()
        vz.append(ph.die_velocity(name)[0][2])
    v = np.array(vz)
    i = int(np.argmax(np.diff(v) > 0.05))
    return float(v[i : i + int(0.1 / ph.dt)].max() / -v[i]) if v[i] < 0 else 0.0


def check_rebound(ctx: Context, world=None) -> Check:
    """Flat drops from 1 to 80 cm on the table and the board: the rebound stays at the pair's restitution
    (calibrated once, at 10 cm, by `Physics._calibrate_rebounds`)."""
    from sim.engine.thrower import calibration_points

    th = world or _world()
    ph, sc = th.physics, th.scenario
    spec = sc.dice[0]
    ph.set_damping("die:0", 0.0)
    k = ctx.size("rebound_points")
    board = sc.board
    surfaces = {
        "table": (
            sc.materials.pair(spec.material, board.table_material).restitution,
            calibration_points(_ring(board), k, seed=ctx.seed),
            0.0,
        ),
        "board": (
            sc.materials.pair(spec.material, board.material).restitution,
            calibration_points(board.surface.buffer(-0.015), k, seed=ctx.seed),
            board.thickness_m,
        ),
    }
    heights = REBOUND_HEIGHTS_M if not ctx.quick else (0.02, 0.1, 0.4)
    measured = {}
    for sname, (_e, pts, top) in surfaces.items():
        measured[sname] = [
            float(np.mean([drop_rebound_at(ph, "die:0", spec, xy, top, h) for xy in pts])) for h in heights
        ]
    ph.park("die:0")
    expected = {s: v[0] for s, v in surfaces.items()}
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    for s, color in (("table", "C0"), ("board", "C1")):
        ax.plot(np.array(heights) * 100, measured[s], "o-", color=color, label=f"{s} (engine)")
        ax.axhline(expected[s], color=color, ls="--", lw=1, label=f"{s} pair restitution")
    ax.set(
        xscale="log",
        xlabel="drop height (cm)",
        ylabel="rebound / impact speed",
        title=f"flat drops of {spec.name}",
    )
    ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, ctx.figure("rebound.png"), dpi=110)
    plt.close(fig)
    return judge_rebound(list(heights), measured, expected)


def judge_rebound(heights, measured: dict, expected: dict, tol: float = REBOUND_TOLERANCE) -> Check:
    """Pass when every height's mean rebound is within `tol` of the pair restitution."""
    worst = max(abs(e - expected[s]) for s, row in measured.items() for e in row)
    ok = worst <= tol
    rows = "; ".join(f"{s}: " + ", ".join(f"{e:.3f}" for e in row) for s, row in measured.items())
    return Check(
        "rebound",
        "Rebound over drop heights",
        ok,
        f"worst |rebound - restitution| {worst:.3f} (allowed {tol}) over {len(heights)} heights; {rows}",
        "material table restitution of the pair (observed rebound of a flat drop)",
        {"heights_m": list(heights), "rebound": measured, "restitution": expected, "tolerance": tol},
        ["rebound.png"],
    )


def _ring(board):
    from shapely.geometry import Point

    r = board.radius_m
    return Point(0, 0).buffer(r + 0.6).difference(Point(0, 0).buffer(r + 0.05))


# ---------------------------------------------------------------- 3. no energy gain across a bounce
ENERGY_TOLERANCE = 0.01


def check_energy(ctx: Context, world=None) -> Check:
    """Tumbling dice hitting the table or the board at 0.5-4 m/s from every direction, without the
    contact damping (the bare engine): the mechanical energy after the die leaves the surface never
    exceeds the energy before it touched (1 % allowed for the step's own integration error)."""
    from sim.seeding import random_quaternion

    th = world or _world()
    ph, sc = th.physics, th.scenario
    spec = sc.dice[0]
    board = sc.board
    rng = np.random.Generator(np.random.PCG64(ctx.seed))
    ratios, kept, stayed = [], [], 0
    ph.set_damping("die:0", 0.0)
    for k in range(ctx.size("energy_bounces")):
        on_board = k % 2 == 1
        if on_board:
            x, y = _point_in(board.surface.buffer(-0.03), rng)
            top = board.thickness_m
        else:
            x, y = _point_in(_ring(board), rng)
            top = 0.0
        speed = rng.uniform(0.5, 4.0)
        el = math.radians(rng.uniform(20, 90))
        az = rng.uniform(0, 2 * math.pi)
        v = np.array(
            [speed * math.cos(el) * math.cos(az), speed * math.cos(el) * math.sin(az), -speed * math.sin(el)]
        )
        w = rng.normal(0, 25, 3)
        q = random_quaternion(rng)
        ph.set_state("die:0", (x, y, top + 0.03), q, v, w)
        before = None
        touched = False
        free_steps = 0
        after = None
        for _ in range(int(0.6 / ph.dt)):
            e_prev = _energy(ph, "die:0", spec)
            ph.step()
            touching = bool(ph.contacts("die:0"))
            if touching and not touched:
                touched, before = True, e_prev
            elif touched:
                free_steps = free_steps + 1 if not touching else 0
                if free_steps >= 2:
                    after = _energy(ph, "die:0", spec)
                    break
        if before is None:
            continue
        if after is None:
            stayed += 1
            continue
        ratios.append(after / before)
        kept.append(k)
    ph.park("die:0")
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.5, 3.2))
    ax.hist(ratios, bins=30, color="C0")
    ax.axvline(1 + ENERGY_TOLERANCE, color="r", ls="--", label="1 + tolerance")
    ax.set(xlabel="energy after bounce / before", ylabel="bounces", title="mechanical energy across a bounce")
    ax.legend()
    fig.tight_layout()
    save_figure(fig, ctx.figure("energy.png"), dpi=110)
    plt.close(fig)
    return judge_energy(ratios, stayed)


def judge_energy(ratios, stayed: int, tol: float = ENERGY_TOLERANCE) -> Check:
    """Pass when some bounces were measured and none gained more than `tol` of the energy."""
    worst = max(ratios) if ratios else float("nan")
    ok = bool(ratios) and worst <= 1 + tol
    return Check(
        "energy",
        "No energy gain across a bounce",
        ok,
        f"{len(ratios)} bounces: energy after / before at most {worst:.4f} (allowed {1 + tol}); "
        f"median {float(np.median(ratios)) if ratios else float('nan'):.3f}; {stayed} stayed in contact "
        "(not counted)",
        "energy conservation: a passive contact cannot add energy",
        {
            "ratios_max": worst,
            "ratios_median": float(np.median(ratios)) if ratios else None,
            "bounces": len(ratios),
            "stayed_in_contact": stayed,
            "tolerance": tol,
        },
        ["energy.png"],
    )


def _point_in(region, rng) -> tuple[float, float]:
    from shapely.geometry import Point

    x0, y0, x1, y1 = region.bounds
    while True:
        x, y = rng.uniform(x0, x1), rng.uniform(y0, y1)
        if region.contains(Point(x, y)):
            return float(x), float(y)


# ---------------------------------------------------------------- 4. torque-free precession
PRECESSION_TOLERANCE_DEG = 1.0


def _disk_state(spec, psi_deg: float, spin_rps: float):
    """A flat template (face up) with its angular momentum at psi to its normal."""
    from sim.world.flight import FlightState

    i3 = spec.inertia_diagonal[2]
    lmag = i3 * spin_rps * 2 * math.pi
    psi = math.radians(psi_deg)
    L = lmag * np.array([math.sin(psi), 0.0, math.cos(psi)])
    return FlightState(np.array([0.0, 0.0, 1.0]), np.zeros(3), np.array([0.0, 0.0, 0.0, 1.0]), L)


def check_precession(ctx: Context, integrator: Callable | None = None) -> Check:
    """A flat disk (the fireball template) spinning with its angular momentum 70 deg from its normal,
    flown for 1 s by `sim.world.flight.fly` (the RK4 integrator that flips use for templates: PyBullet's
    maximal-coordinate bodies leave out the gyroscopic term), with air drag on (drag acts through the
    centre of mass). Torque-free: the angle between normal and angular momentum must stay constant
    within 1 deg. The same release in PyBullet alone is shown for contrast (not judged)."""
    from sim.specs.flip import FlipProfile
    from sim.specs.template import load_template
    from sim.world.flight import Aero, fly

    spec = load_template("fireball")
    prof = FlipProfile()
    st = _disk_state(spec, 70.0, 6.0)
    fly_fn = integrator or fly
    _, _, _, samples = fly_fn(spec, st, Aero(spec, prof), 1.0 / prof.flight_hz, lambda s: False, max_t=1.0)
    t = np.array([s[0] for s in samples])
    ang = np.array(
        [math.degrees(math.acos(min(1.0, abs(dot(n, L)) / float(norm(L))))) for _, n, L in samples]
    )
    tb, angb = _bullet_precession(spec, st, prof)
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.5, 3.2))
    ax.plot(t, ang, label="flight integrator (RK4, used by flips)")
    ax.plot(tb, angb, label="PyBullet body alone (not used)")
    ax.set(xlabel="t (s)", ylabel="angle(normal, L) (deg)", title="torque-free flat disk")
    ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, ctx.figure("precession.png"), dpi=110)
    plt.close(fig)
    return judge_precession(ang, angb)


def _bullet_precession(spec, st, prof):
    from sim.specs.die import quat_to_matrix
    from sim.specs.physics import PhysicsSettings
    from sim.world.flip import add_template_body
    from sim.world.physics import Physics

    ph = Physics(PhysicsSettings(step_hz=prof.step_hz))
    try:
        ph.set_gravity((0.0, 0.0, 0.0))
        add_template_body(ph, spec, "template:t")
        inv = 1.0 / np.asarray(spec.inertia_diagonal)
        ph.set_state("template:t", st.x, st.q, (0, 0, 0), st.omega(inv))
        out_t, out_a = [], []
        for k in range(int(1.0 / ph.dt)):
            ph.step()
            _, q = ph.die_pose("template:t")
            _, w = ph.die_velocity("template:t")
            r = quat_to_matrix(q)
            L = matmul(r, np.asarray(spec.inertia_diagonal) * matmul(r.T, w))
            out_t.append((k + 1) * ph.dt)
            out_a.append(math.degrees(math.acos(min(1.0, abs(dot(r[:, 2], L)) / norm(L)))))
        return np.array(out_t), np.array(out_a)
    finally:
        ph.close()


def judge_precession(ang, ang_bullet=None, tol: float = PRECESSION_TOLERANCE_DEG) -> Check:
    """Pass when the angle between normal and angular momentum varies by at most `tol` degrees."""
    spread = float(np.ptp(ang))
    ok = spread <= tol
    extra = f"; PyBullet alone drifts {float(np.ptp(ang_bullet)):.1f} deg" if ang_bullet is not None else ""
    return Check(
        "precession",
        "Torque-free precession of a flat disk",
        ok,
        f"angle between normal and L varies by {spread:.2e} deg over 1 s (allowed {tol}){extra}",
        "Euler's equations: for a torque-free symmetric top the angle between axis and L is constant",
        {
            "angle_spread_deg": spread,
            "angle_mean_deg": float(np.mean(ang)),
            "bullet_spread_deg": None if ang_bullet is None else float(np.ptp(ang_bullet)),
            "tolerance_deg": tol,
        },
        ["precession.png"],
    )


# ---------------------------------------------------------------- 5. same side, Diaconis-Holmes-Montgomery
SAME_SIDE_ANGLES_DEG = (50.0, 60.0, 70.0, 80.0, 88.0)


def check_same_side(ctx: Context, integrator: Callable | None = None) -> Check:
    """Flat disks flown by the flip integrator (no drag: the published result is for a torque-free coin)
    and caught at uniformly random times between 0.2 and 2 s: the fraction that shows the starting side
    against the DHM formula, at several angles psi."""
    from sim.specs.flip import FlipProfile
    from sim.specs.template import load_template
    from sim.world.flight import Aero, fly

    spec = load_template("fireball")
    prof = FlipProfile(drag=False)
    fly_fn = integrator or fly
    rng = np.random.Generator(np.random.PCG64(ctx.seed))
    n = ctx.size("same_side_catches")
    rows = []
    for psi in SAME_SIDE_ANGLES_DEG:
        st = _disk_state(spec, psi, 7.0)
        _, _, _, samples = fly_fn(
            spec, st, Aero(spec, prof), 1.0 / prof.flight_hz, lambda s: False, max_t=2.0
        )
        t = np.array([s[0] for s in samples])
        nz = np.array([s[1][2] for s in samples])
        catches = rng.uniform(0.2, 2.0, n)
        idx = np.clip(np.searchsorted(t, catches), 0, len(t) - 1)
        p_sim = float(np.mean(nz[idx] > 0))
        # one deterministic flight sampled at random times: binomial noise, plus at most one precession
        # period's share of the window from where the window cuts the last period
        lmag = norm(st.L)
        period = 2 * math.pi * spec.inertia_diagonal[0] / lmag
        rows.append(
            {
                "psi_deg": psi,
                "simulated": p_sim,
                "formula": dhm_same_side(psi),
                "catches": n,
                "period_s": period,
                "window_s": 1.8,
            }
        )
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    grid = np.linspace(45.5, 89.9, 200)
    ax.plot(grid, [dhm_same_side(g) for g in grid], "k-", label="Diaconis-Holmes-Montgomery")
    ax.plot(
        [r["psi_deg"] for r in rows], [r["simulated"] for r in rows], "o", label="flight integrator, caught"
    )
    ax.set(xlabel="angle between normal and L (deg)", ylabel="P(same side)", title="flipped and caught disks")
    ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, ctx.figure("same_side.png"), dpi=110)
    plt.close(fig)
    return judge_same_side(rows)


def judge_same_side(rows: list[dict]) -> Check:
    """Pass when every angle's fraction is within 4 binomial sd plus the window-cut term of the formula."""
    worst, ok = 0.0, True
    for r in rows:
        p, n = r["formula"], r["catches"]
        allowed = 4 * math.sqrt(max(p * (1 - p), 1e-4) / n) + r["period_s"] / r["window_s"]
        r["allowed"] = allowed
        dev = abs(r["simulated"] - p)
        worst = max(worst, dev / allowed)
        ok = ok and dev <= allowed
    txt = ", ".join(f"{r['psi_deg']:g} deg: {r['simulated']:.3f} vs {r['formula']:.3f}" for r in rows)
    return Check(
        "same-side",
        "Same-side probability of flipped-and-caught disks",
        ok,
        f"{txt} (worst deviation {worst:.2f} of allowed)",
        "Diaconis, Holmes & Montgomery (2007), Dynamical bias in the coin toss, SIAM Review 49: "
        "p = 1/2 + arcsin(cot^2 psi)/pi",
        {"rows": rows},
        ["same_side.png"],
    )


# ---------------------------------------------------------------- 6. fair dice, chi-square
FACE_DICE = ("d4", "d6", "d8", "d12")
CHI2_LEVEL = 0.01


def check_faces(ctx: Context) -> Check:
    """Free rolls of the plain d4, d6, d8, d12 on the open table (shot `roll`): face frequencies against a
    uniform distribution (chi-square, 1 % level, fixed seed). Voids are counted and reported, not read
    as faces; a die resting cocked on the flat table would be an artefact and fails the check."""
    from scipy.stats import chisquare

    n = ctx.size("faces_per_die")
    rows: list[dict[str, Any]] = []
    for name in FACE_DICE:
        th = _world(name, "roll")
        faces = th.scenario.dice[0].faces
        counts = dict.fromkeys(faces, 0)
        void = cocked = 0
        for k in range(n):
            o = th.throw(ctx.seed, k).outcome
            if o.result == "void":
                void += 1
                continue
            counts[o.face] += 1
            cocked += bool(o.cocked)
        obs = [counts[f] for f in faces]
        stat, p = chisquare(obs)
        rows.append(
            {
                "die": name,
                "n": n,
                "void": void,
                "cocked": cocked,
                "counts": obs,
                "chi2": float(stat),
                "p": float(p),
            }
        )
    plt = _plt()
    fig, axes = plt.subplots(1, len(rows), figsize=(3 * len(rows), 2.8))
    for ax, r in zip(axes, rows):
        k = len(r["counts"])
        ax.bar(range(1, k + 1), r["counts"], color="C0")
        ax.axhline(sum(r["counts"]) / k, color="k", ls="--", lw=1)
        ax.set(title=f"{r['die']}: p = {r['p']:.2f}", xlabel="face (file order)")
    fig.tight_layout()
    save_figure(fig, ctx.figure("faces.png"), dpi=110)
    plt.close(fig)
    return judge_faces(rows)


def judge_faces(rows: list[dict], level: float = CHI2_LEVEL) -> Check:
    """Pass when every die passes the chi-square test at `level` and none rests cocked."""
    ok = all(r["p"] > level and r["cocked"] == 0 for r in rows)
    txt = ", ".join(f"{r['die']} p={r['p']:.3f} (void {r['void']}, cocked {r['cocked']})" for r in rows)
    return Check(
        "faces",
        "Fair dice: chi-square of free rolls",
        ok,
        f"N={rows[0]['n']} each: {txt}",
        f"uniform faces, chi-square test at the {level:.0%} level",
        {"rows": rows, "level": level},
        ["faces.png"],
    )


# ---------------------------------------------------------------- 7. thick coins on their side
COIN_RATIOS = (0.2, 1 / (2 * math.sqrt(2)), 1 / math.sqrt(3), 0.8)
COIN_DIAMETER_MM = 20.0


def yong_mahadevan_side(ratio: float) -> tuple[float, float]:
    """Side-landing probability of a non-bouncing cylinder of height/diameter `ratio` (Yong & Mahadevan
    2011): landing in a uniformly random orientation, and flipped vigorously end over end."""
    return ratio / math.sqrt(1 + ratio * ratio), 2 / math.pi * math.atan(ratio)


def _materials_with_damping(damping: float, out_dir: str) -> str:
    """A copy of the default material table with every contact damping set to `damping`."""
    import re

    from sim.specs.datafiles import resolve

    text = open(resolve("material", "default")).read()
    text = re.sub(r"contact_damping = [0-9.]+", f"contact_damping = {damping}", text)
    path = os.path.join(out_dir, f"materials-damping-{damping:g}.toml")
    write_atomic(path, text)
    return path


def check_coin_edge(ctx: Context) -> Check:
    """Sharp-rimmed acrylic cylinders 20 mm across, free rolls on the open table, at height/diameter 0.2,
    1/(2 sqrt 2), 1/sqrt 3 and 0.8: how often they rest on their side (normal within 60 deg of
    horizontal). Published: Murray & Teare (1993) dropped cylinders onto a hard surface and found edge
    landings rise steeply with thickness; Yong & Mahadevan (2011) derived, for coins that do not
    bounce, a fair (1/3 each) ratio of 1/(2 sqrt 2) = 0.354 for random landing orientations and
    1/sqrt 3 = 0.577 for vigorous end-over-end flips, and confirmed both by tossing coins. The check:
    side landings rise with thickness and the simulated fair ratio lies between those two. In full mode
    the rolls are repeated with contact damping off, to see whether the damping knob moves them."""
    from sim.engine.settling import cylinder_case, wilson_interval
    from sim.engine.worlds import thrower_for
    from sim.specs.die import quat_to_matrix
    from sim.specs.scenario import Scenario

    n = ctx.size("coin_rolls")
    dampings = (0.99,) if ctx.quick else (0.99, 0.0)
    rows: list[dict[str, Any]] = []
    for damping in dampings:
        materials = _materials_with_damping(damping, ctx.out_dir) if damping != 0.99 else "default"
        for ratio in COIN_RATIOS:
            case = cylinder_case(COIN_DIAMETER_MM / 2, round(ratio * COIN_DIAMETER_MM, 4))
            th = thrower_for(
                Scenario.build(
                    dice=[case.base], shots=["roll"], overrides=dict(case.overrides), materials=materials
                )
            )
            side = void = 0
            for k in range(n):
                o = th.throw(ctx.seed, k).outcome
                if o.result == "void":
                    void += 1
                    continue
                side += abs(quat_to_matrix(o.orientation_xyzw)[2, 2]) < 0.5
            m = n - void
            lo, hi = wilson_interval(side, m)
            rows.append(
                {
                    "contact_damping": damping,
                    "ratio": ratio,
                    "n": n,
                    "void": void,
                    "side": side,
                    "p_side": side / m,
                    "ci95": [lo, hi],
                    "no_bounce_random": yong_mahadevan_side(ratio)[0],
                    "no_bounce_flip": yong_mahadevan_side(ratio)[1],
                }
            )
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.8, 3.6))
    grid = np.linspace(0.05, 1.0, 100)
    ax.plot(
        grid,
        [yong_mahadevan_side(g)[0] for g in grid],
        "k--",
        lw=1,
        label="no bounce, random landing (YM 2011)",
    )
    ax.plot(
        grid,
        [yong_mahadevan_side(g)[1] for g in grid],
        "k:",
        lw=1,
        label="no bounce, end-over-end flip (YM 2011)",
    )
    for damping, marker in zip(dampings, ("o", "s")):
        rs = [r for r in rows if r["contact_damping"] == damping]
        ax.errorbar(
            [r["ratio"] for r in rs],
            [r["p_side"] for r in rs],
            yerr=[[r["p_side"] - r["ci95"][0] for r in rs], [r["ci95"][1] - r["p_side"] for r in rs]],
            fmt=marker,
            capsize=3,
            label=f"engine, contact damping {damping:g}",
        )
    ax.axhline(1 / 3, color="grey", lw=0.8)
    ax.set(xlabel="height / diameter", ylabel="P(rests on its side)", title="thick coins, free rolls")
    ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, ctx.figure("coin_edge.png"), dpi=110)
    plt.close(fig)
    return judge_coin_edge(rows)


def fair_ratio(ratios, fractions) -> float | None:
    """Where the side-landing fraction crosses 1/3 (linear between measured ratios), or None."""
    pts = sorted(zip(ratios, fractions))
    for (r0, p0), (r1, p1) in zip(pts, pts[1:]):
        if p0 <= 1 / 3 <= p1 and p1 > p0:
            return r0 + (1 / 3 - p0) * (r1 - r0) / (p1 - p0)
    return None


def judge_coin_edge(rows: list[dict]) -> Check:
    """Pass when side landings rise with thickness and the fair ratio lies between the no-bounce limits."""
    main = [r for r in rows if r["contact_damping"] == 0.99]
    fr = [r["p_side"] for r in sorted(main, key=lambda r: r["ratio"])]
    rising = all(b > a for a, b in zip(fr, fr[1:]))
    fair = fair_ratio([r["ratio"] for r in main], [r["p_side"] for r in main])
    lo, hi = 1 / (2 * math.sqrt(2)), 1 / math.sqrt(3)
    ok = rising and fair is not None and lo <= fair <= hi
    txt = ", ".join(f"h/d {r['ratio']:.3f}: {r['p_side']:.3f}" for r in main)
    other = [r for r in rows if r["contact_damping"] != 0.99]
    if other:
        txt += "; damping off: " + ", ".join(
            f"{r['p_side']:.3f}" for r in sorted(other, key=lambda r: r["ratio"])
        )
    fair_txt = f"{fair:.3f}" if fair is not None else "not bracketed"
    return Check(
        "coin-edge",
        "Thick coins landing on their side",
        ok,
        f"{txt}; fair ratio {fair_txt} (published no-bounce limits {lo:.3f}-{hi:.3f})",
        "Murray & Teare (1993) Phys. Rev. E 48, 2547; Yong & Mahadevan (2011) Am. J. Phys. 79, 1195",
        {"rows": rows, "fair_ratio": fair, "limits": [lo, hi], "rising": rising},
        ["coin_edge.png"],
    )


# ---------------------------------------------------------------- 8. the not-settled matrix
SETTLE_MAX_VOID_FRACTION = 0.001
SETTLE_MAX_SINK_MM = 0.5


def check_settling(ctx: Context) -> Check:
    """Free rolls (no board) and standard throws at the magma board for d4, d6, d8, d12, cuboids of
    x/y 0.5-2.5 and a cylinder: at most 0.1 % of throws may end void (not-settled or diverged), and no
    die may end more than 0.5 mm below its true resting height. Quick mode: a subset, one shared aimed
    release (that of the d8) for the board throws."""
    from sim.engine.settling import die_matrix, markdown_table, settle_cell

    cases = die_matrix()
    if ctx.quick:
        cases = [
            c
            for c in cases
            if c.label in ("d4", "d8", "cuboid x/y=0.5", "cuboid x/y=2.5", "cylinder d=20 h=6")
        ]
    cells = []
    nominal = None
    for shot, key in (("roll", "settle_roll"), ("standard", "settle_board")):
        for case in cases:
            if ctx.quick and shot == "standard" and nominal is None:
                nominal = _world("d8").nominal()
            cells.append(
                settle_cell(
                    case, shot, ctx.size(key), ctx.seed, nominal if ctx.quick and shot == "standard" else None
                )
            )
    write_atomic(os.path.join(ctx.out_dir, "not_settled.md"), markdown_table(cells))
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 3.4))
    labels = [f"{c.die}\n{c.shot}" for c in cells]
    ax.bar(
        range(len(cells)),
        [100 * c.void / c.n for c in cells],
        color=["C0" if c.shot == "roll" else "C1" for c in cells],
    )
    ax.axhline(100 * SETTLE_MAX_VOID_FRACTION, color="r", ls="--", lw=1)
    ax.set_xticks(range(len(cells)), labels, rotation=90, fontsize=6)
    ax.set(ylabel="void (%)", title="throws not settled or diverged")
    fig.tight_layout()
    save_figure(fig, ctx.figure("not_settled.png"), dpi=110)
    plt.close(fig)
    return judge_settling([c.to_json() for c in cells])


def judge_settling(
    cells: list[dict], max_void: float = SETTLE_MAX_VOID_FRACTION, max_sink: float = SETTLE_MAX_SINK_MM
) -> Check:
    """Pass when no cell has more than `max_void` voids or a rest deeper than `max_sink` mm."""
    bad = [c for c in cells if c["void"] > max_void * c["n"] or c["max_sink_mm"] > max_sink]
    total = sum(c["n"] for c in cells)
    voids = sum(c["void"] for c in cells)
    worst_sink = max(c["max_sink_mm"] for c in cells)
    txt = (
        f"{voids} void of {total} throws in {len(cells)} cells; deepest rest {worst_sink:.2f} mm below "
        "true height"
    )
    if bad:
        txt += "; failing: " + ", ".join(
            f"{c['die']}/{c['shot']} ({c['void']} void, {c['max_sink_mm']:.2f} mm)" for c in bad
        )
    return Check(
        "not-settled",
        "Not-settled matrix",
        not bad,
        txt,
        f"at most {max_void:.1%} void per cell, no rest deeper than {max_sink} mm",
        {"cells": cells, "max_void_fraction": max_void, "max_sink_mm": max_sink},
        ["not_settled.png"],
    )


# ---------------------------------------------------------------- 9. no tunnelling through the board
TUNNEL_SIGMAS = 3.0


def fastest_release_mps(board_radius_m: float = 0.28) -> dict:
    """The fastest impact any built-in shot makes: the largest speed the aimed-release search may pick
    (ballistic speeds over its grid of bounce points and elevations, capped at 15 m/s as it is) or a
    shot's fixed speed, raised by 3 standard deviations of the sloppiest skill's speed spread and the
    shot's speed multiplier and held within the shot's speed limit, plus the speed gained falling from
    the release height."""
    from sim.engine.aim import (
        NOMINAL_ELEVATIONS_DEG,
        NOMINAL_GAP_FACTORS,
        NOMINAL_MAX_SPEED_MPS,
        ballistic_speed,
    )
    from sim.specs.catalog import list_kind

    sd = max(s.speed_sd_frac for s in list_kind("skill"))
    best = {"speed_mps": 0.0}
    for shot in list_kind("shot"):
        r = shot.release
        if r.aim == "none":
            speeds = [r.speed_mps]
        else:
            edge = r.distance_mm * 1e-3 - board_radius_m
            speeds = []
            for f in NOMINAL_GAP_FACTORS:
                d = max(0.05, edge - r.bounce_gap_mm * 1e-3 * f)
                for el in NOMINAL_ELEVATIONS_DEG:
                    v = ballistic_speed(d, r.height_mm * 1e-3, el)
                    if math.isfinite(v) and v <= NOMINAL_MAX_SPEED_MPS:
                        speeds.append(v)
        # drawn releases are clipped into the shot's [limits] (what the body allows)
        v = shot.limits.clip("speed", max(speeds) * (1 + TUNNEL_SIGMAS * sd * shot.noise.speed))
        impact = math.sqrt(v * v + 2 * GRAVITY * r.height_mm * 1e-3)
        if impact > best["speed_mps"]:
            best = {"speed_mps": impact, "shot": shot.name, "release_mps": v, "height_m": r.height_mm * 1e-3}
    return best


def check_tunnelling(ctx: Context) -> Check:
    """Dice (d4: the smallest continuous-collision sphere; hero-d8) thrown into the 2 mm magma board at
    the fastest impact speed any shot makes, 30-90 deg down, random orientation and spin: the die's
    centre must never pass below the board's top while over cardboard."""
    import shapely

    from sim.engine.release import Release
    from sim.seeding import random_quaternion

    fast = fastest_release_mps()
    v = fast["speed_mps"]
    rng = np.random.Generator(np.random.PCG64(ctx.seed))
    n = ctx.size("tunnel_throws")
    rows = []
    for name in ("d4", "hero-d8"):
        th = _world(name, physics={"max_time_s": 0.3})
        board = th.scenario.board
        inner = board.surface.buffer(-0.01)
        worst, bad = math.inf, 0
        for _ in range(n):
            x, y = _point_in(board.surface.buffer(-0.03), rng)
            el = math.radians(rng.uniform(30, 90))
            az = rng.uniform(0, 2 * math.pi)
            d = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), -math.sin(el)])
            start = np.array([x, y, board.thickness_m]) - d * 0.06
            rel = Release(tuple(start), tuple(d * v), random_quaternion(rng), tuple(rng.normal(0, 30, 3)))
            res = th.throw_releases([rel])
            path = np.asarray(res.trace.path("die:0"))
            over = shapely.contains_xy(inner, path[:, 0], path[:, 1])
            if over.any():
                gap = float((path[over, 2] - board.thickness_m).min())
                worst = min(worst, gap)
                bad += gap < 0
        rows.append({"die": name, "throws": n, "below_top": bad, "min_centre_gap_mm": worst * 1e3})
    return judge_tunnelling(rows, fast)


def judge_tunnelling(rows: list[dict], fast: dict) -> Check:
    """Pass when no die centre passed below the board's top."""
    ok = all(r["below_top"] == 0 for r in rows)
    txt = ", ".join(
        f"{r['die']}: {r['below_top']} of {r['throws']} below the top (closest centre "
        f"{r['min_centre_gap_mm']:.2f} mm above)"
        for r in rows
    )
    return Check(
        "tunnelling",
        "No tunnelling through the 2 mm board",
        ok,
        f"impact {fast['speed_mps']:.2f} m/s ({fast.get('shot', '?')} shot, 3 sd fast); {txt}",
        "a rigid 2 mm board stops every die",
        {"rows": rows, "fastest": fast},
        [],
    )


# ---------------------------------------------------------------- 10. numerical convergence
CONVERGENCE_QUICK = ("roll-d6", 40)
CONVERGENCE_FULL_N = 300


def check_convergence(ctx: Context) -> Check:
    """Step-size convergence, run by `sim.studies.convergence` (this check only calls it): identical
    releases at the default contact step and at a 4x finer one, outcome shares compared pairwise with
    Bonferroni-widened Newcombe intervals. Quick mode: free d6 rolls, 40 throws; full mode: every scene
    of its QUICK_SCENES at 300 throws."""
    from sim.studies import convergence as conv

    if ctx.quick:
        scene, n = CONVERGENCE_QUICK
        tables = {scene: conv.quick_check(scene, n=n)}
    else:
        from sim.specs.scenario import Scenario

        tables = {
            s: conv.convergence_check(Scenario.build(**kw), CONVERGENCE_FULL_N)
            for s, kw in conv.QUICK_SCENES.items()
        }
    details = {s: t.as_dict() for s, t in tables.items()}
    return judge_convergence(details)


def judge_convergence(details: dict) -> Check:
    """Pass when every scene's table passes (every category's interval holds 0)."""
    ok = all(d["passed"] for d in details.values())
    txt = ", ".join(
        f"{s}: {'pass' if d['passed'] else 'FAIL'} (n={d['n']}, {d['changed_throws']} throws changed)"
        for s, d in details.items()
    )
    return Check(
        "convergence",
        "Numerical convergence (step size)",
        ok,
        txt,
        "the same releases at a 4x finer contact step (sim/studies/convergence.py)",
        details,
    )


# ---------------------------------------------------------------- running and reporting
CHECKS: dict[str, Callable[[Context], Check]] = {
    "ballistic": check_ballistic,
    "rebound": check_rebound,
    "energy": check_energy,
    "precession": check_precession,
    "same-side": check_same_side,
    "faces": check_faces,
    "coin-edge": check_coin_edge,
    "not-settled": check_settling,
    "tunnelling": check_tunnelling,
    "convergence": check_convergence,
}


def _rolling_checks() -> dict[str, Callable[[Context], Check]]:
    """The checks of rolling and tumbling bodies against the world (sim/studies/rolling.py)."""
    from sim.studies import rolling

    return {
        "flat-landing": rolling.check_flat_landing,
        "surface-ends": rolling.check_surface_ends,
        "run-out": rolling.check_runout,
        "coin-flips": rolling.check_coin_flips,
    }


CHECKS.update(_rolling_checks())


def run_validation(
    out_dir: str, quick: bool = False, only: list[str] | None = None, progress=None, starting=None
) -> list[Check]:
    """Run the checks (all, or `only`), write the report folder, return the verdicts; `starting(name, k,
    total)` is called as check k of total begins, `progress(check)` as it ends."""
    os.makedirs(out_dir, exist_ok=True)
    ctx = Context(quick=quick, out_dir=out_dir)
    results = []
    names = [n for n in CHECKS if not only or n in only]
    for name, fn in CHECKS.items():
        if only and name not in only:
            continue
        if starting is not None:
            starting(name, names.index(name) + 1, len(names))
        t0 = time.perf_counter()
        c = fn(ctx)
        c.seconds = round(time.perf_counter() - t0, 1)
        results.append(c)
        if progress is not None:
            progress(c)
    write_report(out_dir, results, quick)
    return results


def write_report(out_dir: str, checks: list[Check], quick: bool) -> None:
    """results.json (every number), report.md (one row per check, then the figures)."""
    mode = "quick" if quick else "full"
    meta: dict[str, Any] = {
        "mode": mode,
        "seed": SEED,
        "sizes": {k: v[0 if quick else 1] for k, v in SIZES.items()},
        "python": platform.python_version(),
        "passed": not any(c.failed for c in checks),
        "known_gaps": [c.name for c in checks if c.status == "known gap"],
    }
    write_atomic(
        os.path.join(out_dir, "results.json"),
        json.dumps(
            {"meta": meta, "checks": [asdict(c) | {"status": c.status} for c in checks]},
            indent=1,
            default=float,
        ),
    )
    lines = [
        f"# Physics validation ({mode})",
        "",
        f"Overall: **{'pass' if meta['passed'] else 'FAIL'}**"
        + (f", with known gaps: {', '.join(meta['known_gaps'])}" if meta["known_gaps"] else "")
        + f". Seed {SEED}; sample sizes: "
        + ", ".join(f"{k} {v}" for k, v in meta["sizes"].items())
        + ".",
        "",
        "| check | result | measured | compared with | s |",
        "|---|---|---|---|---:|",
    ]

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    for c in checks:
        lines.append(f"| {c.title} | {c.status} | {cell(c.summary)} | {cell(c.reference)} | {c.seconds:g} |")
    lines.append("")
    for c in checks:
        if c.status == "known gap":
            lines += [f"Known gap, {c.name}: {c.known_gap}", ""]
    for c in checks:
        for f in c.figures:
            lines += [f"![{c.title}]({f})", ""]
    write_atomic(os.path.join(out_dir, REPORT), "\n".join(lines))
