"""The PyBullet world: table, board with real holes, dice; named read-outs, no game logic.

Modelled on dm_control's Physics: the task (shot, rules) never touches PyBullet handles; it asks
this object for `die_pose()`, `touching()`, and steps it. One world per process, built once and
reused: bodies are reset, never reloaded, between throws.

Choices (DESIGN §8):
- dice are maximal-coordinate rigid bodies with continuous collision detection
  (`allowedCcdPenetration=0`, swept sphere = 0.4 x the die inradius), zero linear/angular damping;
- the board is one static triangle mesh (top, bottom and every wall of the outline and of each
  hole) with `GEOM_CONCAVE_INTERNAL_EDGE`, so dice slide across it without catching internal edges
  and can drop through a cut-out onto the table;
- the table is a static plane at z = 0;
- friction / restitution per body come from the material table via `material.solve_coefficients`;
- `deterministicOverlappingPairs=1` and a fixed time step make stepping reproducible to the bit.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from dataclasses import dataclass
from typing import Literal

import numpy as np
import shapely
from pydantic import Field

from .board import BoardSpec
from .die import DieSpec
from .material import MaterialTable, solve_coefficients
from .spec import Spec


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


GRAVITY = 9.81


class PhysicsSettings(Spec):
    """Engine settings; every field can be overridden as `physics.<field>` in a scenario."""

    # the step while a die is in or near contact (sim/engine/stepper.py); 960 Hz is converged (docs/physics.md)
    step_hz: float = Field(default=960.0, ge=60, le=20000)
    solver_iterations: int = Field(default=50, ge=1, le=1000)
    max_time_s: float = Field(default=8.0, gt=0, le=120)
    rest_speed_mps: float = Field(default=0.01, gt=0)
    rest_spin_radps: float = Field(default=0.6, gt=0)
    rest_hold_s: float = Field(default=0.15, ge=0)
    world_radius_m: float = Field(default=4.0, gt=0)
    ccd: bool = True
    # free flight: "analytic" moves the dice along their exact parabola until one could touch something
    # (sim/engine/ballistic.py); "step" steps it at step_hz like the rest of the throw
    flight: Literal["analytic", "step"] = "analytic"
    # how far (beyond its bounding sphere) a die must stay from every other body's box while its flight
    # is skipped (25 mm, beyond Bullet's 20 mm contact-breaking threshold, changed no outcome)
    flight_margin_mm: float = Field(default=2.0, ge=0)
    # rest test: "support" = quiet windows of rest_window_s, two for a die lying flat and stable, as many
    # as fill 2 x rest_hold_s for a leaning die, rest_balanced_hold_s for one balanced on an edge
    # (sim/engine/rest.py);
    # "windows" = two quiet windows of rest_hold_s for every die
    rest: Literal["support", "windows"] = "support"
    rest_window_s: float = Field(default=0.025, gt=0)
    rest_margin_mm: float = Field(default=0.5, ge=0)
    rest_balanced_hold_s: float = Field(default=2.0, gt=0)


@dataclass(frozen=True)
class FastCalls:
    """Bound PyBullet calls for the hot loop (BulletClient.__getattr__ costs ~10 % per call)."""

    step: object
    pose: object
    velocity: object
    contacts: object
    reset_pose: object
    reset_velocity: object


@dataclass(frozen=True)
class Contact:
    """One contact of a die with something, as plain numbers."""

    other: str
    point_m: tuple[float, float, float]  # contact point on the other body
    normal_force_n: float


class Physics:
    """A PyBullet world with named bodies."""

    def __init__(self, settings: PhysicsSettings | None = None, materials: MaterialTable | None = None) -> None:
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
            allowedCcdPenetration=0.0,
        )
        self._names: dict[int, str] = {}
        self._ids: dict[str, int] = {}
        self._material_of: dict[str, str] = {}
        self._die_specs: dict[str, DieSpec] = {}
        self._drop_points: dict[str, list[tuple[float, float, float]]] = {}
        self.dt = 1.0 / self.settings.step_hz
        self.time_s = 0.0
        self.table_material = "wood"

    # ---------------- building ----------------
    def _register(self, name: str, body: int, material: str) -> int:
        self._names[body] = name
        self._ids[name] = body
        self._material_of[name] = material
        return body

    def add_table(self, material: str, half_size_m: float = 5.0, cutout=None) -> None:
        """The table: a triangle-mesh slab with its top at z = 0, minus the board's footprint (`cutout`).

        A GEOM_PLANE rebounds a die at ~0.25 even with zero restitution (penetration recovery); the mesh
        follows the restitution asked. Under the board there is no table: the board's collision body
        reaches down into the slab instead (see `board_mesh`), so a die that sinks into the 2 mm board
        during a hard impact at 240 Hz is pushed back out by the board alone and never touches the
        table through it (it did, before: rebounds on the board took the table's restitution).
        """
        verts, idx = table_mesh(half_size_m, cutout)
        shape = self.client.createCollisionShape(pb.GEOM_MESH, vertices=verts.tolist(), indices=idx.tolist(), flags=pb.GEOM_CONCAVE_INTERNAL_EDGE)
        self.table_material = material
        body = self.client.createMultiBody(0, shape)
        self.client.changeDynamics(body, -1, collisionMargin=COLLISION_MARGIN_M)
        self._register("table", body, material)

    def add_board(self, board: BoardSpec, name: str = "board") -> None:
        verts, idx = board_mesh(board)
        shape = self.client.createCollisionShape(
            pb.GEOM_MESH, vertices=verts.tolist(), indices=idx.tolist(), flags=pb.GEOM_CONCAVE_INTERNAL_EDGE
        )
        body = self.client.createMultiBody(0, shape)
        self.client.changeDynamics(body, -1, collisionMargin=COLLISION_MARGIN_M)
        self._register(name, body, board.material)

    def add_die(self, die: DieSpec, name: str) -> int:
        c = self.client
        if die.shape == "cylinder" and die.edge_radius_mm == 0:
            shape = c.createCollisionShape(pb.GEOM_CYLINDER, radius=die.radius_mm * 1e-3, height=die.height_mm * 1e-3)
        else:
            shape = c.createCollisionShape(pb.GEOM_MESH, vertices=die.engine_points_m(COLLISION_MARGIN_M).tolist())
        body = c.createMultiBody(
            die.mass_kg, shape, basePosition=[0, 0, -10 - len(self._ids)], useMaximalCoordinates=True
        )
        c.changeDynamics(
            body,
            -1,
            collisionMargin=COLLISION_MARGIN_M,
            linearDamping=0.0,
            angularDamping=0.0,
            localInertiaDiagonal=list(die.inertia_diagonal),
            ccdSweptSphereRadius=0.4 * die.inradius_m if self.settings.ccd else 0.0,
            contactProcessingThreshold=0.0,
        )
        # changeDynamics(localInertiaDiagonal=...) zeroes a maximal-coordinate body's mass: set it again
        c.changeDynamics(body, -1, mass=die.mass_kg, localInertiaDiagonal=list(die.inertia_diagonal))
        info = c.getDynamicsInfo(body, -1)
        if abs(info[0] - die.mass_kg) > 1e-12 or max(abs(a - b) for a, b in zip(info[2], die.inertia_diagonal)) > 1e-15:
            raise RuntimeError(f"PyBullet did not take the mass/inertia of {name}: {info[0]}, {info[2]}")
        self._die_specs[name] = die
        return self._register(name, body, die.material)

    def finalize_materials(self) -> float:
        """Assign per-body friction/restitution so pair products match the material table; returns worst error."""
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
        for name, body in self._ids.items():
            m = self._material_of[name]
            self.client.changeDynamics(body, -1, lateralFriction=cf.get(m, 1.0), restitution=ce.get(m, 1.0))
        # contact damping of each die against each body (applied by `set_damping` during a throw)
        self._damping: dict[tuple[str, str], float] = {}
        for d in (n for n in self._ids if n.startswith("die")):
            for other in self._ids:
                pair = self.materials.pair(self._material_of[d], self._material_of[other])
                if pair is not None and pair.contact_damping > 0 and other != d:
                    self._damping[(d, other)] = pair.contact_damping
        self.material_error = max(ef, ee)
        self._calibrate_rebounds()
        return self.material_error

    def set_drop_points(self, name: str, xy_m: list[tuple[float, float]], top_m: float) -> None:
        """Points over a static body where a die is dropped to calibrate its rebound (averaged: a die
        landing across triangle edges rebounds differently from one landing inside a triangle)."""
        self._drop_points[name] = [(float(x), float(y), float(top_m)) for x, y in xy_m]

    def _calibrate_rebounds(self) -> None:
        """Make each die-on-surface rebound what the material table says (DESIGN §8: nominal restitution is
        not the rebound you get). For every static body with a drop point, a 10 cm flat drop of the first
        die is bisected over that body's restitution, in this very world. Results are in `self.rebound`."""
        self.rebound: dict[str, tuple[float, float]] = {}
        dice = [n for n in self._ids if n in self._die_specs]
        if not dice:
            return
        die = dice[0]
        spec = self._die_specs[die]
        for name, points in sorted(self._drop_points.items()):
            pair = self.materials.pair(spec.material, self._material_of[name])
            if pair is None:
                continue
            body = self._ids[name]
            lo, hi = 0.0, 2.0  # restitution above 1 on one body is fine: the pair is a product with the die's
            for _ in range(13):
                mid = 0.5 * (lo + hi)
                self.client.changeDynamics(body, -1, restitution=mid)
                if self._mean_rebound(die, spec, points) < pair.restitution:
                    lo = mid
                else:
                    hi = mid
            value = 0.5 * (lo + hi)
            self.client.changeDynamics(body, -1, restitution=value)
            self.rebound[name] = (value, self._mean_rebound(die, spec, points))
        self.park(die)

    def _mean_rebound(self, die: str, spec: DieSpec, points) -> float:
        return float(np.mean([drop_rebound(self, die, spec, x, y, top) for x, y, top in points]))

    def contact_damping(self, die: str, touching) -> float:
        """Damping a die gets while touching these bodies (the largest of their pair values)."""
        return max((self._damping.get((die, o), 0.0) for o in touching), default=0.0)

    def set_damping(self, die: str, value: float) -> None:
        self.client.changeDynamics(self._ids[die], -1, linearDamping=value, angularDamping=value)

    # ---------------- state ----------------
    def body(self, name: str) -> int:
        return self._ids[name]

    def name_of(self, body: int) -> str:
        return self._names.get(body, f"body:{body}")

    def names(self) -> list[str]:
        return list(self._ids)

    def set_state(self, name, position_m, orientation_xyzw, velocity_mps=(0, 0, 0), spin_radps=(0, 0, 0)) -> None:
        b = self._ids[name]
        self.client.resetBasePositionAndOrientation(b, list(position_m), list(orientation_xyzw))
        self.client.resetBaseVelocity(b, list(velocity_mps), list(spin_radps))  # reset zeroed them

    def park(self, name: str) -> None:
        """Move a body out of the way (far below the table), at rest."""
        k = list(self._ids).index(name)
        self.set_state(name, (50.0 + k, 50.0, -5.0), (0, 0, 0, 1))

    def step(self) -> None:
        self.client.stepSimulation()
        self.time_s += self.dt

    def reset_clock(self) -> None:
        self.time_s = 0.0

    # ---------------- adaptive stepping support (sim/engine/stepper.py) ----------------
    def aabbs(self, names) -> list[tuple[tuple[float, float, float], tuple[float, float, float]]]:
        """Bounding boxes (lo, hi) of these bodies as Bullet's broadphase has them now."""
        out = []
        for n in names:
            lo, hi = self.client.getAABB(self._ids[n])
            out.append((tuple(lo), tuple(hi)))
        return out

    def bounding_radius(self, name: str) -> float:
        """Radius of a sphere about the die's centre holding its whole collision shape (margin included)."""
        spec = self._die_specs[name]
        return float(np.linalg.norm(spec.collision_points_m, axis=1).max()) + COLLISION_MARGIN_M

    def collision_points(self, name: str) -> np.ndarray:
        """The die's collision points in its body frame (m), as its hull is built from them."""
        return self._die_specs[name].collision_points_m

    def isotropic(self, name: str) -> bool:
        """True when the die's inertia is isotropic, so its spin is constant in free flight."""
        d = self._die_specs[name].inertia_diagonal
        return max(d) - min(d) <= 1e-9 * max(d)

    def fast_calls(self) -> FastCalls:
        cid = self.client._client
        return FastCalls(
            step=functools.partial(pb.stepSimulation, physicsClientId=cid),
            pose=functools.partial(pb.getBasePositionAndOrientation, physicsClientId=cid),
            velocity=functools.partial(pb.getBaseVelocity, physicsClientId=cid),
            contacts=functools.partial(pb.getContactPoints, physicsClientId=cid),  # (bodyA)
            reset_pose=functools.partial(pb.resetBasePositionAndOrientation, physicsClientId=cid),
            reset_velocity=functools.partial(pb.resetBaseVelocity, physicsClientId=cid),
        )

    # ---------------- read-outs ----------------
    def die_pose(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        p, q = self.client.getBasePositionAndOrientation(self._ids[name])
        return np.array(p), np.array(q)

    def die_velocity(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        v, w = self.client.getBaseVelocity(self._ids[name])
        return np.array(v), np.array(w)

    def contacts(self, name: str) -> list[Contact]:
        out = []
        for cp in self.client.getContactPoints(bodyA=self._ids[name]):
            if cp[8] > TOUCH_DISTANCE_M:
                continue
            out.append(Contact(self.name_of(cp[2]), tuple(cp[6]), float(cp[9])))
        return out

    def touching(self, name: str) -> frozenset[str]:
        return frozenset(c.other for c in self.contacts(name))

    def close(self) -> None:
        try:
            self.client.disconnect()
        except pb.error:
            pass


TABLE_SLAB_M = 0.02
TOUCH_DISTANCE_M = 1e-4  # a contact point separated by more than 0.1 mm is not touching
# Bullet pads every shape by a collision margin (1 mm by default). We set it explicitly and build each
# shape inset by it (die hulls shrunk, board and table tops lowered), so resting heights are true.
COLLISION_MARGIN_M = 0.0005
BOARD_CELL_M = 0.04
DROP_HEIGHT_M = 0.10


def drop_rebound(ph: Physics, die: str, spec: DieSpec, x: float, y: float, top: float) -> float:
    """Rebound speed / impact speed of a flat 10 cm drop of `die` at (x, y) onto a surface at height `top`."""
    from .die import quat_to_matrix

    q = spec.orientation_with_face(len(spec.faces) - 1, up=False)
    pts = spec.collision_points_m @ quat_to_matrix(q).T
    ph.set_state(die, (x, y, top - pts[:, 2].min() + DROP_HEIGHT_M), q, (0, 0, 0), (0, 0, 0))
    vz = []
    for _ in range(int(0.3 * ph.settings.step_hz)):
        ph.client.stepSimulation()
        vz.append(ph.client.getBaseVelocity(ph.body(die))[0][2])
    v = np.array(vz)
    i = int(np.argmax(np.diff(v) > 0.05))
    return float(v[i : i + int(0.1 * ph.settings.step_hz)].max() / -v[i]) if v[i] < 0 else 0.0


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
    verts: list[tuple[float, float, float]] = []
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
