"""Do throws come to rest where they should? The not-settled matrix: for a set of die shapes, free rolls
on the open table and standard throws at the magma board, how many end `not-settled` or `diverged`
(voids, counted, never dropped) and how far below its true resting height any die ends up.

Used by `dfsim validate` (sim.studies.validation) and studies/not_settled.py.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field

import numpy as np
import shapely

from sim.specs.die import DieSpec, quat_to_matrix
from sim.vectors import matmul

DENSITY_G_MM3 = 1.19e-3  # acrylic
CUBOID_SIDE_MM = 14.0
CUBOID_RATIOS = (0.5, 0.75, 1.0, 1.5, 2.0, 2.5)
EDGE_CLEARANCE_M = 0.0003  # a point this close to the board's edge may rest against its edge wall


@dataclass(frozen=True)
class DieCase:
    """One die of the matrix: a built-in die, or one built from it by overrides."""

    label: str
    base: str
    overrides: dict = field(default_factory=dict)


def die_matrix() -> list[DieCase]:
    """d4, d6, d8, d12 (built-in files), cuboids of x/y from 0.5 to 2.5 (14 mm square in y-z, 1 mm edge
    radius, acrylic) and a 20 x 6 mm cylinder with sharp rims."""
    out = [DieCase(n, n) for n in ("d4", "d6", "d8", "d12")]
    a = CUBOID_SIDE_MM
    for r in CUBOID_RATIOS:
        dims = [round(r * a, 3), a, a]
        out.append(
            DieCase(
                f"cuboid x/y={r:g}",
                "d6",
                {
                    "die.shape": "cuboid",
                    "die.size_mm": None,
                    "die.dims_mm": dims,
                    "die.edge_radius_mm": 1.0,
                    "die.mass_g": round(dims[0] * dims[1] * dims[2] * DENSITY_G_MM3, 3),
                },
            )
        )
    out.append(cylinder_case(10.0, 6.0))
    return out


def cylinder_case(radius_mm: float, height_mm: float) -> DieCase:
    """A sharp-rimmed acrylic cylinder (faces: top, bottom) built from the d6 file."""
    return DieCase(
        f"cylinder d={2 * radius_mm:g} h={height_mm:g}",
        "d6",
        {
            "die.shape": "cylinder",
            "die.size_mm": None,
            "die.radius_mm": radius_mm,
            "die.height_mm": height_mm,
            "die.edge_radius_mm": 0.0,
            "die.mass_g": round(math.pi * radius_mm * radius_mm * height_mm * DENSITY_G_MM3, 3),
            "die.faces": ["top", "bottom"],
            "die.icon_labels": [],
        },
    )


def sink_mm(die: DieSpec, board, position_mm, orientation_xyzw) -> float:
    """How far (mm) the die's lowest point ends below the surface under it, 0 if it does not: the table
    at z = 0, or the board's top where the point lies over cardboard more than 0.3 mm from its edge (a
    die leaning on the board's edge rests against its edge wall)."""
    pts = matmul(die.collision_points_m, quat_to_matrix(orientation_xyzw).T) + np.asarray(position_mm) * 1e-3
    top = np.zeros(len(pts))
    if board is not None:
        inside = shapely.contains_xy(board.surface.buffer(-EDGE_CLEARANCE_M), pts[:, 0], pts[:, 1])
        top = np.where(inside, board.thickness_m, 0.0)
    return max(0.0, float(-(pts[:, 2] - top).min()) * 1e3)


@dataclass
class SettleCell:
    """The counts of one (die, shot) cell."""

    die: str
    shot: str
    n: int
    seed: int
    rest: int = 0
    not_settled: int = 0
    diverged: int = 0
    sunk_over_half_mm: int = 0
    max_sink_mm: float = 0.0
    examples: list[int] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def void(self) -> int:
        return self.not_settled + self.diverged

    def to_json(self) -> dict:
        """The counts as a plain dict, with the void total."""
        return asdict(self) | {"void": self.void}


def settle_cell(
    case: DieCase, shot: str, n: int, seed: int, nominal: tuple[float, float] | None = None
) -> SettleCell:
    """Throw `n` times (seed, 0..n-1) with the casual skill and count how every throw ended. `nominal`
    gives the thrower an aimed release instead of solving one (quick runs)."""
    from sim.engine.worlds import thrower_for
    from sim.specs.scenario import Scenario

    t0 = time.perf_counter()
    sc = Scenario.build(
        board="magma", dice=[case.base], shots=[shot], skill="casual", overrides=dict(case.overrides)
    )
    th = thrower_for(sc)
    if nominal is not None:
        th.set_nominal(nominal)
    die = sc.dice[0]
    cell = SettleCell(case.label, shot, n, seed)
    for k in range(n):
        o = th.throw(seed, k).outcome
        if o.reason == "diverged":
            cell.diverged += 1
        elif o.reason == "not-settled":
            cell.not_settled += 1
        else:
            cell.rest += 1
        if o.reason in ("diverged", "not-settled") and len(cell.examples) < 5:
            cell.examples.append(k)
        if o.reason != "diverged":
            s = sink_mm(die, sc.board, o.position_mm, o.orientation_xyzw)
            cell.max_sink_mm = max(cell.max_sink_mm, round(s, 3))
            cell.sunk_over_half_mm += s > 0.5
    cell.seconds = round(time.perf_counter() - t0, 1)
    return cell


def wilson_interval(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion k/n (95 % for z = 1.96)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    c = p + z * z / (2 * n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, (c - h) / d), min(1.0, (c + h) / d)


def markdown_table(cells: list[SettleCell]) -> str:
    """The matrix as a markdown table (void % with the upper end of its 95 % Wilson interval)."""
    lines = [
        "| die | shot | N | rest | not-settled | diverged | void % (95 % upper) | sunk > 0.5 mm | max sink "
        "(mm) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c in cells:
        hi = wilson_interval(c.void, c.n)[1]
        lines.append(
            f"| {c.die} | {c.shot} | {c.n} | {c.rest} | {c.not_settled} | {c.diverged} | "
            f"{100 * c.void / c.n:.2f} ({100 * hi:.2f}) | {c.sunk_over_half_mm} | {c.max_sink_mm:.2f} |"
        )
    return "\n".join(lines) + "\n"
