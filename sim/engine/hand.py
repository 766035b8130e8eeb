"""The hand: a shot's release, a thrower's skill and a throw's random draw make one release per die.

Kept apart from the thrower's world because it needs none: the release of a throw is a function of
the shot profile (distance, height, aim, spin), the skill's spreads and biases, the shot's noise
multipliers and limits (what the body allows), the technique (speed, elevation) and the aim point.
The aim solve (sim/engine/aim.py) asks the same hand for its reference releases, with the biases
left out.
"""

from __future__ import annotations

import math

import numpy as np

from sim.engine.release import Release
from sim.seeding import Draw, random_quaternion
from sim.specs.die import quat_mul
from sim.specs.scenario import Scenario
from sim.specs.skill import SkillSpec
from sim.vectors import dot, norm

# releases: lowest hand height, and how further dice of one throw leave the same hand (lateral, up)
MIN_RELEASE_HEIGHT_M = 0.02
EXTRA_DIE_OFFSET_M = (0.02, 0.005)


class Hand:
    """The release model of one scenario: (draw, technique, aim point, skill) -> releases."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario

    def releases(
        self,
        draw: Draw,
        speed: float,
        elev: float,
        aim: tuple[float, float] | None,
        skill: SkillSpec | None = None,
        biased: bool = True,
    ) -> list[Release]:
        """The releases (one per die) of a throw's draw around a technique (speed m/s, elevation deg)
        aimed at `aim` (m; None: straight ahead): the shot's release perturbed by the skill's noise
        (`skill` in place of the scenario's; `biased=False` leaves its biases out, as the aim solve
        does), each drawn component clipped into the shot's limits. Further dice leave the same hand a
        few mm apart with their own orientation."""
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
        speed = lim.clip("speed", max(0.05, speed * (1 + speed_bias + sk.speed_sd_frac * m.speed * z[0])))
        elev = lim.clip("elevation", elev + sk.elevation_sd_deg * m.elevation * z[1])
        azim = rel.azimuth_deg + azimuth_bias + sk.azimuth_sd_deg * m.azimuth * z[2]
        spin_noise = np.array(z[6:9]) * sk.spin_sd_rps * m.spin * 2 * math.pi
        releases = [self._release(speed, elev, azim, h, hand, u, draw.orientation_xyzw, spin_noise)]
        for i in range(1, len(sc.dice)):
            # further dice leave the same hand a few mm apart, each with its own orientation
            q = quat_mul(
                draw.orientation_xyzw,
                random_quaternion(np.random.Generator(np.random.PCG64(int(draw.extra[i] * 2**32)))),
            )
            off = np.array([0.0, EXTRA_DIE_OFFSET_M[0] * i * (-1) ** i])
            releases.append(
                self._release(speed, elev, azim, h + EXTRA_DIE_OFFSET_M[1] * i, hand + off, u, q, spin_noise)
            )
        return releases

    def _release(self, speed, elev_deg, azim_deg, h, hand, u, q, spin_noise, spin_rps=None) -> Release:
        """One die's release: launched along `u` turned by `azim_deg`, tumbling forward at the shot's spin
        plus the drawn spin noise, the tumble held within the shot's spin limit."""
        rel = self.scenario.shot.release
        az = math.atan2(u[1], u[0]) + math.radians(azim_deg)
        th = math.radians(elev_deg)
        vel = (speed * math.cos(th) * math.cos(az), speed * math.cos(th) * math.sin(az), speed * math.sin(th))
        rps = rel.spin_rps if spin_rps is None else spin_rps
        # nominal tumble: forward roll about the horizontal axis perpendicular to the throw
        axis = np.array([-math.sin(az), math.cos(az), 0.0])
        w = axis * rps * 2 * math.pi + spin_noise
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


def clip_mm(lim, stem: str, value_m: float) -> float:
    """A length in metres clipped into a limit given in mm; unchanged to the bit when inside it."""
    allowed = lim.clip(stem, value_m * 1e3)
    return value_m if allowed == value_m * 1e3 else allowed * 1e-3
