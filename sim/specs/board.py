"""The target board: outline, scoring sections, real holes and printed bones, as plain geometry.

Geometry queries live here (not in the physics) so the classifier can ask "what is under this
point" without PyBullet. Regions are layered: later sections paint over earlier ones; bones paint
over sections and holes over everything.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np
import shapely
from pydantic import Field, model_validator
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from sim.errors import FieldError
from sim.specs.base import MAX_BOARD_MM, Name, Place, Spec
from sim.specs.geometry import MAX_POINTS, MM, Circle, PolygonShape, Shape, contains_points

LANDING_MARGIN_MM = 15.0  # the board must have room for a die: a point this far from every edge and hole
MAX_REGIONS = 200  # sections, holes and bones, each


class Outline(Spec):
    """The board's outer edge: a circle (radius_mm) or a simple polygon (points_mm), board frame."""

    shape: Literal["circle", "polygon"]
    radius_mm: float | None = Field(default=None, gt=0, le=MAX_BOARD_MM)
    points_mm: list[tuple[Place, Place]] | None = Field(default=None, max_length=MAX_POINTS)

    @model_validator(mode="after")
    def _check(self) -> Outline:
        if self.shape == "circle" and self.radius_mm is None:
            raise FieldError("radius_mm", "radius_mm is required for a circle outline")
        if self.shape == "polygon":
            if not self.points_mm:
                raise FieldError("points_mm", "points_mm is required for a polygon outline")
            PolygonShape(kind="polygon", points_mm=self.points_mm)
            if max(math.hypot(x, y) for x, y in self.points_mm) > MAX_BOARD_MM:
                raise FieldError(
                    "points_mm", f"the outline reaches farther than {MAX_BOARD_MM:g} mm from the centre"
                )
        return self

    def geometry(self) -> BaseGeometry:
        """The outline as a shapely geometry in metres, board frame."""
        if self.shape == "circle":
            return Circle(kind="circle", radius_mm=self.radius_mm).geometry()
        return PolygonShape(kind="polygon", points_mm=self.points_mm).geometry()


class SectionSpec(Spec):
    """A scoring section: its printed value (damage on a hit) and whether it is the bullseye."""

    id: str = Field(min_length=1, max_length=200)
    value: int = Field(ge=-1000, le=1000)
    bullseye: bool = False
    shape: Shape


class HoleSpec(Spec):
    """A real cut-out hole: a die that falls through it misses."""

    id: str = Field(default="", max_length=200)
    shape: Shape


class BonesSpec(Spec):
    """Printed bones: a die resting on them misses."""

    id: str = Field(default="", max_length=200)
    shape: Shape


@dataclass(frozen=True)
class Region:
    """What lies under a point: a scoring section, printed bones, a hole, or nothing (off the board)."""

    kind: Literal["section", "bones", "hole", "off"]
    id: str
    value: int = 0
    bullseye: bool = False

    @property
    def rank(self) -> tuple[int, int]:
        """Order for the 'tie goes to the lower value' rule: off < hole < bones < sections by value."""
        order = {"off": 0, "hole": 1, "bones": 2, "section": 3}[self.kind]
        return (order, self.value if self.kind == "section" else 0)


OFF = Region("off", "off")


class BoardSpec(Spec):
    """A board data file: thickness (mm), materials, outline, sections, holes and bones; validated so holes
    lie inside the outline, section ids are unique and a die has room to land."""

    name: Name
    estimated: bool = False
    notes: str = ""
    thickness_mm: float = Field(gt=0, le=50)
    material: str = Field(default="cardboard", min_length=1, max_length=200)
    table_material: str = Field(default="wood", min_length=1, max_length=200)
    outline: Outline
    sections: list[SectionSpec] = Field(min_length=1, max_length=MAX_REGIONS)
    holes: list[HoleSpec] = Field(default_factory=list, max_length=MAX_REGIONS)
    bones: list[BonesSpec] = Field(default_factory=list, max_length=MAX_REGIONS)

    @model_validator(mode="after")
    def _inside(self) -> BoardSpec:
        out = self.outline.geometry()
        for i, h in enumerate(self.holes):
            g = h.shape.geometry()
            if not out.buffer(1e-9).contains(g):
                raise FieldError(f"holes.{i}.shape", "hole lies (partly) outside the board outline")
        for i, s in enumerate(self.sections):
            if not out.intersects(s.shape.geometry()):
                raise FieldError(
                    f"sections.{i}.shape", f"section '{s.id}' lies entirely outside the board outline"
                )
        dup = sorted(i for i, n in Counter(s.id for s in self.sections).items() if n > 1)
        if dup:
            raise FieldError("sections", f"duplicate section id '{dup[0]}'")
        if self.surface.buffer(-LANDING_MARGIN_MM * MM).is_empty:
            raise FieldError(
                "holes" if self.holes else "outline",
                f"no room to land a die: no point of the board is {LANDING_MARGIN_MM:g} mm from every edge "
                "and hole",
            )
        return self

    # ---- geometry (metres) ----
    @property
    def thickness_m(self) -> float:
        return self.thickness_mm * MM

    @cached_property
    def outline_geom(self) -> BaseGeometry:
        return self.outline.geometry()

    @cached_property
    def hole_geoms(self) -> list[BaseGeometry]:
        return [h.shape.geometry() for h in self.holes]

    @cached_property
    def surface(self) -> Polygon:
        """The cardboard itself: outline minus the cut-out holes (what the physics builds)."""
        return self.outline_geom.difference(unary_union(self.hole_geoms)) if self.holes else self.outline_geom

    @cached_property
    def _layers(self) -> list[tuple[BaseGeometry, Region]]:
        layers = [(s.shape.geometry(), Region("section", s.id, s.value, s.bullseye)) for s in self.sections]
        layers += [
            (b.shape.geometry(), Region("bones", b.id or f"bones-{i}")) for i, b in enumerate(self.bones)
        ]
        layers += [
            (g, Region("hole", h.id or f"hole-{i}"))
            for i, (g, h) in enumerate(zip(self.hole_geoms, self.holes))
        ]
        return layers

    def regions_at(self, xy_m: np.ndarray, ignore: tuple[str, ...] = ()) -> list[Region]:
        """Region under each point (metres, board frame); painter's order, last layer wins.

        `ignore` leaves out layers of those kinds ("hole", "bones"): what lies under them, which is
        what the house rules that count a hole or the bones as a section ask for."""
        xy = np.asarray(xy_m, dtype=float).reshape(-1, 2)
        result = [OFF] * len(xy)
        pts = shapely.points(xy[:, 0], xy[:, 1])
        on = shapely.covers(self._prepared(self.outline_geom), pts)
        if not on.any():
            return result
        # a layer can cover only points inside its bounding box (bounds included): the exact test is
        # asked of the few layers near the points, not of every section (a throw is read many times)
        b = self._layer_bounds
        x, y = xy[:, 0], xy[:, 1]
        near = (x >= b[:, :1]) & (y >= b[:, 1:2]) & (x <= b[:, 2:3]) & (y <= b[:, 3:4]) & on
        for (geom, region), maybe in zip(self._layers, near):
            if region.kind in ignore or not maybe.any():
                continue
            inside = shapely.covers(self._prepared(geom), pts) & on
            for i in np.nonzero(inside)[0]:
                result[i] = region
        return result

    @cached_property
    def _layer_bounds(self) -> np.ndarray:
        """Each layer's bounding box (min x, min y, max x, max y; m): shape (layers, 4)."""
        return np.array([geom.bounds for geom, _ in self._layers], dtype=float).reshape(-1, 4)

    @staticmethod
    def _prepared(geom: BaseGeometry) -> BaseGeometry:
        shapely.prepare(geom)  # idempotent; makes repeated point queries fast
        return geom

    def region_at(self, x_m: float, y_m: float) -> Region:
        """The region under one point (metres, board frame)."""
        return self.regions_at(np.array([[x_m, y_m]]))[0]

    def on_board(self, xy_m: np.ndarray) -> np.ndarray:
        """For each xy point (m, board frame), whether it lies within the board outline."""
        return contains_points(self.outline_geom, xy_m)

    def in_hole(self, xy_m: np.ndarray) -> np.ndarray:
        """For each xy point (m, board frame), whether it lies in a cut-out hole."""
        xy = np.asarray(xy_m, dtype=float).reshape(-1, 2)
        if not self.hole_geoms:
            return np.zeros(len(xy), bool)
        return contains_points(self._prepared(self._holes_union), xy)

    @cached_property
    def _holes_union(self) -> BaseGeometry:
        return unary_union(self.hole_geoms)

    @cached_property
    def radius_m(self) -> float:
        """Distance from the board centre to its farthest outline point."""
        pts = np.asarray(self.outline_geom.exterior.coords)
        return float(np.max(np.hypot(pts[:, 0], pts[:, 1])))

    @cached_property
    def bullseye_center_m(self) -> tuple[float, float]:
        for s in self.sections:
            if s.bullseye:
                c = s.shape.geometry().centroid
                return (float(c.x), float(c.y))
        return (0.0, 0.0)

    def section(self, section_id: str) -> SectionSpec:
        """The section with this id; KeyError if the board has none."""
        for s in self.sections:
            if s.id == section_id:
                return s
        raise KeyError(section_id)


def load_board(name_or_path) -> BoardSpec:
    """A board by built-in name or TOML path; bad files raise SpecError."""
    return BoardSpec.load(name_or_path, "board")
