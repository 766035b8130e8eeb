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

from sim.specs.die import quat_to_matrix
from sim.specs.flip import FlipProfile
from sim.specs.physics import GRAVITY
from sim.specs.template import TemplateSpec

AIR_DENSITY = 1.2  # kg/m^3, room air


def lowest_z(spec: TemplateSpec, position_m, rot: np.ndarray) -> float:
    """Height (m, world z) of the template's lowest point at this pose: the free flight hands over to
    PyBullet once it comes within the handover height of what lies below."""
    pts = spec.local_outline.exterior.coords
    xy = np.asarray(pts)[:-1]
    h = spec.thickness_m / 2
    z = xy @ rot[2, :2]
    return float(position_m[2] + z.min() - h * abs(rot[2, 2]))


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
        return r @ (inv_inertia * (r.T @ self.L))


def _qdot(q: np.ndarray, w: np.ndarray) -> np.ndarray:
    """dq/dt for a world-frame angular velocity: ½ (ω, 0) ⊗ q (xyzw)."""
    x, y, z, s = q
    wx, wy, wz = w
    return 0.5 * np.array([
        s * wx + wy * z - wz * y,
        s * wy + wz * x - wx * z,
        s * wz + wx * y - wy * x,
        -x * wx - y * wy - z * wz,
    ])


class Aero:
    """Quadratic drag of a flat plate, through its centre of mass."""

    def __init__(self, spec: TemplateSpec, profile: FlipProfile) -> None:
        self.on = profile.drag
        self.mass = spec.mass_kg
        self.k_face = 0.5 * AIR_DENSITY * profile.cd_face * spec.area_m2
        self.k_edge = 0.5 * AIR_DENSITY * profile.cd_edge * spec.local_outline.length * spec.thickness_m

    def force(self, v: np.ndarray, n: np.ndarray) -> np.ndarray:
        """Drag force (N) at velocity v (m/s) on a plate with unit normal n: face drag for flow across the
        plate, edge drag for flow along it; zero when drag is off."""
        if not self.on:
            return np.zeros(3)
        s = float(np.linalg.norm(v))
        if s < 1e-9:
            return np.zeros(3)
        c = abs(float(n @ v)) / s
        return -(self.k_face * c + self.k_edge * math.sqrt(max(0.0, 1 - c * c))) * s * v


def fly(spec: TemplateSpec, state: FlightState, aero: Aero, dt: float, until, max_t: float = 5.0):
    """RK4 free flight until `until(state)` is true; yields nothing, returns (state, t, turned_rad, samples).

    samples: list of (t, normal, L) every step (for the precession check)."""
    inv_i = 1.0 / np.asarray(spec.inertia_diagonal)
    g = np.array([0.0, 0.0, -GRAVITY])
    m = spec.mass_kg
    L = state.L.copy()

    def deriv(x, v, q):
        r = quat_to_matrix(q)
        w = r @ (inv_i * (r.T @ L))
        a = g + aero.force(v, r[:, 2]) / m
        return v, a, _qdot(q, w)

    x, v, q = state.x.copy(), state.v.copy(), state.q.copy()
    t, turned = 0.0, 0.0
    n_prev = quat_to_matrix(q)[:, 2]
    samples = [(0.0, n_prev.copy(), L.copy())]
    while t < max_t:
        if until(FlightState(x, v, q, L)):
            break
        k1 = deriv(x, v, q)
        k2 = deriv(x + 0.5 * dt * k1[0], v + 0.5 * dt * k1[1], q + 0.5 * dt * k1[2])
        k3 = deriv(x + 0.5 * dt * k2[0], v + 0.5 * dt * k2[1], q + 0.5 * dt * k2[2])
        k4 = deriv(x + dt * k3[0], v + dt * k3[1], q + dt * k3[2])
        x = x + dt / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        v = v + dt / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        q = q + dt / 6 * (k1[2] + 2 * k2[2] + 2 * k3[2] + k4[2])
        q = q / np.linalg.norm(q)
        t += dt
        n = quat_to_matrix(q)[:, 2]
        turned += math.acos(max(-1.0, min(1.0, float(n @ n_prev))))
        n_prev = n
        samples.append((t, n.copy(), L.copy()))
    return FlightState(x, v, q, L), t, turned, samples
