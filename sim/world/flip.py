"""The physical thumb flip of a flat template.

Bodies: a template is one maximal-coordinate PyBullet body whose collision shape is a compound of
convex prisms (its outline split by `template.convex_decomposition`), with continuous collision
detection (swept sphere 0.45 x thickness, `allowedCcdPenetration` 0.1 mm world-wide) and zero damping.
Like every body (`sim.world.solids`) it is loaded with polyhedral features and its prisms are the
true shape: face clipping ignores the collision margin, so the rest height is the true one
(tests/world/test_flip.py checks it to 0.2 mm).

Flight (why not just PyBullet): a maximal-coordinate body ignores the gyroscopic term
ω x (Iω), and a flipped cardboard disk feels air drag of the order of half its weight. So the flip
is integrated in two phases:

1. *free flight* (until the lowest point of the template comes within `handover_mm` of the
   table): our own integrator, RK4 at `flight_hz`, of the exact rigid-body equations: the world
   angular momentum L is constant (drag acts through the centre of mass: no torque), the body's
   angular velocity is ω = R I⁻¹ Rᵀ L (torque-free precession, exact for any inertia), and the
   centre of mass feels gravity plus quadratic drag of a flat plate,
   F = -½ ρ |v| v (Cd_face A |n·v̂| + Cd_edge A_edge √(1-(n·v̂)²));
2. *landing*: PyBullet at `step_hz` (2 kHz), with the same drag force and the explicit gyroscopic
   torque -ω x (Iω) applied every step until the template first touches something; after that the
   contacts dominate (the remaining flight is a few mm) and forces are left to the engine.

A flip's result: how far the normal turned before the first contact (the rule: at least 180°,
otherwise it is flipped again, no damage), whether the resting template touches the table (hanging
off the board: 1 damage and flipped again, counted), whether it lies flat (`lies_flat`: a template
standing on its edge is flipped again, no damage, counted as "not-flat"), the dice it landed on
(removed, and the template settles again where it was), and the templates it lies on (stacking).
Re-flips are deterministic: attempt a of flip (seed, index) takes the a-th block of draws of that
flip's stream, whatever ended the attempts before it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from sim.seeding import STREAM_TEMPLATES, rng_for
from sim.specs.board import BoardSpec
from sim.specs.die import DieSpec, quat_rows, quat_to_matrix
from sim.specs.flip import FLIP_SKILLS, FlipProfile, FlipSkill
from sim.specs.physics import PhysicsSettings
from sim.specs.template import PlacedTemplate, TemplateSpec, second_moments
from sim.vectors import matmul, norm, row_norms
from sim.world.contacts import deepest_overlap, touches
from sim.world.flight import Aero, CentreDown, FlightState, LowestDown, fly
from sim.world.physics import Physics, pb  # pb imported silenced there
from sim.world.steprate import StepRate, fastest_point_speed, inside_world
from sim.world.welded import WeldedPiece

# The share of a welded template's mass (and moments) its anchor carries (sim/world/welded.py).
ANCHOR_SHARE = 0.01
# Rolling / spinning resistance of a card edge (estimated): without it a disk landing on its rim rolls
# and spins down like Euler's disk for seconds, which punchboard on card does not do.
ROLLING_FRICTION = 0.01
# a template whose centre leaves this cylinder about the board's axis has diverged
FLIP_WORLD_RADIUS_M = 4.0


# ---------------------------------------------------------------- bodies
def _prism_vertices(outline_xy: np.ndarray, z0: float, z1: float) -> np.ndarray:
    """Vertices of a convex prism: the outline at z0, then at z1 (its convex hull is the shape)."""
    pts = np.asarray(outline_xy, dtype=float)
    return np.array([(x, y, z) for z in (z0, z1) for x, y in pts])


def _simplified_pieces(spec: TemplateSpec) -> tuple:
    import shapely
    from shapely.geometry import Polygon

    out = []
    for p in spec.convex_pieces:
        # arcs are drawn with 96 segments per circle; 0.15 mm is plenty for contact and far cheaper
        poly = shapely.geometry.polygon.orient(Polygon(p).simplify(0.00015))
        out.append(tuple(map(tuple, np.asarray(poly.exterior.coords)[:-1].round(10))))
    return tuple(out)


def add_template_body(ph: Physics, spec: TemplateSpec, name: str, welded: bool = False) -> int:
    """Create a template body named `name` ("template:<id>") in a Physics world, parked below it.

    `welded`: a template of several convex pieces becomes one convex body per piece held together
    by fixed joints (`Physics.add_welded_hulls`; the throw world's templates, where a die's contacts
    with a compound's pieces made a throw depend on the throws before it), each piece with its share
    of the mass by area and its own inertia; otherwise one compound body with the template's inertia
    (the flip world, whose sessions start with bodies made again). A one-piece template is the same
    single convex body either way."""
    h = spec.thickness_m / 2
    outlines = _simplified_pieces(spec)
    hulls = [_prism_vertices(np.array(p), -h, h) for p in outlines]
    ccd = 0.45 * spec.thickness_m
    if welded and len(hulls) > 1:
        jx, jy, jz = spec.inertia_diagonal
        anchor = (ANCHOR_SHARE * spec.mass_kg, (ANCHOR_SHARE * jx, ANCHOR_SHARE * jy, ANCHOR_SHARE * jz))
        return ph.add_welded_hulls(
            name,
            _welded_pieces(spec, outlines, hulls),
            anchor,
            spec.material,
            ccd_radius_m=ccd,
            rolling_friction=ROLLING_FRICTION,
        )
    return ph.add_dynamic_hulls(
        name,
        hulls,
        spec.mass_kg,
        spec.inertia_diagonal,
        spec.material,
        ccd_radius_m=ccd,
        rolling_friction=ROLLING_FRICTION,
    )


def _welded_pieces(spec: TemplateSpec, outlines, hulls) -> list[WeldedPiece]:
    """The template's pieces as parts of a welded solid: mass by area (of uniform card; the anchor
    carries `ANCHOR_SHARE` of the mass and of the whole's moments), centre at the piece's centroid,
    moments of a thin plate about it along the template's axes (as `TemplateSpec.inertia_diagonal` for
    the whole)."""
    import shapely
    from shapely.geometry import Polygon

    polys = [Polygon(o) for o in outlines]
    total = math.fsum(p.area for p in polys)
    t = spec.thickness_m
    out = []
    for poly, hull in zip(polys, hulls):
        m, a = (1.0 - ANCHOR_SHARE) * spec.mass_kg * poly.area / total, poly.area
        cx, cy = poly.centroid.x, poly.centroid.y
        ixx, iyy, _ixy = second_moments(shapely.affinity.translate(poly, -cx, -cy))
        out.append(
            WeldedPiece(
                hull,
                m,
                (float(cx), float(cy), 0.0),
                (m * (ixx / a + t * t / 12), m * (iyy / a + t * t / 12), m * (ixx + iyy) / a),
            )
        )
    return out


def add_flip_board(ph: Physics, board: BoardSpec, name: str = "board") -> int:
    """The board for template flips: its outline as static convex prism(s), holes left out.

    Every template is far larger than a hole (32 mm on the built-in boards), so a template cannot
    drop into one; what is lost is a template edge dipping into a hole, which we do not count as
    touching the table. The board with its holes is ~150 convex pieces, each a separate contact test
    under a 100 mm template; the outline is one to a few."""
    from shapely.geometry import Polygon

    from sim.specs.template import convex_decomposition

    pieces = convex_decomposition(Polygon(board.outline_geom.exterior.coords).simplify(0.00015))
    hulls = [
        _prism_vertices(np.asarray(poly.exterior.coords)[:-1], 0.0, board.thickness_m) for poly in pieces
    ]
    return ph.add_static_solid(name, hulls, board.material)


# ---------------------------------------------------------------- the flip world
# Sessions a reused flip world serves before its user builds a new one (PyBullet keeps ~40 kB of every
# template body made again: 200 sessions, ~8 MB); the results are the same either way.
RENEWALS = 200


@dataclass
class FlipAttempt:
    """One landing of a flipped template: where it came to rest and why it counts or not (`status`)."""

    turned_deg: float
    position_mm: list[float]
    orientation_xyzw: list[float]
    touching: list[str]
    status: str  # ok | not-flat | turned-too-little | hangs-off | off-board | not-settled
    dice_removed: list[str] = field(default_factory=list)
    on_templates: list[str] = field(default_factory=list)
    max_penetration_mm: float = 0.0  # deepest contact overlap in any step (transient, at impacts)
    time_s: float = 0.0
    # lowest height of the centre above the board's top face while over the board: below 0 would mean
    # the template went into or through the board (None: never over the board)
    min_clearance_mm: float | None = None
    tilt_deg: float = 0.0  # at rest: angle between its normal (either face) and the board's normal
    rise_mm: float = 0.0  # at rest: centre height above lying flat on the board / the templates it touches

    def to_json(self) -> dict:
        """The attempt as a record (mm to 1 um, degrees to 1e-3)."""
        return {
            "turned_deg": round(self.turned_deg, 3),
            "position_mm": [round(v, 3) for v in self.position_mm],
            "orientation_xyzw": [round(v, 6) for v in self.orientation_xyzw],
            "touching": self.touching,
            "status": self.status,
            "dice_removed": self.dice_removed,
            "on_templates": self.on_templates,
            "max_penetration_mm": round(self.max_penetration_mm, 4),
            "min_clearance_mm": None if self.min_clearance_mm is None else round(self.min_clearance_mm, 4),
            "time_s": round(self.time_s, 4),
            "tilt_deg": round(self.tilt_deg, 3),
            "rise_mm": round(self.rise_mm, 3),
        }


@dataclass
class FlipResult:
    """All attempts of one template's flip (re-flipped until it stays) and where it stayed, if it did."""

    template: str
    id: str
    attempts: list[FlipAttempt]
    placed: PlacedTemplate | None  # None: never stayed within max_flips
    seed: int | None = None
    index: int | None = None

    @property
    def flips(self) -> int:
        return len(self.attempts)

    @property
    def damage(self) -> int:
        """Damage to the flipping hero: 1 per landing touching the table."""
        return sum(a.status in ("hangs-off", "off-board") for a in self.attempts)

    @property
    def too_little(self) -> int:
        return sum(a.status == "turned-too-little" for a in self.attempts)

    @property
    def not_flat(self) -> int:
        """Landings that did not lie flat (standing on an edge, propped up): flipped again."""
        return sum(a.status == "not-flat" for a in self.attempts)

    @property
    def reflips(self) -> int:
        """Flips after the first (whatever the reason)."""
        return max(0, len(self.attempts) - 1)

    def to_json(self) -> dict:
        """The flip as a record: final pose, counts of flips, damage and failures, and every attempt."""
        last = self.attempts[-1]
        return {
            "template": self.template,
            "id": self.id,
            "seed": self.seed,
            "index": self.index,
            "stayed": self.placed is not None,
            "flips": self.flips,
            "damage": self.damage,
            "hangs_off": sum(a.status in ("hangs-off", "off-board") for a in self.attempts),
            "turned_too_little": self.too_little,
            "not_flat": self.not_flat,
            "reflips": self.reflips,
            "turned_deg": round(last.turned_deg, 3),
            "position_mm": [round(v, 3) for v in last.position_mm],
            "orientation_xyzw": [round(v, 6) for v in last.orientation_xyzw],
            "face_up": None if self.placed is None else self.placed.face_up,
            "touching": last.touching,
            "dice_removed": sorted({d for a in self.attempts for d in a.dice_removed}),
            "on_templates": last.on_templates,
            "attempts": [a.to_json() for a in self.attempts],
        }


def props_at_flip(scenario) -> list:
    """The scenario's props standing on the board or the table while templates are flipped: every
    static prop (the Volcano, a Fire token, the Firewall, mats, the Gate, a fixed Stone Wall). Props
    held in the hand during a throw (anchor "hand": Fire Ring, Cup, Waterfall), free-standing wall
    pieces and Slow tokens (flush in holes the flip board has not) are not there."""
    out = []
    for spec in getattr(scenario, "props", ()) or ():
        s = spec.shape
        if spec.placement.anchor == "hand" or s.traits.held or s.traits.fills_holes or s.moves:
            continue
        out.append(spec)
    return out


class FlipWorld:
    """A PyBullet world (table, board, template bodies, optional dice and props) for flipping templates.

    Built once per flip session: `flip()` resets the flipped body; bodies already on the board (laid
    or flipped before, dice, props) stay and are met as they are. Templates are dynamic bodies: a
    template landing on another may shove it (`placed` holds every template's pose as it lies now)."""

    def __init__(
        self,
        board: BoardSpec,
        templates: list[tuple[str, TemplateSpec]],
        profile: FlipProfile | None = None,
        materials=None,
        dice: Sequence[tuple[str, DieSpec]] = (),
        scenario=None,
        prop_draw: tuple[int, int] | None = None,
    ) -> None:
        self.board = board
        self.profile = profile or FlipProfile()
        settings = PhysicsSettings(step_hz=self.profile.step_hz, ccd=True)
        if materials is None and scenario is not None:
            materials = scenario.materials
        self.physics = ph = Physics(settings, materials)
        ph.add_table(board.table_material)
        add_flip_board(ph, board)
        self.dice = {}
        for name, die in dice:
            ph.add_die(die, name)
            self.dice[name] = die
        self.props = None
        specs = props_at_flip(scenario) if scenario is not None else []
        if specs:
            from sim.world.props import PropWorld

            # at the throw's own jittered placement (the same prop stream as the throw: (seed, index))
            self.props = PropWorld(ph, scenario, specs)
        # the templates last: `new_session` re-creates them, and bodies removed from the end of Bullet's
        # arrays and added again leave every array (and every body id) as it was
        self.specs: dict[str, TemplateSpec] = {}
        for tid, spec in templates:
            add_template_body(ph, spec, f"template:{tid}")
            self.specs[tid] = spec
        ph.finalize_materials()
        self._surfaces = {tid: ph.surface(f"template:{tid}") for tid in self.specs}
        self.sessions = 0
        if self.props is not None:
            self.props.start(prop_draw)
        from shapely.geometry import Point

        # the centre is over the board inside this radius (the outline's nearest point to the origin)
        self._inner_r = float(board.outline_geom.exterior.distance(Point(0.0, 0.0))) - 0.002
        self.placed: dict[str, PlacedTemplate] = {}
        for tid in self.specs:
            ph.park(f"template:{tid}")
        for name in self.dice:
            ph.park(name)

    # -------- state
    def new_session(self, prop_draw: tuple[int, int] | None = None) -> None:
        """Start a flip session afresh: every template body re-created (removed from the end of the
        world, last first, and added again in order, with the surfaces it was given) and parked, the
        dice parked, the props at the placement of `prop_draw`.

        Why re-create: Bullet keeps state in a body it resets (a flip after `clear()` differed from the
        same flip in a fresh world by ~1 um at rest) that rebuilding the broadphase proxy does not clear.
        A body made again is new to Bullet, so a session in a reused world is the same session, to the
        bit, as in a world just built (tests/world/test_flip_reuse.py), at a tenth of the cost of
        building one (~2.7 ms against ~13 ms). PyBullet keeps ~40 kB of every body made and removed,
        so a caller reusing a world builds a new one every `RENEWALS` sessions (`sessions` counts them)."""
        ph = self.physics
        self.sessions += 1
        tids = list(self.specs)
        for tid in reversed(tids):
            ph.remove_body(f"template:{tid}")
        for tid in tids:
            name = f"template:{tid}"
            add_template_body(ph, self.specs[tid], name)
            ph.set_surface(name, *self._surfaces[tid])
            ph.park(name)
        for name in self.dice:
            ph.park(name)
        self.placed.clear()
        if self.props is not None:
            self.props.start(prop_draw)

    def clear(self) -> None:
        """Everything off the board. (Bullet keeps some solver state across resets: a flip after
        `clear()` can differ in the last digits from one in a fresh world; see `flip_template`.)"""
        names = [f"template:{tid}" for tid in self.specs] + list(self.dice)
        for n in names:
            self.physics.park(n)
        self.physics.tick()
        for n in names:
            self.physics.park(n)
            self.physics.set_angular_damping(n, 0.0)
        self.placed.clear()

    def place_die(self, name: str, position_m, orientation_xyzw) -> None:
        """Put a die at a pose (m, xyzw), at rest, before templates are flipped onto the board."""
        self.physics.set_state(name, position_m, orientation_xyzw)

    def lay(self, placed: PlacedTemplate) -> None:
        """A template already on the board (laid, or flipped earlier) at its resting pose."""
        self.physics.set_state(placed.body_name, placed.position_m, placed.orientation_xyzw)
        # lossy card on card once it lies there, as a landed template (`land`)
        self.physics.set_angular_damping(placed.body_name, self.profile.settle_angular_damping)
        self.placed[placed.id] = PlacedTemplate(
            placed.id, self.specs[placed.id], tuple(placed.position_m), tuple(placed.orientation_xyzw)
        )

    def _read_back(self, moved_by: str) -> None:
        """Let templates the last landing shoved come to rest, then take every template's pose as it
        lies now, shoved or not (a template on the board is a body like any other: "what is on top is
        on top")."""
        ph, p = self.physics, self.profile
        others = [t for t in self.placed if t != moved_by]
        bodies = [ph.body(f"template:{t}") for t in others]
        get_vel = ph.fast_calls().velocity

        def moving() -> bool:
            for b in bodies:
                v, w = get_vel(b)
                if (
                    v[0] ** 2 + v[1] ** 2 + v[2] ** 2 > p.rest_speed_mps**2
                    or w[0] ** 2 + w[1] ** 2 + w[2] ** 2 > p.rest_spin_radps**2
                ):
                    return True
            return False

        if moving():  # shoved and still moving: stepped until they rest (the world is not stepped otherwise)
            still, dt = 0.0, 1.0 / p.step_hz
            for _ in range(int(1.0 * p.step_hz)):  # at most a second more
                if not moving():
                    still += dt
                    if still >= p.rest_hold_s:
                        break
                else:
                    still = 0.0
                ph.tick()
        # every pose is read again even when nothing moves now: a template shoved during the landing has
        # come to rest by its end, somewhere else (reading the poses kept from before had put the next
        # template's resting pose up to 2.6 mm inside it in five-template stacks)
        for t in self.placed:
            pos, q = ph.die_pose(f"template:{t}")
            self.placed[t] = PlacedTemplate(
                t, self.specs[t], tuple(float(v) for v in pos), tuple(float(v) for v in q)
            )

    def nominal_speed(self, spec: TemplateSpec) -> float:
        """Horizontal speed that lands the nominal flip (with drag) on the aim point."""
        from sim import diskcache  # solved once per machine (sim/diskcache.py)

        disk_key = [
            "flip-speed",
            {k: v for k, v in spec.describe().items() if k != "bonuses"},
            self.profile.model_dump(mode="json"),
            self.board.thickness_m,
        ]
        # in memory by what the template holds, not its name: an edited template file is solved again
        key = json.dumps(disk_key, sort_keys=True, default=str)
        if key in _NOMINAL:
            return _NOMINAL[key]
        cached = diskcache.load("flip", disk_key, valid=lambda v: isinstance(v, float) and 0.05 <= v <= 6.0)
        if isinstance(cached, float) and math.isfinite(cached):
            _NOMINAL[key] = cached
            return cached
        p = self.profile
        hand = np.array([-p.distance_mm, p.lateral_mm]) * 1e-3
        aim = np.array(p.aim_mm) * 1e-3
        dist = float(norm(aim - hand))
        top = self.board.thickness_m + spec.thickness_m / 2

        def reach(vh: float) -> float:
            st = self._state(spec, vh, p.up_speed_mps, 0.0, p.spin_rps, 0.0, p.height_mm * 1e-3, 0.0)
            end, *_ = fly(
                spec,
                st,
                Aero(spec, p),
                1.0 / 500.0,
                CentreDown(top),
                max_t=4.0,
                record=False,
            )
            return float(norm(end.x[:2] - hand))

        lo, hi = 0.05, 6.0
        for _ in range(40):
            mid = 0.5 * (lo + hi)
            if reach(mid) < dist:
                lo = mid
            else:
                hi = mid
        _NOMINAL[key] = 0.5 * (lo + hi)
        diskcache.store(
            "flip",
            disk_key,
            _NOMINAL[key],
            "horizontal speed (m/s) of a template's nominal flip; safe to delete",
        )
        return _NOMINAL[key]

    def _state(self, spec, vh, vup, az, spin_rps, wobble, h, yaw) -> FlightState:
        p = self.profile
        hand = np.array([-p.distance_mm * 1e-3, p.lateral_mm * 1e-3])
        aim = np.array(p.aim_mm) * 1e-3
        u = (aim - hand) / norm(aim - hand)
        a = math.atan2(u[1], u[0]) + az
        v = np.array([vh * math.cos(a), vh * math.sin(a), vup])
        # template held flat, face up, turned by `yaw` about its normal
        hq = yaw / 2
        q = np.array([0.0, 0.0, math.sin(hq), math.cos(hq)])
        r = quat_to_matrix(q)
        # end-over-end spin about the horizontal axis across the flight, tilted out of plane by `wobble`
        axis = np.array([-math.sin(a), math.cos(a), 0.0]) * math.cos(wobble) + np.array(
            [0, 0, 1.0]
        ) * math.sin(wobble)
        w = axis * spin_rps * 2 * math.pi
        inertia = np.asarray(spec.inertia_diagonal)
        L = matmul(r, inertia * matmul(r.T, w))
        return FlightState(np.array([hand[0], hand[1], h]), v, q, L)

    def release(self, spec: TemplateSpec, rng: np.random.Generator, skill: FlipSkill) -> FlightState:
        """A random flip's starting state: the nominal flip perturbed by the skill's noise, with a uniform
        yaw."""
        p = self.profile
        z = rng.standard_normal(7)
        vh = max(0.05, self.nominal_speed(spec) * (1 + skill.speed_sd_frac * z[0]))
        vup = max(0.1, p.up_speed_mps * (1 + skill.up_sd_frac * z[1]))
        az = math.radians(skill.azimuth_sd_deg * z[2])
        spin = max(0.2, p.spin_rps * (1 + skill.spin_sd_frac * z[3]))
        wobble = math.radians(skill.wobble_sd_deg * z[4])
        h = max(0.05, p.height_mm * 1e-3 + skill.height_sd_mm * 1e-3 * z[5])
        yaw = float(rng.uniform(0, 2 * math.pi))
        return self._state(spec, vh, vup, az, spin, wobble, h, yaw)

    # -------- one flip (with re-flips)
    def flip(
        self,
        tid: str,
        seed: int,
        index: int = 0,
        skill: str | FlipSkill = "casual",
        profile: FlipProfile | None = None,
    ) -> FlipResult:
        """Flip template `tid` until it stays (at most max_flips), drawing from the (seed, index) stream;
        the result is placed in this world. `profile`: this flip's own aim (the world's step rate and
        thresholds stay the world's)."""
        if profile is not None:
            saved, self.profile = self.profile, profile
            try:
                return self.flip(tid, seed, index, skill)
            finally:
                self.profile = saved
        sk = FLIP_SKILLS[skill] if isinstance(skill, str) else skill
        spec = self.specs[tid]
        rng = rng_for(seed, index, STREAM_TEMPLATES)
        attempts = []
        for _ in range(self.profile.max_flips):
            st = self.release(spec, rng, sk)
            att = self.land(tid, st)
            attempts.append(att)
            if att.status == "ok":
                pos = tuple(v * 1e-3 for v in att.position_mm)
                self.placed[tid] = PlacedTemplate(tid, spec, pos, tuple(att.orientation_xyzw))
                self._read_back(tid)
                return FlipResult(spec.name, tid, attempts, self.placed[tid], seed, index)
        self.physics.park(f"template:{tid}")
        self.placed.pop(tid, None)
        self._read_back(tid)
        return FlipResult(spec.name, tid, attempts, None, seed, index)

    def land(self, tid: str, st: FlightState) -> FlipAttempt:
        """Fly one release (free flight, then the engine) to rest and judge it."""
        p, ph = self.profile, self.physics
        spec = self.specs[tid]
        name = f"template:{tid}"
        self.placed.pop(tid, None)
        aero = Aero(spec, p)
        hand_z = p.handover_mm * 1e-3 + self._obstacle_top()
        # no point of the template is lower than its centre less its outline's radius and half its
        # thickness: the exact lowest point is worked out only below that
        r_out = float(np.max(row_norms(np.asarray(spec.local_outline.exterior.coords))))
        reach = r_out + spec.thickness_m / 2
        end, t_flight, turned, _ = fly(
            spec,
            st,
            aero,
            1.0 / p.flight_hz,
            LowestDown(hand_z, reach, spec),
            max_t=p.max_time_s,
            record=False,
        )
        inertia = np.asarray(spec.inertia_diagonal)
        inv_i = 1.0 / inertia
        # PyBullet's functions bound to this world (BulletClient looks each call up again, ~1 us)
        fast = ph.fast_calls()
        get_pose, get_vel, get_contacts, step, push, twist = (
            fast.pose,
            fast.velocity,
            fast.contacts,
            fast.step,
            fast.push,
            fast.twist,
        )
        body = ph.body(name)
        ph.set_angular_damping(name, 0.0)
        ph.set_state(name, end.x, end.q, end.v, end.omega(inv_i))
        rate = StepRate(ph.set_step, 1.0 / p.step_hz, p.step_hz, p.coarse_step_hz)
        touched_any = False
        rr = quat_rows(end.q)
        n_prev = (rr[2], rr[5], rr[8])
        still, t = 0.0, t_flight
        status = "not-settled"
        max_pen = 0.0
        removed: list[str] = []
        min_clear = math.inf  # lowest centroid height above the board top while over the board
        inner_r2 = self._inner_r**2
        off_r = self.board.radius_m + r_out + 0.01
        t_end = p.max_time_s
        i0, i1, i2 = (float(x) for x in inertia)
        world = pb.WORLD_FRAME
        pos, q = get_pose(body)
        while t < t_end - 1e-12:
            if not touched_any:
                # plate drag through the centre and the gyroscopic torque -w x (R I R^T w), on floats
                v, w = get_vel(body)
                r00, r01, r02, r10, r11, r12, r20, r21, r22 = quat_rows(q)
                bx = (r00 * w[0] + r10 * w[1] + r20 * w[2]) * i0
                by = (r01 * w[0] + r11 * w[1] + r21 * w[2]) * i1
                bz = (r02 * w[0] + r12 * w[1] + r22 * w[2]) * i2
                hx, hy, hz = (
                    r00 * bx + r01 * by + r02 * bz,
                    r10 * bx + r11 * by + r12 * bz,
                    r20 * bx + r21 * by + r22 * bz,
                )
                push(body, -1, aero.force_xyz(v[0], v[1], v[2], r02, r12, r22), pos, world)
                twist(body, -1, (w[2] * hy - w[1] * hz, w[0] * hz - w[2] * hx, w[1] * hx - w[0] * hy), world)
            step()
            taken = rate.dt
            t += taken
            cps = get_contacts(body)
            max_pen = deepest_overlap(cps, max_pen)
            pos, q = get_pose(body)
            if not touched_any:
                rr = quat_rows(q)
                n = (rr[2], rr[5], rr[8])
                turned += math.acos(
                    max(-1.0, min(1.0, n[0] * n_prev[0] + n[1] * n_prev[1] + n[2] * n_prev[2]))
                )
                n_prev = n
                if touches(cps):
                    touched_any = True
                    # card on card is lossy where Bullet's rigid contact is not: from the first touch the
                    # template's rotation is damped (settle_angular_damping, per second), so a landed
                    # disk stops wobbling in a fraction of a second instead of ringing like Euler's disk
                    ph.set_angular_damping(name, p.settle_angular_damping)
            v, w = get_vel(body)
            if touched_any and rate.ratio > 1:
                rate.switch(fastest_point_speed(v, w, r_out) < p.fine_speed_mps)
            if pos[0] * pos[0] + pos[1] * pos[1] < inner_r2:
                min_clear = min(min_clear, pos[2] - self.board.thickness_m)
            if not all(map(math.isfinite, (*pos, *v))) or not inside_world(pos, FLIP_WORLD_RADIUS_M**2):
                status = "diverged"
                break
            if touched_any and math.hypot(pos[0], pos[1]) > off_r and touches(cps):
                status = "off-board"  # on the table clear of the board: it can only roll further away
                break
            # Settling: a documented extension of the rest detector (sim/world/rest.py), kept per step at
            # the flip profile's own thresholds: besides a still card, a card ringing in place within
            # wobble_tilt_deg of flat (Euler's disk: Bullet has no loss to stop it) has settled.
            w2 = w[0] ** 2 + w[1] ** 2 + w[2] ** 2
            vxy2 = v[0] ** 2 + v[1] ** 2
            if (
                cps
                and vxy2 < p.rest_speed_mps**2
                and (
                    (v[2] ** 2 < p.rest_speed_mps**2 and w2 < p.rest_spin_radps**2)
                    or (abs(v[2]) < 0.1 and w2 < p.wobble_spin_radps**2 and _flat(q, p.wobble_tilt_deg))
                )
            ):
                still += taken
                if still >= p.rest_hold_s:
                    hit_dice = [d for d in self._touching(name) if d in self.dice]
                    if hit_dice:
                        # "If the Template lands on a die, remove the die and place the Template on the
                        # Target board in the same position": the die goes, the template settles again.
                        for d in hit_dice:
                            ph.park(d)
                            removed.append(d)
                        still = 0.0
                        continue
                    status = "rest"
                    break
            else:
                still = 0.0
        rate.restore()
        pos, q = get_pose(body)
        touching = sorted(self._touching(name))
        on_templates = [x for x in touching if x.startswith("template:")]
        flat, tilt, rise = lies_flat(
            self.board, spec, pos, q, [self.specs[x.removeprefix("template:")] for x in on_templates], p
        )
        if status == "off-board":
            st_out = "off-board"
            touching = sorted(set(touching) | {"table"})
        elif status != "rest":
            st_out = status
        elif "table" in touching:
            st_out = "hangs-off" if "board" in touching or on_templates else "off-board"
        elif not flat:
            st_out = "not-flat"  # a flip ends only when the template lies flat: flipped again, no damage
        elif turned < math.radians(p.min_turn_deg):
            st_out = "turned-too-little"
        else:
            st_out = "ok"
        if st_out in ("not-settled", "diverged"):
            st_out = "not-settled"
        return FlipAttempt(
            math.degrees(turned),
            [x * 1e3 for x in pos],
            list(q),
            touching,
            st_out,
            removed,
            on_templates,
            max_pen * 1e3,
            t,
            min_clear * 1e3 if math.isfinite(min_clear) else None,
            tilt,
            rise * 1e3,
        )

    def _touching(self, name: str) -> set[str]:
        return set(self.physics.touching(name)) - {name}

    def _obstacle_top(self) -> float:
        top = self.board.thickness_m
        for pl in self.placed.values():
            top = max(top, pl.top_z_m)
        for d in self.dice:
            pos, _ = self.physics.die_pose(d)
            if pos[2] > -1:
                top = max(top, float(pos[2]) + 0.015)
        return top


def lies_flat(
    board: BoardSpec,
    spec: TemplateSpec,
    position_m,
    orientation_xyzw,
    under: Sequence[TemplateSpec] = (),
    profile: FlipProfile | None = None,
) -> tuple[bool, float, float]:
    """Whether a resting template lies flat: (flat, tilt in degrees, rise in m).

    Flat means both: its normal (either face up) is within `flat_tilt_deg` of the board's normal
    (z), and its centre is at most `flat_rise_mm` above the height it would have lying flat on the
    board with the templates it touches (`under`) stacked beneath it. A template standing on its
    edge (tilt near 90 deg, centre a radius up) or propped on a prop fails; one lying across a lower
    template's edge (tilted a few degrees, a thickness up) passes."""
    p = profile or FlipProfile()
    x, y, _z, _w = orientation_xyzw
    nz = 1 - 2 * (x * x + y * y)
    tilt = math.degrees(math.acos(min(1.0, abs(nz))))
    rise = float(position_m[2]) - board.thickness_m - spec.thickness_m / 2 - sum(u.thickness_m for u in under)
    return tilt <= p.flat_tilt_deg and rise <= p.flat_rise_mm * 1e-3, tilt, rise


def _flat(q, tilt_deg: float) -> bool:
    nz = 1 - 2 * (q[0] * q[0] + q[1] * q[1])
    return abs(nz) >= math.cos(math.radians(tilt_deg))


_NOMINAL: dict = {}


def piece_ids(spec: TemplateSpec) -> list[str]:
    """The body ids of a template's pieces as flips name them: its name, or name-1, name-2 (Explosion)."""
    return [spec.name] if spec.count == 1 else [f"{spec.name}-{k + 1}" for k in range(spec.count)]


@dataclass(frozen=True)
class FlipRequest:
    """One template piece to flip in a session: its body id, spec, flip stream index (of the session's
    seed), skill, and optionally its own profile (its aim)."""

    id: str
    spec: TemplateSpec
    index: int
    skill: str = "casual"
    profile: FlipProfile | None = None


@dataclass
class FlipSession:
    """What a flip session left on the board: every flip's result and every template lying there
    (laid and flipped, at their poses after the last flip, in the order they came to lie there)."""

    results: list[FlipResult]
    placed: list[PlacedTemplate]


def flip_onto(
    board: BoardSpec,
    requests: Sequence[FlipRequest],
    seed: int,
    *,
    laid: Sequence[PlacedTemplate] = (),
    dice: Sequence[tuple[str, DieSpec, Sequence[float], Sequence[float]]] = (),
    scenario=None,
    prop_draw: tuple[int, int] | None = None,
    profile: FlipProfile | None = None,
    world: FlipWorld | None = None,
) -> FlipSession:
    """Flip templates one after the other onto a board that already holds `laid` templates, `dice`
    ((name, die spec, position m, orientation xyzw), resting) and the `scenario`'s props standing at
    a flip (`props_at_flip`, posed by the throw's prop stream `prop_draw`). Every body meets every
    other: a template lands on the templates, dice and props already there (it cannot end inside the
    Volcano or inside another template), and may shove templates lying there (their poses are read
    back). The session depends only on its arguments: in a world built for it, or in `world`, one
    built for the same templates (none laid, no dice) and used before, whose session starts afresh
    (`FlipWorld.new_session`)."""
    specs = [(t.id, t.spec) for t in laid] + [(r.id, r.spec) for r in requests]
    own = world is None
    w = (
        world
        if world is not None
        else FlipWorld(
            board,
            specs,
            profile,
            dice=[(n, d) for n, d, _p, _q in dice],
            scenario=scenario,
            prop_draw=prop_draw,
        )
    )
    if not own and (
        list(w.specs) != [tid for tid, _ in specs]
        or dice
        or laid
        or (profile is not None and profile != w.profile)
    ):
        # with templates laid there first a reused world's session differed from a new world's in 3 of
        # 12 sessions (cause not found), so such sessions get a world of their own
        raise ValueError(
            "a reused flip world must hold exactly this session's templates, in order, its profile, "
            "and no dice nor laid templates"
        )
    try:
        w.new_session(prop_draw)
        for name, _die, pos, q in dice:
            w.place_die(name, tuple(pos), tuple(q))
        for t in laid:
            w.lay(t)
        results = [w.flip(r.id, seed, r.index, r.skill, r.profile) for r in requests]
        return FlipSession(results, list(w.placed.values()))
    finally:
        if own:
            w.physics.close()


def flip_template(
    board: BoardSpec,
    spec: TemplateSpec,
    seed: int,
    index: int = 0,
    skill: str = "casual",
    profile: FlipProfile | None = None,
    dice: Sequence[tuple[str, DieSpec, Sequence[float], Sequence[float]]] = (),
    scenario=None,
) -> list[FlipResult]:
    """Flip every piece of a template (Explosion: both, one after the other) onto the board (with the
    `scenario`'s standing props at their nominal placement, if given).

    The board is empty, or holds `dice`: (name, die spec, position m, orientation xyzw) resting there.
    "If the Template lands on a die, remove the die": a die the template comes to rest on is named in
    its attempt's `dice_removed`. (Dice change the world's solved surface factors, so a flip with dice
    on the board is not bit for bit the same flip as on the empty board, even where it touches none.)

    The world is built fresh for each call (~40 ms against ~400 ms of flipping): Bullet keeps
    contact and solver caches across body resets, so a reused world would make a flip depend on
    the flips before it in the last digits. Fresh, a flip depends only on (seed, index) and the dice."""
    reqs = [FlipRequest(tid, spec, index * 8 + k, skill) for k, tid in enumerate(piece_ids(spec))]
    return flip_onto(board, reqs, seed, dice=dice, profile=profile, scenario=scenario).results
