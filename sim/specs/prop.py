"""Props: the physical gadgets of specific throws and board modifiers (Firewall, Fire Ring, Lava mat,
Volcano, Waterfall ramp, Puddle, Gate, Stone Wall, Cup, Slow tokens, Fire token).

A prop file (boards/props/NAME.toml) gives the prop's estimated geometry (`[shape]`, one of the
types below), its material, where it stands (`[placement]`, relative to the board, the near board
edge or the thrower's hand) and, for props held by a hand, a per-throw placement noise
(`[jitter]`, drawn from the throw's own prop stream, so it is reproducible per (seed, throw)).

Placement anchors (board frame of docs/design.md: board centre at the origin, thrower on -x, z up):
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

What each kind of prop is in the game (it lies on the board, fills holes, is held by the hand, moves;
its colour) is declared once, on its shape class (`PropTraits`); how it becomes bodies is its builder
in `sim.world.props`, and what it changes about a throw's outcome its entry in `sim.rules.effects`.

Static props are compounds of convex pieces (as the board and the table); dynamic ones
(split-wall, cup) are compounds of boxes. Bodies are registered as "prop:NAME" (pieces
"prop:NAME:k"), so every contact with them is an event in the throw's trace.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, Literal, NamedTuple, get_args

import numpy as np
from pydantic import Field, model_validator
from shapely import affinity
from shapely.geometry import Point, box

from sim.errors import FieldError
from sim.specs.base import MAX_ANGLE_DEG, MAX_BOARD_MM, Name, Spec
from sim.vectors import matmul

MM = 1e-3


class PropTraits(NamedTuple):
    """What a kind of prop is in the game, declared once on its shape class so the world, the rules and
    the viewer read it instead of comparing type names."""

    colour: str  # how the viewer draws it
    on_board: bool = False  # lies on the board: for the bounce rule, touching it is touching the board
    fills_holes: bool = False  # stands in board holes (`holes` names them): needs a board; not a plain hole
    held: bool = False  # held by the thrower's hand during the throw: not on the table between throws
    moves: bool = False  # dynamic bodies, moved by the die or by a script (`PropShape.moves` may refine it)


class PropShape(Spec):
    """The common ground of every `[shape]` table: its traits."""

    traits: ClassVar[PropTraits]

    @property
    def moves(self) -> bool:
        """Whether this prop's bodies move during a throw (knocked about or driven)."""
        return self.traits.moves


# ---------------------------------------------------------------- spec ----
class WallShape(PropShape):
    """A thin upright wall (mm) across the throw, e.g. the Firewall the die must clear."""

    type: Literal["wall"]
    traits: ClassVar[PropTraits] = PropTraits("#d35400")
    width_mm: float = Field(gt=0, le=2000)
    height_mm: float = Field(gt=0, le=1000)
    thickness_mm: float = Field(gt=0, le=200)


class RingShape(PropShape):
    """An upright ring (mm) the die must pass through, e.g. the Fire Ring."""

    type: Literal["ring"]
    traits: ClassVar[PropTraits] = PropTraits("#e67e22")
    inner_radius_mm: float = Field(gt=0, le=500)
    band_mm: float = Field(gt=0, le=200)  # radial width of the ring
    thickness_mm: float = Field(gt=0, le=100)
    segments: int = Field(default=32, ge=8, le=256)


class EllipseHole(Spec):
    """An elliptical hole in a mat (centre and semi-axes in mm, in the mat's frame)."""

    x_mm: float = Field(default=0.0, ge=-2000, le=2000)
    y_mm: float = Field(default=0.0, ge=-2000, le=2000)
    rx_mm: float = Field(gt=0, le=2000)
    ry_mm: float = Field(gt=0, le=2000)


class MatShape(PropShape):
    """A flat mat on the table (mm), rectangular or elliptical, optionally with a hole (lava mat, puddle)."""

    type: Literal["mat"]
    traits: ClassVar[PropTraits] = PropTraits("#a04000")
    outline: Literal["rectangle", "ellipse"] = "rectangle"
    length_mm: float = Field(gt=0, le=2000)
    width_mm: float = Field(gt=0, le=2000)
    thickness_mm: float = Field(gt=0, le=50)
    hole: EllipseHole | None = None

    @model_validator(mode="after")
    def _hole_inside(self) -> MatShape:
        # the same shapes sim/world/mesh.py builds: the hole must leave at least 1 mm of mat all round
        if self.hole is not None:
            L, W, h = self.length_mm, self.width_mm, self.hole
            if self.outline == "rectangle":
                outline = box(-L / 2, -W / 2, L / 2, W / 2)
            else:
                outline = affinity.scale(Point(0, 0).buffer(1.0, quad_segs=16), L / 2, W / 2)
            hole = affinity.translate(
                affinity.scale(Point(0, 0).buffer(1.0, quad_segs=16), h.rx_mm, h.ry_mm), h.x_mm, h.y_mm
            )
            if not outline.buffer(-1.0).contains(hole):
                raise FieldError("hole", "the hole must lie inside the mat")
        return self


class GateShape(PropShape):
    """An upright gate (mm): two posts and a lintel around the opening the die must pass through."""

    type: Literal["gate"]
    traits: ClassVar[PropTraits] = PropTraits("#7f8c8d")
    opening_width_mm: float = Field(gt=0, le=1000)
    opening_height_mm: float = Field(gt=0, le=1000)
    post_width_mm: float = Field(gt=0, le=500)
    lintel_mm: float = Field(gt=0, le=500)
    thickness_mm: float = Field(gt=0, le=100)


class SplitWallShape(PropShape):
    """A wall of two pieces with a joint between them (mm, g per piece) that the die is thrown through."""

    type: Literal["split-wall"]
    traits: ClassVar[PropTraits] = PropTraits("#95a5a6")
    piece_width_mm: float = Field(gt=0, le=1000)
    height_mm: float = Field(gt=0, le=1000)
    thickness_mm: float = Field(gt=0, le=100)
    foot_length_mm: float = Field(gt=0, le=500)  # along x, at the outer end of each piece
    foot_height_mm: float = Field(gt=0, le=1000)
    gap_mm: float = Field(default=0.5, ge=0, le=100)
    mass_g: float = Field(gt=0, le=5000)  # per piece, foot included
    # free = true (the built-in Stone Wall): loose bodies the die knocks apart, each piece a panel and
    # its foot welded together, rebuilt for every throw (bit-reproducible, docs/shots-and-props.md).
    # free = false: fixed pieces.
    free: bool = False

    @property
    def moves(self) -> bool:
        return self.free


class RampShape(PropShape):
    """A flat ramp (mm) the die slides along and must leave over its far edge (waterfall)."""

    type: Literal["ramp"]
    traits: ClassVar[PropTraits] = PropTraits("#3498db")
    length_mm: float = Field(gt=0, le=2000)
    width_mm: float = Field(gt=0, le=2000)
    thickness_mm: float = Field(gt=0, le=100)


class VolcanoShape(PropShape):
    """A truncated cone with a crater on top (mm), a board modifier the die can rest on."""

    type: Literal["volcano"]
    traits: ClassVar[PropTraits] = PropTraits("#6e2c00", on_board=True)
    base_radius_mm: float = Field(gt=0, le=500)
    top_radius_mm: float = Field(gt=0, le=500)
    height_mm: float = Field(gt=0, le=500)
    crater_radius_mm: float = Field(gt=0, le=500)
    crater_depth_mm: float = Field(gt=0, le=500)
    segments: int = Field(default=32, ge=8, le=256)

    @model_validator(mode="after")
    def _profile(self) -> VolcanoShape:
        if not (
            self.crater_radius_mm < self.top_radius_mm <= self.base_radius_mm
            and self.crater_depth_mm < self.height_mm
        ):
            raise FieldError("", "need crater_radius < top_radius <= base_radius and crater_depth < height")
        return self


class SlowTokensShape(PropShape):
    """Tokens filling board holes (all, or those named) so a die landing there is not a plain miss."""

    type: Literal["slow-tokens"]
    traits: ClassVar[PropTraits] = PropTraits("#5dade2", on_board=True, fills_holes=True)
    holes: Annotated[list[Name], Field(max_length=200)] | Literal["all"] = "all"
    clearance_mm: float = Field(default=1.0, ge=0, le=20)  # token radius = hole radius - clearance
    thickness_mm: float | None = Field(default=None, gt=0, le=20)  # default: the board's thickness


class FireTokenShape(PropShape):
    """A flat disc token (mm) on a board section that adds damage to hits there."""

    type: Literal["fire-token"]
    traits: ClassVar[PropTraits] = PropTraits("#e74c3c", on_board=True)
    radius_mm: float = Field(gt=0, le=200)
    thickness_mm: float = Field(gt=0, le=20)


class CupShape(PropShape):
    """A cup (mm, g) the die is cast from by a scripted forward, tipping motion (kinematic prop)."""

    type: Literal["cup"]
    traits: ClassVar[PropTraits] = PropTraits("#8e44ad", held=True, moves=True)
    inner_radius_mm: float = Field(gt=0, le=200)
    inner_height_mm: float = Field(gt=0, le=300)
    wall_mm: float = Field(gt=0, le=20)
    mass_g: float = Field(
        default=1000.0, gt=0, le=100_000
    )  # the hand drives it: effectively unmovable by a die
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
    WallShape
    | RingShape
    | MatShape
    | GateShape
    | SplitWallShape
    | RampShape
    | VolcanoShape
    | SlowTokensShape
    | FireTokenShape
    | CupShape,
    Field(discriminator="type"),
]
SHAPES: tuple[type[PropShape], ...] = get_args(get_args(Shape)[0])
PROP_TRAITS: dict[str, PropTraits] = {
    get_args(c.model_fields["type"].annotation)[0]: c.traits for c in SHAPES
}
PROP_TYPES: tuple[str, ...] = tuple(PROP_TRAITS)


class Placement(Spec):
    """Where a prop stands: an offset (mm) and yaw/tilt (deg) from an anchor (board top, board edge, hand,
    thrower's feet, table origin)."""

    anchor: Literal["board", "board-edge", "hand", "thrower", "table"] = "board-edge"
    x_mm: float = Field(default=0.0, ge=-MAX_BOARD_MM, le=MAX_BOARD_MM)
    y_mm: float = Field(default=0.0, ge=-MAX_BOARD_MM, le=MAX_BOARD_MM)
    z_mm: float = Field(default=0.0, ge=-MAX_BOARD_MM, le=MAX_BOARD_MM)
    yaw_deg: float = Field(default=0.0, ge=-MAX_ANGLE_DEG, le=MAX_ANGLE_DEG)
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
    """A prop data file: shape, material, placement and per-throw jitter (what touching a prop costs is a
    rule: `RuleSet.firewall_touch`)."""

    name: Name
    estimated: bool = True
    notes: str = ""
    description: str = ""
    material: Name = "cardboard"
    shape: Shape
    placement: Placement = Placement()
    jitter: Jitter = Jitter()

    @property
    def type(self) -> str:
        return self.shape.type


def load_prop(name_or_path) -> PropSpec:
    """A prop by built-in name or TOML path; bad files raise SpecError."""
    return PropSpec.load(name_or_path, "prop")


def rot_matrix(yaw_deg: float, tilt_deg: float) -> np.ndarray:
    """Rz(yaw) @ Ry(tilt): a positive tilt pitches the local +x end down."""
    cy, sy = math.cos(math.radians(yaw_deg)), math.sin(math.radians(yaw_deg))
    ct, st = math.cos(math.radians(tilt_deg)), math.sin(math.radians(tilt_deg))
    rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1.0]])
    ry = np.array([[ct, 0, st], [0, 1.0, 0], [-st, 0, ct]])
    return matmul(rz, ry)


def matrix_to_quat(m: np.ndarray) -> tuple[float, ...]:
    """The xyzw quaternion of a 3x3 rotation matrix."""
    from scipy.spatial.transform import Rotation

    q = Rotation.from_matrix(m).as_quat()
    return tuple(float(v) for v in q)


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
    def traits(self) -> PropTraits:
        return self.spec.shape.traits

    @property
    def rotation(self) -> np.ndarray:
        return rot_matrix(self.yaw_deg, self.tilt_deg)

    def to_local(self, pts_m: np.ndarray) -> np.ndarray:
        """World points -> this prop's local frame (metres)."""
        return matmul(np.asarray(pts_m, dtype=float).reshape(-1, 3) - self.position, self.rotation)
