"""Home measurement rigs: the drop, tilt and ramp tests a player makes with a die, a board, a book and a
ruler, as scenes of the real engine.

`dfsim calibrate` (sim/studies/calibration.py) fits a material pair by simulating these tests with
candidate values. The world is the one throws use (sim/world/physics.py): a floor slab of the surface
material with its top at z = 0, a plank of the same material that is tilted (the tilt test) or leant
on the floor as a ramp whose foot is the line x = 0 (the ramp test, and the roll test: a round roller
laid across the ramp rolls down it and out over the floor), and the die. Drops, ramp runs and rolls
go through the throw loop itself (sim/world/stepper.py: per-impact step, contact damping while
touching, the rest test); the tilt test steps the die on the tilted plank for a fixed time.

A candidate pair is set the way a scene sets it: the friction as the product of the die's and the
surface's factors, the restitution as the surface's factor (`Physics.set_surface`), the contact
damping per die and body (`Physics.set_pair_damping`), the rolling resistance as the surface's
rolling friction (Bullet's rolling torque limit: the lever arm x the normal force; the die's own
rolling friction is 0 and its friction factor 1, so the surface's value is the arm). The material
file holds the *pair* restitution, defined as the mean rebound of flat 10 cm drops over spread step
phases (what `Physics.finalize_materials` calibrates a scene to); `pair_restitution` measures it in
this world.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.specs.die import DieSpec, quat_mul, quat_to_matrix
from sim.specs.material import MaterialTable, PairSpec
from sim.specs.physics import PhysicsSettings
from sim.vectors import matmul, norm
from sim.world.loop import run
from sim.world.physics import Physics, drop_rebound
from sim.world.solids import box_hull

DIE = "die:0"
FLOOR = "table"
PLANK = "prop:plank"
FLOOR_HALF_M = (1.0, 1.0, 0.05)  # the floor slab: 2 m x 2 m, top at z = 0
PLANK_HALF_M = (0.25, 0.12, 0.01)  # the plank (ramp / tilted board): 50 cm long
DROP_X_M = 0.45  # drops land here, clear of the plank (which lies at x < 0)
TILT_HOLD_S = 0.5  # a die "starts to slide" when it moved ...
TILT_MOVED_MM = 2.0  # ... this far within this time at a fixed tilt
TILT_RANGE_DEG = (1.0, 70.0)
TILT_ITERATIONS = 11  # bisection steps: (70 - 1) / 2**11 = 0.03 deg
PAIR_DROPS = 40  # flat 10 cm drops that define the pair restitution (as many as a scene calibrates with)


class _NoProps:
    """The throw loop's props hook for a scene without props."""

    kinematic = False

    def before_step(self, t: float) -> None:
        """Nothing moves on its own."""


@dataclass(frozen=True)
class PairFactors:
    """A candidate pair as the engine holds it: pair friction, the surface's restitution factor (the
    die's is 1 in a rig), the contact damping and the rolling resistance (lever arm, mm)."""

    friction: float
    restitution_factor: float
    contact_damping: float
    rolling_resistance_mm: float = 0.0


ROLL_FLOOR_HALF_M = (2.0, 1.0, 0.05)  # the roll test's floor: 4 m along the slope, for long run-outs


def roller_die(diameter_mm: float, length_mm: float, material: str) -> DieSpec:
    """The round roller of the roll test as a die: a sharp-rimmed cylinder (the engine's cylinder, a
    prism of `sim.specs.die.CYLINDER_FACETS` sides) of acrylic's density; a rolling body's run-out does
    not depend on its mass."""
    from sim.engine.settling import DENSITY_G_MM3

    r = diameter_mm / 2
    return DieSpec.from_dict(
        {
            "name": f"roller {diameter_mm:g} x {length_mm:g} mm",
            "shape": "cylinder",
            "radius_mm": r,
            "height_mm": length_mm,
            "mass_g": round(math.pi * r * r * length_mm * DENSITY_G_MM3, 3),
            "material": material,
            "faces": ["top", "bottom"],
            "icon_labels": [],
        },
        source="<roller>",
    )


def _rot_y(angle_rad: float) -> np.ndarray:
    """Quaternion (xyzw) of a rotation about +y."""
    return np.array([0.0, math.sin(angle_rad / 2), 0.0, math.cos(angle_rad / 2)])


class MaterialRig:
    """One world for the home tests of a die on a surface material (see the module doc)."""

    def __init__(
        self,
        die: DieSpec,
        surface: str,
        materials: MaterialTable | None = None,
        settings: PhysicsSettings | None = None,
        floor_half_m: tuple[float, float, float] = FLOOR_HALF_M,
    ) -> None:
        self.die = die
        self.surface = surface
        table = materials or MaterialTable.default()
        pair = table.require(die.material, surface, "the calibration rig")
        self.settings = settings or PhysicsSettings()
        # a two-material table: the die's material with itself (needed by any scene) and the pair
        own = table.pair(die.material, die.material) or PairSpec(
            a=die.material, b=die.material, friction=0.3, restitution=0.5
        )
        mats = sorted({die.material, surface})
        pairs = [own] if die.material == surface else [own, pair]
        self.ph = ph = Physics(self.settings, MaterialTable(name="rig", materials=mats, pairs=pairs))
        ph.add_static_solid(FLOOR, [box_hull((0.0, 0.0, -floor_half_m[2]), floor_half_m)], surface)
        ph.add_static_solid(PLANK, [box_hull((0.0, 0.0, 0.0), PLANK_HALF_M)], surface)
        ph.add_die(die, DIE)
        ph.finalize_materials()
        ph.set_surface(DIE, 1.0, 1.0)  # the surface's factors then are the pair's
        ph.collide(FLOOR, PLANK, False)
        self._flat = np.asarray(die.orientation_with_face(len(die.faces) - 1, up=False))
        pts = matmul(die.collision_points_m, quat_to_matrix(self._flat).T)
        self._centre_height = float(-pts[:, 2].min())  # centre above the surface, lying flat
        self._plank_angle: float | None = None
        rng = np.random.Generator(np.random.PCG64(20241129))
        self._drop_xy = [
            (DROP_X_M + rng.uniform(-0.1, 0.1), rng.uniform(-0.3, 0.3)) for _ in range(PAIR_DROPS)
        ]
        self._rolling = -1.0  # the rolling friction the surface bodies hold (set by `set_pair`)
        self.factors = PairFactors(pair.friction, 1.0, pair.contact_damping, pair.rolling_resistance_mm)
        self.set_pair(self.factors)

    # ---------------- the candidate pair ----------------
    def set_pair(self, factors: PairFactors) -> None:
        """Give the pair these values (friction, the surface's restitution factor, contact damping)."""
        for body in (FLOOR, PLANK):
            self.ph.set_surface(body, factors.friction, factors.restitution_factor)
            self.ph.set_pair_damping(DIE, body, factors.contact_damping)
        if factors.rolling_resistance_mm != self._rolling:
            self.ph.set_rolling_friction((FLOOR, PLANK), factors.rolling_resistance_mm * 1e-3)
            self._rolling = factors.rolling_resistance_mm
        self.factors = factors

    def pair_restitution(self) -> float:
        """The pair restitution these factors give: the mean rebound / impact speed of flat 10 cm drops
        at spread step phases, as a scene calibrates it (`Physics.finalize_materials`)."""
        n = len(self._drop_xy)
        out = [
            drop_rebound(self.ph, DIE, self.die, x, y, 0.0, (i + 0.5) / n)
            for i, (x, y) in enumerate(self._drop_xy)
        ]
        self.ph.park(DIE)
        return float(np.mean(out))

    def factor_for(
        self, restitution: float, lo: float = 0.02, hi: float = 0.92, iterations: int = 14
    ) -> float:
        """The surface's restitution factor that gives this pair restitution (bisection over [lo, hi]: the
        pair restitution rises with the factor); the pair's friction and damping are kept."""
        f = self.factors
        for _ in range(iterations):
            mid = 0.5 * (lo + hi)
            self.set_pair(PairFactors(f.friction, mid, f.contact_damping))
            if self.pair_restitution() < restitution:
                lo = mid
            else:
                hi = mid
        value = 0.5 * (lo + hi)
        self.set_pair(PairFactors(f.friction, value, f.contact_damping))
        return value

    # ---------------- the tests ----------------
    def drop(self, drop_mm: float, x_m: float = DROP_X_M) -> float:
        """A flat drop from rest, the die's bottom face `drop_mm` above the floor: the height (mm) its
        bottom face reaches after the first impact (the first rebound's top)."""
        ph = self.ph
        z0 = self._centre_height + drop_mm * 1e-3
        ph.set_state(DIE, (x_m, 0.0, z0), self._flat)
        _rests, trace, _stats = run(ph, self.settings, _NoProps(), [DIE])
        first = next((e.time_s for e in trace.events if e.die == DIE), None)
        ph.park(DIE)
        if first is None:
            return float("nan")
        t = np.asarray(trace.path_t)
        z = np.asarray(trace.paths[DIE])[:, 2]
        after = z[t > first]
        if after.size == 0:
            return 0.0
        return max(0.0, float(after.max()) - self._centre_height) * 1e3

    def _pose_plank(self, angle_deg: float) -> None:
        """Lean the plank at `angle_deg` with its top face meeting the floor along x = 0 (its foot)."""
        if self._plank_angle == angle_deg:
            return
        a = math.radians(angle_deg)
        n = np.array([math.sin(a), 0.0, math.cos(a)])  # the plank's top face normal
        down = np.array([math.cos(a), 0.0, -math.sin(a)])  # down the slope
        centre = -down * PLANK_HALF_M[0] - n * PLANK_HALF_M[2]
        self.ph.set_pose(PLANK, tuple(centre), tuple(_rot_y(a)))
        self._plank_angle = angle_deg

    def _place_on_plank(self, angle_deg: float, low_mm: float, yaw_deg: float = 0.0, pose=None) -> np.ndarray:
        """Put the die at rest on the plank, its lowest point `low_mm` above the floor, flat on a face
        (turned by `yaw_deg` about the plank's normal) or in `pose` (xyzw, relative to the plank); its
        centre."""
        a = math.radians(angle_deg)
        rel = (
            pose
            if pose is not None
            else self.die.orientation_with_face(len(self.die.faces) - 1, up=False, yaw_deg=yaw_deg)
        )
        q = quat_mul(_rot_y(a), rel)
        pts = matmul(self.die.collision_points_m, quat_to_matrix(q).T)
        n = np.array([math.sin(a), 0.0, math.cos(a)])
        up = np.array([-math.cos(a), 0.0, math.sin(a)])  # up the slope
        lift = float(-matmul(pts, n).min()) + 1e-5  # centre off the plank's face
        low0 = float((pts[:, 2] + lift * n[2]).min())  # lowest z with the contact point at the foot
        s = (low_mm * 1e-3 - low0) / math.sin(a) if a > 0 else 0.1
        centre = up * s + n * lift
        self.ph.set_state(DIE, tuple(centre), tuple(q))
        return centre

    def moves_at(self, angle_deg: float) -> bool:
        """Whether the die, set flat on the plank tilted at `angle_deg` well above its foot, slides or
        tips (moves `TILT_MOVED_MM`) within `TILT_HOLD_S`."""
        ph = self.ph
        self._pose_plank(angle_deg)
        start = self._place_on_plank(angle_deg, 1000.0 * PLANK_HALF_M[0] * math.sin(math.radians(angle_deg)))
        ph.set_damping(DIE, self.factors.contact_damping)
        moved = False
        for _ in range(int(TILT_HOLD_S / ph.dt)):
            ph.step()
        p, _q = ph.die_pose(DIE)
        moved = bool(norm(p - start) * 1e3 > TILT_MOVED_MM)
        ph.set_damping(DIE, 0.0)
        ph.park(DIE)
        return moved

    def slide_angle(self) -> float:
        """The tilt (deg) at which the die starts to move, by bisection over `TILT_RANGE_DEG`."""
        lo, hi = TILT_RANGE_DEG
        if self.moves_at(lo):
            return lo
        if not self.moves_at(hi):
            return hi
        for _ in range(TILT_ITERATIONS):
            mid = 0.5 * (lo + hi)
            if self.moves_at(mid):
                hi = mid
            else:
                lo = mid
        return 0.5 * (lo + hi)

    def ramp(self, low_mm: float, angle_deg: float, yaw_deg: float = 0.0) -> float:
        """Release the die at rest flat on a ramp of `angle_deg`, its lowest point `low_mm` above the
        floor: how far (mm) past the ramp's foot its centre comes to rest (negative: still on the ramp)."""
        self._pose_plank(angle_deg)
        self._place_on_plank(angle_deg, low_mm, yaw_deg)
        rests, _trace, _stats = run(self.ph, self.settings, _NoProps(), [DIE])
        self.ph.park(DIE)
        return float(rests[0].position_m[0]) * 1e3

    def roll(self, low_mm: float, angle_deg: float, turn_deg: float = 0.0) -> float:
        """Lay the die (a round roller: a cylinder) on its side across a ramp of `angle_deg`, its axis
        level and square to the slope, turned by `turn_deg` about its axis, its lowest point `low_mm`
        above the floor, and let it go at rest: how far (mm) past the ramp's foot its centre comes to
        rest, along the slope's direction (negative: still on the ramp)."""
        t = math.radians(turn_deg)
        # body z (the cylinder's axis) along world y, then turned about that axis
        side = quat_mul(
            (0.0, math.sin(t / 2), 0.0, math.cos(t / 2)), (math.sqrt(0.5), 0.0, 0.0, math.sqrt(0.5))
        )
        self._pose_plank(angle_deg)
        self._place_on_plank(angle_deg, low_mm, pose=side)
        rests, _trace, _stats = run(self.ph, self.settings, _NoProps(), [DIE])
        self.ph.park(DIE)
        return float(rests[0].position_m[0]) * 1e3

    def close(self) -> None:
        """Free the world."""
        self.ph.close()
