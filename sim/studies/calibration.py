"""`dfsim calibrate`: a material pair's restitution, friction, contact damping and rolling resistance
fitted to home measurements (sim/specs/measurements.py), with the real engine as the forward model.

Every prediction is a simulation in `sim.engine.rigs.MaterialRig`: a flat drop gives the rebound
height, a bisection over tilts the angle at which the die starts to move, a release on a ramp the
run-out (the mean over `RAMP_YAWS` turns of the die about the ramp's normal: a real release is at no
particular turn, and one turn's run-out is chaotic), a roller let go on the ramp its rolling run-out
(the mean over `ROLL_TURNS` turns of the roller about its axis within one facet of its rim). Nothing
is a closed formula.

The fit, in stages that keep the number of simulations bounded:

1. Restitution from the drops alone (a flat drop does not depend on the friction, and the contact
   damping acts for a step or two): the surface's restitution factor over a grid of
   `RESTITUTION_GRID` values, then a bounded Brent refinement. The pair restitution written to the
   file is what a scene calibrates to, the mean rebound of flat 10 cm drops (`pair_restitution`).
2. Friction and contact damping from the tilts and ramps, the restitution fixed: a coarse grid over
   the whole range (`COARSE`), then a fine grid (`FINE`) over the cells the coarse grid finds
   plausible, interpolated linearly for the profile, and narrowed (`ZOOMS`) onto an interval that has
   fewer than `ZOOM_NODES` grid steps across it, so no interval is drawn between nodes the fit never
   simulated (a coarse grid biases the minimum by a fraction of its step). The damping is searched as a rate
   k = -ln(1 - contact_damping) per second (the velocity decays as exp(-k t) while touching).
3. Rolling resistance from the rolls, the other values fixed at what stages 1-2 found (or kept): a grid
   of `ROLL_GRID` lever arms (0, then geometric up to 2 mm), then a bounded Brent refinement. The
   roller's own restitution factor is solved for the pair restitution first, as a scene does for its
   first die. A roller's run-out falls with the contact damping too: rolls fitted alone, with a damping
   the ramps never pinned, fit the damping's losses into the rolling resistance.

Likelihood: the rows of each kind have their own unknown Gaussian spread, which is profiled out, so
-2 log L = sum over kinds of n_k log(SSE_k / n_k + resolution_k^2) (the reading resolution keeps a
perfect fit from an infinite likelihood). Intervals are profile-likelihood intervals at 95 %
(chi-square with one degree of freedom, 3.84). A parameter whose interval reaches both ends of its
search range is not identified by the data: the fit is refused with one line saying which rows
would identify it. One whose interval reaches one end only is bounded on the other side, which is a
result: it is reported with a one-sided interval and a note (a contact damping past which a run-out
no longer shortens, a friction past which the die tips before it slides).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from scipy.interpolate import RegularGridInterpolator
from scipy.optimize import minimize_scalar

from sim.engine.rigs import ROLL_FLOOR_HALF_M, MaterialRig, PairFactors, roller_die
from sim.errors import SpecError
from sim.experiments.progress import WorkBar
from sim.specs.die import CYLINDER_FACETS, DieSpec, load_die
from sim.specs.material import MaterialTable, PairSpec
from sim.specs.measurements import PARAMETERS, MeasurementsSpec

CHI2_95 = 3.841  # chi-square, 1 degree of freedom, 95 %
# reading resolution of each kind of row (its unit): a rebound read from a 240 fps video to ~2 mm, an
# angle from a phone's level to ~0.5 deg, a run-out with a ruler to ~3 mm
RESOLUTION = {"drops": 2.0, "tilts": 0.5, "ramps": 3.0, "rolls": 5.0}
FACTOR_RANGE = (0.02, 0.92)  # the surface's restitution factor (a pair factor near 1 gains energy in Bullet)
FRICTION_RANGE = (0.05, 1.5)
RATE_RANGE = (0.0, 6.9)  # contact damping 0 .. 0.999
RESTITUTION_GRID = 24
COARSE = (7, 5)  # friction x damping-rate values of the first grid
FINE = (6, 6)  # ... of the second
EXTENSIONS = 3  # times the fine grid is extended where an interval reaches its edge
EXTEND_STEPS = 2  # by this many of its own steps
ZOOMS = 2  # times the fine grid is narrowed onto an interval it draws too coarsely ...
ZOOM_NODES = 3  # ... one with fewer than this many grid steps across it
RAMP_YAWS = 8  # turns of the die about the ramp's normal averaged per ramp prediction (0 .. 120 deg)
ROLL_TURNS = 4  # turns of the roller about its axis averaged per roll prediction (within one rim facet)
ARM_RANGE_MM = (0.0, 2.0)  # the rolling resistance's lever arm (mm): a felt mat's is ~0.1
ROLL_GRID = 17  # 0, then 16 geometric steps from 0.003 mm to the range's end
WHAT_IDENTIFIES = {
    "restitution": "drop rows (drop height and rebound height)",
    "friction": "tilt rows (the angle at which the die starts to slide) or ramp rows",
    "contact_damping": "ramp rows (how far the die runs out after a ramp)",
    "rolling_resistance": "roll rows (how far the roller rolls out after a ramp)",
}
ROW_KIND = {
    "restitution": "drops",
    "friction": "tilts",
    "contact_damping": "ramps",
    "rolling_resistance": "rolls",
}


@dataclass
class Estimate:
    """A fitted value and its 95 % profile-likelihood interval."""

    name: str
    value: float
    low: float
    high: float
    bounded: str = "both"  # "below" / "above": the rows bound it on that side only (see `calibrate`)

    def interval_text(self) -> str:
        """The interval as the report prints it, saying when one side is open."""
        text = f"95 % interval {self.low:.3f} - {self.high:.3f}"
        if self.bounded == "below":
            return text + " (bounded below only: any higher value fits as well)"
        if self.bounded == "above":
            return text + " (bounded above only: any lower value fits as well)"
        return text


@dataclass
class Residual:
    """One measurement row against the engine at the fitted values."""

    kind: str
    row: int
    measured: float
    predicted: float
    unit: str

    @property
    def residual(self) -> float:
        """Measured minus predicted."""
        return self.measured - self.predicted


@dataclass
class CalibrationResult:
    """What `calibrate` found: estimates, residuals, the new material table, and its cost."""

    spec: MeasurementsSpec
    pair: tuple[str, str]
    estimates: dict[str, Estimate]
    kept: dict[str, float]
    residuals: list[Residual]
    table: MaterialTable
    simulations: int
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The result as plain JSON types."""
        return {
            "measurements": self.spec.source,
            "pair": list(self.pair),
            "estimates": {k: asdict(e) for k, e in self.estimates.items()},
            "kept": self.kept,
            "residuals": [asdict(r) | {"residual": r.residual} for r in self.residuals],
            "simulations": self.simulations,
            "notes": self.notes,
        }

    def report(self) -> str:
        """A plain-text report: fitted values with intervals, kept values, residuals per row."""
        a, b = self.pair
        lines = [
            f"{self.spec.name}: pair {a} on {b}, fitted from {self.spec.source} ({self.simulations} "
            "simulations)"
        ]
        for e in self.estimates.values():
            lines.append(f"  {e.name:<16} {e.value:.3f}   {e.interval_text()}")
        for k, v in self.kept.items():
            lines.append(f"  {k:<16} {v:.3f}   (kept from the base table: not fitted)")
        for kind in ("drops", "tilts", "ramps", "rolls"):
            rows = [r for r in self.residuals if r.kind == kind]
            if not rows:
                continue
            rms = math.sqrt(sum(r.residual**2 for r in rows) / len(rows))
            lines.append(f"  {kind}: rms residual {rms:.2f} {rows[0].unit} over {len(rows)} rows")
            for r in rows:
                lines.append(
                    f"    {kind[:-1]} {r.row:>3}: measured {r.measured:8.2f}  engine {r.predicted:8.2f}  "
                    f"residual {r.residual:+7.2f} {r.unit}"
                )
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


# ---------------------------------------------------------------- likelihood
def deviance(groups: dict[str, tuple[np.ndarray, np.ndarray]]) -> float:
    """-2 log L (up to a constant) with each kind's spread profiled out: groups map a kind to
    (measured, predicted) arrays."""
    total = 0.0
    for kind, (y, pred) in groups.items():
        n = len(y)
        if n == 0:
            continue
        sse = float(np.sum((np.asarray(y) - np.asarray(pred)) ** 2))
        total += n * math.log(sse / n + RESOLUTION[kind] ** 2)
    return total


def interval(xs: np.ndarray, dev: np.ndarray, threshold: float = CHI2_95) -> tuple[float, float, bool, bool]:
    """The profile interval {x: dev(x) - min <= threshold} of a curve on sorted xs, crossings linearly
    interpolated: (low, high, reaches the first x, reaches the last x)."""
    xs, dev = np.asarray(xs, float), np.asarray(dev, float)
    d = dev - dev.min()
    inside = np.flatnonzero(d <= threshold)
    i0, i1 = int(inside.min()), int(inside.max())
    lo, hi = float(xs[i0]), float(xs[i1])
    if i0 > 0:
        lo = float(np.interp(threshold, [d[i0], d[i0 - 1]], [xs[i0], xs[i0 - 1]]))
    if i1 < len(xs) - 1:
        hi = float(np.interp(threshold, [d[i1], d[i1 + 1]], [xs[i1], xs[i1 + 1]]))
    return lo, hi, i0 == 0, i1 == len(xs) - 1


def _not_identified(
    spec: MeasurementsSpec, name: str, lo: float, hi: float, rng: tuple[float, float]
) -> SpecError:
    kind = ROW_KIND[name]
    side = "up to" if hi >= rng[1] else "down to"
    return SpecError(
        spec.source,
        kind,
        f"{name} is not identifiable from these rows: the fit is as good {side} the end "
        f"of its search range ({lo:.3g} - {hi:.3g}, a flat profile); add or vary "
        f"{WHAT_IDENTIFIES[name]}",
    )


# ---------------------------------------------------------------- the fit
class _Model:
    """The rig with a simulation counter and the rows grouped by the configuration each needs."""

    def __init__(
        self, spec: MeasurementsSpec, die: DieSpec, base: MaterialTable, bar: WorkBar | None = None
    ) -> None:
        self.spec = spec
        self.rig = MaterialRig(die, spec.surface, base)
        self.runs = 0
        self.bar = bar  # counts the rig simulations as they are run (the search decides how many)
        self.heights = sorted({r.drop_mm for r in spec.drops})
        self.ramps = sorted({(r.height_mm, r.angle_deg) for r in spec.ramps})
        self.rolls = sorted({(r.height_mm, r.angle_deg) for r in spec.rolls})
        self.roller: MaterialRig | None = None
        if spec.rolls and spec.roller is not None:
            body = roller_die(spec.roller.diameter_mm, spec.roller.length_mm, die.material)
            self.roller = MaterialRig(body, spec.surface, base, floor_half_m=ROLL_FLOOR_HALF_M)

    def close(self) -> None:
        self.rig.close()
        if self.roller is not None:
            self.roller.close()

    def _ran(self, n: int) -> None:
        self.runs += n
        if self.bar is not None:
            self.bar.update(n)

    def drops(self, f: PairFactors) -> dict[float, float]:
        self.rig.set_pair(f)
        out = {h: self.rig.drop(h) for h in self.heights}
        self._ran(len(self.heights))
        return out

    def slide(self, f: PairFactors) -> float:
        self.rig.set_pair(f)
        out = self.rig.slide_angle()
        self._ran(1)
        return out

    def ramp(self, f: PairFactors) -> dict[tuple[float, float], float]:
        self.rig.set_pair(f)
        yaws = np.arange(RAMP_YAWS) * (120.0 / RAMP_YAWS)
        out = {}
        for c in self.ramps:
            out[c] = float(np.mean([self.rig.ramp(c[0], c[1], y) for y in yaws]))
            self._ran(RAMP_YAWS)
        return out

    def roll(self, f: PairFactors) -> dict[tuple[float, float], float]:
        assert self.roller is not None
        self.roller.set_pair(f)
        turns = np.arange(ROLL_TURNS) * (360.0 / CYLINDER_FACETS / ROLL_TURNS)
        out = {}
        for c in self.rolls:
            out[c] = float(np.mean([self.roller.roll(c[0], c[1], t) for t in turns]))
            self._ran(ROLL_TURNS)
        return out

    def roller_factor(self, restitution: float, friction: float, damping: float) -> float:
        """The surface's restitution factor that gives the roller this pair restitution."""
        assert self.roller is not None
        self.roller.set_pair(PairFactors(friction, 1.0, damping))
        self._ran(14)
        return self.roller.factor_for(restitution, *FACTOR_RANGE)

    def groups_rolls(self, f: PairFactors) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        pred = self.roll(f)
        y = np.array([r.distance_mm for r in self.spec.rolls])
        return {"rolls": (y, np.array([pred[(r.height_mm, r.angle_deg)] for r in self.spec.rolls]))}

    def pair_restitution(self, factor: float) -> float:
        self.rig.set_pair(PairFactors(self.rig.factors.friction, factor, self.rig.factors.contact_damping))
        self.runs += 1
        return self.rig.pair_restitution()

    # -- predictions per row
    def groups_drops(self, f: PairFactors) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        pred = self.drops(f)
        y = np.array([r.rebound_mm for r in self.spec.drops])
        return {"drops": (y, np.array([pred[r.drop_mm] for r in self.spec.drops]))}

    def slide_groups(self, f: PairFactors) -> tuple[float | None, dict[tuple[float, float], float]]:
        return (self.slide(f) if self.spec.tilts else None), (self.ramp(f) if self.spec.ramps else {})

    def groups_motion(self, slide: float | None, ramp: dict) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        out = {}
        if self.spec.tilts:
            y = np.array([r.angle_deg for r in self.spec.tilts])
            out["tilts"] = (y, np.full(len(y), slide))
        if self.spec.ramps:
            y = np.array([r.distance_mm for r in self.spec.ramps])
            out["ramps"] = (y, np.array([ramp[(r.height_mm, r.angle_deg)] for r in self.spec.ramps]))
        return out


def _fit_restitution(
    model: _Model, friction: float, damping: float
) -> tuple[float, float, float, bool, bool]:
    """(factor, low, high, reaches low end, reaches high end) of the surface's restitution factor."""
    cache: dict[float, float] = {}

    def dev(b: float) -> float:
        if b not in cache:
            cache[b] = deviance(model.groups_drops(PairFactors(friction, float(b), damping)))
        return cache[b]

    grid = np.linspace(*FACTOR_RANGE, RESTITUTION_GRID)
    vals = [dev(b) for b in grid]
    i = int(np.argmin(vals))
    lo_b, hi_b = grid[max(0, i - 1)], grid[min(len(grid) - 1, i + 1)]
    res = minimize_scalar(dev, bounds=(lo_b, hi_b), method="bounded", options={"xatol": 1e-3, "maxiter": 14})
    xs = np.array(sorted(cache))
    best = min(cache, key=lambda b: cache[b])
    if res.fun <= cache[best]:
        best = float(res.x)
    lo, hi, at_lo, at_hi = interval(xs, np.array([cache[x] for x in xs]))
    return best, lo, hi, at_lo, at_hi


def _fit_rolling(model: _Model, base: PairFactors) -> tuple[float, float, float, bool, bool]:
    """(arm, low, high, reaches low end, reaches high end) of the rolling resistance (mm), the roller's
    other values those of `base`."""
    cache: dict[float, float] = {}

    def dev(arm: float) -> float:
        arm = float(arm)
        if arm not in cache:
            f = PairFactors(base.friction, base.restitution_factor, base.contact_damping, arm)
            cache[arm] = deviance(model.groups_rolls(f))
        return cache[arm]

    grid = np.concatenate([[ARM_RANGE_MM[0]], np.geomspace(0.003, ARM_RANGE_MM[1], ROLL_GRID - 1)])
    vals = [dev(a) for a in grid]
    i = int(np.argmin(vals))
    lo_a, hi_a = grid[max(0, i - 1)], grid[min(len(grid) - 1, i + 1)]
    res = minimize_scalar(dev, bounds=(lo_a, hi_a), method="bounded", options={"xatol": 1e-3, "maxiter": 12})
    best = min(cache, key=lambda a: cache[a])
    if res.fun <= cache[best]:
        best = float(res.x)
    xs = np.array(sorted(cache))
    lo, hi, at_lo, at_hi = interval(xs, np.array([cache[x] for x in xs]))
    return best, lo, hi, at_lo, at_hi


def _one_sided(
    notes: list[str], name: str, at_lo: bool, at_hi: bool, lo: float, hi: float, where: str
) -> str:
    """ "both", or the side ("below" / "above") the rows bound a value on when its interval reaches one
    end of its range only; that case is noted (the bound is a result, the value written the best fit)."""
    bounded = "below" if at_hi else "above" if at_lo else "both"
    if bounded != "both":
        notes.append(
            f"{name}: the rows bound it {bounded} only ({'at least' if at_hi else 'at most'} "
            f"{lo if at_hi else hi:.3g}); the value written is the best fit {where}. "
            f"To pin it, add or vary {WHAT_IDENTIFIES[name]}"
        )
    return bounded


def _rate(d: float) -> float:
    return -math.log(max(1e-12, 1.0 - d))


def _damping(k: float) -> float:
    return 1.0 - math.exp(-k)


def _motion_grid(
    model: _Model,
    factor: float,
    mus: np.ndarray,
    ks: np.ndarray,
    cache: dict[tuple[float, float], float] | None = None,
) -> np.ndarray:
    """Deviance of the tilt and ramp rows over a grid of friction x damping rate (points in `cache`
    are not simulated again)."""
    cache = {} if cache is None else cache
    out = np.zeros((len(mus), len(ks)))
    for i, mu in enumerate(mus):
        for j, k in enumerate(ks):
            key = (float(mu), float(k))
            if key not in cache:
                f = PairFactors(float(mu), factor, _damping(float(k)))
                cache[key] = deviance(model.groups_motion(*model.slide_groups(f)))
            out[i, j] = cache[key]
    return out


def _extend(
    xs: np.ndarray, low: bool, high: bool, rng: tuple[float, float], steps: int = EXTEND_STEPS
) -> np.ndarray:
    """The grid with `steps` more points of its own spacing below and/or above it, within `rng`."""
    if len(xs) < 2:
        return xs
    h = float(xs[1] - xs[0])
    more = [float(xs[0] - h * s) for s in range(1, steps + 1) if low] + [
        float(xs[-1] + h * s) for s in range(1, steps + 1) if high
    ]
    more = [min(rng[1], max(rng[0], m)) for m in more]
    return np.unique(np.concatenate([xs, more]))


def _axis(
    fitted: bool, rng: tuple[float, float], n: int, current: float, geometric: bool = False
) -> np.ndarray:
    if not fitted:
        return np.array([current])
    return np.geomspace(*rng, n) if geometric else np.linspace(*rng, n)


def _profiles(mus: np.ndarray, ks: np.ndarray, dev: np.ndarray, fine: int = 161):
    """Fine-mesh profiles of a grid deviance (linear interpolation): (mu mesh, k mesh, dev mesh)."""
    mm = np.linspace(mus[0], mus[-1], fine) if len(mus) > 1 else mus
    km = np.linspace(ks[0], ks[-1], fine) if len(ks) > 1 else ks
    if len(mus) > 1 and len(ks) > 1:
        f = RegularGridInterpolator((mus, ks), dev)
        M, K = np.meshgrid(mm, km, indexing="ij")
        d = f(np.stack([M.ravel(), K.ravel()], axis=1)).reshape(M.shape)
    elif len(mus) > 1:
        d = np.interp(mm, mus, dev[:, 0])[:, None]
    else:
        d = np.interp(km, ks, dev[0, :])[None, :]
    return mm, km, d


def measured_pair(spec: MeasurementsSpec):
    """(die, base material table, the pair to fit) a measurements file names (what `dfsim calibrate` and
    `dfsim check` both resolve); SpecError when it names something unknown."""
    try:
        die = load_die(spec.die)
    except SpecError as exc:
        raise SpecError(spec.source, "die", exc.problem) from None
    try:
        base = MaterialTable.load(spec.materials, "material")
    except SpecError as exc:
        raise SpecError(spec.source, "materials", exc.problem) from None
    if spec.surface not in base.materials:
        raise SpecError(
            spec.source,
            "surface",
            f"unknown material '{spec.surface}' (materials of {spec.materials}: {', '.join(base.materials)})",
        )
    pair = base.pair(die.material, spec.surface)
    if pair is None:
        raise SpecError(
            spec.source,
            "surface",
            f"the base table {spec.materials} has no pair for '{die.material}' "
            f"and '{spec.surface}' to start from",
        )
    return die, base, pair


def calibrate(spec: MeasurementsSpec, progress: bool = False) -> CalibrationResult:
    """Fit the pair (the die's material, `spec.surface`) to the measurements; SpecError when the file
    names something unknown or the rows cannot identify a value to fit. `progress`: a count of the
    rig simulations on stderr (the adaptive search decides how many, so it has no total)."""
    die, base, pair = measured_pair(spec)
    fit: set[str] = set(spec.fit)
    need = {
        "restitution": bool(spec.drops),
        "friction": bool(spec.tilts or spec.ramps),
        "contact_damping": bool(spec.ramps),
        "rolling_resistance": bool(spec.rolls),
    }
    for name in PARAMETERS:
        if name in fit and not need[name]:
            kind = ROW_KIND[name]
            raise SpecError(
                spec.source,
                kind,
                f"{name} is not identifiable without {WHAT_IDENTIFIES[name]}; measure them "
                f"or leave {name} out of `fit`",
            )
    bar = WorkBar(None, "simulation", "calibrating (rig simulations)", enabled=progress, after_s=0, lazy=True)
    model = _Model(spec, die, base, bar)
    try:
        return _calibrate(spec, model, base, pair, fit)
    finally:
        bar.close()
        model.close()


def _calibrate(
    spec: MeasurementsSpec, model: _Model, base: MaterialTable, pair: PairSpec, fit: set[str]
) -> CalibrationResult:
    estimates: dict[str, Estimate] = {}
    kept: dict[str, float] = {}
    notes: list[str] = []
    mu0, d0 = pair.friction, pair.contact_damping

    # ---- stage 1: restitution from the drops
    if "restitution" in fit:
        factor, lo, hi, at_lo, at_hi = _fit_restitution(model, mu0, d0)
        e, e_lo, e_hi = (model.pair_restitution(x) for x in (factor, lo, hi))
        if at_lo or at_hi:
            raise _not_identified(
                spec,
                "restitution",
                e_lo,
                e_hi,
                (model.pair_restitution(FACTOR_RANGE[0]), model.pair_restitution(FACTOR_RANGE[1])),
            )
        estimates["restitution"] = Estimate("restitution", e, min(e_lo, e), max(e_hi, e))
    else:
        factor = model.rig.factor_for(pair.restitution, *FACTOR_RANGE)
        model.runs += 14
        kept["restitution"] = pair.restitution

    # ---- stage 2: friction and contact damping from the tilts and ramps
    fit_mu, fit_k = "friction" in fit, "contact_damping" in fit
    mu_hat, k_hat = mu0, _rate(d0)
    if fit_mu or fit_k:
        mus = _axis(fit_mu, FRICTION_RANGE, COARSE[0], mu0, geometric=True)
        ks = _axis(fit_k, RATE_RANGE, COARSE[1], _rate(d0))
        dev = _motion_grid(model, factor, mus, ks)
        for name, axis, rng, ok in (
            ("friction", 0, FRICTION_RANGE, fit_mu),
            ("contact_damping", 1, RATE_RANGE, fit_k),
        ):
            if not ok:
                continue
            prof = dev.min(axis=1 - axis)
            xs = mus if axis == 0 else ks
            lo, hi, at_lo, at_hi = interval(xs, prof)
            if at_lo and at_hi:
                conv = (lambda x: x) if axis == 0 else _damping
                raise _not_identified(spec, name, conv(lo), conv(hi), (conv(rng[0]), conv(rng[1])))
        # the fine grid: the coarse cells around every plausible coarse point
        plausible = dev - dev.min() <= CHI2_95
        ii, jj = np.nonzero(plausible)

        def span(xs: np.ndarray, idx: np.ndarray) -> tuple[float, float]:
            return float(xs[max(0, idx.min() - 1)]), float(xs[min(len(xs) - 1, idx.max() + 1)])

        mus2 = np.linspace(*span(mus, ii), FINE[0]) if fit_mu else mus
        ks2 = np.linspace(*span(ks, jj), FINE[1]) if fit_k else ks
        cache: dict[tuple[float, float], float] = {}
        axes = (("friction", 0, FRICTION_RANGE, fit_mu), ("contact_damping", 1, RATE_RANGE, fit_k))
        for attempt in range(EXTENSIONS + ZOOMS + 1):
            dev2 = _motion_grid(model, factor, mus2, ks2, cache)
            mm, km, d = _profiles(mus2, ks2, dev2)
            i, j = np.unravel_index(int(np.argmin(d)), d.shape)
            mu_hat, k_hat = float(mm[i]), float(km[j])
            found: dict[str, tuple[float, float, bool, bool]] = {}
            for name, axis, rng, ok in axes:
                if ok:
                    xs = mm if axis == 0 else km
                    lo, hi, at_lo, at_hi = interval(xs, d.min(axis=1 - axis))
                    # an end of the refined grid that is not the end of the range: the interval may go on
                    found[name] = (lo, hi, at_lo and xs[0] > rng[0] + 1e-9, at_hi and xs[-1] < rng[1] - 1e-9)
            open_ends = {n: v for n, v in found.items() if v[2] or v[3]}
            if attempt == EXTENSIONS + ZOOMS:
                break
            if open_ends:
                if "friction" in open_ends:
                    mus2 = _extend(mus2, open_ends["friction"][2], open_ends["friction"][3], FRICTION_RANGE)
                if "contact_damping" in open_ends:
                    ks2 = _extend(
                        ks2, open_ends["contact_damping"][2], open_ends["contact_damping"][3], RATE_RANGE
                    )
                continue
            # a grid coarser than the interval it draws: the interpolated profile places the minimum and
            # the interval ends between nodes it never simulated, so zoom in on the interval
            zoomed = False
            for name, axis, rng, ok in axes:
                xs = mus2 if axis == 0 else ks2
                lo, hi = found[name][:2] if ok else (0.0, 0.0)
                step = float(xs[1] - xs[0]) if len(xs) > 1 else 0.0
                if ok and step > (hi - lo) / ZOOM_NODES:
                    new = np.linspace(max(rng[0], lo - step), min(rng[1], hi + step), FINE[axis])
                    mus2, ks2 = (new, ks2) if axis == 0 else (mus2, new)
                    zoomed = True
            if not zoomed:
                break
        for name, axis, rng, ok in axes:
            if not ok:
                continue
            lo, hi, open_lo, open_hi = found[name]
            conv = (lambda x: x) if axis == 0 else _damping
            at_lo, at_hi = lo <= rng[0] + 1e-9, hi >= rng[1] - 1e-9
            if at_lo and at_hi:
                raise _not_identified(spec, name, conv(lo), conv(hi), (conv(rng[0]), conv(rng[1])))
            if open_lo or open_hi:
                notes.append(f"{name}: the interval reaches the edge of the refined grid; it may be wider")
            value = mu_hat if axis == 0 else k_hat
            # a saturating effect (a damping past which a run-out no longer shortens, a friction past
            # which the die tips before it slides): the rows give a bound, which is still a result
            bounded = _one_sided(notes, name, at_lo, at_hi, conv(lo), conv(hi), "on the grid")
            estimates[name] = Estimate(name, conv(value), conv(min(lo, value)), conv(max(hi, value)), bounded)
    if not fit_mu:
        kept["friction"] = mu0
    if not fit_k:
        kept["contact_damping"] = d0
    damping = _damping(k_hat) if fit_k else d0

    # ---- stage 3: rolling resistance from the rolls
    arm = pair.rolling_resistance_mm
    roller = None
    if model.roller is not None:
        e = estimates["restitution"].value if "restitution" in estimates else pair.restitution
        roller = PairFactors(mu_hat, model.roller_factor(e, mu_hat, damping), damping, arm)
    if "rolling_resistance" in fit and roller is not None:
        arm, lo, hi, at_lo, at_hi = _fit_rolling(model, roller)
        if at_lo and at_hi:
            raise _not_identified(spec, "rolling_resistance", lo, hi, ARM_RANGE_MM)
        bounded = _one_sided(notes, "rolling_resistance", at_lo, at_hi, lo, hi, "(a lever arm, mm)")
        estimates["rolling_resistance"] = Estimate(
            "rolling_resistance", arm, min(lo, arm), max(hi, arm), bounded
        )
    elif arm > 0.0 or spec.rolls:
        kept["rolling_resistance"] = arm

    # ---- the engine at the fitted values: residuals per row
    best = PairFactors(mu_hat, factor, damping)
    residuals: list[Residual] = []
    if spec.drops:
        y, pred = model.groups_drops(best)["drops"]
        residuals += [Residual("drops", i, float(a), float(b), "mm") for i, (a, b) in enumerate(zip(y, pred))]
    groups = model.groups_motion(*model.slide_groups(best))
    for kind, unit in (("tilts", "deg"), ("ramps", "mm")):
        if kind in groups:
            y, pred = groups[kind]
            residuals += [
                Residual(kind, i, float(a), float(b), unit) for i, (a, b) in enumerate(zip(y, pred))
            ]
    if roller is not None:
        y, pred = model.groups_rolls(PairFactors(roller.friction, roller.restitution_factor, damping, arm))[
            "rolls"
        ]
        residuals += [Residual("rolls", i, float(a), float(b), "mm") for i, (a, b) in enumerate(zip(y, pred))]
    values = {
        "friction": estimates["friction"].value if fit_mu else mu0,
        "restitution": estimates["restitution"].value if "restitution" in estimates else pair.restitution,
        "contact_damping": estimates["contact_damping"].value if fit_k else d0,
        "rolling_resistance": arm,
    }
    table = fitted_table(base, spec, pair, values, estimates)
    return CalibrationResult(spec, (pair.a, pair.b), estimates, kept, residuals, table, model.runs, notes)


def fitted_table(
    base: MaterialTable,
    spec: MeasurementsSpec,
    pair: PairSpec,
    values: dict[str, float],
    estimates: dict[str, Estimate],
) -> MaterialTable:
    """The base table with the fitted pair's values replaced (rounded to 3 decimals), named after the
    measurements."""
    new = {
        "a": pair.a,
        "b": pair.b,
        "friction": round(min(2.0, max(0.001, values["friction"])), 3),
        "restitution": round(min(1.0, max(0.0, values["restitution"])), 3),
        "contact_damping": round(min(1.0, max(0.0, values["contact_damping"])), 3),
        "rolling_resistance_mm": round(min(5.0, max(0.0, values.get("rolling_resistance", 0.0))), 4),
    }
    pairs = [new if p is pair else p.model_dump() for p in base.pairs]
    fitted = ", ".join(f"{e.name} {e.value:.3f} [{e.low:.3f}, {e.high:.3f}]" for e in estimates.values())
    notes = (
        f"{pair.a} on {pair.b} fitted by dfsim calibrate from {spec.source} (95 % intervals): {fitted}; "
        f"the other pairs are {base.name}'s."
    )
    return MaterialTable.from_dict(
        {
            "name": spec.name,
            "estimated": False,
            "notes": notes,
            "materials": list(base.materials),
            "pairs": pairs,
        },
        source=spec.source,
    )


def material_toml(table: MaterialTable) -> str:
    """A material table as a TOML file in the shipped format (loadable with `materials = PATH`)."""
    out = [f"# {line}" for line in _wrap(table.notes)] if table.notes else []
    out += [
        f"name = {_q(table.name)}",
        f"estimated = {'true' if table.estimated else 'false'}",
        f"notes = {_q(table.notes)}",
        "materials = [" + ", ".join(_q(m) for m in table.materials) + "]",
    ]
    for p in table.pairs:
        out += [
            "",
            "[[pairs]]",
            f"a = {_q(p.a)}",
            f"b = {_q(p.b)}",
            f"friction = {p.friction!r}",
            f"restitution = {p.restitution!r}",
        ]
        if p.contact_damping:
            out.append(f"contact_damping = {p.contact_damping!r}")
        if p.rolling_resistance_mm:
            out.append(f"rolling_resistance_mm = {p.rolling_resistance_mm!r}")
    return "\n".join(out) + "\n"


def _q(text: str) -> str:
    import json

    return json.dumps(text, ensure_ascii=False)  # a TOML basic string is a JSON string


def _wrap(text: str, width: int = 100) -> list[str]:
    import textwrap

    return textwrap.wrap(text, width)
