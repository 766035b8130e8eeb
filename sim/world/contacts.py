"""Contact points as the world reads them: PyBullet's raw tuples by named field, and named records.

PyBullet reports a body's contact points as plain tuples (`getContactPoints`); the fields the
project reads are named here once, and only the world's stepping loops read the tuples, through the
helpers below. What leaves the world is named: a `Contact` (the other body by name, the point, the
normal force) or a `ContactEvent` of the event trace (sim/trace.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from sim.trace import ContactEvent

# fields of a PyBullet contact point tuple (the PyBullet quickstart guide: getContactPoints, and
# getClosestPoints in the same layout)
BODY_B = 2  # the other body's id
POSITION_ON_B = 6  # the contact point on the other body, world frame (m)
NORMAL_ON_B = 7  # the contact normal, from the other body towards this one
DISTANCE = 8  # signed distance (m): negative while the bodies overlap
NORMAL_FORCE = 9  # normal force of the last step (N)

TOUCH_DISTANCE_M = 1e-4  # a contact point separated by more than 0.1 mm is not touching

RawPoint = Sequence[Any]
"""One contact point as PyBullet returns it (read only through this module)."""


@dataclass(frozen=True)
class Contact:
    """One contact of a body with something, as plain numbers."""

    other: str
    point_m: tuple[float, ...]  # contact point on the other body
    normal_force_n: float


def contacts_of(points: Sequence[RawPoint], name_of) -> list[Contact]:
    """The touching points of a body as named records (`name_of`: body id -> name)."""
    return [
        Contact(name_of(cp[BODY_B]), tuple(cp[POSITION_ON_B]), float(cp[NORMAL_FORCE]))
        for cp in points
        if cp[DISTANCE] <= TOUCH_DISTANCE_M
    ]


def touches(points: Sequence[RawPoint], touch: float = TOUCH_DISTANCE_M) -> bool:
    """Whether any of the points touches (is within `touch`)."""
    return any(cp[DISTANCE] <= touch for cp in points)


def touched_ids(points: Sequence[RawPoint], touch: float = TOUCH_DISTANCE_M) -> set[int]:
    """The ids of the bodies the points touch."""
    return {cp[BODY_B] for cp in points if cp[DISTANCE] <= touch}


def touching_normals(points: Sequence[RawPoint], touch: float = TOUCH_DISTANCE_M) -> list:
    """The normals (on the body) of the touching points: what the rest test reads of its support."""
    return [cp[NORMAL_ON_B] for cp in points if cp[DISTANCE] <= touch]


def deepest_overlap(points: Sequence[RawPoint], deepest: float = 0.0) -> float:
    """The largest overlap (m, positive) among the points and `deepest`."""
    for cp in points:
        if cp[DISTANCE] < -deepest:
            deepest = -cp[DISTANCE]
    return deepest


def body_name(names: Mapping[int, str], body: int) -> str:
    """A body id's name; 'body:<id>' for a body the world did not register."""
    return names.get(body) or f"body:{body}"


def start_events(
    events: list[ContactEvent],
    t: float,
    die: str,
    points: Sequence[RawPoint],
    touch: float,
    names: Mapping[int, str],
    before: AbstractSet[str],
    speed_mps: float,
) -> None:
    """Append the contact events of the bodies a die touches now and did not the step before: one per
    body, in name order, at the mean of the die's touching points on it (sorted first), with the die's
    speed now.

    Why not the first point as PyBullet lists them: that order follows Bullet's pairs and manifolds,
    which change with things that change no motion (the order bodies were made in, whether static
    pieces sleep), and a die landing on two table pieces at once got either piece's point."""
    found: dict[str, list] = {}
    for cp in points:
        if cp[DISTANCE] > touch:
            continue
        other = body_name(names, cp[BODY_B])
        if other not in before:
            found.setdefault(other, []).append(tuple(cp[POSITION_ON_B]))
    for other in sorted(found):
        pts = sorted(found[other])
        n = len(pts)
        mean = tuple(math.fsum(p[k] for p in pts) / n for k in range(3))
        events.append(ContactEvent(t, die, other, mean, speed_mps))
