"""Templates: flat cardboard pieces flipped onto the board.

A template file gives the outline (one or more pieces, each a circle or polygon in the template's own
frame, millimetres), its thickness, material and mass, the effect regions (layered like board
sections: later regions paint over earlier ones) and the effect. Geometry lives here as plain
shapely/numpy so the classifier side (`sim.template_rules`) never needs PyBullet.

Template frame: origin at the centre of the piece's mid-plane, z along its normal. A template is
printed the same on both faces (a flipped template's outline is mirrored by its pose, not re-read).

File schema (all lengths mm)::

    name = "fireball"            # the built-in name (file stem)
    title = "Fireball"
    estimated = true             # sizes are estimates (say the basis in a comment)
    thickness_mm = 2.0
    material = "cardboard"       # must be in the material table
    density_g_cm3 = 0.7          # or mass_g = ...
    count = 1                    # pieces flipped together (Explosion: 2)
    in_boxes = 1                 # pieces all the boxes hold together (a scenario lays at most these)
    effect = "damage"            # damage | armor | healing | slime
    damage = 6                   # to the monster, where no region says otherwise
    hero_damage = 0              # to every hero (Explosion: 2)
    heal = 0                     # every hero heals (Major Healing: 5)
    gold = 0                     # gold to the chest (Philosopher's Stone: 3)
    icon_insta_kill = false      # the special icon on it defeats the monster (Weak Point)
    bonuses = "section"          # what adds to a hit on it (default by effect; see BONUS_RULES)
    [[outline]]                  # pieces: a shape each (circle / polygon); their union is the outline
    kind = "circle"
    radius_mm = 50
    [[regions]]                  # optional, layered
    id = "core"
    damage = 10
    shape = { kind = "circle", center_mm = [20, 0], radius_mm = 15 }
    [slime]                      # effect = "slime" only: the curve the arrow points to
    curve_mm = [[x, y], ...]     # a polyline along the outline
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Literal

import numpy as np
import shapely
from pydantic import Field, model_validator
from shapely.geometry import LineString, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from sim.errors import FieldError
from sim.specs.base import MAX_ANGLE_DEG, MAX_BOARD_MM, Length, Name, Spec
from sim.specs.die import quat_to_matrix
from sim.specs.geometry import MAX_POINTS, MM, Shape, contains_points
from sim.vectors import matmul

MAX_TEMPLATE_MM = 400.0  # a template fits in a square this wide (real ones are about 10 cm across)
MAX_TEMPLATE_CORNERS = 64  # corners of a non-convex outline (its convex decomposition grows as corners^3)
MAX_SCORE = 100  # damage, healing, gold of one template


BonusRule = Literal["section", "equipment", "none"]
BONUS_RULES: dict[str, str] = {
    "section": "its damage is a section value: abilities and equipment add as on the board, but for what "
    "names a Target board section (Focused Damage)",
    "equipment": 'the die deals nothing itself, only equipment bonuses count (Major Healing: "the monster '
    'only suffers damage from bonuses from equipment")',
    "none": 'a hit for exactly its damage, nothing added (Explosion: "Hits the Monster for 0 damage"; '
    'Armor: "a Hit worth 0 damage")',
}
# the rule of a template file that names none (a file naming one enters scenario keys; none does not)
DEFAULT_BONUSES: dict[str, BonusRule] = {
    "damage": "section",
    "armor": "none",
    "healing": "equipment",
    "slime": "section",
}


class TemplateRegion(Spec):
    """A part of a template with its own damage (e.g. a template's centre dealing more)."""

    id: str = Field(min_length=1, max_length=200)
    damage: int = Field(ge=0, le=MAX_SCORE)
    shape: Shape


class SlimeCurve(Spec):
    """The curve (mm, template frame) a slime template's arrow points to; a die is moved to touch it."""

    curve_mm: list[tuple[Length, Length]] = Field(min_length=2, max_length=MAX_POINTS)


class TemplateSpec(Spec):
    """A template data file: outline and regions (mm), thickness (mm), mass or density, and its effect
    (damage, armor, healing, slime)."""

    name: Name
    title: str = ""
    estimated: bool = False
    notes: str = ""
    source_rulebook: str = ""
    thickness_mm: float = Field(default=2.0, gt=0.2, le=20)
    material: Name = "cardboard"
    density_g_cm3: float = Field(default=0.7, gt=0.05, le=5)
    mass_g: float | None = Field(default=None, gt=0, le=1000)
    count: int = Field(default=1, ge=1, le=4)
    # pieces of this template all the published boxes hold together (Fireball: one in Malevolent Magma,
    # one in Fire at Will): a scenario lays at most that many unless it marks the extra ones homemade
    in_boxes: int = Field(default=1, ge=1, le=20)
    effect: Literal["damage", "armor", "healing", "slime"] = "damage"
    damage: int = Field(default=0, ge=0, le=MAX_SCORE)
    hero_damage: int = Field(default=0, ge=0, le=MAX_SCORE)
    heal: int = Field(default=0, ge=0, le=MAX_SCORE)
    gold: int = Field(default=0, ge=0, le=MAX_SCORE)
    icon_insta_kill: bool = False
    bonuses: BonusRule | None = None
    outline: list[Shape] = Field(min_length=1, max_length=16)
    regions: list[TemplateRegion] = Field(default_factory=list, max_length=64)
    slime: SlimeCurve | None = None

    @model_validator(mode="after")
    def _check(self) -> TemplateSpec:
        out = unary_union([s.geometry() for s in self.outline])
        if out.geom_type != "Polygon":
            raise FieldError("outline", "the pieces must join into one connected outline")
        x0, y0, x1, y1 = out.bounds
        if max(x1 - x0, y1 - y0) > MAX_TEMPLATE_MM * MM:
            raise FieldError("outline", f"a template is at most {MAX_TEMPLATE_MM:g} mm across")
        if not _is_convex(out) and len(out.exterior.coords) - 1 > MAX_TEMPLATE_CORNERS:
            raise FieldError(
                "outline",
                f"a non-convex outline has at most {MAX_TEMPLATE_CORNERS} corners "
                f"(this one has {len(out.exterior.coords) - 1})",
            )
        for i, r in enumerate(self.regions):
            if not out.intersects(r.shape.geometry()):
                raise FieldError(f"regions.{i}.shape", f"region '{r.id}' lies entirely outside the outline")
        if self.effect == "slime" and self.slime is None:
            raise FieldError(
                "slime", "a slime template needs [slime] curve_mm (the curve its arrow points to)"
            )
        if self.slime is not None:
            line = LineString([(x * MM, y * MM) for x, y in self.slime.curve_mm])
            if (
                line.distance(out.exterior) > 2 * MM
                or line.hausdorff_distance(out.exterior) > 0.5 * line.length + 1
            ):
                raise FieldError("slime.curve_mm", "the curve must run along the outline")
        return self

    @property
    def bonus_rule(self) -> BonusRule:
        """What adds to a hit on this template (`BONUS_RULES`): the file's `bonuses`, else its effect's."""
        return self.bonuses or DEFAULT_BONUSES[self.effect]

    def describe(self) -> dict:
        """The spec as plain JSON for keys: `bonuses` only when the file names it, so files written
        before the field existed keep their scenario keys."""
        d = self.model_dump(mode="json")
        d.pop("in_boxes", None)  # how many pieces exist changes no throw
        if d.get("bonuses") is None:
            d.pop("bonuses", None)
        return d

    # ---------------- geometry (metres, template frame) ----------------
    @property
    def thickness_m(self) -> float:
        return self.thickness_mm * MM

    @cached_property
    def outline_geom(self) -> Polygon:
        return unary_union([s.geometry() for s in self.outline])

    @cached_property
    def area_m2(self) -> float:
        return float(self.outline_geom.area)

    @cached_property
    def mass_kg(self) -> float:
        if self.mass_g is not None:
            return self.mass_g * 1e-3
        return self.area_m2 * self.thickness_m * self.density_g_cm3 * 1e3

    @cached_property
    def centroid_m(self) -> np.ndarray:
        c = self.outline_geom.centroid
        return np.array([c.x, c.y])

    @cached_property
    def local_outline(self) -> Polygon:
        """The outline with its centroid at the origin (the body frame of the physics)."""
        return shapely.affinity.translate(self.outline_geom, -self.centroid_m[0], -self.centroid_m[1])

    @cached_property
    def inertia_diagonal(self) -> tuple[float, ...]:
        """Principal moments about the centroid (thin plate: in-plane from the polygon's second moments).

        The x/y body axes are the outline's principal axes only for shapes symmetric about x or y; the
        built-ins are, and `convex_pieces` uses the same frame, so the diagonal is exact for them.
        """
        ixx, iyy, ixy = second_moments(self.local_outline)
        m, a, t = self.mass_kg, self.area_m2, self.thickness_m
        # per unit area -> per unit mass; plate thickness adds t^2/12 to the in-plane axes
        jxx = m * (ixx / a + t * t / 12)  # about x: sum of y^2
        jyy = m * (iyy / a + t * t / 12)
        jzz = m * (ixx + iyy) / a
        return (float(jxx), float(jyy), float(jzz))

    @cached_property
    def convex_pieces(self) -> list[np.ndarray]:
        """The outline (centroid frame) as convex polygons: each an (n, 2) array of vertices, metres."""
        return [np.asarray(p.exterior.coords)[:-1] for p in convex_decomposition(self.local_outline)]

    def _layers(self) -> list[tuple[BaseGeometry, str, int]]:
        return [(r.shape.geometry(), r.id, r.damage) for r in self.regions]

    def damage_at(self, xy_local_m: np.ndarray) -> list[tuple[str, int]]:
        """(region id, damage) under each template-frame point (centroid frame); 'body' = no region."""
        xy = np.asarray(xy_local_m, dtype=float).reshape(-1, 2) + self.centroid_m
        out = [("body", self.damage)] * len(xy)
        for geom, rid, dmg in self._layers():
            for i in np.nonzero(contains_points(geom, xy))[0]:
                out[i] = (rid, dmg)
        return out

    @cached_property
    def slime_curve_local(self) -> np.ndarray | None:
        if self.slime is None:
            return None
        return np.array([(x * MM, y * MM) for x, y in self.slime.curve_mm]) - self.centroid_m


def second_moments(poly: Polygon) -> tuple[float, ...]:
    """Area moments (int y^2 dA, int x^2 dA, int xy dA) of a polygon about the origin."""
    co = np.asarray(poly.exterior.coords)
    if not poly.exterior.is_ccw:
        co = co[::-1]
    x0, y0, x1, y1 = co[:-1, 0], co[:-1, 1], co[1:, 0], co[1:, 1]
    cr = x0 * y1 - x1 * y0
    ixx = float(np.sum(cr * (y0 * y0 + y0 * y1 + y1 * y1)) / 12)
    iyy = float(np.sum(cr * (x0 * x0 + x0 * x1 + x1 * x1)) / 12)
    ixy = float(np.sum(cr * (x0 * y1 + 2 * x0 * y0 + 2 * x1 * y1 + x1 * y0)) / 24)
    return ixx, iyy, ixy


def _is_convex(poly: Polygon, tol: float = 1e-9) -> bool:
    poly = shapely.set_precision(poly, 1e-7)
    return bool(abs(poly.convex_hull.area - poly.area) <= tol * max(poly.area, 1e-12) + 1e-12)


def convex_decomposition(poly: Polygon, tol: float = 1e-9) -> list[Polygon]:
    """Split a simple polygon into convex pieces: triangulate, then greedily merge neighbours whose
    union stays convex (Hertel-Mehlhorn style; at most 4x the optimum number of pieces)."""
    poly = shapely.set_precision(poly, 1e-7)
    if _is_convex(poly, tol):
        return [shapely.geometry.polygon.orient(poly)]
    tris = list(shapely.constrained_delaunay_triangles(poly).geoms)
    pieces = [t for t in tris if t.area > 1e-14]
    merged = True
    while merged:
        merged = False
        for i in range(len(pieces)):
            for j in range(i + 1, len(pieces)):
                a, b = pieces[i], pieces[j]
                if a.intersection(b).length <= 1e-9:
                    continue
                u = a.union(b)
                if u.geom_type == "Polygon" and u.convex_hull.area - u.area <= 1e-6 * u.area:
                    pieces[i] = shapely.geometry.polygon.orient(u.convex_hull)
                    del pieces[j]
                    merged = True
                    break
            if merged:
                break
    return pieces


# ---------------- placed templates (plain numbers, what the classifier sees) ----------------
@dataclass(frozen=True)
class PlacedTemplate:
    """One template lying somewhere: its spec and its body pose (centroid, board frame, metres)."""

    id: str  # the body name is f"template:{id}"
    spec: TemplateSpec
    position_m: tuple[float, ...]
    orientation_xyzw: tuple[float, ...]

    @property
    def body_name(self) -> str:
        return f"template:{self.id}"

    @cached_property
    def _rot(self) -> np.ndarray:
        return quat_to_matrix(self.orientation_xyzw)

    @property
    def top_z_m(self) -> float:
        """Height of its upper face's centre (stack order: the higher template is on top)."""
        n = self._rot[:, 2]
        return float(self.position_m[2] + abs(n[2]) * self.spec.thickness_m / 2)

    def top_z_at(self, xy_m) -> float:
        """Height (m) of the plane of its upper face above a board-frame point: where templates overlap,
        the one whose upper face is higher there is on top (a template lying across another's edge is
        on top of it there, though its centre may lie lower than the other's)."""
        n = self._rot[:, 2] if self._rot[2, 2] >= 0 else -self._rot[:, 2]
        top = np.asarray(self.position_m, float) + n * self.spec.thickness_m / 2
        x, y = float(xy_m[0]), float(xy_m[1])
        return float(top[2] - (n[0] * (x - top[0]) + n[1] * (y - top[1])) / max(float(n[2]), 1e-6))

    @property
    def tilt_deg(self) -> float:
        return math.degrees(math.acos(min(1.0, abs(float(self._rot[2, 2])))))

    @property
    def face_up(self) -> bool:
        return bool(self._rot[2, 2] > 0)

    def to_local(self, xy_m: np.ndarray) -> np.ndarray:
        """Board-frame xy points projected into the template's frame (as seen from above)."""
        xy = np.asarray(xy_m, float).reshape(-1, 2)
        p = np.column_stack([xy, np.full(len(xy), self.position_m[2])]) - np.asarray(self.position_m)
        return matmul(p, self._rot)[:, :2]

    def to_world(self, xy_local_m: np.ndarray) -> np.ndarray:
        """Template-frame xy points (m) to board-frame xy (m), as seen from above."""
        xy = np.asarray(xy_local_m, float).reshape(-1, 2)
        p = matmul(np.column_stack([xy, np.zeros(len(xy))]), self._rot.T) + np.asarray(self.position_m)
        return p[:, :2]

    @cached_property
    def footprint(self) -> Polygon:
        """The outline as it lies on the board (board frame xy, metres)."""
        co = np.asarray(self.spec.local_outline.exterior.coords)
        return Polygon(self.to_world(co))

    def covers(self, xy_m: np.ndarray) -> np.ndarray:
        """For each board-frame xy point (m), whether the template's footprint covers it."""
        return contains_points(self.footprint, xy_m)

    def region_for(self, xy_m: np.ndarray) -> tuple[str, int]:
        """The effect region holding most of these points (tie: the lower damage), as (id, damage)."""
        regs = self.spec.damage_at(self.to_local(xy_m))
        counts = Counter(regs)
        best = max(counts.values())
        return min((r for r, c in counts.items() if c == best), key=lambda r: r[1])


def flat_pose(
    spec: TemplateSpec, x_mm: float, y_mm: float, yaw_deg: float, base_z_m: float
) -> tuple[tuple, tuple]:
    """Centroid position and orientation of a template lying face up, (x, y) = its outline centroid."""
    h = math.radians(yaw_deg) / 2
    q = (0.0, 0.0, math.sin(h), math.cos(h))
    return (x_mm * MM, y_mm * MM, base_z_m + spec.thickness_m / 2), q


def load_template(name_or_path: str | Path) -> TemplateSpec:
    """A template by built-in name or TOML path; bad files raise SpecError."""
    return TemplateSpec.load(name_or_path, "template")


def builtin_templates() -> list[TemplateSpec]:
    """Every built-in template spec, sorted by name."""
    from sim.specs.datafiles import builtin_names

    return [TemplateSpec.load(n, "template") for n in builtin_names("template")]


def parse_template_arg(text: str) -> tuple[str, float, float, float]:
    """'NAME:X,Y,YAW' (mm, mm, deg; YAW optional) -> (name, x, y, yaw)."""
    from sim.errors import SpecError

    if ":" not in text:
        raise SpecError("--template", text, "expected NAME:X,Y[,YAW] (mm, mm, deg)")
    name, _, rest = text.rpartition(":")
    parts = [p.strip() for p in rest.split(",")]
    if len(parts) not in (2, 3) or not name:
        raise SpecError("--template", text, "expected NAME:X,Y[,YAW] (mm, mm, deg)")
    try:
        vals = [float(p) for p in parts]
    except ValueError:
        raise SpecError("--template", text, "X, Y and YAW must be numbers") from None
    if not all(math.isfinite(v) for v in vals):
        raise SpecError("--template", text, "X, Y and YAW must be finite")
    if max(abs(vals[0]), abs(vals[1])) > MAX_BOARD_MM or (len(vals) == 3 and abs(vals[2]) > MAX_ANGLE_DEG):
        raise SpecError(
            "--template",
            text,
            f"X and Y must lie within {MAX_BOARD_MM:g} mm of the board centre, "
            f"YAW within {MAX_ANGLE_DEG:g} deg",
        )
    return name, vals[0], vals[1], vals[2] if len(vals) == 3 else 0.0
