"""Releases: the exact initial state of a thrown die, and how one is drawn from a seed.

Throw k of a run draws from `SeedSequence(root_seed, spawn_key=(k, stream))` only, so its release
never depends on worker count or chunk order. Draws are standard normals in a fixed layout, scaled
afterwards by skill and shot: the same k gives the same underlying draw in every variant (common
random numbers), which makes variant comparisons paired.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np

from .errors import SpecError

STREAM_RELEASE = 0
STREAM_TEMPLATES = 1
STREAM_PROPS = 2
N_NORMALS = 16  # fixed layout: 0 speed, 1 elevation, 2 azimuth, 3 height, 4 lateral, 5 distance, 6-8 spin


def rng_for(root_seed: int, index: int, stream: int = STREAM_RELEASE) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(int(root_seed), spawn_key=(int(index), stream))))


@dataclass(frozen=True)
class Release:
    """Initial state of one die (SI units, board frame)."""

    position_m: tuple[float, float, float]
    velocity_mps: tuple[float, float, float]
    orientation_xyzw: tuple[float, float, float, float]
    spin_radps: tuple[float, float, float]

    def __post_init__(self) -> None:
        # Positions live on a 1 nm grid so that the millimetre form in JSON round-trips to the bit
        # (`dfsim throw --release` replays a recorded throw exactly).
        object.__setattr__(self, "position_m", tuple(_nm_grid(v) for v in self.position_m))

    def to_json(self) -> dict:
        return {
            "position_mm": [_mm(v) for v in self.position_m],
            "velocity_mps": list(self.velocity_mps),
            "orientation_xyzw": list(self.orientation_xyzw),
            "spin_radps": list(self.spin_radps),
        }

    @classmethod
    def from_json(cls, data: dict | str, source: str = "--release") -> Release:
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as exc:
                raise SpecError(source, "", f"not valid JSON ({exc.msg})") from None
        if not isinstance(data, dict):
            raise SpecError(source, "", "expected a JSON object")
        need = {"position_mm": 3, "velocity_mps": 3, "orientation_xyzw": 4, "spin_radps": 3}
        extra = set(data) - set(need)
        if extra:
            raise SpecError(source, sorted(extra)[0], "unknown key")
        vals = {}
        for k, n in need.items():
            v = data.get(k, [0, 0, 0, 1] if k == "orientation_xyzw" else [0, 0, 0] if k != "position_mm" else None)
            if v is None:
                raise SpecError(source, k, "is required")
            if not isinstance(v, list) or len(v) != n or not all(isinstance(t, (int, float)) for t in v):
                raise SpecError(source, k, f"must be a list of {n} numbers")
            if not all(math.isfinite(t) for t in v):
                raise SpecError(source, k, "must be finite")
            vals[k] = tuple(float(t) for t in v)
        q = np.array(vals["orientation_xyzw"])
        if np.linalg.norm(q) < 1e-9:
            raise SpecError(source, "orientation_xyzw", "quaternion has zero length")
        q = q / np.linalg.norm(q)
        return cls(
            tuple(round(v * 1e6) / 1e9 for v in vals["position_mm"]),
            vals["velocity_mps"],
            tuple(float(t) for t in q),
            vals["spin_radps"],
        )


def _nm_grid(v_m: float) -> float:
    return round(float(v_m) * 1e9) / 1e9


def _mm(v_m: float) -> float:
    return round(float(v_m) * 1e9) / 1e6


def random_quaternion(rng: np.random.Generator) -> tuple[float, float, float, float]:
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
    orientation_xyzw: tuple[float, float, float, float]
    extra: np.ndarray  # further uniforms for multi-die throws and props

    @classmethod
    def for_throw(cls, root_seed: int, index: int) -> Draw:
        rng = rng_for(root_seed, index, STREAM_RELEASE)
        z = rng.standard_normal(N_NORMALS)
        q = random_quaternion(rng)
        extra = rng.random(16)
        return cls(z, q, extra)
