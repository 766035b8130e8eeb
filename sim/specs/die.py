"""Dice: shape, size, mass, faces and the reading rule, with exact polyhedral geometry.

Each shape has a documented canonical face order (the order of the `faces` label list):

- d6 and cuboid: +x, -x, +y, -y, +z, -z (body frame).
- d4: faces opposite the vertices (1,1,1), (1,-1,-1), (-1,1,-1), (-1,-1,1), in that order.
  A d4 is read from its bottom face (the face it rests on) by default.
- d8: faces with outward normals (sx, sy, sz)/sqrt(3) for sx, sy, sz in (+, -), x slowest:
  (+,+,+), (+,+,-), (+,-,+), (+,-,-), (-,+,+), (-,+,-), (-,-,+), (-,-,-).
- d12: faces with outward normals along (0, ±1, ±phi), (±1, ±phi, 0), (±phi, 0, ±1), each group
  with signs (+,+), (+,-), (-,+), (-,-).
- cylinder: +z (top cap), -z (bottom cap).
- polyhedron: the faces of the convex hull of `vertices_mm`, ordered by descending normal z, then
  by azimuth of the normal from +x counter-clockwise (`dfsim dice NAME` prints the order).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Annotated, Literal

import numpy as np
from pydantic import Field, model_validator

from sim.errors import FieldError, SpecError
from sim.specs.base import Spec
from sim.specs.geometry import MM
from sim.vectors import dot, matmul, norm, row_norms

PHI = (1 + math.sqrt(5)) / 2
MAX_DIE_MM = 200.0  # no die is longer than this along any axis
# what a die can plausibly be (the built-in dice are 10-25 mm and 1.2-11 g): a 1 µm die stalls the aim
# solve, a 1e-300 g one is numerical nonsense
DIE_EXTENT_MM = (3.0, 100.0)  # its smallest and largest extent
DIE_MASS_G = (0.1, 500.0)
MAX_VERTICES = 100  # corners of a polyhedron die, and labels of its faces
CYLINDER_FACETS = 24  # a cylinder is the prism of this regular polygon (its rim; the rules read it)
# Bullet keeps at most four contact points of a face landing on a face, picked as the clipped polygon's
# points come: on a cap of 6 to 48 sides they could all lie on one side of the centre, and a cap landing
# flat and still was thrown sideways (up to 0.77 m/s from a 10 cm drop) and set spinning (up to 110
# rad/s), at some yaws for every count. So the collision shape's end faces are squares (four points,
# all held) inside the rim, chamfered by this much (docs/physics.md, "Rolling bodies").
CYLINDER_CHAMFER_MM = 0.5
# keys of a die file that say nothing about how it lands: its words, and what its faces read
DIE_WORDS = ("name", "title", "description", "notes", "color")
DIE_READING_KEYS = ("faces", "icon_labels", "reading")
FACE_COUNTS = {"d4": 4, "d6": 6, "cuboid": 6, "d8": 8, "d12": 12, "cylinder": 2}
MIN_DIE_VOLUME_MM3 = 1.0  # a polyhedron must be a solid, not points in a plane or on a line

DieLength = Annotated[float, Field(gt=0, le=MAX_DIE_MM)]
DieCoord = Annotated[float, Field(ge=-MAX_DIE_MM, le=MAX_DIE_MM)]
Label = Annotated[str, Field(min_length=1, max_length=200)]


@dataclass(frozen=True)
class Face:
    """One flat face in the body frame (metres): outward unit normal and its corner points."""

    normal: np.ndarray
    corners: np.ndarray  # (k, 3)


# the keys that give each shape's size; any other size key on a die of that shape is refused
SIZE_KEYS: dict[str, tuple[str, ...]] = {
    "cuboid": ("dims_mm",),
    "cylinder": ("radius_mm", "height_mm"),
    "polyhedron": ("vertices_mm",),
}  # d4, d6, d8, d12: size_mm
SIZE_KEYS_ALL = ("size_mm", "dims_mm", "radius_mm", "height_mm", "vertices_mm")


class DieSpec(Spec):
    """A die data file: shape and size (mm), mass (g), material and face labels in face order; validated so
    the labels match the shape's faces."""

    name: str
    estimated: bool = False
    notes: str = ""
    shape: Literal["d4", "d6", "d8", "d12", "cuboid", "cylinder", "polyhedron"]
    size_mm: float | None = Field(default=None, gt=0, le=MAX_DIE_MM)
    dims_mm: tuple[DieLength, DieLength, DieLength] | None = None
    radius_mm: float | None = Field(default=None, gt=0, le=MAX_DIE_MM / 2)
    height_mm: float | None = Field(default=None, gt=0, le=MAX_DIE_MM)
    vertices_mm: list[tuple[DieCoord, DieCoord, DieCoord]] | None = Field(
        default=None, max_length=MAX_VERTICES
    )
    mass_g: float = Field(gt=0, le=2000)
    edge_radius_mm: float = Field(default=0.0, ge=0, le=MAX_DIE_MM / 2)
    material: str = Field(default="plastic", min_length=1, max_length=200)
    faces: list[Label] = Field(min_length=1, max_length=MAX_VERTICES)
    reading: Literal["top", "bottom"] | None = None
    icon_labels: list[Label] = Field(default_factory=lambda: ["icon"], max_length=MAX_VERTICES)
    color: str = Field(default="white", max_length=200)

    @model_validator(mode="after")
    def _check(self) -> DieSpec:
        s = self.shape
        if s in ("d4", "d6", "d8", "d12") and self.size_mm is None:
            raise FieldError("size_mm", f"size_mm (edge length) is required for a {s}")
        if s == "cuboid" and self.dims_mm is None:
            raise FieldError("dims_mm", "dims_mm = [x, y, z] with positive lengths is required for a cuboid")
        if s == "cylinder" and (self.radius_mm is None or self.height_mm is None):
            raise FieldError(
                "radius_mm" if self.radius_mm is None else "height_mm",
                "radius_mm and height_mm are required for a cylinder",
            )
        needs = SIZE_KEYS.get(s, ("size_mm",))
        for key in SIZE_KEYS_ALL:  # a key of another shape is a mistake (a d8 with dims_mm), not ignored
            if key not in needs and getattr(self, key) is not None:
                raise FieldError(key, f"does not apply to a {s} (its size is given by {' and '.join(needs)})")
        if (
            "icon_labels" in self.model_fields_set
        ):  # the default ("icon") only means something if a face has it
            for i, label in enumerate(self.icon_labels):
                if label not in self.faces:
                    raise FieldError(
                        f"icon_labels.{i}",
                        f"'{label}' names no face of this die (faces: "
                        f"{', '.join(dict.fromkeys(self.faces))})",
                    )
        if s == "polyhedron":
            if not self.vertices_mm or len(self.vertices_mm) < 4:
                raise FieldError(
                    "vertices_mm", "vertices_mm with at least 4 points is required for a polyhedron"
                )
            _check_solid(np.array(self.vertices_mm, float) * MM)
        # the regular shapes' face counts are known; only a free polyhedron needs its hull (scipy) here,
        # so listing and checking the built-in dice never imports scipy
        n = FACE_COUNTS[s] if s in FACE_COUNTS else len(self._faces_raw())
        if len(self.faces) != n:
            raise FieldError("faces", f"a {s} has {n} faces but {len(self.faces)} labels were given")
        lo, hi = DIE_EXTENT_MM
        if not lo <= self.min_extent_mm or self.max_extent_mm > hi:
            raise FieldError(
                _size_key(s),
                f"a die {self.min_extent_mm:.3g}-{self.max_extent_mm:.3g} mm across is not "
                f"plausible (dice are {lo:g} to {hi:g} mm across)",
            )
        if not DIE_MASS_G[0] <= self.mass_g <= DIE_MASS_G[1]:
            raise FieldError(
                "mass_g",
                f"{self.mass_g:.3g} g is not a plausible die mass ({DIE_MASS_G[0]:g} to {DIE_MASS_G[1]:g} g)",
            )
        if self.edge_radius_mm > 0.3 * self.min_extent_mm:
            raise FieldError("edge_radius_mm", "edge_radius_mm is too large for the die size")
        if s == "polyhedron":
            inertia = self._inertia_tensor_unit()
            off = np.abs(inertia - np.diag(np.diag(inertia))).max()
            if off > 0.01 * np.abs(np.diag(inertia)).max():
                raise FieldError(
                    "vertices_mm",
                    "give the polyhedron in its principal axes (products of inertia are not zero)",
                )
        return self

    # ---- geometry ----
    @property
    def reading_rule(self) -> str:
        return self.reading or ("bottom" if self.shape == "d4" else "top")

    @property
    def max_extent_mm(self) -> float:
        """Its largest extent along a body axis (the die's bounding box)."""
        if self.shape == "cylinder":
            return 2 * max(self.radius_mm or 0.0, (self.height_mm or 0.0) / 2)
        v = self.vertices_m / MM
        return float(np.max(v.max(axis=0) - v.min(axis=0)))

    @property
    def min_extent_mm(self) -> float:
        v = self.vertices_m / MM if self.shape != "cylinder" else None
        if v is None:
            return 2 * min(self.radius_mm, self.height_mm / 2)
        return float(np.min(v.max(axis=0) - v.min(axis=0)))

    @cached_property
    def vertices_m(self) -> np.ndarray:
        """Sharp-cornered vertices in the body frame, centred on the centre of mass."""
        s = self.shape
        if s == "d6":
            a = self.size_mm * MM / 2
            v = np.array([[x, y, z] for x in (a, -a) for y in (a, -a) for z in (a, -a)])
        elif s == "cuboid":
            hx, hy, hz = (d * MM / 2 for d in self.dims_mm)
            v = np.array([[x, y, z] for x in (hx, -hx) for y in (hy, -hy) for z in (hz, -hz)])
        elif s == "d4":
            k = self.size_mm * MM / (2 * math.sqrt(2))
            v = k * np.array([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]], float)
        elif s == "d8":
            k = self.size_mm * MM / math.sqrt(2)
            v = k * np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], float)
        elif s == "d12":
            k = self.size_mm * MM / (2 / PHI)
            b = 1 / PHI
            pts: list[list[float]] = [
                [x, y, z] for x in (1.0, -1.0) for y in (1.0, -1.0) for z in (1.0, -1.0)
            ]
            for sa in (1, -1):
                for sb in (1, -1):
                    pts += [[0, sa * b, sb * PHI], [sa * b, sb * PHI, 0], [sa * PHI, 0, sb * b]]
            v = k * np.array(pts, float)
        elif s == "cylinder":
            r, h = self.radius_mm * MM, self.height_mm * MM / 2
            t = np.linspace(0, 2 * math.pi, CYLINDER_FACETS, endpoint=False)
            ring = np.stack([r * np.cos(t), r * np.sin(t)], axis=1)
            v = np.vstack(
                [np.c_[ring, np.full(CYLINDER_FACETS, h)], np.c_[ring, np.full(CYLINDER_FACETS, -h)]]
            )
        else:
            v = np.array(self.vertices_mm, float) * MM
            v = v - _polyhedron_centroid(v)
        return v

    def _canonical_normals(self) -> np.ndarray | None:
        s = self.shape
        if s in ("d6", "cuboid"):
            return np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], float)
        if s == "d4":
            return -np.array([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]], float) / math.sqrt(3)
        if s == "d8":
            return np.array(
                [[x, y, z] for x in (1, -1) for y in (1, -1) for z in (1, -1)], float
            ) / math.sqrt(3)
        if s == "d12":
            n = []
            for a, b in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
                n.append([0, a, b * PHI])
            for a, b in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
                n.append([a, b * PHI, 0])
            for a, b in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
                n.append([a * PHI, 0, b])
            arr = np.array(n, float)
            return arr / row_norms(arr)[:, None]
        if s == "cylinder":
            return np.array([[0, 0, 1], [0, 0, -1]], float)
        return None

    def _faces_raw(self) -> list[Face]:
        v = self.vertices_m
        if self.shape == "cylinder":
            top = v[v[:, 2] > 0]
            bot = v[v[:, 2] < 0]
            return [Face(np.array([0, 0, 1.0]), top), Face(np.array([0, 0, -1.0]), bot)]
        from scipy.spatial import ConvexHull  # imported by what needs it: listing boards never loads scipy

        hull = ConvexHull(v)
        groups: list[tuple[np.ndarray, set[int]]] = []
        for simplex, eq in zip(hull.simplices, hull.equations):
            n = eq[:3]
            for gn, gidx in groups:
                if dot(gn, n) > 1 - 1e-9:
                    gidx.update(simplex.tolist())
                    break
            else:
                groups.append((n.copy(), set(simplex.tolist())))
        faces = []
        for n, idx in groups:
            pts = v[sorted(idx)]
            faces.append(Face(n / norm(n), _order_polygon(pts, n)))
        canon = self._canonical_normals()
        if canon is not None:
            ordered = []
            for cn in canon:
                best = max(faces, key=lambda f: dot(f.normal, cn))
                ordered.append(best)
            return ordered
        faces.sort(
            key=lambda f: (
                -round(f.normal[2], 9),
                round(math.atan2(f.normal[1], f.normal[0]) % (2 * math.pi), 9),
            )
        )
        return faces

    @cached_property
    def face_geometry(self) -> tuple[Face, ...]:
        return tuple(self._faces_raw())

    @cached_property
    def face_normals(self) -> np.ndarray:
        return np.array([f.normal for f in self.face_geometry])

    @cached_property
    def collision_points_m(self) -> np.ndarray:
        """Points whose convex hull is the (optionally rounded) collision shape: the sharp shape inset by
        the edge radius, with a small sphere of that radius at every inset corner."""
        r = self.edge_radius_mm * MM
        v = self._cylinder_corners() if self.shape == "cylinder" else self.vertices_m
        if r <= 0:
            return v
        g = _sphere_points(r)
        return np.vstack([p + g for p in self._inset_vertices(r, v)])

    def _cylinder_corners(self) -> np.ndarray:
        """A cylinder's collision corners: its rim polygon at both ends of a chamfer of
        CYLINDER_CHAMFER_MM (at most a quarter of the half height, an eighth of the radius), and each end
        face a square inside it, so that a flat landing's four contact points surround the centre."""
        rad, hh = self.radius_mm * MM, self.height_mm * MM / 2
        c = min(CYLINDER_CHAMFER_MM * MM, hh / 4, rad / 8)
        rim = self.vertices_m * np.array([1.0, 1.0, (hh - c) / hh])
        t = math.pi / 4 + np.arange(4) * math.pi / 2
        square = np.stack([(rad - c) * np.cos(t), (rad - c) * np.sin(t)], axis=1)
        return np.vstack([rim, np.c_[square, np.full(4, hh)], np.c_[square, np.full(4, -hh)]])

    def _inset_vertices(self, r: float, corners: np.ndarray | None = None) -> np.ndarray:
        """Vertices of the shape with every face moved inwards by r. A regular solid has all its faces
        at the inradius, so a uniform scale does it; a cuboid and a cylinder are inset per axis (a
        uniform scale by the smallest half extent would shrink their long sides too much)."""
        v = self.vertices_m if corners is None else corners
        if self.shape == "cuboid":
            half = np.abs(v).max(axis=0)
            return v * (half - r) / half
        if self.shape == "cylinder":
            rad, hh = self.radius_mm * MM, self.height_mm * MM / 2
            return v * np.array([(rad - r) / rad, (rad - r) / rad, (hh - r) / hh])
        inr = self.inradius_m  # exact for d4/d6/d8/d12; for a general polyhedron an approximation
        return v * (inr - r) / inr

    @cached_property
    def inradius_m(self) -> float:
        """Smallest distance from the centre of mass to a face plane."""
        return float(min(dot(f.corners[0], f.normal) for f in self.face_geometry))

    @property
    def mass_kg(self) -> float:
        return self.mass_g * 1e-3

    def _inertia_tensor_unit(self) -> np.ndarray:
        if self.shape == "cylinder":
            r, h = self.radius_mm * MM, self.height_mm * MM
            ixx = (3 * r * r + h * h) / 12
            return np.diag([ixx, ixx, r * r / 2])
        return _polyhedron_inertia(self.vertices_m)

    @cached_property
    def inertia_diagonal(self) -> tuple[float, ...]:
        """Principal moments (kg m^2) of the solid of uniform density; the rounding is ignored (< 1 %)."""
        d = np.diag(self._inertia_tensor_unit()) * self.mass_kg
        return (float(d[0]), float(d[1]), float(d[2]))

    # ---- reading ----
    def reading_face(self, orientation_xyzw) -> tuple[int, float]:
        """Index of the face that is read and its tilt (deg) from the ideal, for a rest orientation."""
        rot = quat_to_matrix(orientation_xyzw)
        nz = matmul(self.face_normals, rot.T)[:, 2]
        i = int(np.argmin(nz)) if self.reading_rule == "bottom" else int(np.argmax(nz))
        tilt = math.degrees(math.acos(min(1.0, abs(float(nz[i])))))
        return i, tilt

    def bottom_face(self, orientation_xyzw) -> int:
        """Index of the face pointing most nearly straight down at this orientation (xyzw): the one it
        rests on."""
        rot = quat_to_matrix(orientation_xyzw)
        return int(np.argmin(matmul(self.face_normals, rot.T)[:, 2]))

    def orientation_with_face(self, face: int, up: bool = True, yaw_deg: float = 0.0) -> np.ndarray:
        """Quaternion (xyzw) that puts face `face`'s normal straight up (or down), then yaws about z."""
        n = self.face_normals[face]
        target = np.array([0, 0, 1.0 if up else -1.0])
        q = quat_between(n, target)
        y = math.radians(yaw_deg)
        qz = np.array([0, 0, math.sin(y / 2), math.cos(y / 2)])
        return quat_mul(qz, q)

    def face_index(self, label: str) -> int:
        """Index of the face with this label, or of face N for a label 'N' (1-based); KeyError otherwise."""
        if label in self.faces:
            return self.faces.index(label)
        if label.isdigit() and 1 <= int(label) <= len(self.faces) and label not in self.faces:
            return int(label) - 1
        raise KeyError(label)

    def is_icon(self, label: str) -> bool:
        """Whether this face label is the die's special icon."""
        return label in self.icon_labels


def _check_solid(v: np.ndarray) -> None:
    """A polyhedron's corners must span a solid: qhull refuses flat or repeated points with an error
    that is no help in a data file."""
    from scipy.spatial import ConvexHull, QhullError

    try:
        hull = ConvexHull(v)
    except (QhullError, ValueError):
        raise FieldError(
            "vertices_mm", "the points do not span a solid (all in one plane, on one line, or repeated)"
        ) from None
    if hull.volume < MIN_DIE_VOLUME_MM3 * MM**3:
        raise FieldError(
            "vertices_mm",
            f"the solid is thinner than {MIN_DIE_VOLUME_MM3:g} mm^3 (points nearly in one plane)",
        )


def _order_polygon(pts: np.ndarray, n: np.ndarray) -> np.ndarray:
    c = pts.mean(axis=0)
    u = pts[0] - c
    u /= norm(u)
    w = np.cross(n, u)
    ang = np.arctan2(matmul(pts - c, w), matmul(pts - c, u))
    return pts[np.argsort(ang)]


def _tets(v: np.ndarray):
    from scipy.spatial import ConvexHull

    hull = ConvexHull(v)
    c = v.mean(axis=0)
    for simplex in hull.simplices:
        yield c, v[simplex[0]], v[simplex[1]], v[simplex[2]]


def _polyhedron_centroid(v: np.ndarray) -> np.ndarray:
    vol, acc = 0.0, np.zeros(3)
    for a, b, c, d in _tets(v):
        tv = abs(dot(b - a, np.cross(c - a, d - a))) / 6
        vol += tv
        acc += tv * (a + b + c + d) / 4
    return acc / vol


def _polyhedron_inertia(v: np.ndarray) -> np.ndarray:
    """Inertia tensor per unit mass about the origin, exact for a uniform convex polyhedron."""
    total_vol = 0.0
    cov = np.zeros((3, 3))
    canon = np.array([[2, 1, 1], [1, 2, 1], [1, 1, 2]]) / 120.0
    for a, b, c, d in _tets(v):
        A = np.stack([b - a, c - a, d - a], axis=1)
        det = abs(dot(A[:, 0], np.cross(A[:, 1], A[:, 2])))  # the triple product, not LAPACK's LU
        vol = det / 6
        # second moment of the tetrahedron about origin: integral x x^T
        s = a + b + c + d
        cov_t = det * matmul(matmul(A, canon), A.T)  # about vertex a
        e = s - 4 * a  # sum of the three edge vectors
        cov_t += vol * (np.outer(a, e) + np.outer(e, a)) / 4 + vol * np.outer(a, a)
        cov += cov_t
        total_vol += vol
    cov /= total_vol
    return np.trace(cov) * np.eye(3) - cov


def _sphere_points(r: float) -> np.ndarray:
    pts: list[list[float]] = [[0.0, 0.0, 1.0], [0.0, 0.0, -1.0]]
    for lat in (-45, 0, 45):
        for lon in range(0, 360, 45):
            la, lo = math.radians(lat), math.radians(lon)
            pts.append([math.cos(la) * math.cos(lo), math.cos(la) * math.sin(lo), math.sin(la)])
    return r * np.array(pts)


def quat_rows(q) -> tuple[float, ...]:
    """The rotation matrix of an xyzw quaternion (normalised first), row by row, as nine floats: for
    loops that turn a pose every step, where a numpy array per call costs more than the arithmetic."""
    x, y, z, w = (float(t) for t in q)
    n = math.sqrt(x * x + y * y + z * z + w * w)
    x, y, z, w = x / n, y / n, z / n, w / n
    return (
        1 - 2 * (y * y + z * z),
        2 * (x * y - z * w),
        2 * (x * z + y * w),
        2 * (x * y + z * w),
        1 - 2 * (x * x + z * z),
        2 * (y * z - x * w),
        2 * (x * z - y * w),
        2 * (y * z + x * w),
        1 - 2 * (x * x + y * y),
    )


def quat_to_matrix(q) -> np.ndarray:
    """Rotation matrix (3x3) of an xyzw quaternion, normalised first."""
    return np.array(quat_rows(q)).reshape(3, 3)


def quat_mul(a, b) -> np.ndarray:
    """Hamilton product a * b of xyzw quaternions (apply b, then a)."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array(
        [
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz,
        ]
    )


def quat_between(u, v) -> np.ndarray:
    """Shortest rotation taking unit vector u to unit vector v, as xyzw."""
    u = np.asarray(u, float) / norm(u)
    v = np.asarray(v, float) / norm(v)
    d = dot(u, v)
    if d < -1 + 1e-12:
        axis = np.cross(u, [1, 0, 0])
        if norm(axis) < 1e-6:
            axis = np.cross(u, [0, 1, 0])
        axis /= norm(axis)
        return np.array([*axis, 0.0])
    c = np.cross(u, v)
    q = np.array([c[0], c[1], c[2], 1 + d])
    return q / norm(q)


def load_die(name_or_path) -> DieSpec:
    """A die by built-in name or TOML path; bad files raise SpecError."""
    return DieSpec.load(name_or_path, "die")


def die_name_problem(name: str) -> str | None:
    """None if `name` is a built-in die name or the path of an existing .toml die file; otherwise what is
    wrong (a traversal path, another kind of file, a file that is not there)."""
    from sim.specs.datafiles import builtin_names, nearest, resolve

    if name in builtin_names("die"):
        return None
    if not name.endswith(".toml"):
        guess = nearest(name, builtin_names("die"))
        hint = f"did you mean '{guess}'? " if guess else ""
        return (
            f"'{name}' is neither a built-in die name nor a path to a .toml die file "
            f"({hint}built-in: {', '.join(builtin_names('die'))})"
        )
    try:
        load_die(resolve("die", name))
    except SpecError as exc:
        why = f"{exc.field}: {exc.problem}" if exc.field else exc.problem
        return f"'{name}' is not a die file ({why})"
    return None


def _size_key(shape: str) -> str:
    """The key that gives a shape's size (where a size problem is reported)."""
    return {"cuboid": "dims_mm", "cylinder": "radius_mm", "polyhedron": "vertices_mm"}.get(shape, "size_mm")
