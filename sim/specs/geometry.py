"""Flat shapes in the board plane: file form (mm) to shapely geometry (metres)."""

from __future__ import annotations

import math
from typing import Annotated, Literal

import numpy as np
import shapely
from pydantic import BaseModel, ConfigDict, Field, model_validator
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

MM = 1e-3
ARC_SEGMENTS = 96  # segments on a full circle; fine enough that corner tests differ from a true circle by < 0.05 mm


class _Shape(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Circle(_Shape):
    """A disc, or a sector of one between start_deg and end_deg (mm, board or template frame)."""

    kind: Literal["circle"]
    center_mm: tuple[float, float] = (0.0, 0.0)
    radius_mm: float = Field(gt=0)
    start_deg: float | None = None
    end_deg: float | None = None

    def geometry(self) -> BaseGeometry:
        """The shape as a shapely geometry in metres."""
        return _sector(self.center_mm, 0.0, self.radius_mm, self.start_deg, self.end_deg)


class Annulus(_Shape):
    """A ring between two radii, or a sector of one (mm); the inner radius must be smaller."""

    kind: Literal["annulus"]
    center_mm: tuple[float, float] = (0.0, 0.0)
    r_inner_mm: float = Field(ge=0)
    r_outer_mm: float = Field(gt=0)
    start_deg: float | None = None
    end_deg: float | None = None

    @model_validator(mode="after")
    def _radii(self) -> Annulus:
        if self.r_inner_mm >= self.r_outer_mm:
            raise ValueError("r_inner_mm must be smaller than r_outer_mm")
        return self

    def geometry(self) -> BaseGeometry:
        """The shape as a shapely geometry in metres."""
        return _sector(self.center_mm, self.r_inner_mm, self.r_outer_mm, self.start_deg, self.end_deg)


class PolygonShape(_Shape):
    """A simple polygon (edges never cross, non-zero area), points in mm."""

    kind: Literal["polygon"]
    points_mm: list[tuple[float, float]] = Field(min_length=3)

    @model_validator(mode="after")
    def _simple(self) -> PolygonShape:
        poly = Polygon(self.points_mm)
        if not poly.is_valid or not poly.exterior.is_simple:
            raise ValueError("polygon edges cross each other (points_mm must trace a simple outline)")
        if poly.area <= 0:
            raise ValueError("polygon has zero area")
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
    a0 = math.radians(start_deg or 0.0)
    a1 = math.radians(end_deg if end_deg is not None else 360.0)
    while a1 <= a0:
        a1 += 2 * math.pi
    pts = _arc(cx, cy, r_out, a0, a1)
    pts += _arc(cx, cy, r_in, a1, a0) if r_in > 0 else [(cx, cy)]
    return Polygon(pts)


def contains_points(geom: BaseGeometry, xy: np.ndarray) -> np.ndarray:
    """Vectorised point-in-region test (points on the boundary count as inside)."""
    xy = np.asarray(xy, dtype=float).reshape(-1, 2)
    return shapely.covers(geom, shapely.points(xy[:, 0], xy[:, 1]))
