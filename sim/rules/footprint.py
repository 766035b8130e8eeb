"""Where a resting die stands: the corners of the face it rests on, and the board region they vote for.

"When in doubt, consider the die to be in the lower-value section": the region holding the most corners
wins, a tie goes to the lowest-ranked region (off-board < hole < bones < sections by value).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from sim.specs.board import BoardSpec, Region
from sim.specs.die import DieSpec, quat_to_matrix


def bottom_corners_xy(die: DieSpec, position_m, orientation_xyzw) -> np.ndarray:
    """World xy of the corners of the face the die rests on (its lowest face)."""
    rot = quat_to_matrix(orientation_xyzw)
    face = die.face_geometry[die.bottom_face(orientation_xyzw)]
    world = face.corners @ rot.T + np.asarray(position_m)
    if die.shape == "cylinder":
        world = world[:: max(1, len(world) // 8)]  # 8 rim points stand for the 'corners' of a disc
    return world[:, :2]


def winning_region(board: BoardSpec, corners_xy: np.ndarray, ignore: tuple[str, ...] = ()) -> Region:
    """The region holding the most corners; `ignore` leaves out layers of those kinds (the house rules
    that count a hole or the bones as the section under them: `BoardSpec.regions_at`)."""
    regions = board.regions_at(corners_xy, ignore)
    counts = Counter(regions)
    best = max(counts.values())
    tied = [r for r, c in counts.items() if c == best]
    return min(tied, key=lambda r: r.rank)
