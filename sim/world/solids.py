"""Convex solids: every collision body of the world is a convex polyhedron or a compound of them, loaded
with polyhedral features so that Bullet builds contacts by clipping faces against each other.

Why (docs/physics.md, "Contacts"): Bullet's default convex-convex contact (GJK/EPA) gives one point per
pair per step, and a persistent manifold builds the rest over later steps. Three artefacts followed
from that at 240 Hz, measured on free rolls: a die landing flat took its impulse at one corner (so the
flat-drop rebound depended on the surface's shape, and the rebound calibration pushed restitution
above 1, which then let edge impacts gain energy); a die rocking on a face while spinning about the
vertical lost its manifold points as fast as they were made (Bullet drops a point that slides more
than ~0.25 mm) and settled into a rocking cycle millimetres deep in the table, fed by penetration
recovery at one corner at a time, until the time cap; and a die pushed through the top of a triangle
mesh slab was trapped inside it. With polyhedral features a face landing on a face gets its four
contact points in the step it lands, whatever the surface.

Polyhedral clipping ignores Bullet's collision margin (measured: bodies rest at their true geometry),
so every hull here is the true shape, never inset. Both bodies of a pair need the features: a body
without them (a hull given as a vertex array, a triangle mesh) meets these through GJK/EPA with the
margins, and triangle meshes let such dice sink through.
"""

from __future__ import annotations

import hashlib
import math
import os
import shutil
import tempfile
from multiprocessing import util as mp_util

import numpy as np
import shapely
from scipy.spatial import ConvexHull
from shapely.geometry import Polygon
from shapely.geometry.polygon import orient

from sim.files import write_atomic
from sim.vectors import dot, matmul, rowwise_dot

SAT_FLAGS = (
    4096  # pybullet's (GEOM|URDF)_INITIALIZE_SAT_FEATURES (numbers, so this module needs no pybullet import)
)
SHAPE_MESH = 5  # pybullet.GEOM_MESH
ASLEEP = 8  # pybullet.ACTIVATION_STATE_SLEEP


# ---------------------------------------------------------------- 2-D convex decomposition
def convex_pieces(region, tolerance_m: float = 0.0) -> list[np.ndarray]:
    """Split a flat region (Polygon or MultiPolygon, with holes) into convex polygons covering it exactly.

    Constrained Delaunay triangulation, then Hertel-Mehlhorn merging: a diagonal between two pieces is
    removed whenever the union stays convex (at most 4x the optimal number of pieces). `tolerance_m`
    simplifies the boundary first (arcs drawn with 96 segments need far fewer for contact). Returns
    counter-clockwise (k, 2) vertex arrays, kept per region and tolerance in this process (every world
    of a board cuts the same sections again otherwise)."""
    key = (shapely.to_wkb(region), float(tolerance_m))
    pieces = _PIECES.get(key)
    if pieces is None:
        pieces = _convex_pieces(region, tolerance_m)
        if len(_PIECES) < _PIECES_MAX:
            _PIECES[key] = pieces
    return [p.copy() for p in pieces]


_PIECES: dict[tuple[bytes, float], list[np.ndarray]] = {}
_PIECES_MAX = 1024


def _convex_pieces(region, tolerance_m: float) -> list[np.ndarray]:
    if tolerance_m > 0:
        region = shapely.make_valid(region.simplify(tolerance_m, preserve_topology=True))
    region = shapely.set_precision(region, 1e-9)
    polys = [g for g in getattr(region, "geoms", [region]) if g.geom_type == "Polygon" and g.area > 1e-12]
    out: list[np.ndarray] = []
    for poly in polys:
        if not poly.interiors and abs(poly.convex_hull.area - poly.area) <= 1e-9 * poly.area:
            out.append(_ccw(np.asarray(orient(poly).exterior.coords)[:-1]))
            continue
        out += _merge_triangles(poly)
    return out


def _ccw(co: np.ndarray) -> np.ndarray:
    return co if _area2(co) > 0 else co[::-1]


def _area2(co: np.ndarray) -> float:
    x, y = co[:, 0], co[:, 1]
    return float(dot(x, np.roll(y, -1)) - dot(y, np.roll(x, -1)))


def _merge_triangles(poly: Polygon) -> list[np.ndarray]:
    keys: dict[tuple[float, float], int] = {}
    pts: list[tuple[float, float]] = []

    def key(p) -> int:
        k = (round(float(p[0]), 9), round(float(p[1]), 9))
        if k not in keys:
            keys[k] = len(pts)
            pts.append(k)
        return keys[k]

    pieces: dict[int, list[int]] = {}
    for tri in shapely.constrained_delaunay_triangles(poly).geoms:
        co = np.asarray(tri.exterior.coords)[:3]
        if abs(_area2(co)) < 1e-18:
            continue
        pieces[len(pieces)] = [key(p) for p in _ccw(co)]
    xy = np.array(pts)
    edge_of: dict[tuple[int, int], int] = {}
    for pid, ring in pieces.items():
        for a, b in zip(ring, ring[1:] + ring[:1]):
            edge_of[(a, b)] = pid

    def convex_at(prev: int, cur: int, nxt: int) -> bool:
        u, v = xy[cur] - xy[prev], xy[nxt] - xy[cur]
        return u[0] * v[1] - u[1] * v[0] >= -1e-15

    # longest interior diagonals first: fewer, rounder pieces
    diagonals = sorted(
        {(a, b) for (a, b) in edge_of if (b, a) in edge_of and a < b},
        key=lambda e: -float(np.hypot(*(xy[e[0]] - xy[e[1]]))),
    )
    for a, b in diagonals:
        pa, pb = edge_of.get((a, b)), edge_of.get((b, a))
        if pa is None or pb is None or pa == pb:
            continue
        ra, rb = pieces[pa], pieces[pb]
        ia, ib = ra.index(a), rb.index(b)
        # walk A from b round to a, then B from a round to b (its edge b->a is the diagonal)
        walk_a = ra[ia + 1 :] + ra[: ia + 1]  # starts at b, ends at a
        walk_b = rb[ib + 1 :] + rb[: ib + 1]  # starts at a, ends at b
        merged = walk_a + walk_b[1:-1]
        n = len(merged)
        ok = True
        for i, v in enumerate(merged):
            if v in (a, b) and not convex_at(merged[i - 1], v, merged[(i + 1) % n]):
                ok = False
                break
        if not ok:
            continue
        del edge_of[(a, b)], edge_of[(b, a)]
        for u, w in zip(rb, rb[1:] + rb[:1]):
            if (u, w) in edge_of:
                edge_of[(u, w)] = pa
        pieces[pa] = merged
        del pieces[pb]
    out = []
    for ring in pieces.values():
        co = xy[ring]
        # drop collinear vertices left by merging
        keep = [i for i in range(len(co)) if abs(_cross(co[i - 1], co[i], co[(i + 1) % len(co)])) > 1e-16]
        out.append(co[keep])
    return out


def _cross(p, q, r) -> float:
    return float((q[0] - p[0]) * (r[1] - q[1]) - (q[1] - p[1]) * (r[0] - q[0]))


# ---------------------------------------------------------------- 3-D pieces
def prism(outline_xy, z0: float, z1: float) -> np.ndarray:
    """Vertices of a convex prism: a convex outline extruded from z0 to z1."""
    pts = np.asarray(outline_xy, dtype=float)
    return np.vstack([np.c_[pts, np.full(len(pts), z0)], np.c_[pts, np.full(len(pts), z1)]])


def box_hull(centre, half_extents, yaw_rad: float = 0.0) -> np.ndarray:
    """The 8 corners of a box turned by `yaw_rad` about z."""
    hx, hy, hz = half_extents
    c, s = math.cos(yaw_rad), math.sin(yaw_rad)
    corners = np.array([(x, y, z) for x in (-hx, hx) for y in (-hy, hy) for z in (-hz, hz)])
    rot = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    return matmul(corners, rot.T) + np.asarray(centre, dtype=float)


def slab_pieces(region, z0: float, z1: float, tolerance_m: float = 0.0) -> list[np.ndarray]:
    """A flat region extruded from z0 to z1 as convex prisms."""
    return [prism(p, z0, z1) for p in convex_pieces(region, tolerance_m)]


def revolved_pieces(profile_rz: list[tuple[float, float]], segments: int) -> list[np.ndarray]:
    """A solid of revolution of a closed (r, z) profile (r >= 0) as convex pieces: the profile split into
    convex polygons, each swept over `segments` equal sectors (the hull of its two end faces)."""
    angles = np.linspace(0.0, 2 * math.pi, segments + 1)
    out = []
    for piece in convex_pieces(Polygon(profile_rz)):
        for a0, a1 in zip(angles[:-1], angles[1:]):
            pts = [(r * math.cos(a), r * math.sin(a), z) for a in (a0, a1) for r, z in piece]
            out.append(np.array(pts))
    return out


# ---------------------------------------------------------------- loading
def static_bodies(
    client,
    hulls: list[np.ndarray],
    margin_m: float,
    position=(0.0, 0.0, 0.0),
    orientation_xyzw=(0.0, 0.0, 0.0, 1.0),
) -> list[int]:
    """One static body per convex hull, all at the same pose, each with collision margin `margin_m`.

    Why not one compound: the collision margin of a compound's children cannot be set (PyBullet leaves
    them at 1 mm), and a static margin of 1 mm cost thin dice their bounce: contact points found within
    the margin before the impact step had aged into "resting" contacts, which Bullet gives no
    restitution, by the time the die hit (a 20 x 4 mm cylinder's flat drops rebounded at 0 for 22 of 40
    step phases, and the rebound calibration then pushed the table's restitution to 1.5).

    Every piece is put to sleep (`asleep`), which changes no contact a free body makes."""
    out = []
    for h in hulls:
        shape = client.createCollisionShape(
            SHAPE_MESH, fileName=hull_file(np.asarray(h, dtype=float)), meshScale=[1, 1, 1], flags=SAT_FLAGS
        )
        body = client.createMultiBody(
            0.0,
            shape,
            basePosition=list(position),
            baseOrientation=list(orientation_xyzw),
            useMaximalCoordinates=True,
        )
        client.changeDynamics(body, -1, collisionMargin=margin_m)
        asleep(client, body)
        out.append(body)
    return out


def asleep(client, body: int) -> None:
    """Put a static body to sleep: Bullet then skips every pair of two static bodies (both asleep) before
    its narrow phase, where an awake pair of touching static pieces cost every step a test that can find
    nothing to move. Measured on the magma board (~250 pieces) with one die in flight: 25 -> 11 us per
    step. A pair with an awake free body is tested as before, and a static body is never woken (Bullet
    activates only free bodies), so the contacts - and every throw's bits - are those of the awake
    world; moving a sleeping static body (`Physics.set_pose`) still moves its broadphase box."""
    client.changeDynamics(body, -1, activationState=ASLEEP)


def solid_body(
    client,
    hulls: list[np.ndarray],
    mass_kg: float = 0.0,
    position=(0.0, 0.0, 0.0),
    orientation_xyzw=(0.0, 0.0, 0.0, 1.0),
) -> int:
    """A maximal-coordinate body (static when `mass_kg` is 0) whose shape is the convex hulls of vertex
    arrays (body frame, metres) with polyhedral features. Returns the body id.

    PyBullet initialises the features only for meshes read from files, never for vertex arrays, so each
    hull goes over as an OBJ file (`hull_file`; Bullet keeps the hulls in memory). One hull becomes a
    convex shape (continuous collision detection works only on convex shapes: dice); several become a
    compound through a URDF, because `createCollisionShapeArray` takes at most 16 meshes (the cup has
    17 parts). A compound's inertia is its bounding box's, as Bullet
    assigns a compound; callers that know better set it afterwards."""
    files = [hull_file(np.asarray(h, dtype=float)) for h in hulls]
    if len(files) == 1:
        shape = client.createCollisionShape(
            SHAPE_MESH, fileName=files[0], meshScale=[1, 1, 1], flags=SAT_FLAGS
        )
        return client.createMultiBody(
            mass_kg,
            shape,
            basePosition=list(position),
            baseOrientation=list(orientation_xyzw),
            useMaximalCoordinates=True,
        )
    pts = np.vstack([np.asarray(h, dtype=float) for h in hulls])
    e = pts.max(axis=0) - pts.min(axis=0)
    ix, iy, iz = (float(mass_kg) / 12.0 * (e[j] ** 2 + e[k] ** 2) for j, k in ((1, 2), (0, 2), (0, 1)))
    # one element per line: PyBullet's URDF reader garbles file names on very long lines
    lines = [
        '<robot name="solid">\n<link name="base">\n<inertial><origin xyz="0 0 0"/>'
        f'<mass value="{float(mass_kg)!r}"/><inertia ixx="{ix!r}" iyy="{iy!r}" izz="{iz!r}" '
        'ixy="0" ixz="0" iyz="0"/></inertial>\n',
        *(f'<collision><geometry><mesh filename="{os.path.basename(f)}"/></geometry></collision>\n'
          for f in files),
        "</link>\n</robot>\n",
    ]
    urdf = _stored_file("".join(lines), ".urdf")
    return client.loadURDF(
        urdf,
        basePosition=list(position),
        baseOrientation=list(orientation_xyzw),
        useMaximalCoordinates=True,
        useFixedBase=mass_kg == 0,
        flags=SAT_FLAGS,
    )


_FOLDER: dict[int, str] = {}  # process id -> its folder of solid files (a forked child makes its own)
_HULL_FILES: dict[bytes, str] = {}  # hull points -> the path of their OBJ in this process's folder
_HULL_FILES_MAX = 4096


def _folder() -> str:
    """This process's folder of solid files: made once, removed at its exit, pool workers included
    (multiprocessing ends them without running `atexit`); folders left by processes that were killed
    are removed when the next process makes its own (`sweep_folders`)."""
    pid = os.getpid()
    root = _FOLDER.get(pid)
    if root is None or not os.path.isdir(root):
        if not _FOLDER:
            sweep_folders()
        root = _FOLDER[pid] = tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{pid}-")
        mp_util.Finalize(None, _remove_folder, args=(pid, root), exitpriority=0)
    return root


FOLDER_PREFIX = "dfsim-solid-"


def _remove_folder(pid: int, root: str) -> None:
    """Remove a process's folder at its exit; a forked child that runs its parent's exit handlers leaves
    the parent's folder alone."""
    if os.getpid() == pid:
        shutil.rmtree(root, True)


def sweep_folders() -> None:
    """Remove the solid folders of processes that no longer run (a killed worker's, named by its process
    id): when a process makes its folder, and when a pool has killed its workers. A folder of a live
    process, or of an id this process cannot see, stays. POSIX only: elsewhere `os.kill(pid, 0)` is not
    a harmless probe (on Windows, signal 0 is a Ctrl-C event)."""
    if os.name != "posix":
        return
    base = tempfile.gettempdir()
    try:
        names = [n for n in os.listdir(base) if n.startswith(FOLDER_PREFIX)]
    except OSError:
        return
    for name in names:
        pid_text = name[len(FOLDER_PREFIX):].split("-", 1)[0]
        if not pid_text.isdigit() or int(pid_text) == os.getpid():
            continue
        try:
            os.kill(int(pid_text), 0)
        except ProcessLookupError:
            shutil.rmtree(os.path.join(base, name), True)
        except OSError:
            continue


def _stored_file(text: str, suffix: str) -> str:
    """The path of a file holding `text` in this process's folder, named by its content, so a text is
    written once per process whatever the number of worlds built from it: making a file costs up to
    2 ms on a loaded disk, and a board is a few hundred pieces. A name always holds its one text, so a
    file Bullet read before is the file it reads again."""
    path = os.path.join(_folder(), hashlib.sha256(text.encode()).hexdigest()[:32] + suffix)
    if not os.path.exists(path):
        write_atomic(path, text)
    return path


def hull_file(pts: np.ndarray) -> str:
    """The path of an OBJ of the convex hull of a point set, outward-facing triangles (`_stored_file`):
    kept per point set, as it depends on nothing else (a prop rebuilt every throw has the same hulls)."""
    key = pts.shape[1:].__repr__().encode() + pts.tobytes()
    path = _HULL_FILES.get(key)
    if path is not None and os.path.exists(path):
        return path
    path = _stored_file(_hull_obj_text(pts), ".obj")
    if len(_HULL_FILES) < _HULL_FILES_MAX:
        _HULL_FILES[key] = path
    return path


def _hull_obj_text(pts: np.ndarray) -> str:
    hull = ConvexHull(pts)
    simplices = hull.simplices
    used = np.unique(simplices.ravel())
    index = np.zeros(len(pts), dtype=np.int64)
    index[used] = np.arange(1, len(used) + 1)
    a, b, c = pts[simplices[:, 0]], pts[simplices[:, 1]], pts[simplices[:, 2]]
    inward = rowwise_dot(np.cross(b - a, c - a), hull.equations[:, :3]) < 0
    faces = index[simplices]
    faces[inward] = faces[inward][:, [0, 2, 1]]
    lines = [f"v {x:.10f} {y:.10f} {z:.10f}\n" for x, y, z in pts[used].tolist()]
    lines.extend(f"f {i} {j} {k}\n" for i, j, k in faces.tolist())
    return "".join(lines)
