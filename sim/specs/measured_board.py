"""A board written from measurements: what a user reads off their own board with a ruler (or off a
photo), turned into a board file.

A board file wants everything in the board frame: origin at the board centre, +x toward the far side
of the board from the thrower, angles counter-clockwise from +x. Measurements are not taken that way:
one lays the board on squared paper, or reads pixels off a photo, and gets coordinates in some other
frame. A measurement file therefore says where the centre is and which way the board's +x axis
points in the measuring frame (and whether that frame's y axis points down, as a photo's rows do), then
lists what was measured in that frame: ring radii with the values of their sectors, hole centres and
radii, bone polygons, and any free-shaped section as a polygon. `board_from_measurements` moves all of
it into the board frame and validates the result as an ordinary board.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import Field, model_validator

from sim.errors import FieldError, SpecError
from sim.specs.base import MAX_BOARD_MM, Angle, Length, Name, Spec
from sim.specs.board import MAX_REGIONS, BoardSpec
from sim.specs.geometry import MAX_POINTS

Point = tuple[Length, Length]
MAX_SECTORS = 72  # sectors of one ring
SectionValue = Annotated[int, Field(ge=-1000, le=1000)]  # as a board section's value


class Ring(Spec):
    """A scoring ring between two radii around the centre, cut into equal sectors counter-clockwise from
    `start_deg` (in the board frame); one value per sector. A disc (the bullseye) has r_inner_mm = 0."""

    r_inner_mm: float = Field(default=0.0, ge=0, le=MAX_BOARD_MM)
    r_outer_mm: float = Field(gt=0, le=MAX_BOARD_MM)
    values: list[SectionValue] = Field(min_length=1, max_length=MAX_SECTORS)
    start_deg: Angle = 0.0
    bullseye: bool = False
    id: str = Field(default="", max_length=100)  # sector ids: "<id>-<k>" (default "r<outer radius>")

    @model_validator(mode="after")
    def _check(self) -> Ring:
        if self.r_inner_mm >= self.r_outer_mm:
            raise FieldError("r_inner_mm", "must be smaller than r_outer_mm")
        return self


class MeasuredHole(Spec):
    """A round hole: its centre in the measuring frame and its radius (or diameter)."""

    id: str = Field(default="", max_length=200)
    center_mm: Point
    radius_mm: float | None = Field(default=None, gt=0, le=MAX_BOARD_MM)
    diameter_mm: float | None = Field(default=None, gt=0, le=2 * MAX_BOARD_MM)

    @model_validator(mode="after")
    def _size(self) -> MeasuredHole:
        if (self.radius_mm is None) == (self.diameter_mm is None):
            raise FieldError("radius_mm", "give one of radius_mm and diameter_mm")
        return self

    @property
    def radius(self) -> float:
        return self.radius_mm if self.radius_mm is not None else 0.5 * self.diameter_mm


class MeasuredPolygon(Spec):
    """Printed bones (or a free-shaped section, with a value) traced as corner points in the measuring
    frame."""

    id: str = Field(default="", max_length=200)
    value: int | None = Field(default=None, ge=-1000, le=1000)  # sections only
    points_mm: list[Point] = Field(min_length=3, max_length=MAX_POINTS)


class MeasuredBoard(Spec):
    """A measurement file (docs/data-files.md, Measured boards)."""

    name: Name
    notes: str = ""
    thickness_mm: float = Field(gt=0, le=50)
    material: str = Field(default="cardboard", min_length=1, max_length=200)
    table_material: str = Field(default="wood", min_length=1, max_length=200)
    center_mm: Point  # the board centre in the measuring frame
    x_axis_deg: Angle = 0.0  # direction of the board's +x axis, in the measuring frame
    y_down: bool = False  # the measuring frame's y axis points down (rows of a photo, a page read top down)
    outline_radius_mm: float | None = Field(default=None, gt=0, le=MAX_BOARD_MM)
    outline_points_mm: list[Point] | None = Field(default=None, min_length=3, max_length=MAX_POINTS)
    rings: list[Ring] = Field(default_factory=list, max_length=MAX_REGIONS)
    sections: list[MeasuredPolygon] = Field(
        default_factory=list, max_length=MAX_REGIONS
    )  # painted over rings
    holes: list[MeasuredHole] = Field(default_factory=list, max_length=MAX_REGIONS)
    bones: list[MeasuredPolygon] = Field(default_factory=list, max_length=MAX_REGIONS)

    @model_validator(mode="after")
    def _check(self) -> MeasuredBoard:
        if (self.outline_radius_mm is None) == (self.outline_points_mm is None):
            raise FieldError(
                "outline_radius_mm", "give one of outline_radius_mm (a round board) and outline_points_mm"
            )
        if not self.rings and not self.sections:
            raise FieldError("rings", "a board needs at least one ring or section")
        for i, s in enumerate(self.sections):
            if s.value is None:
                raise FieldError(f"sections.{i}.value", "a section needs a value")
        for i, b in enumerate(self.bones):
            if b.value is not None:
                raise FieldError(f"bones.{i}.value", "bones have no value (a die resting on them misses)")
        if sum(len(r.values) for r in self.rings) + len(self.sections) > MAX_REGIONS:
            raise FieldError("rings", f"at most {MAX_REGIONS} sections in all")
        return self

    def to_board(self, p: tuple[float, float]) -> tuple[float, float]:
        """A point of the measuring frame in the board frame (mm, rounded to 0.01 mm)."""
        dx, dy = p[0] - self.center_mm[0], p[1] - self.center_mm[1]
        if self.y_down:
            dy = -dy
        a = math.radians(self.x_axis_deg if not self.y_down else -self.x_axis_deg)
        x = dx * math.cos(a) + dy * math.sin(a)
        y = -dx * math.sin(a) + dy * math.cos(a)
        return (round(x, 2) + 0.0, round(y, 2) + 0.0)


def board_table(m: MeasuredBoard) -> dict[str, Any]:
    """The board file's table for a measurement file (board frame, mm)."""
    outline: dict[str, Any]
    if m.outline_radius_mm is not None:
        outline = {"shape": "circle", "radius_mm": m.outline_radius_mm}
    else:
        outline = {"shape": "polygon", "points_mm": [list(m.to_board(p)) for p in m.outline_points_mm]}
    sections: list[dict[str, Any]] = []
    for r in m.rings:
        rid = r.id or f"r{r.r_outer_mm:g}"
        n = len(r.values)
        for k, v in enumerate(r.values):
            shape: dict[str, Any] = (
                {"kind": "circle", "radius_mm": r.r_outer_mm}
                if r.r_inner_mm == 0
                else {"kind": "annulus", "r_inner_mm": r.r_inner_mm, "r_outer_mm": r.r_outer_mm}
            )
            if n > 1:
                shape |= {
                    "start_deg": round(r.start_deg + 360.0 * k / n, 4),
                    "end_deg": round(r.start_deg + 360.0 * (k + 1) / n, 4),
                }
            sid = rid if n == 1 else f"{rid}-{k}"
            sections.append(
                {"id": sid, "value": v, **({"bullseye": True} if r.bullseye else {}), "shape": shape}
            )
    for i, s in enumerate(m.sections):
        sections.append(
            {
                "id": s.id or f"section-{i}",
                "value": s.value,
                "shape": {"kind": "polygon", "points_mm": [list(m.to_board(p)) for p in s.points_mm]},
            }
        )
    holes = [
        {
            "id": h.id or f"hole-{i + 1}",
            "shape": {"kind": "circle", "center_mm": list(m.to_board(h.center_mm)), "radius_mm": h.radius},
        }
        for i, h in enumerate(m.holes)
    ]
    bones = [
        {
            "id": b.id or f"bones-{i + 1}",
            "shape": {"kind": "polygon", "points_mm": [list(m.to_board(p)) for p in b.points_mm]},
        }
        for i, b in enumerate(m.bones)
    ]
    table: dict[str, Any] = {
        "name": m.name,
        "estimated": False,
        "notes": m.notes or "Written from measurements (dfsim board-from-measurements).",
        "thickness_mm": m.thickness_mm,
        "material": m.material,
        "table_material": m.table_material,
        "outline": outline,
        "sections": sections,
    }
    if holes:
        table["holes"] = holes
    if bones:
        table["bones"] = bones
    return table


def board_from_measurements(
    data: dict[str, Any], source: str = "<measurements>"
) -> tuple[BoardSpec, dict[str, Any]]:
    """Validate a measurement table and build its board: (the validated BoardSpec, the board file's table).
    A problem in the measurements raises SpecError naming their field; a board they describe that is not
    a valid board (a hole outside the outline, no room to land) names the board field and says so."""
    data = {k: v for k, v in data.items() if not (k == "kind" and v == "measured-board")}
    m = MeasuredBoard.from_dict(data, source)
    table = board_table(m)
    try:
        board = BoardSpec.from_dict(table, source)
    except SpecError as exc:
        raise SpecError(
            source, "", f"the board these measurements describe is not valid: {exc.field}: {exc.problem}"
        ) from None
    return board, table


def toml_text(table: dict[str, Any], header: str = "") -> str:
    """A board table as TOML text: top-level keys, then [[sections]], [[holes]] and [[bones]] entries."""
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    arrays = {k: v for k, v in table.items() if isinstance(v, list) and v and isinstance(v[0], dict)}
    for k, v in table.items():
        if k not in arrays:
            lines.append(f"{k} = {_value(v)}")
    for k, items in arrays.items():
        for item in items:
            lines += ["", f"[[{k}]]"] + [f"{ik} = {_value(iv)}" for ik, iv in item.items()]
    return "\n".join(lines) + "\n"


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else "nan"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")
