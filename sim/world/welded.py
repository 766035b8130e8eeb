"""A welded solid: one free body of a world built as several convex bodies held together by fixed joints.

Why not one compound body: Bullet's deterministic solver orders the contact manifolds of an island by
the broadphase ids of their two bodies, and the child manifolds a compound has with one other body tie
on that key. Their order is then the order they hold in the dispatcher's array, which follows the
world's history (the pairs dropped in earlier throws, whose manifolds are swap-removed from it), so a
throw at a multi-piece template differed, by a few um at rest, from the same throw in a fresh world.
Separate convex bodies have one manifold each per pair, with a key of its own.

The joints set the solver's order too: Bullet sorts the joints of a step by the id of their island
(one of its bodies' indices, which depends on the order of the broadphase's pairs: the world's history
again), and joints of one island tie, so with two welded solids in a world the joints of each were
solved in an order that followed which island came first. Each solid therefore ends in an *anchor*: a
small body at its origin that collides with nothing (no broadphase pair can unite it with anything),
welded last. Bullet unites the bodies of a joint after those of every pair, so an island holding
welded solids is named after the anchor of the last of them whatever the pairs were, and the joints'
order is the same in every throw.

Every piece keeps the solid's orientation (PyBullet's fixed joint between maximal-coordinate bodies
holds their orientations equal, whatever frames it is given) and sits at its own centre of mass; the
solid's frame is that of the body the pieces were cut from. Pure pose arithmetic on floats: the world
(`sim.world.physics.Physics`) owns the PyBullet bodies and joints.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim.specs.die import quat_rows

Vec = tuple[float, float, float]


@dataclass(frozen=True)
class WeldedPiece:
    """One convex piece of a welded solid: its hull (vertices, solid frame, m), its mass, its centre of
    mass (solid frame) and its moments of inertia about that centre along the solid's axes."""

    hull: np.ndarray
    mass_kg: float
    centre_m: Vec
    inertia_diagonal: Vec


@dataclass
class WeldedSolid:
    """The PyBullet bodies of a welded solid (piece order, the first one answers to the solid's name),
    the centre of each in the solid's frame, its anchor body (at the origin) and the fixed joints
    holding pieces 1.. and then the anchor to piece 0."""

    bodies: list[int]
    centres: list[Vec]
    anchor: int = -1
    joints: list[int] = field(default_factory=list)

    @property
    def all_bodies(self) -> list[int]:
        """Every PyBullet body of the solid: its pieces, then its anchor."""
        return [*self.bodies, self.anchor]

    def piece_states(
        self, position, orientation_xyzw, velocity=(0.0, 0.0, 0.0), spin=(0.0, 0.0, 0.0)
    ) -> list[tuple[Vec, Vec]]:
        """Each body's position and velocity (world frame; the pieces, then the anchor) when the solid's
        frame is at `position`, turned by `orientation_xyzw`, moving at `velocity` (its origin's) and spinning
        at `spin`."""
        r = quat_rows(orientation_xyzw)
        px, py, pz = (float(t) for t in position)
        vx, vy, vz = (float(t) for t in velocity)
        wx, wy, wz = (float(t) for t in spin)
        out = []
        for c in [*self.centres, (0.0, 0.0, 0.0)]:
            ox, oy, oz = _turn(r, c)
            out.append(
                (
                    (px + ox, py + oy, pz + oz),
                    (vx + wy * oz - wz * oy, vy + wz * ox - wx * oz, vz + wx * oy - wy * ox),
                )
            )
        return out

    def solid_pose(self, first_position, orientation_xyzw) -> tuple[Vec, tuple[float, ...]]:
        """The solid's frame (position, xyzw) from the pose of its first piece."""
        ox, oy, oz = _turn(quat_rows(orientation_xyzw), self.centres[0])
        x, y, z = (float(t) for t in first_position)
        return (x - ox, y - oy, z - oz), tuple(float(t) for t in orientation_xyzw)

    def solid_velocity(self, orientation_xyzw, first_velocity, spin) -> Vec:
        """The velocity of the solid's origin from its first piece's (the origin moves with the body)."""
        ox, oy, oz = _turn(quat_rows(orientation_xyzw), self.centres[0])
        vx, vy, vz = (float(t) for t in first_velocity)
        wx, wy, wz = (float(t) for t in spin)
        return (vx - (wy * oz - wz * oy), vy - (wz * ox - wx * oz), vz - (wx * oy - wy * ox))


def _turn(r: tuple[float, ...], v) -> Vec:
    x, y, z = v
    return (r[0] * x + r[1] * y + r[2] * z, r[3] * x + r[4] * y + r[5] * z, r[6] * x + r[7] * y + r[8] * z)
