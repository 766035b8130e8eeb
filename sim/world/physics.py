"""The PyBullet world: table, board with real holes, dice; named read-outs, no game logic.

Modelled on dm_control's Physics: the task (shot, rules) never touches PyBullet handles; it asks
this object for `die_pose()`, `touching()`, and steps it. One world per process, built once and
reused: bodies are reset, never reloaded, between throws.

Choices (docs/design.md, "Physics"):
- dice are maximal-coordinate rigid bodies with continuous collision detection
  (`allowedCcdPenetration` 0.1 mm, swept sphere = 0.4 x the die inradius), zero linear/angular damping;
- every body is a convex polyhedron or a compound of them with polyhedral features (`sim.world.solids`):
  contacts come from clipping faces, a full manifold in the step a face lands; dice are their true
  hulls, the board is convex prisms of its cardboard (real holes), the table convex prisms around it;
- friction / restitution per body come from the material table via `material.solve_coefficients`;
- `deterministicOverlappingPairs=1` and a fixed time step make stepping reproducible to the bit.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from sim.specs.board import BoardSpec
from sim.specs.die import DieSpec
from sim.specs.material import MaterialTable, solve_coefficients
from sim.specs.physics import GRAVITY, PhysicsSettings
from sim.vectors import matmul, row_norms
from sim.world.contacts import DISTANCE, Contact, contacts_of, touches, touching_normals
from sim.world.mesh import board_pieces, table_pieces
from sim.world.rest import RestDetector, RestTest
from sim.world.solids import box_hull, solid_body, static_bodies
from sim.world.welded import WeldedPiece, WeldedSolid


@contextlib.contextmanager
def _silenced_c_output():
    """PyBullet's C code prints its build time and 'argv[0]=' on import/connect; keep stdout/stderr clean
    so `--json` output is one JSON object and errors are one line."""
    saved = []
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        devnull = os.open(os.devnull, os.O_WRONLY)
        for fd in (1, 2):
            saved.append((fd, os.dup(fd)))
            os.dup2(devnull, fd)
        os.close(devnull)
    except OSError:  # no real file descriptors (embedded interpreters): print as PyBullet likes
        saved = []
    try:
        yield
    finally:
        for fd, old in saved:
            os.dup2(old, fd)
            os.close(old)


with _silenced_c_output():
    import pybullet as pb
    from pybullet_utils import bullet_client

BodyRole = Literal["table", "board", "die", "template", "prop", "body"]
"""What a body is, read from its name up to the first ':'. The rules rely on these roles: "table" and
"board" are the surfaces a die lands on, "die" bodies are thrown, "template" bodies lie on the board and
count as board, "prop" bodies are specific-throw obstacles; "body" names an unregistered PyBullet body."""

BodyName = str
"""A body's name in this world: its role alone ("table", "board") or role:id ("die:0", "template:fireball",
"prop:firewall", "prop:stone-wall:0", "board:under-templates"). Contacts, the event trace and outcomes report
names; PyBullet ids never leave the world layer (its stepping loops read them through `fast_calls`,
`body`)."""


@dataclass(frozen=True)
class FastCalls:
    """Bound PyBullet calls for the hot loop (BulletClient.__getattr__ costs ~10 % per call)."""

    step: Callable[[], Any]
    pose: Callable[[int], Any]
    velocity: Callable[[int], Any]
    contacts: Callable[[int], Any]
    reset_pose: Callable[..., Any]
    reset_velocity: Callable[..., Any]
    push: Callable[..., Any]  # applyExternalForce
    twist: Callable[..., Any]  # applyExternalTorque


@dataclass(frozen=True)
class BodyGeometry:
    """The shape a body was built from, in its own body frame (metres): what a viewer draws.

    Exactly one of the three is set: a triangle mesh (vertices (n, 3), flat triangle indices), box
    parts ((centre), (half extents)[, yaw about z]) of a compound, or the vertex arrays of convex hulls."""

    mesh: tuple[np.ndarray, np.ndarray] | None = None
    boxes: tuple = ()
    hulls: tuple = ()


class Physics:
    """A PyBullet world with named bodies."""

    def __init__(
        self, settings: PhysicsSettings | None = None, materials: MaterialTable | None = None
    ) -> None:
        self.settings = settings or PhysicsSettings()
        self.materials = materials or MaterialTable.default()
        with _silenced_c_output():
            self.client = bullet_client.BulletClient(connection_mode=pb.DIRECT)
        c = self.client
        c.setGravity(0, 0, -GRAVITY)
        c.setPhysicsEngineParameter(
            fixedTimeStep=1.0 / self.settings.step_hz,
            numSolverIterations=self.settings.solver_iterations,
            deterministicOverlappingPairs=1,
            allowedCcdPenetration=ALLOWED_CCD_PENETRATION_M,
        )
        # changeDynamics bound to this world (the throw loop sets damping at every change of contact)
        self._change_dynamics = functools.partial(pb.changeDynamics, physicsClientId=self.client._client)
        # and its step: the Python-stepped rigs (tilts, drops, flips) step ~10^6 times, and the client's
        # per-call lookup of the bound function was ~15 % of such a step
        self._step_simulation = functools.partial(pb.stepSimulation, physicsClientId=self.client._client)
        self._names: dict[int, BodyName] = {}
        self._ids: dict[BodyName, int] = {}
        self._material_of: dict[str, str] = {}
        self._die_specs: dict[str, DieSpec] = {}
        self._apart: set[frozenset[str]] = set()  # pairs whose collisions are switched off
        self._points: dict[
            str, np.ndarray
        ] = {}  # collision points (body frame) of free bodies, for the rest test
        self._drop_points: dict[str, list[tuple[float, ...]]] = {}
        self._geometry: dict[str, BodyGeometry] = {}  # what each body was built from (read-out only)
        self._surface: dict[str, tuple[float, float]] = {}  # (friction, restitution) as set
        self._parts: dict[str, list[int]] = {}  # every PyBullet body of a static solid (one per convex piece)
        self._welds: dict[tuple[str, str], int] = {}  # (parent, child) -> fixed constraint id
        self._welded: dict[str, WeldedSolid] = {}  # free solids of several convex bodies (`add_welded_hulls`)
        self.dt = 1.0 / self.settings.step_hz
        self.time_s = 0.0
        # Bullet's broadphase updates so far: every stepSimulation and performCollisionDetection of this
        # world (calibration drops, flips and the throw loop's bound steps included). Its dbvt
        # alternates between two stages on every update; loose prop pieces align a throw's start on it
        # (sim/world/props.py, `PropWorld.start`).
        self.updates = 0
        # counts every change of the dice's contact damping: a reader that keeps a table of it (the
        # compiled throw loop) builds it again when this moves
        self.damping_revision = 0
        self.table_material = "wood"
        self.rebound: dict[
            str, tuple[float, float]
        ] = {}  # surface -> (restitution set, mean rebound it gave)
        self._static_aabb: dict[str, tuple] = {}  # bounding boxes of static solids, until they are moved

    # ---------------- building ----------------
    def _register(self, name: BodyName, body: int, material: str) -> int:
        self._names[body] = name
        self._ids[name] = body
        self._material_of[name] = material
        return body

    def add_table(self, material: str, board: BoardSpec | None = None) -> None:
        """The table, top at z = 0: one solid box, or with a board, convex prisms around the board's
        footprint (and under its holes).

        Under the board there is no table: the board's solids reach deep instead (`board_pieces`), so
        a die that sinks into the 2 mm board during a hard impact is pushed back out by the board alone
        and never touches the table through it (it did once: rebounds on the board took the table's
        restitution). A GEOM_PLANE table was rejected: it rebounds a die at ~0.25 even with zero
        restitution. Triangle meshes were rejected: see `sim.world.solids`."""
        self.table_material = material
        self.add_static_solid("table", table_pieces(board), material)

    def add_board(self, board: BoardSpec, name: BodyName = "board") -> None:
        """The board as convex prisms of its cardboard (real holes); its top face is `thickness_mm` above
        the table (z = 0)."""
        self.add_static_solid(name, board_pieces(board), board.material)

    def add_die(self, die: DieSpec, name: BodyName) -> int:
        """A die as a free maximal-coordinate body: its true hull (one convex shape: CCD runs only on
        convex shapes), exact mass and inertia, continuous collision detection and no damping; parked
        below the table. RuntimeError if PyBullet does not keep the mass."""
        c = self.client
        inertia = list(die.inertia_diagonal)
        body = solid_body(
            c, [die.collision_points_m], die.mass_kg, position=(0.0, 0.0, -10.0 - len(self._ids))
        )
        c.changeDynamics(
            body,
            -1,
            linearDamping=0.0,
            angularDamping=0.0,
            localInertiaDiagonal=inertia,
            ccdSweptSphereRadius=0.4 * die.inradius_m if self.settings.ccd else 0.0,
            contactProcessingThreshold=0.0,
        )
        # changeDynamics(localInertiaDiagonal=...) zeroes a maximal-coordinate body's mass: set it again
        c.changeDynamics(body, -1, mass=die.mass_kg, localInertiaDiagonal=inertia)
        info = c.getDynamicsInfo(body, -1)
        if (
            abs(info[0] - die.mass_kg) > 1e-12
            or max(abs(a - b) for a, b in zip(info[2], die.inertia_diagonal)) > 1e-15
        ):
            raise RuntimeError(f"PyBullet did not take the mass/inertia of {name}: {info[0]}, {info[2]}")
        self._die_specs[name] = die
        self._points[name] = die.collision_points_m
        return self._register(name, body, die.material)

    def finalize_materials(self, cache_key: Any = None) -> float:
        """Assign per-body friction/restitution so pair products match the material table; returns worst
        error.

        `cache_key` (JSON-able, naming everything the scene is built from) keeps the rebound calibration
        in the user's cache folder (sim/diskcache.py): the next world of the same scene on this machine
        reads the calibrated restitutions instead of dropping dice (None: always calibrate)."""
        mats = sorted(set(self._material_of.values()))
        dynamic = {self._material_of[n] for n in self._ids if n.startswith(("die", "template"))}
        pairs_f: dict[tuple[str, str], float] = {}
        pairs_e: dict[tuple[str, str], float] = {}
        weights: dict[tuple[str, str], float] = {}
        for a in mats:
            for b in mats:
                if a > b or (a not in dynamic and b not in dynamic):
                    continue
                p = self.materials.require(a, b, "the scene")
                pairs_f[(a, b)] = p.friction
                pairs_e[(a, b)] = max(p.restitution, 1e-3)
                weights[(a, b)] = 1.0 if (a == b and a in dynamic) else 10.0
        if not pairs_f:
            return 0.0
        cf, ef = solve_coefficients(pairs_f, weights)
        ce, ee = solve_coefficients(pairs_e, weights)
        for name in list(self._ids):
            m = self._material_of[name]
            self.set_surface(name, cf.get(m, 1.0), ce.get(m, 1.0))
        self._set_rolling_resistance(cf)
        # contact damping of each die against each body (applied by `set_damping` during a throw)
        self._damping: dict[tuple[str, str], float] = {}
        self.damping_revision += 1
        for d in (n for n in self._ids if n.startswith("die")):
            for other in self._ids:
                pair = self.materials.pair(self._material_of[d], self._material_of[other])
                if pair is not None and pair.contact_damping > 0 and other != d:
                    self._damping[(d, other)] = pair.contact_damping
        self.material_error = max(ef, ee)
        if cache_key is None or not self._cached_rebounds(cache_key):
            self._calibrate_rebounds()
            if cache_key is not None:
                from sim import diskcache

                diskcache.store(
                    "rebound",
                    self._rebound_key(cache_key),
                    {n: list(v) for n, v in self.rebound.items()},
                    "calibrated restitution per surface and the mean rebound it gave; safe to delete",
                )
        return self.material_error

    def _set_rolling_resistance(self, friction_factors: dict[str, float]) -> None:
        """Each static solid's rolling resistance against the first die's material, as Bullet's rolling
        friction of the surface. Bullet limits the rolling torque of a contact to (rolling_a x friction_b +
        rolling_b x friction_a) x the normal force; a die's own rolling friction is 0, so the surface's is
        the pair's lever arm over the die's friction factor. Pairs without rolling resistance leave
        Bullet's rolling friction off (the engine as it was)."""
        self.rolling_resistance: dict[str, float] = {}  # surface -> lever arm (m) against the first die
        dice = [n for n in self._ids if n in self._die_specs]
        if not dice:
            return
        die_material = self._die_specs[dice[0]].material
        for name in self._parts:
            pair = self.materials.pair(die_material, self._material_of[name])
            if pair is None or pair.rolling_resistance_mm <= 0.0:
                continue
            arm = pair.rolling_resistance_mm * 1e-3
            for b in self._bodies(name):
                self.client.changeDynamics(
                    b, -1, rollingFriction=arm / friction_factors.get(die_material, 1.0)
                )
            self.rolling_resistance[name] = arm

    def _rebound_key(self, cache_key: Any) -> list:
        dice = [n for n in self._ids if n in self._die_specs]
        return [
            cache_key,
            "rebound",
            dice[:1],
            sorted(self._drop_points),
            self.settings.model_dump(mode="json"),
        ]

    def _cached_rebounds(self, cache_key: Any) -> bool:
        """Set the calibrated restitutions from the cache; False when there is no usable entry."""
        from sim import diskcache

        value = diskcache.load("rebound", self._rebound_key(cache_key), valid=_plausible_rebounds)
        if not isinstance(value, dict) or set(value) != {
            n for n in self._drop_points if self._rebound_pair(n)
        }:
            return False
        try:
            rebound = {n: (float(v[0]), float(v[1])) for n, v in value.items()}
        except (TypeError, ValueError, IndexError):
            return False
        dice = [n for n in self._ids if n in self._die_specs]
        if not dice:
            return False
        self.rebound.clear()
        for name in sorted(rebound):
            self.set_surface(name, self.surface(name)[0], rebound[name][0])
            self.rebound[name] = rebound[name]
        self.park(dice[0])
        return True

    def _rebound_pair(self, name: str) -> bool:
        dice = [n for n in self._ids if n in self._die_specs]
        return (
            bool(dice)
            and self.materials.pair(self._die_specs[dice[0]].material, self._material_of[name]) is not None
        )

    def set_drop_points(self, name: BodyName, xy_m: list[tuple[float, float]], top_m: float) -> None:
        """Points over a static body where a die is dropped to calibrate its rebound (averaged over points;
        on convex solids the rebound no longer depends on where the die lands). Point i of n meets the
        surface at step phase (i + 0.5) / n (see `drop_rebound`)."""
        n = len(xy_m)
        self._drop_points[name] = [
            (float(x), float(y), float(top_m), (i + 0.5) / n) for i, (x, y) in enumerate(xy_m)
        ]

    def _calibrate_rebounds(self) -> None:
        """Make each die-on-surface rebound what the material table says (nominal restitution is not
        the rebound you get). For every static body with drop points, the mean rebound of flat 10 cm
        drops of the first die is solved for over that body's restitution (regula falsi, Illinois form,
        bracketed in [0, 2]), in this very world. Results are in `self.rebound`."""
        self.rebound.clear()
        dice = [n for n in self._ids if n in self._die_specs]
        if not dice:
            return
        die = dice[0]
        spec = self._die_specs[die]
        for name, points in sorted(self._drop_points.items()):
            pair = self.materials.pair(spec.material, self._material_of[name])
            if pair is None:
                continue
            friction = self.surface(name)[0]

            def miss(e: float, name=name, friction=friction, points=points, target=pair.restitution) -> float:
                self.set_surface(name, friction, e)
                return self._mean_rebound(die, spec, points) - target

            # restitution above 1 on one body is fine: the pair is a product with the die's
            lo, hi = 0.0, 2.0
            f_lo, f_hi = miss(lo), miss(hi)
            value, f_val, side = lo, f_lo, 0
            if f_lo < 0.0 < f_hi:
                for _ in range(REBOUND_ITERATIONS):
                    value = (lo * f_hi - hi * f_lo) / (f_hi - f_lo)
                    f_val = miss(value)
                    if abs(f_val) <= REBOUND_TOLERANCE:
                        break
                    if f_val < 0.0:
                        lo, f_lo = value, f_val
                        if side == -1:
                            f_hi *= 0.5  # Illinois: the end kept twice in a row is halved
                        side = -1
                    else:
                        hi, f_hi = value, f_val
                        if side == 1:
                            f_lo *= 0.5
                        side = 1
            else:  # out of reach: the nearer end
                value, f_val = (lo, f_lo) if abs(f_lo) < abs(f_hi) else (hi, f_hi)
            self.set_surface(name, friction, value)
            self.rebound[name] = (value, f_val + pair.restitution)
        self.park(die)

    def _mean_rebound(self, die: BodyName, spec: DieSpec, points) -> float:
        return float(
            np.mean([drop_rebound(self, die, spec, x, y, top, phase) for x, y, top, phase in points])
        )

    def contact_damping(self, die: BodyName, touching) -> float:
        """Damping a die gets while touching these bodies (the largest of their pair values)."""
        return max((self._damping.get((die, o), 0.0) for o in touching), default=0.0)

    def set_damping(self, die: BodyName, value: float) -> None:
        """Set a die's linear and angular velocity damping (the contact damping it gets while touching)."""
        self._change_dynamics(self._ids[die], -1, linearDamping=value, angularDamping=value)

    # ---------------- bodies from convex pieces (sim.world.solids) ----------------
    def add_static_solid(
        self,
        name: BodyName,
        hulls: list[np.ndarray],
        material: str,
        position=(0.0, 0.0, 0.0),
        orientation_xyzw=(0.0, 0.0, 0.0, 1.0),
    ) -> int:
        """A static solid made of the convex hulls of vertex arrays (body frame, metres): one PyBullet body
        per hull (see `static_bodies`), all answering to `name`."""
        bodies = static_bodies(self.client, hulls, STATIC_MARGIN_M, position, orientation_xyzw)
        self._static_aabb.pop(name, None)
        self._geometry[name] = BodyGeometry(hulls=tuple(np.asarray(h) for h in hulls))
        self._parts[name] = bodies
        for b in bodies[1:]:
            self._names[b] = name
        return self._register(name, bodies[0], material)

    def _bodies(self, name: BodyName) -> list[int]:
        welded = self._welded.get(name)
        if welded is not None:
            return welded.bodies
        return self._parts.get(name) or [self._ids[name]]

    def _every_body(self, name: BodyName) -> list[int]:
        """Every PyBullet body of a name, a welded solid's anchor included (`_bodies`: those that collide)."""
        welded = self._welded.get(name)
        return welded.all_bodies if welded is not None else self._bodies(name)

    def add_dynamic_hulls(
        self,
        name: BodyName,
        hulls: list[np.ndarray],
        mass_kg: float,
        inertia_diagonal,
        material: str,
        ccd_radius_m: float,
        rolling_friction: float = 0.0,
    ) -> int:
        """A free maximal-coordinate body of convex hulls with its exact mass and inertia, parked below
        the table, never asleep (a sleeping body carries state across resets)."""
        body = self._free_body(
            name,
            hulls,
            mass_kg,
            inertia_diagonal,
            ccd_radius_m,
            rolling_friction,
            (0.0, 0.0, -20.0 - len(self._ids)),
        )
        self._points[name] = np.vstack([np.asarray(h, dtype=float) for h in hulls])
        self._geometry[name] = BodyGeometry(hulls=tuple(np.asarray(h) for h in hulls))
        return self._register(name, body, material)

    def _free_body(
        self,
        what: str,
        hulls: list[np.ndarray],
        mass_kg: float,
        inertia_diagonal,
        ccd_radius_m: float,
        rolling_friction: float,
        position,
    ) -> int:
        """A free maximal-coordinate body of convex hulls at `position` with exact mass and inertia, no
        damping, never asleep. RuntimeError naming `what` if PyBullet does not keep the mass."""
        c = self.client
        body = solid_body(c, hulls, mass_kg, position=position)
        inertia = list(inertia_diagonal)
        c.changeDynamics(
            body,
            -1,
            linearDamping=0.0,
            angularDamping=0.0,
            localInertiaDiagonal=inertia,
            ccdSweptSphereRadius=ccd_radius_m if self.settings.ccd else 0.0,
            contactProcessingThreshold=0.0,
            rollingFriction=rolling_friction,
            spinningFriction=rolling_friction,
            activationState=pb.ACTIVATION_STATE_DISABLE_SLEEPING,
        )
        c.changeDynamics(
            body, -1, mass=mass_kg, localInertiaDiagonal=inertia
        )  # the first call zeroes the mass
        info = c.getDynamicsInfo(body, -1)
        if abs(info[0] - mass_kg) > 1e-12:
            raise RuntimeError(f"PyBullet did not take the mass of {what}: {info[0]}")
        return body

    def add_welded_hulls(
        self,
        name: BodyName,
        pieces: list[WeldedPiece],
        anchor: tuple[float, tuple[float, float, float]],
        material: str,
        ccd_radius_m: float,
        rolling_friction: float = 0.0,
    ) -> int:
        """A free solid of several convex pieces, each its own maximal-coordinate body (`add_dynamic_hulls`)
        at its centre of mass with its own mass and inertia, held to the heaviest by fixed joints, the
        pieces never colliding with each other, and an anchor (`anchor`: its mass and moments of inertia,
        at the solid's origin) welded last, colliding with nothing; parked below the table. The solid
        answers to `name` everywhere in this facade (poses and velocities are its frame's, contacts
        those of every piece).

        Why not one compound (`add_dynamic_hulls` with several hulls): see `sim.world.welded`. A piece's
        products of inertia about its own centre are left out (PyBullet takes a diagonal along the body
        axes, and the joint holds every piece at the solid's orientation); for the built-in templates the
        solid's moments are still the cut body's to 9 digits, its products of inertia 0 (the pieces'
        cancel)."""
        c = self.client
        base = (0.0, 0.0, -20.0 - len(self._ids))
        # the heaviest piece first: every joint holds a piece to it (a star of joints on a light piece, a
        # point of the Explosion, let the solid give by up to 1 mm under a die's knock)
        pieces = sorted(pieces, key=lambda p: -p.mass_kg)
        solid = WeldedSolid([], [_on_grid(p.centre_m) for p in pieces])
        for piece, centre, (at, _v) in zip(
            pieces, solid.centres, solid.piece_states(base, (0.0, 0.0, 0.0, 1.0))
        ):
            hull = np.asarray(piece.hull, dtype=float) - np.asarray(centre)
            solid.bodies.append(
                self._free_body(
                    f"a piece of {name}",
                    [hull],
                    piece.mass_kg,
                    piece.inertia_diagonal,
                    ccd_radius_m,
                    rolling_friction,
                    at,
                )
            )
        mass, inertia = float(anchor[0]), [float(t) for t in anchor[1]]
        solid.anchor = c.createMultiBody(mass, -1, basePosition=list(base), useMaximalCoordinates=True)
        c.changeDynamics(
            solid.anchor,
            -1,
            linearDamping=0.0,
            angularDamping=0.0,
            localInertiaDiagonal=inertia,
            activationState=pb.ACTIVATION_STATE_DISABLE_SLEEPING,
        )
        c.changeDynamics(solid.anchor, -1, mass=mass, localInertiaDiagonal=inertia)
        c.setCollisionFilterGroupMask(solid.anchor, -1, 0, 0)  # in no broadphase pair, ever
        first, c0 = solid.bodies[0], solid.centres[0]
        for i, body in enumerate(solid.all_bodies):
            for other in solid.bodies[:i]:
                c.setCollisionFilterPair(other, body, -1, -1, 0)
            if i:
                at = solid.centres[i] if body != solid.anchor else (0.0, 0.0, 0.0)
                offset = [at[k] - c0[k] for k in range(3)]
                joint = c.createConstraint(
                    first, -1, body, -1, pb.JOINT_FIXED, [0.0, 0.0, 0.0], offset, [0.0, 0.0, 0.0]
                )
                c.changeConstraint(joint, maxForce=WELD_MAX_FORCE_N)
                solid.joints.append(joint)
            self._names[body] = name
        self._welded[name] = solid
        self._points[name] = np.vstack([np.asarray(p.hull, dtype=float) for p in pieces])
        self._geometry[name] = BodyGeometry(hulls=tuple(np.asarray(p.hull) for p in pieces))
        return self._register(name, first, material)

    def renew_inertia(self) -> None:
        """Give every welded solid's bodies the world-frame inertia of lying unturned, as when it was made:
        each solid set down alone far from everything, unturned and at rest, awake, and the world
        stepped once. The caller then sets every welded solid where it belongs (nothing else of the
        world is put back: call it before the bodies of a throw are set).

        Why: PyBullet's reset moves a body but leaves Bullet's world-frame inverse inertia at that of
        the body's last stepped orientation (Bullet computes it when it integrates the body), and the
        first step of a template a die wakes solves its joints with it: the throw followed the
        template's orientation in an earlier throw. Unturned, the step is exact: every piece's centre
        lies on a binary grid (`WELD_GRID_M`) and the solid stands on it, so the joints see no error,
        get no impulse, and no piece turns; the inertia is that of the unturned body, to the bit, in
        any world and after any history."""
        if not self._welded:
            return
        c = self.client
        for k, solid in enumerate(self._welded.values()):
            at = (RENEW_AT_M[0], RENEW_AT_M[1] + 2.0 * k, RENEW_AT_M[2])
            for body, (p, _v) in zip(solid.all_bodies, solid.piece_states(at, (0.0, 0.0, 0.0, 1.0))):
                c.resetBasePositionAndOrientation(body, list(p), [0.0, 0.0, 0.0, 1.0])
                c.resetBaseVelocity(body, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0])
                c.changeDynamics(body, -1, activationState=pb.ACTIVATION_STATE_WAKE_UP)
        self.tick()

    def add_box_compound(self, name: BodyName, parts: list, mass_kg: float, material: str) -> int:
        """A free compound of boxes ((centre, half extents[, yaw]) per part), parked, never asleep."""
        c = self.client
        hulls = [box_hull(p[0], p[1], p[2] if len(p) > 2 else 0.0) for p in parts]
        body = solid_body(c, hulls, mass_kg, position=(0.0, 0.0, -20.0 - len(self._ids)))
        c.changeDynamics(
            body,
            -1,
            linearDamping=0.0,
            angularDamping=0.0,
            activationState=pb.ACTIVATION_STATE_DISABLE_SLEEPING,
        )
        self._geometry[name] = BodyGeometry(boxes=tuple(tuple(p) for p in parts))
        return self._register(name, body, material)

    def weld(self, parent: BodyName, child: BodyName, offset_m) -> None:
        """Hold `child` rigidly at `offset_m` (parent frame, same orientation) from `parent`, the pair not
        colliding: one piece of card made of two convex bodies (a Stone Wall piece and its foot), so
        each contact pair has one manifold (a compound's child manifolds tie in Bullet's solver order)."""
        c = self.client
        self.collide(parent, child, False)
        cid = c.createConstraint(
            self._ids[parent],
            -1,
            self._ids[child],
            -1,
            pb.JOINT_FIXED,
            [0.0, 0.0, 0.0],
            [float(x) for x in offset_m],
            [0.0, 0.0, 0.0],
        )
        c.changeConstraint(cid, maxForce=WELD_MAX_FORCE_N)
        self._welds[(parent, child)] = cid

    def remove_body(self, name: BodyName) -> None:
        """Remove a body from the world (its name can be registered again), and the welds holding it."""
        for pair in [p for p in self._welds if name in p]:
            self.client.removeConstraint(self._welds.pop(pair))
        self._static_aabb.pop(name, None)
        welded = self._welded.pop(name, None)
        for joint in welded.joints if welded is not None else ():
            self.client.removeConstraint(joint)
        body = self._ids.pop(name)
        for b in reversed(welded.all_bodies) if welded is not None else self._parts.pop(name, [body]):
            self._names.pop(b, None)
            if b != body:
                self.client.removeBody(b)
        self._points.pop(name, None)
        self._surface.pop(name, None)
        self._apart = {p for p in self._apart if name not in p}
        self._geometry.pop(name, None)
        self.client.removeBody(body)

    def material_of(self, name: BodyName) -> str:
        """The material a body was registered with."""
        return self._material_of[name]

    def surface(self, name: BodyName) -> tuple[float, float]:
        """(friction, restitution) factors the engine holds for a body: as set here (PyBullet's
        getDynamicsInfo does not report a maximal-coordinate body's restitution: it returns whatever the
        previous query left), else the engine's friction and Bullet's default restitution 0."""
        if name in self._surface:
            return self._surface[name]
        info = self.client.getDynamicsInfo(self._ids[name], -1)
        return float(info[1]), 0.0

    def set_surface(self, name: BodyName, friction: float, restitution: float) -> None:
        """Set the friction and restitution factors the engine multiplies per contact for a body."""
        for b in self._bodies(name):
            self.client.changeDynamics(b, -1, lateralFriction=friction, restitution=restitution)
        self._surface[name] = (float(friction), float(restitution))

    def set_rolling_friction(self, names, value: float) -> None:
        """Set Bullet's rolling friction (a lever arm, m) of these bodies: the rolling resistance a die of
        friction factor 1 and no rolling friction of its own meets on them (see `_set_rolling_resistance`)."""
        for name in names:
            for b in self._bodies(name):
                self.client.changeDynamics(b, -1, rollingFriction=value)

    def set_pair_damping(self, die: BodyName, other: BodyName, value: float) -> None:
        """Contact damping of `die` while it touches `other` (see `contact_damping`)."""
        self._damping[(die, other)] = value
        self.damping_revision += 1

    def collide(self, a: BodyName, b: BodyName, enabled: bool) -> None:
        """Switch collisions between two bodies on or off."""
        for ba in self._bodies(a):
            for bb in self._bodies(b):
                self.client.setCollisionFilterPair(ba, bb, -1, -1, int(enabled))
        pair = frozenset((a, b))
        if enabled:
            self._apart.discard(pair)
        else:
            self._apart.add(pair)

    def collides(self, a: str, b: str) -> bool:
        """Whether two bodies can touch at all (False once `collide(a, b, False)`)."""
        return frozenset((a, b)) not in self._apart

    def set_angular_damping(self, name: BodyName, value: float) -> None:
        """Set a body's angular velocity damping (linear damping unchanged; a welded solid: every piece's)."""
        for b in self._every_body(name):
            self.client.changeDynamics(b, -1, angularDamping=value)

    def put_to_sleep(self, name: BodyName) -> None:
        """Put a free body to sleep where it lies: Bullet leaves it out of every step until an awake body
        touches it (then it wakes, in that step). Call it before `forget_contacts`: a sleeping body keeps
        the broadphase box of its last stepped pose until its proxy is rebuilt."""
        for b in self._every_body(name):
            self.client.changeDynamics(b, -1, activationState=pb.ACTIVATION_STATE_ENABLE_SLEEPING)
            self.client.changeDynamics(b, -1, activationState=pb.ACTIVATION_STATE_SLEEP)

    def wake(self, name: BodyName) -> list[int]:
        """Wake a sleeping free body (a welded solid: every piece and its anchor), as Bullet does when an
        awake body's bounding box overlaps it; its PyBullet bodies. For measuring what an awake body
        costs a step (benchmarks/awake_templates.py): a throw never wakes one itself."""
        bodies = self._every_body(name)
        for b in bodies:
            self.client.changeDynamics(b, -1, activationState=pb.ACTIVATION_STATE_WAKE_UP)
        return bodies

    def welded_joints(self, name: BodyName) -> int:
        """The fixed joints holding a welded solid together (0 for any other body)."""
        welded = self._welded.get(name)
        return 0 if welded is None else len(welded.joints)

    def forget_contacts(self, names: list[BodyName] | None = None) -> None:
        """Start these free bodies (default: every free body, in registration order) afresh in the
        broadphase: drop all their pairs and cached contacts, and size their broadphase boxes to their
        poses now. Call it once every body stands where a throw starts, so the throw carries nothing
        from where the bodies were before.

        Why: `set_state` (PyBullet's reset) moves a body but leaves its interpolation transform at its
        last stepped pose, and Bullet sizes the body's broadphase box over both poses; the box is kept
        until the body leaves it. Every static piece inside it gets a pair and an (empty) contact
        manifold, so which pairs a throw starts with depended on where the dice rested in the previous
        throw; as those pairs are dropped their manifolds are swap-removed from the dispatcher's array.
        Bullet's deterministic mode sorts manifolds by body ids, which ties for the several child
        manifolds of one compound (the cup, the free split-wall pieces), so their solver order - and
        the throw's bits - followed that history. Through `setCollisionFilterGroupMask` Bullet
        rebuilds the body's broadphase proxy from its pose alone (`refreshBroadphaseProxy`), which
        drops the pairs with their manifolds; the body id, its place in the world's arrays and its
        collision filters stay."""
        c = self.client
        for name in self._ids if names is None else names:
            if name in self._parts or self.mass_kg(name) <= 0.0:
                continue  # static: never moved, never reset
            for b in self._bodies(name):
                c.setCollisionFilterGroupMask(b, -1, DYNAMIC_FILTER_GROUP, DYNAMIC_FILTER_MASK)

    def detect_collisions(self) -> None:
        """Run collision detection without stepping (advances the broadphase by one update)."""
        self.client.performCollisionDetection()
        self.updates += 1

    def settle(self, names: list[BodyName], max_time_s: float = 3.0) -> bool:
        """Step until every named body is at rest by the throw loop's own rest test (sim/world/rest.py:
        quiet windows, as many as the body's support asks), True; or the time cap, False."""
        c = self.client
        test = RestTest.from_settings(self.settings)
        bodies = [self._ids[n] for n in names]
        detector = RestDetector(test, [self._points.get(n) for n in names])
        for k in range(1, int(max_time_s / self.dt) + 1):
            self.step()
            if k % test.window_steps:
                continue
            still = True
            for i, b in enumerate(bodies):
                velocity: Any  # () -> (linear, angular velocity)
                if names[i] in self._welded:  # a welded solid: its frame, every piece's contacts
                    pos, q = self.pose_call(names[i])()
                    cps = self.contact_points(names[i])
                    velocity = functools.partial(self.die_velocity, names[i])
                else:
                    pos, q = c.getBasePositionAndOrientation(b)
                    cps = c.getContactPoints(bodyA=b)
                    velocity = functools.partial(c.getBaseVelocity, b)
                still &= detector.window(
                    i, pos, q, touches(cps), velocity, functools.partial(touching_normals, cps)
                )
            if still:
                return True
        return False

    # ---------------- state ----------------
    def body(self, name: BodyName) -> int:
        """The PyBullet body id of a name (for calls the facade does not wrap)."""
        return self._ids[name]

    def name_of(self, body: int) -> BodyName:
        """The name of a PyBullet body id; 'body:<id>' for a body this world did not register."""
        return self._names.get(body, f"body:{body}")

    def names(self) -> list[BodyName]:
        """All registered body names, in registration order."""
        return list(self._ids)

    def set_state(
        self, name, position_m, orientation_xyzw, velocity_mps=(0, 0, 0), spin_radps=(0, 0, 0)
    ) -> None:
        """Put a body at a pose (m, xyzw) with a velocity (m/s) and spin (rad/s), world frame."""
        b = self._ids[name]
        self._static_aabb.pop(name, None)
        welded = self._welded.get(name)
        if welded is not None:
            q = list(orientation_xyzw)
            for piece, (at, v) in zip(
                welded.all_bodies, welded.piece_states(position_m, q, velocity_mps, spin_radps)
            ):
                self.client.resetBasePositionAndOrientation(piece, list(at), q)
                self.client.resetBaseVelocity(piece, list(v), list(spin_radps))
            return
        self.client.resetBasePositionAndOrientation(b, list(position_m), list(orientation_xyzw))
        self.client.resetBaseVelocity(b, list(velocity_mps), list(spin_radps))  # reset zeroed them

    def set_pose(self, name: BodyName, position_m, orientation_xyzw) -> None:
        """Move a body without touching its velocity (static and kinematic bodies)."""
        self._static_aabb.pop(name, None)
        welded = self._welded.get(name)
        if welded is not None:
            for piece, (at, _v) in zip(welded.all_bodies, welded.piece_states(position_m, orientation_xyzw)):
                self.client.resetBasePositionAndOrientation(piece, list(at), list(orientation_xyzw))
            return
        for b in self._bodies(name):
            self.client.resetBasePositionAndOrientation(b, list(position_m), list(orientation_xyzw))

    def park(self, name: BodyName) -> None:
        """Move a body out of the way (far below the table), at rest."""
        k = list(self._ids).index(name)
        self.set_state(name, (50.0 + k, 50.0, -5.0), (0, 0, 0, 1))

    def step(self) -> None:
        """Advance the world by one fixed time step and the clock by `dt` (s)."""
        self.tick()
        self.time_s += self.dt

    def tick(self) -> None:
        """Advance the world by one step, the clock left alone (calibration drops, template flips keep
        their own time); counted in `updates` like every step."""
        self._step_simulation()
        self.updates += 1

    def set_gravity(self, acceleration_mps2=(0.0, 0.0, -GRAVITY)) -> None:
        """The world's gravity (m/s^2, world frame); `dfsim validate` switches it off to watch a free
        template precess."""
        self.client.setGravity(*(float(a) for a in acceleration_mps2))

    def set_step(self, dt: float) -> None:
        """The length of the next steps (the throw loop's per-impact step); `dt` stays the contact step."""
        self.client.setPhysicsEngineParameter(fixedTimeStep=dt)

    def reset_clock(self) -> None:
        """Start a new throw's clock at 0 s (event times are relative to it)."""
        self.time_s = 0.0

    # -------- adaptive stepping support (sim/world/stepper.py, sim/world/ballistic.py) --------
    def aabbs(self, names) -> list[tuple[tuple[float, float, float], tuple[float, float, float]]]:
        """Bounding boxes (lo, hi) of these bodies as Bullet's broadphase has them now."""
        out = []
        for n in names:
            box = self._static_aabb.get(n)
            if box is None:
                boxes = np.array([self.client.getAABB(b) for b in self._bodies(n)])  # (pieces, lo/hi, xyz)
                box = (tuple(boxes[:, 0].min(axis=0).tolist()), tuple(boxes[:, 1].max(axis=0).tolist()))
                if n in self._parts:  # a static solid's box changes only when it is moved (set_pose): kept
                    self._static_aabb[n] = box
            out.append(box)
        return out

    def bounding_radius(self, name: str) -> float:
        """Radius of a sphere about the die's centre holding its whole collision shape (margin included)."""
        spec = self._die_specs[name]
        return float(row_norms(spec.collision_points_m).max()) + DIE_MARGIN_M

    def collision_points(self, name: str) -> np.ndarray | None:
        """A free body's collision points in its body frame (m), as its hull is built from them (None:
        not a hull body)."""
        return self._points.get(name)

    def names_by_body(self) -> dict[int, str]:
        """Body id -> name, a copy (the throw loop maps contact points with it)."""
        return dict(self._names)

    def isotropic(self, name: str) -> bool:
        """True when the die's inertia is isotropic, so its spin is constant in free flight."""
        d = self._die_specs[name].inertia_diagonal
        return max(d) - min(d) <= 1e-9 * max(d)

    def fast_calls(self) -> FastCalls:
        """PyBullet calls bound to this world's client for the throw loop (skips BulletClient's dispatch)."""
        cid = self.client._client
        raw_step = functools.partial(pb.stepSimulation, physicsClientId=cid)

        def step() -> Any:
            self.updates += 1
            return raw_step()

        return FastCalls(
            step=step,
            pose=functools.partial(pb.getBasePositionAndOrientation, physicsClientId=cid),
            velocity=functools.partial(pb.getBaseVelocity, physicsClientId=cid),
            contacts=functools.partial(pb.getContactPoints, physicsClientId=cid),  # (bodyA)
            reset_pose=functools.partial(pb.resetBasePositionAndOrientation, physicsClientId=cid),
            reset_velocity=functools.partial(pb.resetBaseVelocity, physicsClientId=cid),
            push=functools.partial(pb.applyExternalForce, physicsClientId=cid),
            twist=functools.partial(pb.applyExternalTorque, physicsClientId=cid),
        )

    def load_plugin(self, path: str, postfix: str) -> Callable[[list[int]], int]:
        """Load a PyBullet plugin into this world (its entry points end in `postfix`); its command call,
        bound to this world (integer arguments in, its integer result out). RuntimeError if it does not
        load."""
        cid = self.client._client
        plugin = pb.loadPlugin(path, postfix, physicsClientId=cid)
        if plugin < 0:
            raise RuntimeError(f"PyBullet did not load the plugin {path}")
        return functools.partial(pb.executePluginCommand, plugin, "", physicsClientId=cid)

    # ---------------- read-outs ----------------
    def body_geometry(self, name: BodyName) -> BodyGeometry | None:
        """The mesh, box parts or hulls a body was built from (body frame, m); None for dice and
        bodies built from a primitive shape."""
        return self._geometry.get(name)

    def mass_kg(self, name: BodyName) -> float:
        """A body's mass (0 for static bodies: they never move; a welded solid's: all its pieces')."""
        welded = self._welded.get(name)
        if welded is not None:
            return math.fsum(float(self.client.getDynamicsInfo(b, -1)[0]) for b in welded.all_bodies)
        return float(self.client.getDynamicsInfo(self._ids[name], -1)[0])

    def die_pose(self, name: BodyName) -> tuple[np.ndarray, np.ndarray]:
        """Position (m) and orientation (xyzw) of a body, world frame."""
        p, q = self.client.getBasePositionAndOrientation(self._ids[name])
        welded = self._welded.get(name)
        if welded is not None:
            p, q = welded.solid_pose(p, q)
        return np.array(p), np.array(q)

    def pose_call(self, name: BodyName) -> Callable[[], Any]:
        """A call returning a body's (position, xyzw) as PyBullet does, bound to it (for readers that
        poll poses every step: the viewer's recorder); a welded solid's is its frame's."""
        welded = self._welded.get(name)
        get = functools.partial(
            pb.getBasePositionAndOrientation, self._ids[name], physicsClientId=self.client._client
        )
        if welded is None:
            return get

        def solid() -> Any:
            return welded.solid_pose(*get())

        return solid

    def die_velocity(self, name: BodyName) -> tuple[np.ndarray, np.ndarray]:
        """Linear (m/s) and angular (rad/s) velocity of a body, world frame (a welded solid: of its frame's
        origin)."""
        b = self._ids[name]
        v, w = self.client.getBaseVelocity(b)
        welded = self._welded.get(name)
        if welded is not None:
            v = welded.solid_velocity(self.client.getBasePositionAndOrientation(b)[1], v, w)
        return np.array(v), np.array(w)

    def contacts(self, name: BodyName) -> list[Contact]:
        """Contacts of a body closer than TOUCH_DISTANCE_M (0.1 mm), with the other body's name."""
        return contacts_of(self.contact_points(name), self.name_of)

    def contact_points(self, name: BodyName) -> list:
        """PyBullet's contact points of a free body (every piece of a welded solid, piece by piece) with
        the others, as `getContactPoints(bodyA=...)` gives them."""
        welded = self._welded.get(name)
        if welded is None:
            return list(self.client.getContactPoints(bodyA=self._ids[name]))
        return [cp for b in welded.bodies for cp in self.client.getContactPoints(bodyA=b)]

    def separation(self, a: BodyName, b: BodyName, within_m: float = 0.01) -> float | None:
        """Smallest signed distance (m) between two named bodies (every part of each), from Bullet's
        closest points at their current poses: negative where they overlap (its depth); None when
        they are farther apart than `within_m`."""
        self.detect_collisions()
        c = self.client
        best = None
        for ba in self._bodies(a):
            for bb in self._bodies(b):
                for cp in c.getClosestPoints(ba, bb, within_m):
                    if best is None or cp[DISTANCE] < best:
                        best = float(cp[DISTANCE])
        return best

    def top_under(self, xy_m, names: list[BodyName], from_z_m: float = 2.0) -> float | None:
        """The highest point (z, m) of the named bodies straight below any of the board-frame points
        `xy_m`, by vertical rays cast from `from_z_m` down to the table (a ray whose first hit is
        another body counts nothing); None when no ray meets them. Where to set a die down on a
        prop (into the Volcano's crater, onto a Slow token)."""
        ids = {b for n in names for b in self._bodies(n)}
        if not ids:
            return None
        pts = np.asarray(xy_m, dtype=float).reshape(-1, 2)
        starts = [(float(x), float(y), from_z_m) for x, y in pts]
        ends = [(float(x), float(y), -0.01) for x, y in pts]
        tops = [float(h[3][2]) for h in self.client.rayTestBatch(starts, ends) if h[0] in ids]
        return max(tops) if tops else None

    def touching(self, name: BodyName) -> frozenset[BodyName]:
        """Names of the bodies this body is touching now."""
        return frozenset(c.other for c in self.contacts(name))

    def close(self) -> None:
        """Disconnect from PyBullet (harmless if already disconnected)."""
        try:
            self.client.disconnect()
        except pb.error:
            pass


# Continuous collision detection clamps a step's motion when the die's swept sphere would move into a
# surface. With 0 allowed, a die whose sphere already touched a surface (after sinking a few mm in a hard
# landing) had every later step clamped to nothing and hung there until the time cap (2 of 2000 d4
# board throws at 240 Hz). Motions of less than 0.1 mm per step into a surface are left to the contact
# solver; the 2 mm board still stops every die at the fastest release any shot makes (`dfsim validate`).
ALLOWED_CCD_PENETRATION_M = 1e-4
# Bullet's default collision margin of a convex hull (1 mm, measured): face clipping ignores it, but
# broadphase boxes, CCD sweeps and contacts with bodies without polyhedral features include it.
DIE_MARGIN_M = 0.001
# Collision margin of the static solids' pieces (see `sim.world.solids.static_bodies` for why small).
STATIC_MARGIN_M = 1e-4
# The broadphase filter Bullet gives every free rigid body (btBroadphaseProxy::DefaultFilter, AllFilter);
# `forget_contacts` sets it again to rebuild a body's proxy
DYNAMIC_FILTER_GROUP = 1
WELD_MAX_FORCE_N = 1e4  # far beyond what a die's knock puts through a card joint: welds do not give
# The centres of a welded solid's pieces are multiples of this (m, ~0.23 nm): on it, the sums Bullet forms
# for a joint of an unturned solid standing at `RENEW_AT_M` are exact (`Physics.renew_inertia`)
WELD_GRID_M = 2.0**-32
RENEW_AT_M = (
    50.0,
    80.0,
    -5.0,
)  # where `renew_inertia` sets the welded solids down (the k-th 2 m further in y)
DYNAMIC_FILTER_MASK = -1
DROP_HEIGHT_M = 0.10
DROP_GAP_M = 0.003  # a calibration drop starts this far above the surface, at its exact 10 cm speed
REBOUND_WINDOW_S = 0.03  # the rebound is the highest upward speed this long after the impact
REBOUND_ITERATIONS = 12
REBOUND_TOLERANCE = 5e-4  # on the mean rebound


def _on_grid(v) -> tuple[float, float, float]:
    """A point rounded to multiples of `WELD_GRID_M`."""
    x, y, z = (round(float(t) / WELD_GRID_M) * WELD_GRID_M for t in v)
    return (x, y, z)


def drop_rebound(
    ph: Physics, die: BodyName, spec: DieSpec, x: float, y: float, top: float, phase: float = 0.5
) -> float:
    """Rebound speed / impact speed of a flat 10 cm drop of `die` at (x, y) onto a surface at height `top`.

    The flight is exact (the die starts `DROP_GAP_M` above the surface at the speed of a 10 cm fall) and
    `phase` in [0, 1) sets where between two steps it meets the surface: the rebound depends on how
    deep the first contact step finds the die (the mean over drops on the table at 960 Hz ran from
    0.42 to 0.50 with the phase), and a thrown die lands at any phase, so calibrations spread it."""
    from sim.specs.die import quat_to_matrix

    q = spec.orientation_with_face(len(spec.faces) - 1, up=False)
    pts = matmul(spec.collision_points_m, quat_to_matrix(q).T)
    hz = ph.settings.step_hz
    gap = DROP_GAP_M + (phase % 1.0) * math.sqrt(2.0 * GRAVITY * DROP_HEIGHT_M) / hz
    speed = math.sqrt(2.0 * GRAVITY * (DROP_HEIGHT_M - gap))
    ph.set_state(die, (x, y, top - pts[:, 2].min() + gap), q, (0, 0, -speed), (0, 0, 0))
    body = ph.body(die)
    vz = []
    for _ in range(int((gap / speed + REBOUND_WINDOW_S) * hz) + 2):
        ph.tick()
        vz.append(ph.client.getBaseVelocity(body)[0][2])
    # The impact speed is known (that of a 10 cm fall), the rebound is the highest upward speed after it.
    # Finding the impact step from jumps in the velocity missed impacts that came within the first step:
    # a thin cylinder read 0 for half its drop phases, and the calibration pushed its restitution to 1.5.
    return max(0.0, float(max(vz))) / math.sqrt(2.0 * GRAVITY * DROP_HEIGHT_M)


def _plausible_rebounds(value: Any) -> bool:
    """Whether a cached rebound calibration can be one: per surface two finite numbers (restitution
    factor, mean rebound), each in [0, 4] (anything else is a damaged entry, calibrated again)."""
    if not isinstance(value, dict):
        return False
    for v in value.values():
        if not (
            isinstance(v, list)
            and len(v) == 2
            and all(
                isinstance(x, (int, float))
                and not isinstance(x, bool)
                and math.isfinite(x)
                and 0.0 <= x <= 4.0
                for x in v
            )
        ):
            return False
    return True
