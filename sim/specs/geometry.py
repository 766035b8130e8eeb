"""Flat shapes in the board plane: file form (mm) to shapely geometry (metres)."""

from __future__ import annotations

import math
from typing import Annotated, Literal

import numpy as np
import shapely
from pydantic import Field, model_validator
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from sim.errors import FieldError
from sim.specs.base import MAX_LENGTH_MM, Angle, Length, Spec

MM = 1e-3
ARC_SEGMENTS = (
    96  # segments on a full circle; fine enough that corner tests differ from a true circle by < 0.05 mm
)
MAX_POINTS = 1000  # corners of one polygon


class _Shape(Spec):
    pass


class Circle(_Shape):
    """A disc, or a sector of one between start_deg and end_deg (mm, board or template frame)."""

    kind: Literal["circle"]
    center_mm: tuple[Length, Length] = (0.0, 0.0)
    radius_mm: float = Field(gt=0, le=MAX_LENGTH_MM)
    start_deg: Angle | None = None
    end_deg: Angle | None = None

    @model_validator(mode="after")
    def _check(self) -> Circle:
        _check_span(self.start_deg, self.end_deg)
        return self

    def geometry(self) -> BaseGeometry:
        """The shape as a shapely geometry in metres."""
        return _sector(self.center_mm, 0.0, self.radius_mm, self.start_deg, self.end_deg)


class Annulus(_Shape):
    """A ring between two radii, or a sector of one (mm); the inner radius must be smaller."""

    kind: Literal["annulus"]
    center_mm: tuple[Length, Length] = (0.0, 0.0)
    r_inner_mm: float = Field(ge=0, le=MAX_LENGTH_MM)
    r_outer_mm: float = Field(gt=0, le=MAX_LENGTH_MM)
    start_deg: Angle | None = None
    end_deg: Angle | None = None

    @model_validator(mode="after")
    def _radii(self) -> Annulus:
        if self.r_inner_mm >= self.r_outer_mm:
            raise FieldError("r_inner_mm", "r_inner_mm must be smaller than r_outer_mm")
        _check_span(self.start_deg, self.end_deg)
        return self

    def geometry(self) -> BaseGeometry:
        """The shape as a shapely geometry in metres."""
        return _sector(self.center_mm, self.r_inner_mm, self.r_outer_mm, self.start_deg, self.end_deg)


def _check_span(start_deg: float | None, end_deg: float | None) -> None:
    if start_deg is not None or end_deg is not None:
        a0, a1 = _sector_range(start_deg, end_deg)
        if a1 - a0 > 2 * math.pi + 1e-9:
            raise FieldError("end_deg", "a sector spans at most 360 degrees from start_deg")


class PolygonShape(_Shape):
    """A simple polygon (edges never cross, non-zero area), points in mm."""

    kind: Literal["polygon"]
    points_mm: list[tuple[Length, Length]] = Field(min_length=3, max_length=MAX_POINTS)

    @model_validator(mode="after")
    def _simple(self) -> PolygonShape:
        poly = Polygon(self.points_mm)
        if not poly.is_valid or not poly.exterior.is_simple:
            raise FieldError(
                "points_mm", "polygon edges cross each other (points_mm must trace a simple outline)"
            )
        if poly.area <= 0:
            raise FieldError("points_mm", "polygon has zero area")
        return self

    def geometry(self) -> BaseGeometry:
        """The shape as a shapely geometry in metres."""
        return Polygon([(x * MM, y * MM) for x, y in self.points_mm])


Shape = Annotated[Circle | Annulus | PolygonShape, Field(discriminator="kind")]


def _arc(cx: float, cy: float, r: float, a0: float, a1: float) -> list[tuple[float, float]]:
    n = max(4, int(math.ceil(ARC_SEGMENTS * abs(a1 - a0) / (2 * math.pi))))
    ts = np.linspace(a0, a1, n + 1)
    return [(cx + r * math.cos(t), cy + r * math.sin(t)) for t in ts]


def _sector(center_mm, r_in_mm, r_out_mm, start_deg, end_deg) -> BaseGeometry:
    cx, cy = center_mm[0] * MM, center_mm[1] * MM
    r_in, r_out = r_in_mm * MM, r_out_mm * MM
    if start_deg is None and end_deg is None:
        outer = Polygon(_arc(cx, cy, r_out, 0, 2 * math.pi)[:-1])
        if r_in <= 0:
            return outer
        return outer.difference(Polygon(_arc(cx, cy, r_in, 0, 2 * math.pi)[:-1]))
    a0, a1 = _sector_range(start_deg, end_deg)
    pts = _arc(cx, cy, r_out, a0, a1)
    pts += _arc(cx, cy, r_in, a1, a0) if r_in > 0 else [(cx, cy)]
    return Polygon(pts)


def _sector_range(start_deg: float | None, end_deg: float | None) -> tuple[float, float]:
    """Start and end angle (rad) of a sector, the end moved past the start by whole turns."""
    a0 = math.radians(start_deg or 0.0)
    a1 = math.radians(end_deg if end_deg is not None else 360.0)
    if a1 <= a0:  # whole turns at once: a loop adding 2 pi would never end for a huge angle
        a1 += 2 * math.pi * (math.floor((a0 - a1) / (2 * math.pi)) + 1)
    return a0, a1


def contains_points(geom: BaseGeometry, xy: np.ndarray) -> np.ndarray:
    """Vectorised point-in-region test (points on the boundary count as inside)."""
    xy = np.asarray(xy, dtype=float).reshape(-1, 2)
    return shapely.covers(geom, shapely.points(xy[:, 0], xy[:, 1]))
