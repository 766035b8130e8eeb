"""The hand: a shot's release, a thrower's skill and a throw's random draw make one release per die.

Kept apart from the thrower's world because it needs none: the release of a throw is a function of
the shot profile (distance, height, aim), the skill's spreads and biases, the shot's noise
multipliers and limits (what the body allows), the technique (`Technique`: speed, elevation, grip,
spin) and the aim point. The aim solve (sim/engine/aim.py) asks the same hand for its reference
releases, with the biases left out.

The error model follows measured human throwing: the angular spreads (elevation, azimuth) are fixed
angles, so the error they make where the die lands grows in proportion to the distance thrown; the
speed spread is a fraction of the speed that itself grows with the speed required
(`speed_sd`: `speed_sd_frac` at SPEED_ERROR_REF_MPS, times (speed / SPEED_ERROR_REF_MPS) **
SPEED_ERROR_EXPONENT), so a longer throw's length error grows faster than its distance (1.5 times the
distance: about 1.7 times the error, within the 1.6-3.7 measured for darts). The grip's orientation is
turned by the skill's `grip_sd_deg` about each axis (a novice's loose grip leaves the die almost as it
lies), and the spin given on purpose is scattered by `spin_sd_rps` about every axis.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.engine.release import Release
from sim.seeding import Draw, random_quaternion
from sim.specs.die import DieSpec, quat_between, quat_mul
from sim.specs.scenario import Scenario
from sim.specs.shot import GRIPS, SPIN_AXES
from sim.specs.skill import SkillSpec
from sim.vectors import dot, norm

# releases: lowest hand height, and how further dice of one throw leave the same hand (lateral, up)
MIN_RELEASE_HEIGHT_M = 0.02
EXTRA_DIE_OFFSET_M = (0.02, 0.005)
# the speed error law: the skill's fractional speed spread holds at this speed and grows as
# (speed / SPEED_ERROR_REF_MPS) ** SPEED_ERROR_EXPONENT (the plain standard shot is aimed at ~1.6-2 m/s)
SPEED_ERROR_REF_MPS = 2.0
SPEED_ERROR_EXPONENT = 0.5
# the draw's normals that turn a grip (z[9:12]); z[0:9] are the ballistic and spin spreads
GRIP_NORMALS = slice(9, 12)


@dataclass(frozen=True, order=True)
class Technique:
    """An aimed release as the thrower practises it: the ballistic part (speed m/s, elevation deg) and
    how the die leaves the hand (the grip, GRIPS; the spin given on purpose in rev/s about `spin_axis`,
    SPIN_AXES)."""

    speed_mps: float
    elevation_deg: float
    grip: str = "random"
    spin_rps: float = 0.0
    spin_axis: str = "lateral"

    @property
    def ballistic(self) -> tuple[float, float]:
        """(speed, elevation): where the throw goes."""
        return (self.speed_mps, self.elevation_deg)

    def to_json(self) -> list[Any]:
        """[speed, elevation, grip, spin_rps, spin_axis]: the cache's and prepared.json's form."""
        return [self.speed_mps, self.elevation_deg, self.grip, self.spin_rps, self.spin_axis]

    @classmethod
    def from_json(cls, value: Any) -> Technique | None:
        """The technique of a cached or shipped value, or None when it is not one (damaged)."""
        try:
            speed, elev, grip, spin, axis = value
            speed, elev, spin = float(speed), float(elev), float(spin)
        except (TypeError, ValueError):
            return None
        if grip not in GRIPS or axis not in SPIN_AXES:
            return None
        if not all(math.isfinite(x) for x in (speed, elev, spin)):
            return None
        return cls(speed, elev, grip, spin, axis)

    def describe(self) -> str:
        """One phrase: '2.91 m/s at 25 deg, face grip, backspin 4 rev/s'."""
        if self.spin_rps == 0:
            spin = "no spin"
        elif self.spin_axis == "side":
            spin = f"side spin {self.spin_rps:g} rev/s"
        else:
            spin = f"{'topspin' if self.spin_rps > 0 else 'backspin'} {abs(self.spin_rps):g} rev/s"
        return f"{self.speed_mps:.2f} m/s at {self.elevation_deg:.0f} deg, {self.grip} grip, {spin}"


def shot_technique(scenario: Scenario, speed: float, elevation: float) -> Technique:
    """The shot's own way of leaving the hand (its release's grip and spin) at this speed and elevation."""
    rel = scenario.shot.release
    return Technique(float(speed), float(elevation), rel.grip, float(rel.spin_rps), rel.spin_axis)


def grip_orientation(die: DieSpec, grip: str, yaw_rad: float, face_label: str | None = None) -> np.ndarray:
    """The orientation (xyzw) of a die held by `grip` ("face": `face_label`'s face, else the first,
    flat down; "vertex": the first vertex straight down), yawed about the vertical by `yaw_rad` (the
    throw's direction, so a grip is held the same way whatever the aim)."""
    if grip == "face":
        face = die.face_index(face_label) if face_label is not None else 0
        q = quat_between(die.face_normals[face], np.array([0.0, 0.0, -1.0]))
    elif grip == "vertex":
        v = np.asarray(die.vertices_m[0], dtype=float)
        q = quat_between(v / norm(v), np.array([0.0, 0.0, -1.0]))
    else:
        raise ValueError(f"grip '{grip}' has no held orientation")
    qz = np.array([0.0, 0.0, math.sin(yaw_rad / 2), math.cos(yaw_rad / 2)])
    return np.asarray(quat_mul(qz, q), dtype=float)


def rotation_quaternion(rotvec: np.ndarray) -> np.ndarray:
    """The quaternion (xyzw) of a rotation vector (axis times angle in radians)."""
    angle = float(norm(rotvec))
    if angle < 1e-12:
        return np.array([0.0, 0.0, 0.0, 1.0])
    axis = rotvec / angle
    return np.array([*(axis * math.sin(angle / 2)), math.cos(angle / 2)])


class Hand:
    """The release model of one scenario: (draw, technique, aim point, skill) -> releases."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario

    def releases(
        self,
        draw: Draw,
        technique: Technique,
        aim: tuple[float, float] | None,
        skill: SkillSpec | None = None,
        biased: bool = True,
    ) -> list[Release]:
        """The releases (one per die) of a throw's draw around a technique aimed at `aim` (m; None:
        straight ahead): the shot's release perturbed by the skill's noise (`skill` in place of the
        scenario's; `biased=False` leaves its biases out, as the aim solve does), each drawn component
        clipped into the shot's limits. The first die is held by the technique's grip; further dice leave
        the same hand a few mm apart, each as it lies."""
        sc = self.scenario
        rel, sk, m = sc.shot.release, skill or sc.skill, sc.shot.noise
        speed_bias, azimuth_bias = (sk.speed_bias_frac, sk.azimuth_bias_deg) if biased else (0.0, 0.0)
        z = draw.z
        if aim is None:
            aim = (0.0, 0.0)
        lim = sc.shot.limits  # what the body allows: each drawn component clipped into its range
        dist = clip_mm(lim, "distance", rel.distance_mm * 1e-3 + sk.distance_sd_mm * 1e-3 * m.distance * z[5])
        lat = rel.lateral_mm * 1e-3 + sk.lateral_sd_mm * 1e-3 * m.lateral * z[4]
        h = max(
            MIN_RELEASE_HEIGHT_M,
            clip_mm(lim, "height", rel.height_mm * 1e-3 + sk.height_sd_mm * 1e-3 * m.height * z[3]),
        )
        if sc.board is None:
            hand, u = np.array([-dist, lat]), np.array([1.0, 0.0])
        else:
            hand = np.array([-dist, lat])
            u = np.array(aim) - hand
            u = u / norm(u)
        aimed = technique.speed_mps
        sd = speed_sd(sk.speed_sd_frac, aimed)
        speed = lim.clip("speed", max(0.05, aimed * (1 + speed_bias + sd * m.speed * z[0])))
        elev = lim.clip("elevation", technique.elevation_deg + sk.elevation_sd_deg * m.elevation * z[1])
        azim = rel.azimuth_deg + azimuth_bias + sk.azimuth_sd_deg * m.azimuth * z[2]
        spin_noise = np.array(z[6:9]) * sk.spin_sd_rps * m.spin * 2 * math.pi
        q0 = self.held(technique, draw, sk, math.atan2(u[1], u[0]) + math.radians(azim))
        releases = [self._release(speed, elev, azim, h, hand, u, q0, spin_noise, technique)]
        for i in range(1, len(sc.dice)):
            # further dice leave the same hand a few mm apart, each with its own orientation
            q = quat_mul(
                draw.orientation_xyzw,
                random_quaternion(np.random.Generator(np.random.PCG64(int(draw.extra[i] * 2**32)))),
            )
            off = np.array([0.0, EXTRA_DIE_OFFSET_M[0] * i * (-1) ** i])
            releases.append(
                self._release(
                    speed, elev, azim, h + EXTRA_DIE_OFFSET_M[1] * i, hand + off, u, q, spin_noise, technique
                )
            )
        return releases

    def held(self, technique: Technique, draw: Draw, skill: SkillSpec, yaw_rad: float) -> tuple[float, ...]:
        """The first die's orientation at release: as it lies (the draw's uniform orientation) with the
        random grip; else the grip's orientation turned by the skill's grip spread (each axis's angle a
        normal of `grip_sd_deg` times the shot's grip noise)."""
        if technique.grip == "random":
            return draw.orientation_xyzw
        sc = self.scenario
        base = grip_orientation(sc.dice[0], technique.grip, yaw_rad, sc.shot.release.grip_face)
        turn = np.asarray(draw.z[GRIP_NORMALS], dtype=float) * math.radians(
            skill.grip_sd_deg * sc.shot.noise.grip
        )
        q = np.asarray(quat_mul(rotation_quaternion(turn), base), dtype=float)
        return tuple(float(x) for x in q / norm(q))

    def _release(self, speed, elev_deg, azim_deg, h, hand, u, q, spin_noise, technique: Technique) -> Release:
        """One die's release: launched along `u` turned by `azim_deg`, spun at the technique's spin about
        its axis plus the drawn spin noise, the tumble about the lateral axis held within the shot's spin
        limit."""
        az = math.atan2(u[1], u[0]) + math.radians(azim_deg)
        th = math.radians(elev_deg)
        vel = (speed * math.cos(th) * math.cos(az), speed * math.cos(th) * math.sin(az), speed * math.sin(th))
        # the tumble: forward roll about the horizontal axis perpendicular to the throw
        axis = np.array([-math.sin(az), math.cos(az), 0.0])
        if technique.spin_axis == "side":
            w = np.array([0.0, 0.0, technique.spin_rps * 2 * math.pi]) + spin_noise
        else:
            w = axis * technique.spin_rps * 2 * math.pi + spin_noise
        tumble = dot(w, axis) / (2 * math.pi)  # rev/s about the lateral axis, noise included
        allowed = self.scenario.shot.limits.clip("spin", tumble)
        if allowed != tumble:
            w = w + axis * (allowed - tumble) * 2 * math.pi
        return Release(
            (float(hand[0]), float(hand[1]), float(h)),
            tuple(float(x) for x in vel),
            tuple(float(x) for x in q),
            tuple(float(x) for x in w),
        )


def speed_sd(speed_sd_frac: float, speed_mps: float) -> float:
    """The fractional speed spread at an aimed speed: `speed_sd_frac` at SPEED_ERROR_REF_MPS, growing
    with the speed required (the module's error law)."""
    return speed_sd_frac * (max(speed_mps, 0.05) / SPEED_ERROR_REF_MPS) ** SPEED_ERROR_EXPONENT


def clip_mm(lim, stem: str, value_m: float) -> float:
    """A length in metres clipped into a limit given in mm; unchanged to the bit when inside it."""
    allowed = lim.clip(stem, value_m * 1e3)
    return value_m if allowed == value_m * 1e3 else allowed * 1e-3
