"""Free flight of a flat template: exact torque-free rigid-body motion with quadratic plate drag.

PyBullet's maximal-coordinate bodies ignore the gyroscopic term w x (Iw), and a flipped cardboard disk
feels air drag of the order of half its weight, so a flip's flight is integrated here (RK4): the world
angular momentum L is constant (drag acts through the centre of mass), w = R I^-1 R^T L (torque-free
precession, exact for any inertia), and the centre of mass feels gravity plus the drag of a flat plate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.specs.die import quat_rows, quat_to_matrix
from sim.specs.flip import FlipProfile
from sim.specs.physics import GRAVITY
from sim.specs.template import TemplateSpec
from sim.vectors import matmul

AIR_DENSITY = 1.2  # kg/m^3, room air


def lowest_z(spec: TemplateSpec, position_m, rot: np.ndarray) -> float:
    """Height (m, world z) of the template's lowest point at this pose: the free flight hands over to
    PyBullet once it comes within the handover height of what lies below."""
    pts = spec.local_outline.exterior.coords
    xy = np.asarray(pts)[:-1]
    h = spec.thickness_m / 2
    z = matmul(xy, rot[2, :2])
    return float(position_m[2] + z.min() - h * abs(rot[2, 2]))


# ---------------------------------------------------------------- where a flight ends
@dataclass(frozen=True)
class CentreDown:
    """The flight ends once the plate falls with its centre at or below `level` (m)."""

    level: float

    def __call__(self, s: FlightState) -> bool:
        return bool(s.v[2] < 0 and s.x[2] <= self.level)


@dataclass(frozen=True)
class LowestDown:
    """The flight ends once the plate falls with its lowest point below `level` (m): the hand-over to
    the engine. `reach` (the outline's radius plus half the thickness) skips the exact lowest point
    while the centre is clear of the level by more than that."""

    level: float
    reach: float
    spec: TemplateSpec

    def __call__(self, s: FlightState) -> bool:
        return bool(
            s.v[2] < 0
            and s.x[2] - self.reach < self.level
            and lowest_z(self.spec, s.x, quat_to_matrix(s.q)) < self.level
        )


# ---------------------------------------------------------------- free flight
@dataclass
class FlightState:
    """A flying template's state: centre of mass (m), velocity (m/s), orientation (xyzw) and world angular
    momentum (kg m^2/s)."""

    x: np.ndarray  # centre of mass (m)
    v: np.ndarray  # m/s
    q: np.ndarray  # xyzw
    L: np.ndarray  # world angular momentum (kg m^2/s)

    def omega(self, inv_inertia: np.ndarray) -> np.ndarray:
        """World angular velocity (rad/s) from the conserved momentum: w = R I^-1 R^T L."""
        r = quat_to_matrix(self.q)
        return matmul(r, inv_inertia * matmul(r.T, self.L))


def _qdot(q: np.ndarray, w: np.ndarray) -> np.ndarray:
    """dq/dt for a world-frame angular velocity: ½ (ω, 0) ⊗ q (xyzw)."""
    x, y, z, s = q
    wx, wy, wz = w
    return 0.5 * np.array(
        [
            s * wx + wy * z - wz * y,
            s * wy + wz * x - wx * z,
            s * wz + wx * y - wy * x,
            -x * wx - y * wy - z * wz,
        ]
    )


class Aero:
    """Quadratic drag of a flat plate, through its centre of mass."""

    def __init__(self, spec: TemplateSpec, profile: FlipProfile) -> None:
        self.on = profile.drag
        self.mass = spec.mass_kg
        self.k_face = 0.5 * AIR_DENSITY * profile.cd_face * spec.area_m2
        self.k_edge = 0.5 * AIR_DENSITY * profile.cd_edge * spec.local_outline.length * spec.thickness_m

    def per_velocity(self, vx: float, vy: float, vz: float, nx: float, ny: float, nz: float) -> float:
        """k (N s/m) in the drag force k v at velocity v (m/s) on a plate with unit normal n: face drag for
        flow across the plate, edge drag for flow along it; 0 when drag is off. On plain floats: the
        flight and the landing ask for it every step."""
        if not self.on:
            return 0.0
        s = math.sqrt(vx * vx + vy * vy + vz * vz)
        if s < 1e-9:
            return 0.0
        c = abs(nx * vx + ny * vy + nz * vz) / s
        return -(self.k_face * c + self.k_edge * math.sqrt(max(0.0, 1 - c * c))) * s

    def force_xyz(
        self, vx: float, vy: float, vz: float, nx: float, ny: float, nz: float
    ) -> tuple[float, float, float]:
        """The drag force (N) at velocity v on a plate with unit normal n (`per_velocity`)."""
        k = self.per_velocity(vx, vy, vz, nx, ny, nz)
        return k * vx, k * vy, k * vz


def fly(
    spec: TemplateSpec,
    state: FlightState,
    aero: Aero,
    dt: float,
    until,
    max_t: float = 5.0,
    record: bool = True,
):
    """RK4 free flight until `until(state)` is true; returns (state, t, turned_rad, samples).

    samples: list of (t, normal, L) every step (for the precession check; empty unless `record`).

    Written on plain floats: a flip's flight is ~700 steps of four derivative evaluations each, and
    numpy's per-call cost on 3-vectors made the arithmetic most of a flipped-template throw's time.
    `until` is asked before every step, as before.

    With `until` a CentreDown or LowestDown, no samples asked for and the compiled loop active
    (sim/world/compiled.py, `DFSIM_LOOP`), the same steps run compiled (sim/world/native/plateflight.c),
    to the same bits.
    """
    if not record and isinstance(until, (CentreDown, LowestDown)):
        done = _compiled_fly(spec, state, aero, dt, until, max_t)
        if done is not None:
            return done
    ix, iy, iz = (1.0 / float(c) for c in spec.inertia_diagonal)
    g = GRAVITY
    m = spec.mass_kg
    L = state.L.copy()
    lx, ly, lz = (float(c) for c in L)
    drag = aero.per_velocity

    def deriv(vx, vy, vz, qx, qy, qz, qw):
        r00, r01, r02, r10, r11, r12, r20, r21, r22 = quat_rows((qx, qy, qz, qw))
        # w = R I^-1 R^T L
        bx = (r00 * lx + r10 * ly + r20 * lz) * ix
        by = (r01 * lx + r11 * ly + r21 * lz) * iy
        bz = (r02 * lx + r12 * ly + r22 * lz) * iz
        wx = r00 * bx + r01 * by + r02 * bz
        wy = r10 * bx + r11 * by + r12 * bz
        wz = r20 * bx + r21 * by + r22 * bz
        k = drag(vx, vy, vz, r02, r12, r22) / m
        ax, ay, az = k * vx, k * vy, k * vz - g
        # dq/dt = 1/2 (w, 0) x q (xyzw)
        return (
            ax,
            ay,
            az,
            0.5 * (qw * wx + wy * qz - wz * qy),
            0.5 * (qw * wy + wz * qx - wx * qz),
            0.5 * (qw * wz + wx * qy - wy * qx),
            0.5 * (-qx * wx - qy * wy - qz * wz),
        )

    x0, x1, x2 = (float(c) for c in state.x)
    v0, v1, v2 = (float(c) for c in state.v)
    q0, q1, q2, q3 = (float(c) for c in state.q)
    t, turned = 0.0, 0.0
    r = quat_rows((q0, q1, q2, q3))
    n_prev = (r[2], r[5], r[8])
    samples = [(0.0, np.array(n_prev), L.copy())] if record else []
    h, h2, h6 = dt, 0.5 * dt, dt / 6
    while t < max_t:
        if until(FlightState(np.array((x0, x1, x2)), np.array((v0, v1, v2)), np.array((q0, q1, q2, q3)), L)):
            break
        a1 = deriv(v0, v1, v2, q0, q1, q2, q3)
        u0, u1, u2 = v0 + h2 * a1[0], v1 + h2 * a1[1], v2 + h2 * a1[2]
        a2 = deriv(u0, u1, u2, q0 + h2 * a1[3], q1 + h2 * a1[4], q2 + h2 * a1[5], q3 + h2 * a1[6])
        y0, y1, y2 = v0 + h2 * a2[0], v1 + h2 * a2[1], v2 + h2 * a2[2]
        a3 = deriv(y0, y1, y2, q0 + h2 * a2[3], q1 + h2 * a2[4], q2 + h2 * a2[5], q3 + h2 * a2[6])
        z0, z1, z2 = v0 + h * a3[0], v1 + h * a3[1], v2 + h * a3[2]
        a4 = deriv(z0, z1, z2, q0 + h * a3[3], q1 + h * a3[4], q2 + h * a3[5], q3 + h * a3[6])
        # position: its derivative is the velocity at each stage
        x0 += h6 * (v0 + 2 * u0 + 2 * y0 + z0)
        x1 += h6 * (v1 + 2 * u1 + 2 * y1 + z1)
        x2 += h6 * (v2 + 2 * u2 + 2 * y2 + z2)
        v0 += h6 * (a1[0] + 2 * a2[0] + 2 * a3[0] + a4[0])
        v1 += h6 * (a1[1] + 2 * a2[1] + 2 * a3[1] + a4[1])
        v2 += h6 * (a1[2] + 2 * a2[2] + 2 * a3[2] + a4[2])
        q0 += h6 * (a1[3] + 2 * a2[3] + 2 * a3[3] + a4[3])
        q1 += h6 * (a1[4] + 2 * a2[4] + 2 * a3[4] + a4[4])
        q2 += h6 * (a1[5] + 2 * a2[5] + 2 * a3[5] + a4[5])
        q3 += h6 * (a1[6] + 2 * a2[6] + 2 * a3[6] + a4[6])
        qn = math.sqrt(q0 * q0 + q1 * q1 + q2 * q2 + q3 * q3)
        q0, q1, q2, q3 = q0 / qn, q1 / qn, q2 / qn, q3 / qn
        t += dt
        r = quat_rows((q0, q1, q2, q3))
        n = (r[2], r[5], r[8])
        turned += math.acos(max(-1.0, min(1.0, n[0] * n_prev[0] + n[1] * n_prev[1] + n[2] * n_prev[2])))
        n_prev = n
        if record:
            samples.append((t, np.array(n), L.copy()))
    return (
        FlightState(np.array((x0, x1, x2)), np.array((v0, v1, v2)), np.array((q0, q1, q2, q3)), L),
        t,
        turned,
        samples,
    )


def _compiled_fly(
    spec: TemplateSpec,
    state: FlightState,
    aero: Aero,
    dt: float,
    until: CentreDown | LowestDown,
    max_t: float,
):
    """`fly` in the compiled plugin; None when the compiled loop is not the one running."""
    from sim.world import compiled

    run = compiled.plate_flight()
    if run is None:
        return None
    ix, iy, iz = (1.0 / float(c) for c in spec.inertia_diagonal)
    lowest = isinstance(until, LowestDown)
    reach = until.reach if isinstance(until, LowestDown) else 0.0
    consts = (
        ix, iy, iz, GRAVITY, spec.mass_kg, *(float(c) for c in state.L),
        1.0 if aero.on else 0.0, aero.k_face, aero.k_edge, dt, max_t,
        *(float(c) for c in state.x), *(float(c) for c in state.v), *(float(c) for c in state.q),
        1.0 if lowest else 0.0, until.level, reach,
        spec.thickness_m / 2 if lowest else 0.0,
    )  # fmt: skip
    outline = np.ascontiguousarray(np.asarray(spec.local_outline.exterior.coords)[:-1], dtype=float)
    out = run(consts, outline if lowest else np.zeros((0, 2)))
    return (
        FlightState(out[0:3].copy(), out[3:6].copy(), out[6:10].copy(), state.L.copy()),
        float(out[10]),
        float(out[11]),
        [],
    )
