"""Where a resting die stands: the corners of the face it rests on, and what the board reads under them.

The rulebook (Malevolent Magma, "Section borders"): "If the die lands on the border between two
sections, it counts as landing in the section with the most corners of the die in it. When in doubt,
consider the die to be in the lower-value section." It names only sections; a die's bottom corners can
also lie past the board edge, over a hole or on the printed bones, several at once. `read_board`
is the complete reading (docs/rules.md, "Where the die stands"), in this order:

1. **Fell in a hole**: the die touches the table and its centre of mass or one of its bottom corners
   lies over a hole -> the hole. A die lying across a hole on the cardboard around it has not fallen
   in. What fills a hole (a Slow token) lies flush with the board: a die resting on it has fallen in
   when it would have fallen into the empty hole, its centre of mass and at least one bottom corner
   over the hole; one corner over a filled hole and the centre on the cardboard is a die on the board.
2. **Fell off**: its centre of mass lies outside the board outline, or it lies on the table and
   touches nothing else -> off the board. A die whose centre of mass is over the board and that rests
   on it is on the board, however many of its corners stick out past the edge.
3. **On the board**: only corners on cardboard vote (a corner past the edge or over a hole carries no
   weight). On the bones when the bones hold at least as many of those corners as any one section
   (`bones = "most-corners"`, the default: a tie is doubt, and the bones are the lower value) or any
   one of them (`bones = "any-corner"`); else the section holding the most, a tie to the lower value.
   With no corner on cardboard (a die straddling a hole wider than its face), what lies under its
   centre, the hole left out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from sim.specs.board import OFF, BoardSpec, Region
from sim.specs.die import DieSpec, quat_to_matrix
from sim.vectors import matmul

BonesReading = Literal["most-corners", "any-corner"]
BONES_READINGS: tuple[str, ...] = ("most-corners", "any-corner")
# why a reading is what it is (BoardReading.basis)
Basis = Literal["fell-in-hole", "centre-off-board", "on-table", "corners", "under-centre"]


def bottom_corners_xy(die: DieSpec, position_m, orientation_xyzw) -> np.ndarray:
    """World xy of the corners of the face the die rests on (its lowest face)."""
    rot = quat_to_matrix(orientation_xyzw)
    face = die.face_geometry[die.bottom_face(orientation_xyzw)]
    world = matmul(face.corners, rot.T) + np.asarray(position_m)
    if die.shape == "cylinder":
        world = world[:: max(1, len(world) // 8)]  # 8 rim points stand for the 'corners' of a disc
    return world[:, :2]


def winning_region(board: BoardSpec, corners_xy: np.ndarray, ignore: tuple[str, ...] = ()) -> Region:
    """The region holding the most corners, a tie to the lowest-ranked region (off < hole < bones <
    sections by value); `ignore` leaves out layers of those kinds (`BoardSpec.regions_at`). For points
    known to lie on the board (the Slime's candidate placements); a resting die is read by `read_board`."""
    regions = board.regions_at(corners_xy, ignore)
    counts = Counter(regions)
    best = max(counts.values())
    tied = [r for r, c in counts.items() if c == best]
    return min(tied, key=lambda r: r.rank)


@dataclass(frozen=True)
class BoardReading:
    """What the board reads for a resting die: the region it counts in, and which step of the reading
    decided it (`Basis`)."""

    region: Region
    basis: Basis


def read_board(
    board: BoardSpec,
    corners_xy: np.ndarray,
    centre_xy: Iterable[float],
    touching: Iterable[str],
    bones: BonesReading = "most-corners",
    ignore: tuple[str, ...] = (),
    hole_fillers: Iterable[str] = (),
) -> BoardReading:
    """The region a resting die counts in (module docstring). `corners_xy`: its bottom corners (m);
    `centre_xy`: its centre of mass (m); `touching`: the bodies it touches ("table", "board", ...);
    `ignore`: layers the house rules look through ("hole": a die in a hole counts as the section the
    hole is cut into; "bones": the outer section under the bones); `hole_fillers`: bodies lying inside
    holes (Slow tokens), flush with the board: resting on one with the centre of mass and a corner over
    its hole is being in that hole."""
    if bones not in BONES_READINGS:
        raise ValueError(f"bones reading must be one of {', '.join(BONES_READINGS)}, not {bones!r}")
    corners = np.asarray(corners_xy, dtype=float).reshape(-1, 2)
    centre = np.asarray(list(centre_xy), dtype=float).reshape(1, 2)
    touching = frozenset(touching)
    raw = board.regions_at(np.vstack([centre, corners]))
    centre_raw, corners_raw = raw[0], raw[1:]
    # 1. fell in a hole (and remains there): resting on what is at the bottom of the hole. A filler
    # lies flush with the board, so a die resting on one has fallen in only if it would have fallen
    # into the empty hole: its centre of mass over the hole and a corner off the cardboard around it
    on_table = "table" in touching
    hole = next((r for r in (centre_raw, *corners_raw) if r.kind == "hole"), None)
    on_filler = (
        bool(touching & frozenset(hole_fillers))
        and centre_raw.kind == "hole"
        and any(r.kind == "hole" for r in corners_raw)
    )
    in_hole = on_table or on_filler
    if on_filler and not on_table:
        hole = centre_raw
    if in_hole and hole is not None and "hole" not in ignore:
        return BoardReading(hole, "fell-in-hole")
    fell_in = in_hole and hole is not None
    # 2. fell off: the board does not carry its centre of mass, or only the table carries the die
    if not bool(board.on_board(centre)[0]):
        return BoardReading(OFF, "centre-off-board")
    if touching == frozenset({"table"}) and not fell_in:
        return BoardReading(OFF, "on-table")
    # 3. on the board: the corners on cardboard vote
    regions = board.regions_at(corners, ignore) if ignore else corners_raw
    votes = Counter(r for r in regions if r.kind in ("section", "bones"))
    if not votes:
        under = board.regions_at(centre, (*ignore, "hole"))[0]
        return BoardReading(under, "under-centre" if under.kind != "off" else "centre-off-board")
    on_bones = [(c, r) for r, c in votes.items() if r.kind == "bones"]
    best_section = max((c for r, c in votes.items() if r.kind == "section"), default=0)
    if on_bones:
        n_bones, bones_region = max(on_bones, key=lambda cr: (cr[0], cr[1].id))
        if bones == "any-corner" or n_bones >= best_section:
            return BoardReading(bones_region, "corners")
    tied = [r for r, c in votes.items() if r.kind == "section" and c == best_section]
    return BoardReading(min(tied, key=lambda r: (r.rank, r.id)), "corners")
