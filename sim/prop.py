"""Props: the physical gadgets of specific throws and board modifiers (Firewall, Fire Ring, Lava mat,
Volcano, Waterfall ramp, Puddle, Gate, Stone Wall, Cup, Slow tokens, Fire token).

A prop file (boards/props/NAME.toml) gives the prop's estimated geometry (`[shape]`, one of the
types below), its material, where it stands (`[placement]`, relative to the board, the near board
edge or the thrower's hand) and, for props held by a hand, a per-throw placement noise
(`[jitter]`, drawn from the throw's own prop stream, so it is reproducible per (seed, throw)).

Placement anchors (board frame of DESIGN §4: board centre at the origin, thrower on -x, z up):
- "board":      the board centre on the board's top surface (Volcano, Fire token);
- "board-edge": the point of the board outline nearest the thrower (min x), on the table
                (Firewall, Lava mat, Puddle: "between the thrower and the board");
- "hand":       the aimed release point of the (combined) shot: hand distance, lateral offset and
                height (Fire Ring, Waterfall, Cup);
- "thrower":    the point on the table below the hand (Gate, Stone Wall: "in front of him");
- "table":      the board centre on the table.
`x_mm`, `y_mm`, `z_mm` offset the prop's reference point from the anchor; `yaw_deg` turns it about
z, `tilt_deg` pitches its +x end down (the Waterfall ramp).

Shapes (local frame: +x toward the board), reference point in brackets:
- wall       [foot centre]      a standing slab width (y) x height (z) x thickness (x)
- ring       [ring centre]      a flat annulus standing in the y-z plane (the die flies through along x)
- mat        [centre, on table] a slab length (x) x width (y) x thickness, optional elliptic hole
- gate       [foot centre]      two posts and a lintel around an opening
- split-wall [joint, on table]  two free-standing pieces with feet at their outer ends, touching at
                                the middle (dynamic: the die smashes them apart)
- ramp       [near short edge, top surface centre]  a slab extending along +x
- volcano    [base centre]      a truncated cone with a crater (a surface of revolution)
- slow-tokens                   discs lying on the table inside the listed board holes, as thick as
                                the board (they fill the hole)
- fire-token [centre]           a thin disc lying on the board
- cup        [floor centre, inside]  a cup, driven along a scripted casting motion (kinematic)

Static props are triangle meshes (GEOM_CONCAVE_INTERNAL_EDGE, as the board); dynamic ones
(split-wall, cup) are compounds of boxes. Bodies are registered as "prop:NAME" (pieces
"prop:NAME:k"), so every contact with them is an event in the throw's trace.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

import numpy as np
import pybullet as pb
import shapely
import shapely.affinity
from pydantic import Field
from shapely.geometry import Point, box

from .catalog import register_kind
from .errors import SpecError
from .release import STREAM_PROPS, rng_for
from .spec import Spec

MM = 1e-3


# ---------------------------------------------------------------- spec ----
class WallShape(Spec):
    type: Literal["wall"]
    width_mm: float = Field(gt=0, le=2000)
    height_mm: float = Field(gt=0, le=1000)
    thickness_mm: float = Field(gt=0, le=200)


class RingShape(Spec):
    type: Literal["ring"]
    inner_radius_mm: float = Field(gt=0, le=500)
    band_mm: float = Field(gt=0, le=200)  # radial width of the ring
    thickness_mm: float = Field(gt=0, le=100)
    segments: int = Field(default=32, ge=8, le=256)


class EllipseHole(Spec):
    x_mm: float = 0.0
    y_mm: float = 0.0
    rx_mm: float = Field(gt=0)
    ry_mm: float = Field(gt=0)


class MatShape(Spec):
    type: Literal["mat"]
    outline: Literal["rectangle", "ellipse"] = "rectangle"
    length_mm: float = Field(gt=0, le=2000)
    width_mm: float = Field(gt=0, le=2000)
    thickness_mm: float = Field(gt=0, le=50)
    hole: EllipseHole | None = None


class GateShape(Spec):
    type: Literal["gate"]
    opening_width_mm: float = Field(gt=0, le=1000)
    opening_height_mm: float = Field(gt=0, le=1000)
    post_width_mm: float = Field(gt=0, le=500)
    lintel_mm: float = Field(gt=0, le=500)
    thickness_mm: float = Field(gt=0, le=100)


class SplitWallShape(Spec):
    type: Literal["split-wall"]
    piece_width_mm: float = Field(gt=0, le=1000)
    height_mm: float = Field(gt=0, le=1000)
    thickness_mm: float = Field(gt=0, le=100)
    foot_length_mm: float = Field(gt=0, le=500)  # along x, at the outer end of each piece
    foot_height_mm: float = Field(gt=0, le=1000)
    gap_mm: float = Field(default=0.5, ge=0, le=100)
    mass_g: float = Field(gt=0, le=5000)  # per piece, foot included
    # free = true: the pieces are loose bodies the die knocks apart. With two loose bodies in contact
    # with the die, PyBullet's results depend on earlier throws in the same world (solver contact
    # order; not resolved), so repeats of a throw can differ. free = false: fixed pieces.
    free: bool = False


class RampShape(Spec):
    type: Literal["ramp"]
    length_mm: float = Field(gt=0, le=2000)
    width_mm: float = Field(gt=0, le=2000)
    thickness_mm: float = Field(gt=0, le=100)


class VolcanoShape(Spec):
    type: Literal["volcano"]
    base_radius_mm: float = Field(gt=0, le=500)
    top_radius_mm: float = Field(gt=0, le=500)
    height_mm: float = Field(gt=0, le=500)
    crater_radius_mm: float = Field(gt=0, le=500)
    crater_depth_mm: float = Field(gt=0, le=500)
    segments: int = Field(default=32, ge=8, le=256)


class SlowTokensShape(Spec):
    type: Literal["slow-tokens"]
    holes: list[str] | Literal["all"] = "all"
    clearance_mm: float = Field(default=1.0, ge=0, le=20)  # token radius = hole radius - clearance
    thickness_mm: float | None = Field(default=None, gt=0, le=20)  # default: the board's thickness


class FireTokenShape(Spec):
    type: Literal["fire-token"]
    radius_mm: float = Field(gt=0, le=200)
    thickness_mm: float = Field(gt=0, le=20)


class CupShape(Spec):
    type: Literal["cup"]
    inner_radius_mm: float = Field(gt=0, le=200)
    inner_height_mm: float = Field(gt=0, le=300)
    wall_mm: float = Field(gt=0, le=20)
    mass_g: float = Field(default=1000.0, gt=0)  # the hand drives it: effectively unmovable by a die
    wall_segments: int = Field(default=16, ge=6, le=64)
    # the cast: after `delay_s` (the die settles in the cup), the cup moves forward with a
    # half-sine speed profile peaking at `cast_speed_mps` over `cast_time_s`, rising at
    # `lift_fraction` of the forward speed, while it tips its mouth forward by `tip_deg`; then it is
    # held still.
    delay_s: float = Field(default=0.15, ge=0, le=2)
    cast_speed_mps: float = Field(gt=0, le=10)
    cast_time_s: float = Field(gt=0, le=2)
    tip_deg: float = Field(ge=0, le=180)
    lift_fraction: float = Field(default=0.3, ge=-2, le=2)


Shape = Annotated[
    WallShape | RingShape | MatShape | GateShape | SplitWallShape | RampShape | VolcanoShape | SlowTokensShape | FireTokenShape | CupShape,
    Field(discriminator="type"),
]


class Placement(Spec):
    anchor: Literal["board", "board-edge", "hand", "thrower", "table"] = "board-edge"
    x_mm: float = 0.0
    y_mm: float = 0.0
    z_mm: float = 0.0
    yaw_deg: float = 0.0
    tilt_deg: float = Field(default=0.0, ge=-89, le=89)


class Jitter(Spec):
    """Per-throw placement noise (standard deviations) of a prop held by a hand."""

    x_sd_mm: float = Field(default=0.0, ge=0, le=500)
    y_sd_mm: float = Field(default=0.0, ge=0, le=500)
    z_sd_mm: float = Field(default=0.0, ge=0, le=500)
    yaw_sd_deg: float = Field(default=0.0, ge=0, le=45)
    tilt_sd_deg: float = Field(default=0.0, ge=0, le=45)
    speed_sd_frac: float = Field(default=0.0, ge=0, le=1)  # cup: cast speed
    # A prop held by the thrower (Waterfall, Cup) is as steady as the thrower: its spreads above are
    # those of a thrower whose skill has speed_sd_frac = `skill_reference_speed_sd_frac`, and scale
    # with the scenario's skill (ratio of speed_sd_frac). Off for props held by someone else (Fire Ring).
    scale_with_skill: bool = False
    skill_reference_speed_sd_frac: float = Field(default=0.15, gt=0, le=1)


class PropSpec(Spec):
    name: str
    estimated: bool = True
    notes: str = ""
    description: str = ""
    material: str = "cardboard"
    touch_hero_damage: int = Field(default=0, ge=0, le=20)  # Firewall (Fire at Will): touching it costs 1
    shape: Shape
    placement: Placement = Placement()
    jitter: Jitter = Jitter()

    @property
    def type(self) -> str:
        return self.shape.type


register_kind("prop", PropSpec)


def load_prop(name_or_path) -> PropSpec:
    return PropSpec.load(name_or_path, "prop")


# ------------------------------------------------------------ geometry ----
def rot_matrix(yaw_deg: float, tilt_deg: float) -> np.ndarray:
    """Rz(yaw) @ Ry(tilt): a positive tilt pitches the local +x end down."""
    cy, sy = math.cos(math.radians(yaw_deg)), math.sin(math.radians(yaw_deg))
    ct, st = math.cos(math.radians(tilt_deg)), math.sin(math.radians(tilt_deg))
    rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1.0]])
    ry = np.array([[ct, 0, st], [0, 1.0, 0], [-st, 0, ct]])
    return rz @ ry


def matrix_to_quat(m: np.ndarray) -> tuple[float, float, float, float]:
    from scipy.spatial.transform import Rotation

    q = Rotation.from_matrix(m).as_quat()
    return tuple(float(v) for v in q)


def extrude(poly, w0: float, w1: float) -> tuple[np.ndarray, np.ndarray]:
    """Closed triangle mesh of a polygon (with holes) in the (u, v) plane, extruded from w0 to w1.
    Returns vertices as (u, v, w) and triangle indices (one cell: the board's mesher, uncut)."""
    from .physics import slab_mesh

    return slab_mesh(poly, [poly.envelope.buffer(1e-9)], w0, w1)


def revolve(profile_rz: list[tuple[float, float]], segments: int) -> tuple[np.ndarray, np.ndarray]:
    """Closed surface of revolution of a closed (r, z) profile about the z axis."""
    verts: list[tuple[float, float, float]] = []
    idx: list[int] = []
    angles = np.linspace(0, 2 * np.pi, segments, endpoint=False)
    n = len(profile_rz)
    for i in range(n):
        r, z = profile_rz[i]
        for a in angles:
            verts.append((r * math.cos(a), r * math.sin(a), z))
    for i in range(n):
        j = (i + 1) % n
        for k in range(segments):
            k2 = (k + 1) % segments
            a, b, c, d = i * segments + k, i * segments + k2, j * segments + k2, j * segments + k
            if profile_rz[i][0] > 0:
                idx += [a, b, c]
            if profile_rz[j][0] > 0:
                idx += [a, c, d]
    return np.array(verts, dtype=float), np.array(idx, dtype=np.int64)


def _yz_to_local(verts_uvw: np.ndarray) -> np.ndarray:
    """(u, v, w) of an extrusion in the y-z plane along x -> local (x, y, z) = (w, u, v)."""
    return verts_uvw[:, [2, 0, 1]]


def static_mesh(spec: PropSpec, board=None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Local-frame meshes (metres) of a static prop."""
    s = spec.shape
    if s.type == "wall":
        v, i = extrude(box(-s.thickness_mm / 2, -s.width_mm / 2, s.thickness_mm / 2, s.width_mm / 2), 0.0, s.height_mm)
        return [(v * MM, i)]
    if s.type == "ring":
        ro = s.inner_radius_mm + s.band_mm
        ann = Point(0, 0).buffer(ro, quad_segs=s.segments // 4).difference(Point(0, 0).buffer(s.inner_radius_mm, quad_segs=s.segments // 4))
        v, i = extrude(ann, -s.thickness_mm / 2, s.thickness_mm / 2)
        return [(_yz_to_local(v) * MM, i)]
    if s.type == "mat":
        L, W = s.length_mm, s.width_mm
        if s.outline == "rectangle":
            outline = box(-L / 2, -W / 2, L / 2, W / 2)
        else:
            outline = shapely.affinity.scale(Point(0, 0).buffer(1.0, quad_segs=16), L / 2, W / 2)
        if s.hole is not None:
            h = shapely.affinity.scale(Point(0, 0).buffer(1.0, quad_segs=16), s.hole.rx_mm, s.hole.ry_mm)
            h = shapely.affinity.translate(h, s.hole.x_mm, s.hole.y_mm)
            if not outline.buffer(-1.0).contains(h):
                raise SpecError(spec.source, "shape.hole", "the hole must lie inside the mat")
            outline = outline.difference(h)
        v, i = extrude(outline, 0.0, s.thickness_mm)
        return [(v * MM, i)]
    if s.type == "gate":
        w2, pw, H, lt = s.opening_width_mm / 2, s.post_width_mm, s.opening_height_mm, s.lintel_mm
        outer = box(-w2 - pw, 0.0, w2 + pw, H + lt)
        gate = outer.difference(box(-w2, -1.0, w2, H))
        v, i = extrude(gate, -s.thickness_mm / 2, s.thickness_mm / 2)
        return [(_yz_to_local(v) * MM, i)]
    if s.type == "ramp":
        v, i = extrude(box(0.0, -s.width_mm / 2, s.length_mm, s.width_mm / 2), -s.thickness_mm, 0.0)
        return [(v * MM, i)]
    if s.type == "volcano":
        if not (s.crater_radius_mm < s.top_radius_mm <= s.base_radius_mm and s.crater_depth_mm < s.height_mm):
            raise SpecError(spec.source, "shape", "need crater_radius < top_radius <= base_radius and crater_depth < height")
        h = s.height_mm
        prof = [(0.0, 0.0), (s.base_radius_mm, 0.0), (s.top_radius_mm, h), (s.crater_radius_mm, h),
                (s.crater_radius_mm, h - s.crater_depth_mm), (0.0, h - s.crater_depth_mm)]
        v, i = revolve(prof, s.segments)
        return [(v * MM, i)]
    if s.type == "fire-token":
        v, i = extrude(Point(0, 0).buffer(s.radius_mm, quad_segs=8), 0.0, s.thickness_mm)
        return [(v * MM, i)]
    raise ValueError(s.type)


# --------------------------------------------------------------- world ----
_BUILDING = ("building",)  # start() marker while the world is being built

@dataclass
class PlacedProp:
    """A prop in the world: its spec and its pose for the current throw (metres, board frame)."""

    spec: PropSpec
    bodies: list[str] = field(default_factory=list)
    nominal_position: np.ndarray = field(default_factory=lambda: np.zeros(3))
    nominal_yaw_deg: float = 0.0
    nominal_tilt_deg: float = 0.0
    position: np.ndarray = field(default_factory=lambda: np.zeros(3))
    yaw_deg: float = 0.0
    tilt_deg: float = 0.0
    speed_factor: float = 1.0  # cup cast speed factor for this throw
    extra: dict[str, Any] = field(default_factory=dict)  # per-type data (slow-token discs, ...)

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def type(self) -> str:
        return self.spec.shape.type

    @property
    def rotation(self) -> np.ndarray:
        return rot_matrix(self.yaw_deg, self.tilt_deg)

    def to_local(self, pts_m: np.ndarray) -> np.ndarray:
        """World points -> this prop's local frame (metres)."""
        return (np.asarray(pts_m, dtype=float).reshape(-1, 3) - self.position) @ self.rotation


def anchor_point(spec: PropSpec, scenario) -> np.ndarray:
    a = spec.placement.anchor
    board = scenario.board
    if a == "table":
        return np.zeros(3)
    if a in ("board", "board-edge"):
        if board is None:
            raise SpecError(spec.source, "placement.anchor", f"'{a}' needs a board (the shot has board = false)")
        if a == "board":
            return np.array([0.0, 0.0, board.thickness_m])
        return np.array([board.outline_geom.bounds[0], 0.0, 0.0])
    rel = scenario.shot.release
    z = rel.height_mm * MM if a == "hand" else 0.0
    return np.array([-rel.distance_mm * MM, rel.lateral_mm * MM, z])


class PropWorld:
    """Every prop of a scenario, built into one Physics world; re-posed per throw."""

    def __init__(self, physics, scenario, specs: list[PropSpec]) -> None:
        self.physics = physics
        self.scenario = scenario
        self.props: dict[str, PlacedProp] = {}
        self._cups: list[PlacedProp] = []
        # (body name, local position, (parts, mass) to rebuild it per throw, or None) per dynamic piece
        self._dynamic: list[tuple[str, np.ndarray, Any]] = []
        self._ticks = 0  # broadphase updates so far (steps, and collision detections run here)
        self.visuals: dict[str, tuple] = {}  # body name -> ("mesh", verts, idx) or ("boxes", parts), body frame (viewer)
        for spec in specs:
            if spec.name in self.props:
                raise SpecError(spec.source, "name", f"two props are named '{spec.name}'")
            self.props[spec.name] = self._build(spec)
        self.start(_BUILDING)

    # ---- building ----
    def _build(self, spec: PropSpec) -> PlacedProp:
        ph = self.physics
        pl = spec.placement
        pos = anchor_point(spec, self.scenario) + np.array([pl.x_mm, pl.y_mm, pl.z_mm]) * MM
        pp = PlacedProp(spec, nominal_position=pos, nominal_yaw_deg=pl.yaw_deg, nominal_tilt_deg=pl.tilt_deg)
        pp.position, pp.yaw_deg, pp.tilt_deg = pos.copy(), pl.yaw_deg, pl.tilt_deg
        s = spec.shape
        base = f"prop:{spec.name}"
        if s.type == "slow-tokens":
            board = self.scenario.board
            if board is None:
                raise SpecError(spec.source, "shape", "slow tokens need a board")
            ids = [h.id or f"hole-{i}" for i, h in enumerate(board.holes)]
            wanted = ids if s.holes == "all" else s.holes
            discs = []
            for hid in wanted:
                if hid not in ids:
                    raise SpecError(spec.source, "shape.holes", f"board has no hole '{hid}' (holes: {', '.join(ids)})")
                g = board.hole_geoms[ids.index(hid)]
                r_in = math.sqrt(g.area / math.pi) * 1e3 - s.clearance_mm  # inscribed-ish radius in mm
                centre = np.array(g.centroid.coords[0]) * 1e3
                t = s.thickness_mm or board.thickness_m * 1e3
                v, i = extrude(Point(*centre).buffer(max(r_in, 1.0), quad_segs=8), 0.0, t)
                self._static(f"{base}:{hid}", v * MM, i, np.zeros(3), (0, 0, 0, 1), spec.material)
                pp.bodies.append(f"{base}:{hid}")
                discs.append((hid, centre * MM, max(r_in, 1.0) * MM))
            pp.extra["discs"] = discs
            pp.position = np.zeros(3)
            pp.nominal_position = np.zeros(3)
            return pp
        if s.type == "split-wall" and not s.free:
            t, w, h = s.thickness_mm, s.piece_width_mm, s.height_mm
            fl, fh, g2 = s.foot_length_mm, s.foot_height_mm, s.gap_mm / 2
            rot = pp.rotation
            for k, side in enumerate((-1.0, 1.0)):
                y0, y1 = sorted((side * g2, side * (g2 + w)))
                panel = extrude(box(-t / 2, y0, t / 2, y1), 0.0, h)
                yf0, yf1 = sorted((side * (g2 + w - t), side * (g2 + w)))
                foot = extrude(box(-fl / 2, yf0, fl / 2, yf1), 0.0, fh)
                for part, (v, i) in (("", panel), ("f", foot)):
                    name = f"{base}:{k}{part}"
                    self._static(name, v * MM, i, pos, matrix_to_quat(rot), spec.material)
                    pp.bodies.append(name)
            return pp
        if s.type == "split-wall":
            for k, side in enumerate((-1.0, 1.0)):
                t, w, h = s.thickness_mm * MM, s.piece_width_mm * MM, s.height_mm * MM
                g2 = s.gap_mm * MM / 2
                fl, fh = s.foot_length_mm * MM, s.foot_height_mm * MM
                # panel and foot as boxes; body origin at the panel's centre of footprint
                yc = side * (g2 + w / 2)
                parts = [((0.0, 0.0, h / 2), (t / 2, w / 2, h / 2)),
                         ((0.0, side * (w / 2 - t / 2), fh / 2), (fl / 2, t / 2, fh / 2))]
                # put the body origin at the pieces' centre of mass (uniform card)
                vols = np.array([8 * np.prod(p[1]) for p in parts])
                com = (np.array([p[0] for p in parts]) * vols[:, None]).sum(0) / vols.sum()
                parts = [(tuple(np.array(p[0]) - com), p[1]) for p in parts]
                name = f"{base}:{k}"
                self.visuals[name] = ("boxes", parts)
                body = self._compound(parts, s.mass_g * 1e-3)
                ph._register(name, body, spec.material)
                pp.bodies.append(name)
                self._dynamic.append((name, np.array([0.0, yc, 0.0]) + com, (parts, s.mass_g * 1e-3)))
            return pp
        if s.type == "cup":
            r, hh, wt = s.inner_radius_mm * MM, s.inner_height_mm * MM, s.wall_mm * MM
            parts = [((0.0, 0.0, -wt / 2), (r + wt, r + wt, wt / 2))]
            n = s.wall_segments
            half_chord = (r + wt) * math.tan(math.pi / n) + 1e-4
            for k in range(n):
                a = 2 * math.pi * k / n
                parts.append(((math.cos(a) * (r + wt / 2), math.sin(a) * (r + wt / 2), hh / 2), (wt / 2, half_chord, hh / 2), a))
            self.visuals[base] = ("boxes", parts)
            body = self._compound(parts, s.mass_g * 1e-3)
            ph._register(base, body, spec.material)
            ph.client.setCollisionFilterPair(body, ph.body("table"), -1, -1, 0)
            pp.bodies.append(base)
            self._dynamic.append((base, np.zeros(3), None))
            self._cups.append(pp)
            return pp
        for k, (v, i) in enumerate(static_mesh(spec)):
            name = base if k == 0 else f"{base}:{k}"
            self._static(name, v, i, pos, matrix_to_quat(pp.rotation), spec.material)
            pp.bodies.append(name)
        return pp

    def _static(self, name, verts, idx, pos, quat, material) -> None:
        c = self.physics.client
        shape = c.createCollisionShape(pb.GEOM_MESH, vertices=verts.tolist(), indices=idx.tolist(), flags=pb.GEOM_CONCAVE_INTERNAL_EDGE)
        body = c.createMultiBody(0, shape, basePosition=list(pos), baseOrientation=list(quat))
        self.physics._register(name, body, material)
        self.visuals[name] = ("mesh", verts, idx)

    def _compound(self, parts, mass_kg) -> int:
        c = self.physics.client
        types, half, poss, orns = [], [], [], []
        for p in parts:
            types.append(pb.GEOM_BOX)
            poss.append(list(p[0]))
            half.append(list(p[1]))
            yaw = p[2] if len(p) > 2 else 0.0
            orns.append(list(pb.getQuaternionFromEuler((0, 0, yaw))))
        shape = c.createCollisionShapeArray(shapeTypes=types, halfExtents=half, collisionFramePositions=poss, collisionFrameOrientations=orns)
        body = c.createMultiBody(mass_kg, shape, basePosition=[0, 0, -20 - len(self.physics.names())], useMaximalCoordinates=True)
        c.changeDynamics(body, -1, linearDamping=0.0, angularDamping=0.0,
                         activationState=pb.ACTIVATION_STATE_DISABLE_SLEEPING)  # never asleep: no state carried over
        return body

    # ---- per throw ----
    def start(self, draw: tuple[int, int] | None) -> None:
        """Put every prop at its placement for a throw: the nominal one (draw None, exact releases),
        or jittered by the throw's prop stream (seed, index)."""
        rng = rng_for(draw[0], draw[1], STREAM_PROPS) if draw not in (None, _BUILDING) else None
        c = self.physics.client
        for pp in self.props.values():
            j = pp.spec.jitter
            z = rng.standard_normal(6) if rng is not None else np.zeros(6)
            if j.scale_with_skill:
                z = z * (self.scenario.skill.speed_sd_frac / j.skill_reference_speed_sd_frac)
            pp.position = pp.nominal_position + np.array([j.x_sd_mm * z[0], j.y_sd_mm * z[1], j.z_sd_mm * z[2]]) * MM
            pp.yaw_deg = pp.nominal_yaw_deg + j.yaw_sd_deg * z[3]
            pp.tilt_deg = pp.nominal_tilt_deg + j.tilt_sd_deg * z[4]
            pp.speed_factor = max(0.05, 1.0 + j.speed_sd_frac * z[5])
            if pp.type in ("slow-tokens",):
                continue
            if pp.type in ("split-wall", "cup"):
                continue
            q = matrix_to_quat(pp.rotation)
            for name in pp.bodies:
                c.resetBasePositionAndOrientation(self.physics.body(name), list(pp.position), list(q))
        free = [(name, rebuild) for name, _, rebuild in self._dynamic if rebuild is not None]
        if free and draw is not _BUILDING and self._ticks % 2:
            # Bullet's dbvt broadphase alternates between two stages on every update, and the order in
            # which the die's contacts with the free pieces are found depends on that parity: align
            # it so every throw starts on the same stage.
            c.performCollisionDetection()
            self._ticks += 1
        if free and draw is not _BUILDING:
            # Free pieces are rebuilt for every throw: a reset body keeps cached contacts (warm-start
            # impulses, manifold order) with the table and the die, so the next throw would depend on
            # this one. All are removed (last first) before any is re-created, so the world's body
            # array - and the solver's order - is the same for every throw.
            ph, cl = self.physics, self.physics.client
            params = {}
            for name, _ in reversed(free):
                old = ph.body(name)
                info = cl.getDynamicsInfo(old, -1)
                params[name] = (info[1], info[5])
                cl.removeBody(old)
                ph._names.pop(old, None)
            for name, (parts, mass) in free:
                body = self._compound(parts, mass)
                cl.changeDynamics(body, -1, lateralFriction=params[name][0], restitution=params[name][1])
                ph._register(name, body, ph._material_of[name])
        for name, lpos, _ in self._dynamic:
            pp = self._owner(name)
            rot = pp.rotation
            self.physics.set_state(name, pp.position + rot @ lpos, matrix_to_quat(rot))
        self.before_step(0.0)

    def _owner(self, body_name: str) -> PlacedProp:
        return self.props[body_name.split(":")[1]]

    def cup_pose(self, pp: PlacedProp, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Position, rotation, linear and angular velocity of a cup at time t of its cast."""
        s: CupShape = pp.spec.shape
        V = s.cast_speed_mps * pp.speed_factor
        T = s.cast_time_s
        tau = min(max(t - s.delay_s, 0.0), T)
        moving = 0.0 < t - s.delay_s < T
        fwd = V * T / math.pi * (1 - math.cos(math.pi * tau / T))
        vfwd = V * math.sin(math.pi * tau / T) if moving else 0.0
        th = math.radians(s.tip_deg) * (tau / T) ** 2
        dth = math.radians(s.tip_deg) * 2 * tau / T**2 if moving else 0.0
        base = rot_matrix(pp.yaw_deg, pp.tilt_deg)
        d = base @ np.array([1.0, 0.0, s.lift_fraction])
        pos = pp.position + d * fwd
        vel = d * vfwd
        rot = base @ rot_matrix(0.0, math.degrees(th))  # Ry(+th) tips the mouth (+z) toward +x
        lateral = base @ np.array([0.0, 1.0, 0.0])
        return pos, rot, vel, lateral * dth

    @property
    def kinematic(self) -> bool:
        """True when some prop moves on its own during a throw (needs `before_step`)."""
        return bool(self._cups)

    def before_step(self, t: float) -> None:
        """Drive kinematic props (the cup) to their scripted pose and velocity at time t."""
        self._ticks += 1
        for pp in self._cups:
            pos, rot, vel, w = self.cup_pose(pp, t)
            self.physics.set_state(pp.bodies[0], pos, matrix_to_quat(rot), vel, w)

    # ---- after the throw ----
    def touched(self, outcome_touching, prefix: str) -> bool:
        return any(t.startswith(prefix) for t in outcome_touching)


def build_props(physics, scenario) -> PropWorld:
    return PropWorld(physics, scenario, list(getattr(scenario, "props", ()) or ()))
