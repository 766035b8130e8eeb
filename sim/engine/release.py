"""Releases: the exact initial state of a thrown die, with a JSON form that replays to the bit."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np

from sim.errors import DuplicateKey, SpecError
from sim.specs.datafiles import loads_json
from sim.vectors import norm

# what a hand can do: within 5 m of the board centre, 50 m/s, 1000 rad/s (a fast flick is ~100 rad/s)
LIMITS = {"position_mm": 5000.0, "velocity_mps": 50.0, "orientation_xyzw": 1e6, "spin_radps": 1000.0}


@dataclass(frozen=True)
class Release:
    """Initial state of one die (SI units, board frame)."""

    position_m: tuple[float, ...]
    velocity_mps: tuple[float, ...]
    orientation_xyzw: tuple[float, ...]
    spin_radps: tuple[float, ...]

    def __post_init__(self) -> None:
        # Positions live on a 1 nm grid so that the millimetre form in JSON round-trips to the bit
        # (`dfsim throw --release` replays a recorded throw exactly).
        object.__setattr__(self, "position_m", tuple(_nm_grid(v) for v in self.position_m))

    def to_json(self) -> dict:
        """The release in record units (position in mm, velocity in m/s, spin in rad/s) for output and
        --release."""
        return {
            "position_mm": [_mm(v) for v in self.position_m],
            "velocity_mps": list(self.velocity_mps),
            "orientation_xyzw": list(self.orientation_xyzw),
            "spin_radps": list(self.spin_radps),
        }

    @classmethod
    def from_json(cls, data: dict | str, source: str = "--release") -> Release:
        """Parse a --release JSON object (mm, m/s, xyzw, rad/s), validating every key; bad input raises
        SpecError. Position is rounded to 1 nm and the quaternion normalised, so a printed release
        replays exactly."""
        if isinstance(data, str):
            try:
                data = loads_json(data)
            except json.JSONDecodeError as exc:
                raise SpecError(source, "", f"not valid JSON ({exc.msg})") from None
            except DuplicateKey as exc:
                raise SpecError(
                    source, exc.key, "is given twice (which value is meant?); give it once"
                ) from None
            except ValueError as exc:  # NaN or Infinity, which JSON does not have
                raise SpecError(source, "", f"not valid JSON ({exc})") from None
            except RecursionError:
                raise SpecError(
                    source, "", "JSON nested too deeply (a release is one flat object of lists)"
                ) from None
        if not isinstance(data, dict):
            raise SpecError(source, "", "expected a JSON object")
        need = {"position_mm": 3, "velocity_mps": 3, "orientation_xyzw": 4, "spin_radps": 3}
        extra = set(data) - set(need)
        if extra:
            raise SpecError(source, sorted(extra)[0], f"unknown key (keys: {', '.join(need)})")
        # every key is required: a release with a key left out is a typo, not a die at rest
        missing = [k for k in need if k not in data]
        vals = {}
        for k, n in need.items():
            if k in missing:
                raise SpecError(source, k, f"is required (missing: {', '.join(missing)})")
            v = data[k]
            if not isinstance(v, list) or len(v) != n or not all(_is_number(t) for t in v):
                raise SpecError(source, k, f"must be a list of {n} numbers (not true/false, text or null)")
            if not all(math.isfinite(t) for t in v):
                raise SpecError(source, k, "must be finite")
            if max(abs(t) for t in v) > LIMITS[k]:
                raise SpecError(source, k, f"each value must lie within +-{LIMITS[k]:g}")
            vals[k] = tuple(float(t) for t in v)
        q = np.array(vals["orientation_xyzw"])
        if norm(q) < 1e-9:
            raise SpecError(source, "orientation_xyzw", "quaternion has zero length")
        q = q / norm(q)
        return cls(
            tuple(round(v * 1e6) / 1e9 for v in vals["position_mm"]),
            vals["velocity_mps"],
            tuple(float(t) for t in q),
            vals["spin_radps"],
        )


def _is_number(value: object) -> bool:
    """A JSON number: an int or a float, but not a boolean (Python's True is the int 1)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _nm_grid(v_m: float) -> float:
    return round(float(v_m) * 1e9) / 1e9


def _mm(v_m: float) -> float:
    return round(float(v_m) * 1e9) / 1e6


def check_release_position(release: Release, scenario, source: str = "--release") -> None:
    """A release must start with the die clear of the table and of the board: its centre at least its
    inradius above the table top (z = 0), and over the board's cardboard at least its inradius above the
    board top. A die started inside either is not a throw (the engine would push it out or blow up);
    bad input raises SpecError naming `position_mm` and the allowed range. `dfsim throw --release`
    checks it here, before any world is built."""
    die = scenario.dice[0]
    x, y, z = release.position_m
    r_mm = die.inradius_m * 1e3
    z_mm = z * 1e3
    if z_mm < r_mm:
        raise SpecError(
            source,
            "position_mm",
            f"z = {z_mm:g} mm puts die '{die.name}' into the table: its centre "
            f"must be at least its inradius above the table top (z >= {r_mm:.3g} mm)",
        )
    board = scenario.board
    if board is None:
        return
    top_mm = board.thickness_m * 1e3
    xy = np.array([[x, y]])
    if bool(board.on_board(xy)[0]) and not bool(board.in_hole(xy)[0]) and z_mm < top_mm + r_mm:
        raise SpecError(
            source,
            "position_mm",
            f"z = {z_mm:g} mm over board '{board.name}' at ({x * 1e3:g}, {y * 1e3:g}) mm puts die "
            f"'{die.name}' inside the board: over the board its centre must be at least its inradius above "
            f"the board top (z >= {top_mm + r_mm:.3g} mm; board top {top_mm:g} mm)",
        )
