"""Triangle meshes built in memory from shapely regions: slabs (board, table, flat props), extrusions and
surfaces of revolution. Vertex arrays go straight to the physics world; nothing is written to disk."""

from __future__ import annotations

import math

import numpy as np
import shapely
import shapely.affinity
from shapely.geometry import Point, box

from sim.errors import SpecError
from sim.specs.board import BoardSpec
from sim.specs.prop import MM, PropSpec

TABLE_SLAB_M = 0.02  # thickness of the table slab (and how far the board's body reaches down into it)
BOARD_CELL_M = 0.04  # cell size of the board's triangulation (see `slab_mesh`)
# Bullet pads every shape by a collision margin (1 mm by default). We set it explicitly and build each
# shape inset by it (die hulls shrunk, board and table tops lowered), so resting heights are true.
COLLISION_MARGIN_M = 0.0005


def board_mesh(board: BoardSpec) -> tuple[np.ndarray, np.ndarray]:
    """Closed triangle mesh of the cardboard (outline minus holes), from inside the table slab up to its
    thickness (the part below z = 0 fills the table's cut-out; only the 2 mm above it is visible)."""
    return slab_mesh(board.surface, _grid_cells(board.surface, BOARD_CELL_M), -TABLE_SLAB_M, board.thickness_m - COLLISION_MARGIN_M)


def table_mesh(half_size_m: float, cutout=None) -> tuple[np.ndarray, np.ndarray]:
    """The table slab (top at z = 0, less the margin) minus `cutout`: 10 cm cells within 1 m of the
    centre, 50 cm cells beyond (see `slab_mesh` for why cells)."""
    h = half_size_m
    rect = shapely.box(-h, -h, h, h)
    region = rect.difference(cutout) if cutout is not None else rect
    near = shapely.box(-1.0, -1.0, 1.0, 1.0)
    cells = _grid_cells(near, 0.1) + [c.difference(near) for c in _grid_cells(rect, 0.5)]
    return slab_mesh(region, cells, -TABLE_SLAB_M, -COLLISION_MARGIN_M)


def _grid_cells(area, cell: float) -> list:
    x0, y0, x1, y1 = area.bounds
    nx, ny = int(np.ceil((x1 - x0) / cell - 1e-9)), int(np.ceil((y1 - y0) / cell - 1e-9))
    return [shapely.box(x0 + i * cell, y0 + j * cell, x0 + (i + 1) * cell, y0 + (j + 1) * cell) for i in range(nx) for j in range(ny)]


def slab_mesh(region, cells: list, z0: float, z1: float) -> tuple[np.ndarray, np.ndarray]:
    """Closed triangle mesh of a flat region extruded from z0 to z1, its top and bottom triangulated
    cell by cell. A constrained triangulation of a whole board or table is all slivers, and contacts on
    sliver triangles gave rebounds that depended on where the die landed (0.14-0.61 for one value);
    cells keep every triangle well shaped. Walls are built only along the region's own boundary, never
    between cells, so nothing inside the slab can catch a die."""
    verts: list[tuple[float, ...]] = []
    idx: list[int] = []

    def add(x, y, z) -> int:
        verts.append((x, y, z))
        return len(verts) - 1

    for cell in cells:
        piece = cell.intersection(region)
        if piece.is_empty or piece.area < 1e-10:
            continue
        polys = [g for g in getattr(piece, "geoms", [piece]) if g.geom_type == "Polygon" and g.area > 1e-10]
        for poly in polys:
            for tri in shapely.constrained_delaunay_triangles(poly).geoms:
                co = np.asarray(tri.exterior.coords)[:3]
                if _signed_area(co) < 0:
                    co = co[::-1]
                top = [add(x, y, z1) for x, y in co]
                bot = [add(x, y, z0) for x, y in co]
                idx += top + bot[::-1]
    polys = list(region.geoms) if region.geom_type == "MultiPolygon" else [region]
    for poly in polys:
        for ring in [poly.exterior, *poly.interiors]:
            co = np.asarray(ring.coords)
            for (x0, y0), (x1, y1) in zip(co[:-1], co[1:]):
                a, b, c, d = add(x0, y0, z0), add(x1, y1, z0), add(x1, y1, z1), add(x0, y0, z1)
                idx += [a, b, c, a, c, d]
    return np.array(verts), np.array(idx, dtype=np.int64)


def _signed_area(co: np.ndarray) -> float:
    x, y = co[:, 0], co[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def extrude(poly, w0: float, w1: float) -> tuple[np.ndarray, np.ndarray]:
    """Closed triangle mesh of a polygon (with holes) in the (u, v) plane, extruded from w0 to w1.
    Returns vertices as (u, v, w) and triangle indices (one cell: the board's mesher, uncut)."""
    return slab_mesh(poly, [poly.envelope.buffer(1e-9)], w0, w1)


def revolve(profile_rz: list[tuple[float, float]], segments: int) -> tuple[np.ndarray, np.ndarray]:
    """Closed surface of revolution of a closed (r, z) profile about the z axis."""
    verts: list[tuple[float, ...]] = []
    idx: list[int] = []
    angles = np.linspace(0, 2 * np.pi, segments, endpoint=False)
    n = len(profile_rz)
    for i in range(n):
        r, z = profile_rz[i]
        for a in angles:
            verts.append((r * math.cos(a), r * math.sin(a), z))
    for i in range(n):
        j = (i + 1) % n
        for k in range(segments):
            k2 = (k + 1) % segments
            a, b, c, d = i * segments + k, i * segments + k2, j * segments + k2, j * segments + k
            if profile_rz[i][0] > 0:
                idx += [a, b, c]
            if profile_rz[j][0] > 0:
                idx += [a, c, d]
    return np.array(verts, dtype=float), np.array(idx, dtype=np.int64)


def _yz_to_local(verts_uvw: np.ndarray) -> np.ndarray:
    """(u, v, w) of an extrusion in the y-z plane along x -> local (x, y, z) = (w, u, v)."""
    return verts_uvw[:, [2, 0, 1]]


def static_mesh(spec: PropSpec, board=None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Local-frame meshes (metres) of a static prop."""
    s = spec.shape
    if s.type == "wall":
        v, i = extrude(box(-s.thickness_mm / 2, -s.width_mm / 2, s.thickness_mm / 2, s.width_mm / 2), 0.0, s.height_mm)
        return [(v * MM, i)]
    if s.type == "ring":
        ro = s.inner_radius_mm + s.band_mm
        ann = Point(0, 0).buffer(ro, quad_segs=s.segments // 4).difference(Point(0, 0).buffer(s.inner_radius_mm, quad_segs=s.segments // 4))
        v, i = extrude(ann, -s.thickness_mm / 2, s.thickness_mm / 2)
        return [(_yz_to_local(v) * MM, i)]
    if s.type == "mat":
        L, W = s.length_mm, s.width_mm
        if s.outline == "rectangle":
            outline = box(-L / 2, -W / 2, L / 2, W / 2)
        else:
            outline = shapely.affinity.scale(Point(0, 0).buffer(1.0, quad_segs=16), L / 2, W / 2)
        if s.hole is not None:
            h = shapely.affinity.scale(Point(0, 0).buffer(1.0, quad_segs=16), s.hole.rx_mm, s.hole.ry_mm)
            h = shapely.affinity.translate(h, s.hole.x_mm, s.hole.y_mm)
            if not outline.buffer(-1.0).contains(h):
                raise SpecError(spec.source, "shape.hole", "the hole must lie inside the mat")
            outline = outline.difference(h)
        v, i = extrude(outline, 0.0, s.thickness_mm)
        return [(v * MM, i)]
    if s.type == "gate":
        w2, pw, H, lt = s.opening_width_mm / 2, s.post_width_mm, s.opening_height_mm, s.lintel_mm
        outer = box(-w2 - pw, 0.0, w2 + pw, H + lt)
        gate = outer.difference(box(-w2, -1.0, w2, H))
        v, i = extrude(gate, -s.thickness_mm / 2, s.thickness_mm / 2)
        return [(_yz_to_local(v) * MM, i)]
    if s.type == "ramp":
        v, i = extrude(box(0.0, -s.width_mm / 2, s.length_mm, s.width_mm / 2), -s.thickness_mm, 0.0)
        return [(v * MM, i)]
    if s.type == "volcano":
        if not (s.crater_radius_mm < s.top_radius_mm <= s.base_radius_mm and s.crater_depth_mm < s.height_mm):
            raise SpecError(spec.source, "shape", "need crater_radius < top_radius <= base_radius and crater_depth < height")
        h = s.height_mm
        prof = [(0.0, 0.0), (s.base_radius_mm, 0.0), (s.top_radius_mm, h), (s.crater_radius_mm, h),
                (s.crater_radius_mm, h - s.crater_depth_mm), (0.0, h - s.crater_depth_mm)]
        v, i = revolve(prof, s.segments)
        return [(v * MM, i)]
    if s.type == "fire-token":
        v, i = extrude(Point(0, 0).buffer(s.radius_mm, quad_segs=8), 0.0, s.thickness_mm)
        return [(v * MM, i)]
    raise ValueError(s.type)
