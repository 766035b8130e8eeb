"""Random streams: every random draw of a run comes from (root seed, throw index, stream) only.

Throw k of a run draws from `SeedSequence(root_seed, spawn_key=(k, stream))`, so its release never
depends on worker count or chunk order. Draws are standard normals in a fixed layout, scaled afterwards
by skill and shot: the same k gives the same underlying draw in every variant (common random numbers),
which makes variant comparisons paired.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

STREAM_RELEASE = 0
STREAM_TEMPLATES = 1
STREAM_PROPS = 2
STREAM_FLIP_BANK = 3  # which entry of a flip bank a throw's templates are taken from
N_NORMALS = 16  # fixed layout: 0 speed, 1 elevation, 2 azimuth, 3 height, 4 lateral, 5 distance, 6-8 spin


def rng_for(root_seed: int, index: int, stream: int = STREAM_RELEASE) -> np.random.Generator:
    """The generator of one stream of one throw."""
    return np.random.Generator(
        np.random.PCG64(np.random.SeedSequence(int(root_seed), spawn_key=(int(index), stream)))
    )


def random_quaternion(rng: np.random.Generator) -> tuple[float, ...]:
    """Uniform random rotation (Shoemake)."""
    u1, u2, u3 = rng.random(3)
    a, b = math.sqrt(1 - u1), math.sqrt(u1)
    return (
        a * math.sin(2 * math.pi * u2),
        a * math.cos(2 * math.pi * u2),
        b * math.sin(2 * math.pi * u3),
        b * math.cos(2 * math.pi * u3),
    )


@dataclass(frozen=True)
class Draw:
    """The random part of one throw: normals in a fixed layout plus a uniform orientation."""

    z: np.ndarray
    orientation_xyzw: tuple[float, ...]
    extra: np.ndarray  # further uniforms for multi-die throws and props

    @classmethod
    def for_throw(cls, root_seed: int, index: int) -> Draw:
        """The draw of throw `index` of `root_seed`: from its own stream, so it depends only on (seed,
        index)."""
        rng = rng_for(root_seed, index, STREAM_RELEASE)
        z = rng.standard_normal(N_NORMALS)
        q = random_quaternion(rng)
        extra = rng.random(16)
        return cls(z, q, extra)
