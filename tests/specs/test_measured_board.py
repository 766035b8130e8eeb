"""Measured boards: measurements in any frame become a board in the board frame, validated as a board."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from sim.errors import SpecError
from sim.specs.board import load_board
from sim.specs.datafiles import read_toml
from sim.specs.measured_board import board_from_measurements, toml_text

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "measured-board"


def _measuring_frame(center, x_axis_deg, y_down):
    """board frame (mm) -> the measuring frame: the inverse of MeasuredBoard.to_board."""
    a = math.radians(x_axis_deg if not y_down else -x_axis_deg)

    def f(p):
        x, y = p
        dx, dy = x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)
        return [center[0] + dx, center[1] + (-dy if y_down else dy)]
    return f


@pytest.mark.parametrize("center, x_axis_deg, y_down", [((0.0, 0.0), 0.0, False), ((412.5, 380.0), 90.0, False),
                                                        ((640.0, 300.0), 33.0, True)])
def test_magma_measured_in_another_frame_is_magma(center, x_axis_deg, y_down):
    magma = load_board("magma")
    to_m = _measuring_frame(center, x_axis_deg, y_down)
    rings = []
    for r_in, r_out, prefix in ((0, 25, "bullseye"), (25, 115, "r115"), (115, 195, "r195"), (195, 280, "r280")):
        vals = [s.value for s in magma.sections if s.id.startswith(prefix)]
        rings.append({"r_inner_mm": float(r_in), "r_outer_mm": float(r_out), "values": vals, "bullseye": r_in == 0})
    holes = [{"center_mm": to_m(h.shape.center_mm), "radius_mm": h.shape.radius_mm} for h in magma.holes]
    bones = [{"points_mm": [to_m((x * 1e3, y * 1e3)) for x, y in list(b.shape.geometry().exterior.coords)[:-1]]}
             for b in magma.bones]
    data = {"kind": "measured-board", "name": "magma-measured", "thickness_mm": 2.0, "center_mm": to_m((0.0, 0.0)),
            "x_axis_deg": x_axis_deg, "y_down": y_down, "outline_radius_mm": 280.0, "rings": rings,
            "holes": holes, "bones": bones}
    board, table = board_from_measurements(data, "m.toml")
    rng = np.random.default_rng(3)
    r, t = 0.28 * np.sqrt(rng.uniform(0, 1, 3000)), rng.uniform(0, 2 * np.pi, 3000)
    pts = np.column_stack([r * np.cos(t), r * np.sin(t)])
    got = [(g.kind, g.value) for g in board.regions_at(pts)]
    want = [(g.kind, g.value) for g in magma.regions_at(pts)]
    assert sum(a != b for a, b in zip(got, want)) <= 2  # only points within 0.01 mm (rounding) of an edge
    assert {"hole", "bones", "section"} <= {k for k, _ in got}
    # the written file reads back as the same board
    import tomllib

    again = load_board_table(tomllib.loads(toml_text(table)))
    assert again.model_dump() == board.model_dump()


def load_board_table(table):
    from sim.specs.board import BoardSpec

    return BoardSpec.from_dict(table, "again.toml")


def test_shipped_example_is_its_measurements():
    board, table = board_from_measurements(read_toml(EXAMPLE / "measurements.toml"), "measurements.toml")
    shipped = load_board(EXAMPLE / "board.toml")
    assert shipped.model_dump() == board.model_dump()
    assert len(board.holes) == 4 and len(board.bones) == 3 and any(s.bullseye for s in board.sections)


BASE = {"name": "b", "thickness_mm": 2.0, "center_mm": [100.0, 100.0], "outline_radius_mm": 200.0,
        "rings": [{"r_outer_mm": 30.0, "values": [10], "bullseye": True},
                  {"r_inner_mm": 30.0, "r_outer_mm": 200.0, "values": [1, 2]}]}


@pytest.mark.parametrize("change, field, words", [
    ({"outline_points_mm": [[0, 0], [1, 0], [0, 1]]}, "outline_radius_mm", "one of"),
    ({"rings": []}, "rings", "at least one"),
    ({"rings": [{"r_inner_mm": 50.0, "r_outer_mm": 40.0, "values": [1]}]}, "rings.0.r_inner_mm", "smaller"),
    ({"holes": [{"center_mm": [100.0, 100.0]}]}, "holes.0.radius_mm", "one of"),
    ({"holes": [{"center_mm": [290.0, 100.0], "radius_mm": 20.0}]}, "", "holes.0.shape"),
    ({"bones": [{"points_mm": [[0, 0], [1, 1]]}]}, "bones.0.points_mm", ""),
    ({"sections": [{"points_mm": [[0, 0], [10, 0], [0, 10]]}]}, "sections.0.value", "needs a value"),
    ({"centre_mm": [1.0, 2.0]}, "centre_mm", "unknown"),
])
def test_bad_measurements_name_the_field(change, field, words):
    with pytest.raises(SpecError) as e:
        board_from_measurements({**BASE, **change}, "m.toml")
    assert e.value.field == field and words in str(e.value), str(e.value)
