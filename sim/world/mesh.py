"""Shapes of static bodies as convex pieces (body frame, metres), built from shapely regions: the board,
the table around it, and the extrusions the static props are made of (their builders are in
`sim.world.props`). Every piece is a convex vertex array; `sim.world.solids` loads them with
polyhedral features (see there for why no triangle mesh is left in the world)."""

from __future__ import annotations

import numpy as np
import shapely

from sim.specs.board import BoardSpec
from sim.world.solids import slab_pieces

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
