"""Where a thrower stands: off the board, aiming at a point on it, the aimed bounce between hand and board.

Why: each number of a shot file is checked by its own range, but some only mean something together
with the board the shot is thrown at. A hand 100 mm from the centre of a 280 mm board is above the
board (no thrower stands there, and "bounce on the table before the board" cannot happen); an aim
point off the board aims at the table; a bounce gap longer than the way from the hand to the board's
edge puts the aimed bounce behind the thrower. `Scenario.build` checks a scenario's shot against its
board; `dfsim check` checks a shot file against the built-in boards (it names none itself).
"""

from __future__ import annotations

import numpy as np
from shapely.geometry import LineString

from sim.errors import SpecError
from sim.specs.board import BoardSpec
from sim.specs.shot import ShotSpec
from sim.vectors import norm, row_norms

MM = 1e-3


def check_stance(shot: ShotSpec, board: BoardSpec | None, source: str) -> None:
    """SpecError (naming `source` and the release field) when the shot's hand is over `board`, its aim
    point off it, or its aimed bounce not between hand and board. A shot without a board (free rolls)
    has nothing to check."""
    if board is None or not shot.board:
        return
    rel = shot.release
    hand = np.array([-rel.distance_mm * MM, rel.lateral_mm * MM])
    reach_mm = board.radius_m / MM
    if bool(board.on_board(hand[None, :])[0]):
        raise SpecError(
            source,
            "release.distance_mm",
            f"puts the hand at ({-rel.distance_mm:g}, {rel.lateral_mm:g}) mm, over board '{board.name}' "
            f"(it reaches {reach_mm:.0f} mm from its centre): a thrower stands off the board, so "
            f"distance_mm must take the hand past the board's edge",
        )
    if rel.aim == "none":
        return
    if rel.aim == "point" and rel.aim_mm is not None:
        aim = np.array(rel.aim_mm, dtype=float) * MM
        if not bool(board.on_board(aim[None, :])[0]):
            raise SpecError(
                source,
                "release.aim_mm",
                f"({rel.aim_mm[0]:g}, {rel.aim_mm[1]:g}) mm is off board '{board.name}' (it reaches "
                f"{reach_mm:.0f} mm from its centre): the aim point is where the die should stop, on "
                "the board",
            )
    elif rel.aim == "center":
        aim = np.zeros(2)
    else:
        aim = np.array(board.bullseye_center_m, dtype=float)
    edge_mm = _way_to_edge(board, hand, aim) / MM
    if rel.bounce_gap_mm >= edge_mm:
        raise SpecError(
            source,
            "release.bounce_gap_mm",
            f"{rel.bounce_gap_mm:g} mm before the board's edge is behind the hand, which stands "
            f"{edge_mm:.0f} mm from the edge of board '{board.name}' along its aim: the aimed bounce "
            f"must lie between hand and board (bounce_gap_mm below {edge_mm:.0f})",
        )


def _way_to_edge(board: BoardSpec, hand: np.ndarray, aim: np.ndarray) -> float:
    """How far (m) from the hand the line to the aim point first crosses the board's outline (the
    aim solve measures its bounce gap from there)."""
    cross = LineString([tuple(hand), tuple(aim)]).intersection(board.outline_geom.exterior)
    if cross.is_empty:
        return norm(aim - hand)
    pts = np.array([[g.x, g.y] for g in getattr(cross, "geoms", [cross])])
    return float(np.min(row_norms(pts - hand)))


def check_shot_file_stance(shot: ShotSpec, source: str) -> None:
    """`dfsim check` of a shot file, which names no board: refused when the stance makes no sense on
    any built-in board (the error of the default board, magma, is the one given)."""
    from sim.specs.datafiles import builtin_names

    names = builtin_names("board")
    errors: list[SpecError] = []
    for name in sorted(names, key=lambda n: n != "magma"):
        try:
            check_stance(shot, BoardSpec.load(name, "board"), source)
        except SpecError as exc:
            errors.append(exc)
    if names and len(errors) == len(names):
        raise errors[0]
