"""Props in the world: every prop of a scenario built into one Physics world and re-posed per throw.

What each prop is (shapes, anchors, jitter, traits) is in `sim.specs.prop`; here it becomes bodies, by
the builder registered for its shape type in `BUILDERS` (one per type, a test checks): static props
are compounds of convex pieces, dynamic ones (split wall, cup) compounds of boxes (all loaded by
`sim.world.solids`), registered as "prop:NAME" (pieces "prop:NAME:k") so every contact with them is
an event in the throw's trace.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import shapely.affinity
from shapely.geometry import Point, box

from sim.errors import SpecError
from sim.seeding import STREAM_PROPS, rng_for
from sim.specs.prop import (
    MM,
    CupShape,
    FireTokenShape,
    GateShape,
    MatShape,
    PlacedProp,
    PropSpec,
    RampShape,
    RingShape,
    SlowTokensShape,
    SplitWallShape,
    VolcanoShape,
    WallShape,
    matrix_to_quat,
    rot_matrix,
)
from sim.specs.skill import SkillSpec
from sim.vectors import matmul
from sim.world.mesh import extrude
from sim.world.solids import box_hull, revolved_pieces

_BUILDING = ("building",)  # start() marker while the world is being built


def anchor_point(spec: PropSpec, scenario) -> np.ndarray:
    """The anchor a prop's placement offset is measured from (m, board frame): board top, board edge, the
    hand's release point, the thrower's spot on the table, or the origin."""
    a = spec.placement.anchor
    board = scenario.board
    if a == "table":
        return np.zeros(3)
    if a in ("board", "board-edge"):
        if board is None:
            raise SpecError(
                spec.source, "placement.anchor", f"'{a}' needs a board (the shot has board = false)"
            )
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
        self.cups: list[PlacedProp] = []  # kinematic props driven by `before_step`
        # (body name, local position, (parts, mass, weld) to rebuild it per throw, or None) per dynamic
        # piece, in the order the builders added them
        self.dynamic: list[tuple[str, np.ndarray, Any]] = []
        for spec in specs:
            if spec.name in self.props:
                raise SpecError(spec.source, "name", f"two props are named '{spec.name}'")
            self.props[spec.name] = self._build(spec)
        self.start(_BUILDING)

    # ---- building ----
    def _build(self, spec: PropSpec) -> PlacedProp:
        pl = spec.placement
        pos = anchor_point(spec, self.scenario) + np.array([pl.x_mm, pl.y_mm, pl.z_mm]) * MM
        pp = PlacedProp(spec, nominal_position=pos, nominal_yaw_deg=pl.yaw_deg, nominal_tilt_deg=pl.tilt_deg)
        pp.position, pp.yaw_deg, pp.tilt_deg = pos.copy(), pl.yaw_deg, pl.tilt_deg
        BUILDERS[spec.shape.type].build(self, spec, pp)
        return pp

    def add_static(self, name, pieces, pos, quat, material) -> None:
        """A static solid of a prop (builders call this)."""
        self.physics.add_static_solid(name, pieces, material, pos, quat)

    # ---- per throw ----
    def start(self, draw: tuple | None, skill: SkillSpec | None = None) -> None:
        """Put every prop at its placement for a throw: the nominal one (draw None, exact releases),
        or jittered by the throw's prop stream (seed, index). A prop held by the thrower is as steady as
        `skill`, the skill the throw's releases were drawn with (default: the scenario's): a study that
        throws one world's draws with several skills must hold the Waterfall or the Cup with each."""
        rng = rng_for(draw[0], draw[1], STREAM_PROPS) if draw not in (None, _BUILDING) else None
        ph = self.physics
        steadiness = (skill or self.scenario.skill).speed_sd_frac
        for pp in self.props.values():
            j = pp.spec.jitter
            z = rng.standard_normal(6) if rng is not None else np.zeros(6)
            if j.scale_with_skill:
                z = z * (steadiness / j.skill_reference_speed_sd_frac)
            pp.position = (
                pp.nominal_position + np.array([j.x_sd_mm * z[0], j.y_sd_mm * z[1], j.z_sd_mm * z[2]]) * MM
            )
            pp.yaw_deg = pp.nominal_yaw_deg + j.yaw_sd_deg * z[3]
            pp.tilt_deg = pp.nominal_tilt_deg + j.tilt_sd_deg * z[4]
            pp.speed_factor = max(0.05, 1.0 + j.speed_sd_frac * z[5])
            if not BUILDERS[pp.type].reposed:
                continue
            q = matrix_to_quat(pp.rotation)
            for name in pp.bodies:
                ph.set_pose(name, pp.position, q)
        free = [(name, rebuild) for name, _, rebuild in self.dynamic if rebuild is not None]
        if free and draw is not _BUILDING and ph.updates % 2:
            # Bullet's dbvt broadphase alternates between two stages on every update, and the order in
            # which the die's contacts with the free pieces are found depends on that parity: align
            # it, by the world's own count of its updates (every step since it was built, rebound
            # calibration drops included), so every throw starts on the same stage.
            ph.detect_collisions()
        if free and draw is not _BUILDING:
            # Free pieces are rebuilt for every throw: a reset body keeps cached contacts (warm-start
            # impulses, manifold order) with the table and the die, so the next throw would depend on
            # this one. All are removed (last first) before any is re-created, so the world's body
            # array - and the solver's order - is the same for every throw.
            params = {}
            for name, _ in reversed(free):
                params[name] = (ph.surface(name), ph.material_of(name))
                ph.remove_body(name)
            for name, (parts, mass, weld) in free:
                ph.add_box_compound(name, parts, mass, params[name][1])
                ph.set_surface(name, *params[name][0])
                if weld is not None:
                    ph.weld(weld[0], name, weld[1])
        for name, lpos, _ in self.dynamic:
            pp = self._owner(name)
            rot = pp.rotation
            self.physics.set_state(name, pp.position + matmul(rot, lpos), matrix_to_quat(rot))
        self.before_step(0.0)

    def _owner(self, body_name: str) -> PlacedProp:
        return self.props[body_name.split(":")[1]]

    def cup_pose(self, pp: PlacedProp, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Position, rotation, linear and angular velocity of a cup at time t of its cast."""
        s = pp.spec.shape
        assert isinstance(s, CupShape)
        V = s.cast_speed_mps * pp.speed_factor
        T = s.cast_time_s
        tau = min(max(t - s.delay_s, 0.0), T)
        moving = 0.0 < t - s.delay_s < T
        fwd = V * T / math.pi * (1 - math.cos(math.pi * tau / T))
        vfwd = V * math.sin(math.pi * tau / T) if moving else 0.0
        th = math.radians(s.tip_deg) * (tau / T) ** 2
        dth = math.radians(s.tip_deg) * 2 * tau / T**2 if moving else 0.0
        base = rot_matrix(pp.yaw_deg, pp.tilt_deg)
        d = matmul(base, np.array([1.0, 0.0, s.lift_fraction]))
        pos = pp.position + d * fwd
        vel = d * vfwd
        rot = matmul(base, rot_matrix(0.0, math.degrees(th)))  # Ry(+th) tips the mouth (+z) toward +x
        lateral = matmul(base, np.array([0.0, 1.0, 0.0]))
        return pos, rot, vel, lateral * dth

    @property
    def kinematic(self) -> bool:
        """True when some prop moves on its own during a throw (needs `before_step`)."""
        return bool(self.cups)

    def before_step(self, t: float) -> None:
        """Drive kinematic props (the cup) to their scripted pose and velocity at time t."""
        for pp in self.cups:
            pos, rot, vel, w = self.cup_pose(pp, t)
            self.physics.set_state(pp.bodies[0], pos, matrix_to_quat(rot), vel, w)

    # ---- after the throw ----
    def touched(self, outcome_touching, prefix: str) -> bool:
        """Whether any touched body name starts with `prefix`."""
        return any(t.startswith(prefix) for t in outcome_touching)


# ---------------------------------------------------------------- builders ----
BuildFn = Callable[[PropWorld, PropSpec, PlacedProp], None]


class Builder(NamedTuple):
    """How one shape type becomes bodies: `build(world, spec, placed)` adds them (names into
    `placed.bodies`); `reposed`: static bodies set to the prop's pose at every throw (False: the
    builder placed them for good, or they are dynamic and placed from `world.dynamic`)."""

    build: BuildFn
    reposed: bool = True


BUILDERS: dict[str, Builder] = {}


def builds(*types: str, reposed: bool = True):
    """Register the decorated function as the builder of these shape types."""

    def register(fn: BuildFn) -> BuildFn:
        for t in types:
            if t in BUILDERS:
                raise ValueError(f"two builders for prop type '{t}'")
            BUILDERS[t] = Builder(fn, reposed)
        return fn

    return register


def _yz_to_local(pieces_uvw: list[np.ndarray]) -> list[np.ndarray]:
    """(u, v, w) of an extrusion in the y-z plane along x -> local (x, y, z) = (w, u, v)."""
    return [p[:, [2, 0, 1]] for p in pieces_uvw]


def _mm(pieces: list[np.ndarray]) -> list[np.ndarray]:
    return [p * MM for p in pieces]


def _ellipse(rx: float, ry: float):
    return shapely.affinity.scale(Point(0, 0).buffer(1.0, quad_segs=16), rx, ry)


def _wall(spec: PropSpec) -> list[np.ndarray]:
    s = spec.shape
    assert isinstance(s, WallShape)
    t2, w2 = s.thickness_mm / 2, s.width_mm / 2
    return _mm(extrude(box(-t2, -w2, t2, w2), 0.0, s.height_mm))


def _ring(spec: PropSpec) -> list[np.ndarray]:
    s = spec.shape
    assert isinstance(s, RingShape)
    ro = s.inner_radius_mm + s.band_mm
    q = s.segments // 4
    ann = Point(0, 0).buffer(ro, quad_segs=q).difference(Point(0, 0).buffer(s.inner_radius_mm, quad_segs=q))
    return _mm(_yz_to_local(extrude(ann, -s.thickness_mm / 2, s.thickness_mm / 2)))


def _mat(spec: PropSpec) -> list[np.ndarray]:
    s = spec.shape
    assert isinstance(s, MatShape)
    L, W = s.length_mm, s.width_mm
    outline = box(-L / 2, -W / 2, L / 2, W / 2) if s.outline == "rectangle" else _ellipse(L / 2, W / 2)
    if s.hole is not None:
        h = shapely.affinity.translate(_ellipse(s.hole.rx_mm, s.hole.ry_mm), s.hole.x_mm, s.hole.y_mm)
        if not outline.buffer(-1.0).contains(h):
            raise SpecError(spec.source, "shape.hole", "the hole must lie inside the mat")
        outline = outline.difference(h)
    return _mm(extrude(outline, 0.0, s.thickness_mm))


def _gate(spec: PropSpec) -> list[np.ndarray]:
    s = spec.shape
    assert isinstance(s, GateShape)
    w2, pw, H, lt = s.opening_width_mm / 2, s.post_width_mm, s.opening_height_mm, s.lintel_mm
    outer = box(-w2 - pw, 0.0, w2 + pw, H + lt)
    gate = outer.difference(box(-w2, -1.0, w2, H))
    return _mm(_yz_to_local(extrude(gate, -s.thickness_mm / 2, s.thickness_mm / 2)))


def _ramp(spec: PropSpec) -> list[np.ndarray]:
    s = spec.shape
    assert isinstance(s, RampShape)
    return _mm(extrude(box(0.0, -s.width_mm / 2, s.length_mm, s.width_mm / 2), -s.thickness_mm, 0.0))


def _volcano(spec: PropSpec) -> list[np.ndarray]:
    s = spec.shape
    assert isinstance(s, VolcanoShape)
    if not (s.crater_radius_mm < s.top_radius_mm <= s.base_radius_mm and s.crater_depth_mm < s.height_mm):
        raise SpecError(
            spec.source, "shape", "need crater_radius < top_radius <= base_radius and crater_depth < height"
        )
    h = s.height_mm
    prof = [
        (0.0, 0.0),
        (s.base_radius_mm, 0.0),
        (s.top_radius_mm, h),
        (s.crater_radius_mm, h),
        (s.crater_radius_mm, h - s.crater_depth_mm),
        (0.0, h - s.crater_depth_mm),
    ]
    return _mm(revolved_pieces(prof, s.segments))


def _fire_token(spec: PropSpec) -> list[np.ndarray]:
    s = spec.shape
    assert isinstance(s, FireTokenShape)
    return _mm(extrude(Point(0, 0).buffer(s.radius_mm, quad_segs=8), 0.0, s.thickness_mm))


def static_solid(pieces: Callable[[PropSpec], list[np.ndarray]]) -> BuildFn:
    """The builder of a static prop made of one solid: `pieces` gives its convex pieces (local frame, m)."""

    def build(world: PropWorld, spec: PropSpec, pp: PlacedProp) -> None:
        name = f"prop:{spec.name}"
        world.add_static(name, pieces(spec), pp.position, matrix_to_quat(pp.rotation), spec.material)
        pp.bodies.append(name)

    return build


for _type, _pieces in (
    ("wall", _wall),
    ("ring", _ring),
    ("mat", _mat),
    ("gate", _gate),
    ("ramp", _ramp),
    ("volcano", _volcano),
    ("fire-token", _fire_token),
):
    builds(_type)(static_solid(_pieces))


@builds("slow-tokens", reposed=False)
def _slow_tokens(world: PropWorld, spec: PropSpec, pp: PlacedProp) -> None:
    """One disc in each named hole of the board, flush with its top; placed for good."""
    s = spec.shape
    assert isinstance(s, SlowTokensShape)
    base = f"prop:{spec.name}"
    board = world.scenario.board
    if board is None:
        raise SpecError(spec.source, "shape", "slow tokens need a board")
    ids = [h.id or f"hole-{i}" for i, h in enumerate(board.holes)]
    wanted = ids if s.holes == "all" else s.holes
    discs = []
    for hid in wanted:
        if hid not in ids:
            raise SpecError(
                spec.source, "shape.holes", f"board has no hole '{hid}' (holes: {', '.join(ids)})"
            )
        g = board.hole_geoms[ids.index(hid)]
        r_in = math.sqrt(g.area / math.pi) * 1e3 - s.clearance_mm  # inscribed-ish radius in mm
        centre = np.array(g.centroid.coords[0]) * 1e3
        t = s.thickness_mm or board.thickness_m * 1e3
        pieces = extrude(Point(*centre).buffer(max(r_in, 1.0), quad_segs=8), 0.0, t)
        world.add_static(f"{base}:{hid}", [p * MM for p in pieces], np.zeros(3), (0, 0, 0, 1), spec.material)
        pp.bodies.append(f"{base}:{hid}")
        discs.append((hid, centre * MM, max(r_in, 1.0) * MM))
    pp.extra["discs"] = discs
    pp.position = np.zeros(3)
    pp.nominal_position = np.zeros(3)


@builds("split-wall", reposed=False)
def _split_wall(world: PropWorld, spec: PropSpec, pp: PlacedProp) -> None:
    """Two pieces, each a panel and a foot: fixed solids placed for good, or (free) loose bodies rebuilt
    for every throw."""
    s = spec.shape
    assert isinstance(s, SplitWallShape)
    base = f"prop:{spec.name}"
    if not s.free:
        t, w, h = s.thickness_mm, s.piece_width_mm, s.height_mm
        fl, fh, g2 = s.foot_length_mm, s.foot_height_mm, s.gap_mm / 2
        rot = pp.rotation
        for k, side in enumerate((-1.0, 1.0)):
            y0, y1 = sorted((side * g2, side * (g2 + w)))
            panel = extrude(box(-t / 2, y0, t / 2, y1), 0.0, h)
            yf0, yf1 = sorted((side * (g2 + w - t), side * (g2 + w)))
            foot = extrude(box(-fl / 2, yf0, fl / 2, yf1), 0.0, fh)
            for part, pieces in (("", panel), ("f", foot)):
                name = f"{base}:{k}{part}"
                world.add_static(
                    name, [p * MM for p in pieces], pp.position, matrix_to_quat(rot), spec.material
                )
                pp.bodies.append(name)
        return
    # each loose piece is two convex bodies welded together, its panel and its foot (a compound
    # of two boxes has two child manifolds with each body it touches, tied in Bullet's
    # deterministic solver order, which then followed the world's history)
    ph = world.physics
    t, w, h = s.thickness_mm * MM, s.piece_width_mm * MM, s.height_mm * MM
    g2 = s.gap_mm * MM / 2
    fl, fh = s.foot_length_mm * MM, s.foot_height_mm * MM
    vol_panel, vol_foot = t * w * h, fl * t * fh
    for k, side in enumerate((-1.0, 1.0)):
        yc = side * (g2 + w / 2)
        panel_at = np.array([0.0, yc, h / 2])
        foot_at = np.array([0.0, yc + side * (w / 2 - t / 2), fh / 2])
        for part, at, half, vol in (
            ("", panel_at, (t / 2, w / 2, h / 2), vol_panel),
            ("f", foot_at, (fl / 2, t / 2, fh / 2), vol_foot),
        ):
            name = f"{base}:{k}{part}"
            parts: list[tuple] = [((0.0, 0.0, 0.0), half)]
            mass = s.mass_g * 1e-3 * vol / (vol_panel + vol_foot)
            weld = (f"{base}:{k}", foot_at - panel_at) if part else None
            ph.add_box_compound(name, parts, mass, spec.material)
            if weld is not None:
                ph.weld(weld[0], name, weld[1])
            pp.bodies.append(name)
            world.dynamic.append((name, at, (parts, mass, weld)))


@builds("cup", reposed=False)
def _cup(world: PropWorld, spec: PropSpec, pp: PlacedProp) -> None:
    """A floor and a ring of wall boxes, one kinematic body driven along its cast (`PropWorld.cup_pose`)."""
    s = spec.shape
    assert isinstance(s, CupShape)
    base = f"prop:{spec.name}"
    ph = world.physics
    r, hh, wt = s.inner_radius_mm * MM, s.inner_height_mm * MM, s.wall_mm * MM
    parts: list[tuple] = [((0.0, 0.0, -wt / 2), (r + wt, r + wt, wt / 2))]
    n = s.wall_segments
    half_chord = (r + wt) * math.tan(math.pi / n) + 1e-4
    for k in range(n):
        a = 2 * math.pi * k / n
        at = (math.cos(a) * (r + wt / 2), math.sin(a) * (r + wt / 2), hh / 2)
        parts.append((at, (wt / 2, half_chord, hh / 2), a))
    ph.add_box_compound(base, parts, s.mass_g * 1e-3, spec.material)
    ph.collide(base, "table", False)
    pp.bodies.append(base)
    world.dynamic.append((base, np.zeros(3), None))
    world.cups.append(pp)


def build_props(physics, scenario) -> PropWorld:
    """The props of a scenario built into a physics world (none if it has no props)."""
    return PropWorld(physics, scenario, list(getattr(scenario, "props", ()) or ()))


def prop_footprints(scenario) -> list[tuple[str, str, Any]]:
    """Where each prop body stands at its nominal placement, seen from above: (prop name, prop type,
    shapely polygon in metres, board frame). Built in a scratch world from the very bodies a throw
    uses, so a figure shows what was simulated (hand-held props are jittered per throw around this)."""
    from shapely.geometry import MultiPoint, Polygon
    from shapely.ops import unary_union

    from sim.specs.die import quat_to_matrix
    from sim.world.physics import Physics

    if not getattr(scenario, "props", ()):
        return []
    ph = Physics(scenario.physics, scenario.materials)
    try:
        ph.add_table(
            scenario.board.table_material if scenario.board is not None else scenario.shots[0].table_material
        )  # the cup needs one
        world = build_props(ph, scenario)
        out = []
        for pp in world.props.values():
            for name in pp.bodies:
                g = ph.body_geometry(name)
                if g is None:
                    continue
                pos, q = ph.die_pose(name)
                rot = quat_to_matrix(q)
                if g.mesh is not None:
                    v = matmul(np.asarray(g.mesh[0], float).reshape(-1, 3), rot.T) + pos
                    tris = [Polygon(v[t, :2]) for t in np.asarray(g.mesh[1]).reshape(-1, 3)]
                    shape = unary_union([t for t in tris if t.is_valid and t.area > 1e-10])
                else:
                    # convex pieces (static solids: hulls; dynamic compounds: boxes) seen from above are
                    # the convex hulls of their corners
                    pieces = [np.asarray(h, float).reshape(-1, 3) for h in g.hulls]
                    pieces += [box_hull(p[0], p[1], p[2] if len(p) > 2 else 0.0) for p in g.boxes]
                    shape = unary_union(
                        [MultiPoint((matmul(h, rot.T) + pos)[:, :2]).convex_hull for h in pieces]
                    )
                if not shape.is_empty:
                    out.append((pp.name, pp.type, shape))
        return out
    finally:
        ph.close()
