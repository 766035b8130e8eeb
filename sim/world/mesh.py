"""Shapes of static bodies as convex pieces (body frame, metres), built from shapely regions: the board,
the table around it, and the static props (extrusions and solids of revolution). Every piece is a
convex vertex array; `sim.world.solids` loads them with polyhedral features (see there for why no
triangle mesh is left in the world)."""

from __future__ import annotations

import numpy as np
import shapely
import shapely.affinity
from shapely.geometry import Point, box

from sim.errors import SpecError
from sim.specs.board import BoardSpec
from sim.specs.prop import MM, PropSpec
from sim.world.solids import revolved_pieces, slab_pieces

# How deep the table's solids reach below its top, and the board's below the table top. Deep, so that
# a die pushed into a solid always leaves it through the top (a 2 cm slab let a d4 out through the bottom).
TABLE_DEPTH_M = 0.1
# Boundary simplification of the board's outline and holes for the engine (arcs have 96 segments per
# circle): chords stay within 0.1 mm of the drawn arc; the rules read the exact geometry.
FOOTPRINT_TOLERANCE_M = 1e-4
TABLE_HALF_SIZE_M = 5.0


def board_footprint(board: BoardSpec):
    """The board's cardboard (outline minus holes) as the engine sees it: simplified, the same for the
    board's solids and the table's cut-out, so the two fit exactly."""
    return shapely.make_valid(board.surface.simplify(FOOTPRINT_TOLERANCE_M, preserve_topology=True))


def board_pieces(board: BoardSpec) -> list[np.ndarray]:
    """The cardboard from deep in the table's cut-out up to its thickness: under the board there is no
    table, so a die sinking into the 2 mm board during a hard impact meets the board alone."""
    return slab_pieces(board_footprint(board), -TABLE_DEPTH_M, board.thickness_m)


def table_pieces(board: BoardSpec | None, half_size_m: float = TABLE_HALF_SIZE_M) -> list[np.ndarray]:
    """The table (top at z = 0) less the board's footprint: one box when there is no board, otherwise
    convex prisms around the board's outline and one under each hole."""
    h = half_size_m
    rect = shapely.box(-h, -h, h, h)
    region = rect if board is None else rect.difference(board_footprint(board))
    return slab_pieces(region, -TABLE_DEPTH_M, 0.0)


def extrude(poly, w0: float, w1: float) -> list[np.ndarray]:
    """A polygon (with holes) in the (u, v) plane extruded from w0 to w1, as convex prisms of (u, v, w)."""
    return slab_pieces(poly, w0, w1)


def _yz_to_local(pieces_uvw: list[np.ndarray]) -> list[np.ndarray]:
    """(u, v, w) of an extrusion in the y-z plane along x -> local (x, y, z) = (w, u, v)."""
    return [p[:, [2, 0, 1]] for p in pieces_uvw]


def _mm(pieces: list[np.ndarray]) -> list[np.ndarray]:
    return [p * MM for p in pieces]


def static_pieces(spec: PropSpec) -> list[list[np.ndarray]]:
    """Local-frame convex pieces (metres) of a static prop, per body."""
    s = spec.shape
    if s.type == "wall":
        return [_mm(extrude(box(-s.thickness_mm / 2, -s.width_mm / 2, s.thickness_mm / 2, s.width_mm / 2), 0.0, s.height_mm))]
    if s.type == "ring":
        ro = s.inner_radius_mm + s.band_mm
        ann = Point(0, 0).buffer(ro, quad_segs=s.segments // 4).difference(Point(0, 0).buffer(s.inner_radius_mm, quad_segs=s.segments // 4))
        return [_mm(_yz_to_local(extrude(ann, -s.thickness_mm / 2, s.thickness_mm / 2)))]
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
        return [_mm(extrude(outline, 0.0, s.thickness_mm))]
    if s.type == "gate":
        w2, pw, H, lt = s.opening_width_mm / 2, s.post_width_mm, s.opening_height_mm, s.lintel_mm
        outer = box(-w2 - pw, 0.0, w2 + pw, H + lt)
        gate = outer.difference(box(-w2, -1.0, w2, H))
        return [_mm(_yz_to_local(extrude(gate, -s.thickness_mm / 2, s.thickness_mm / 2)))]
    if s.type == "ramp":
        return [_mm(extrude(box(0.0, -s.width_mm / 2, s.length_mm, s.width_mm / 2), -s.thickness_mm, 0.0))]
    if s.type == "volcano":
        if not (s.crater_radius_mm < s.top_radius_mm <= s.base_radius_mm and s.crater_depth_mm < s.height_mm):
            raise SpecError(spec.source, "shape", "need crater_radius < top_radius <= base_radius and crater_depth < height")
        h = s.height_mm
        prof = [(0.0, 0.0), (s.base_radius_mm, 0.0), (s.top_radius_mm, h), (s.crater_radius_mm, h),
                (s.crater_radius_mm, h - s.crater_depth_mm), (0.0, h - s.crater_depth_mm)]
        return [_mm(revolved_pieces(prof, s.segments))]
    if s.type == "fire-token":
        return [_mm(extrude(Point(0, 0).buffer(s.radius_mm, quad_segs=8), 0.0, s.thickness_mm))]
    raise ValueError(s.type)
