"""`dfsim fit-skill`: the skill that best explains a tally of real throws (sim/specs/tally.py).

A skill is a set of release spreads (sim/specs/skill.py). Fitting seven spreads to one tally is
hopeless, so the fit keeps the *shape* of a base skill and finds one scale s for all its spreads
(s = 1: the base skill; 2: twice as spread), plus an aim bias (speed and azimuth) where the tallied
miss directions support one.

Likelihood: the tally is a multinomial over categories: hits (per section value when the tally has
them), misses per listed reason, "other" for the rest; and, given an off-board miss, its direction.
The category probabilities at a candidate skill are the shares among `simulated_throws` simulated
throws (plus half a throw per category, so no share is zero). Every candidate throws the *same*
draws (common random numbers: throw k of the tally's seed, `Draw.for_throw(seed, k)`, with the
candidate's spreads), so the likelihood curve over s is smooth and its differences are not noise.

Intervals: profile likelihood, {s: D(s) - D_min <= 3.84 (1 + n / N)}, D = -2 log L, n the tallied
throws and N the simulated ones: the simulated shares are estimates too, and their variance adds to
the tally's in the ratio n / N. The scale is searched on a geometric grid over `SCALE_RANGE` (its
minimum refined by a parabola through the three best points in log s); a scale whose interval
reaches an end of the range is refused (the base skill scaled that far cannot explain the tally).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sim.engine.worlds import build_thrower
from sim.errors import SpecError
from sim.experiments.progress import WorkBar
from sim.seeding import Draw
from sim.specs.scenario import Scenario
from sim.specs.skill import SPREADS, SkillSpec
from sim.specs.tally import TallySpec
from sim.studies.calibration import interval

CHI2_95 = 3.841
SCALE_RANGE = (0.25, 3.0)
SCALE_GRID = 6  # coarse, geometric
FINE_GRID = 5  # between the coarse neighbours of the best coarse scale
SPEED_BIAS_GRID = tuple(np.linspace(-0.12, 0.12, 7))  # speed_bias_frac candidates
AZIMUTH_BIAS_GRID = tuple(np.linspace(-6.0, 6.0, 7))  # azimuth_bias_deg candidates
MIN_DIRECTIONS = 6  # tallied misses on an axis (short + long, left + right) before its bias is fitted


def scaled_skill(
    base: SkillSpec,
    scale: float,
    speed_bias: float = 0.0,
    azimuth_bias: float = 0.0,
    name: str | None = None,
    notes: str = "",
) -> SkillSpec:
    """The base skill with every spread times `scale` (each held within its bound) and the given biases."""
    data = base.model_dump()
    for f in SPREADS:
        hi = SkillSpec.model_fields[f].metadata
        bound = next((m.le for m in hi if hasattr(m, "le")), float("inf"))
        data[f] = float(min(bound, round(data[f] * scale, 4)))
    data.update(
        name=name or base.name,
        speed_bias_frac=round(float(speed_bias), 4),
        azimuth_bias_deg=round(float(azimuth_bias), 3),
        notes=notes or base.notes,
    )
    return SkillSpec.from_dict(data, source=base.source)


def direction(position_mm: list[float]) -> str:
    """Where a die that left the board ended, as the thrower (on -x, throwing toward +x) sees it."""
    x, y = position_mm[0], position_mm[1]
    if abs(x) >= abs(y):
        return "long" if x > 0 else "short"
    return "left" if y > 0 else "right"


@dataclass
class Candidate:
    """One candidate skill's simulated shares and its deviance against the tally."""

    scale: float
    speed_bias: float
    azimuth_bias: float
    counts: dict[str, int]
    directions: dict[str, int]
    deviance: float


@dataclass
class Bias:
    """A fitted aim bias and its interval; `used` when the interval excludes no bias (0)."""

    name: str
    value: float
    low: float
    high: float
    used: bool


@dataclass
class SkillFit:
    """What `fit_skill` found."""

    tally: TallySpec
    skill: SkillSpec
    scale: float
    low: float
    high: float
    biases: list[Bias]
    best: Candidate
    simulated: int
    throws_per_candidate: int
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The fit as plain JSON types."""
        return {
            "tally": self.tally.source,
            "base_skill": self.tally.base_skill,
            "scale": self.scale,
            "interval": [self.low, self.high],
            "biases": [b.__dict__ for b in self.biases],
            "skill": self.skill.model_dump(),
            "simulated_throws": self.simulated,
            "throws_per_candidate": self.throws_per_candidate,
            "categories": _table(self.tally, self.best),
            "notes": self.notes,
        }

    def report(self) -> str:
        """Plain text: the scale with its interval, biases, and tallied against simulated shares."""
        t = self.tally
        lines = [
            f"{t.name}: {t.throws} throws of {t.shot} on {t.board} with {t.die} "
            f"({self.simulated} simulated throws, {self.throws_per_candidate} per candidate)",
            f"  spread scale of {t.base_skill}: {self.scale:.3f}   95 % interval {self.low:.3f} - "
            f"{self.high:.3f}",
        ]
        for b in self.biases:
            state = "used" if b.used else "not supported by the tally (interval holds 0): written as 0"
            lines.append(
                f"  {b.name}: {b.value:+.3f}   95 % interval {b.low:+.3f} - {b.high:+.3f}   ({state})"
            )
        lines.append(f"  {'category':<16} {'tally':>7} {'engine':>8}")
        for row in _table(t, self.best):
            lines.append(f"  {row['category']:<16} {row['tally']:>7.1%} {row['engine']:>8.1%}")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def _tally_counts(t: TallySpec) -> tuple[dict[str, int], dict[str, int]]:
    """The tally as category counts, and its off-board directions."""
    cats: dict[str, int] = {}
    if t.hits_by_value:
        cats.update({f"hit:{int(k)}": v for k, v in t.hits_by_value.items()})
    else:
        cats["hit"] = t.hits
    cats.update({r: v for r, v in t.misses.items()})
    return cats, {str(k): v for k, v in t.miss_directions.items()}


def _category(o, t: TallySpec) -> str:
    if o.result == "hit":
        return f"hit:{o.value}" if t.hits_by_value else "hit"
    return o.reason if o.reason in t.misses and o.reason != "other" else "other"


def _table(t: TallySpec, c: Candidate) -> list[dict[str, Any]]:
    cats, _ = _tally_counts(t)
    n_sim = sum(c.counts.values())
    keys = sorted(set(cats) | set(c.counts), key=lambda k: (not k.startswith("hit"), k))
    return [
        {"category": k, "tally": cats.get(k, 0) / t.throws, "engine": c.counts.get(k, 0) / max(1, n_sim)}
        for k in keys
    ]


def deviance(t: TallySpec, counts: dict[str, int], directions: dict[str, int]) -> float:
    """-2 log L of the tally under simulated category counts (half a throw added per category)."""
    cats, dirs = _tally_counts(t)
    n_sim = sum(counts.values())
    k = sum(1 for v in cats.values() if v > 0) + 1
    ll = sum(v * math.log((counts.get(c, 0) + 0.5) / (n_sim + 0.5 * k)) for c, v in cats.items() if v > 0)
    off = sum(directions.values())
    ll += sum(v * math.log((directions.get(d, 0) + 0.5) / (off + 2.0)) for d, v in dirs.items() if v > 0)
    return -2.0 * ll


def tally_scenario(t: TallySpec) -> Scenario:
    """The scene a tally was thrown in (what `dfsim fit-skill` and `dfsim check` both build)."""
    try:
        return Scenario.build(
            board=t.board,
            dice=[t.die],
            shots=[t.shot],
            skill=t.base_skill,
            materials=t.materials,
            source=t.source,
        )
    except SpecError as exc:
        raise SpecError(t.source, exc.field or "", exc.problem) from None


class _Simulator:
    """One world for the tally's scene; the same draws for every candidate skill."""

    def __init__(self, t: TallySpec, n: int, seed: int, bar: WorkBar | None = None) -> None:
        sc = tally_scenario(t)
        self.tally, self.scenario = t, sc
        self.thrower = build_thrower(sc)
        if bar is not None:  # each candidate skill is re-aimed: seconds of reference throws, on the bar
            self.thrower.aim.progress = bar.aiming
        self.n, self.seed = n, seed
        self.bar = bar
        self.simulated = 0
        self._cache: dict[tuple[float, float, float], Candidate] = {}

    def candidate(self, scale: float, speed_bias: float = 0.0, azimuth_bias: float = 0.0) -> Candidate:
        key = (round(scale, 6), round(speed_bias, 6), round(azimuth_bias, 6))
        if key in self._cache:
            return self._cache[key]
        skill = scaled_skill(self.scenario.skill, scale, speed_bias, azimuth_bias)
        th = self.thrower
        counts: Counter[str] = Counter()
        dirs: Counter[str] = Counter()
        for k in range(self.n):
            releases = th.release_for(Draw.for_throw(self.seed, k), skill=skill)
            o = th.replay(releases, self.seed, k, skill).outcome
            counts[_category(o, self.tally)] += 1
            if o.result != "hit" and o.reason == "off-board":
                dirs[direction(o.position_mm)] += 1
            if self.bar is not None:
                self.bar.update()
        self.simulated += self.n
        c = Candidate(
            scale, speed_bias, azimuth_bias, dict(counts), dict(dirs), deviance(self.tally, counts, dirs)
        )
        self._cache[key] = c
        return c

    def close(self) -> None:
        self.thrower.physics.close()


def _parabola_min(xs: np.ndarray, ys: np.ndarray) -> float:
    """The minimum of a parabola through the best grid point and its neighbours (the grid point at an end)."""
    i = int(np.argmin(ys))
    if i == 0 or i == len(xs) - 1:
        return float(xs[i])
    x0, x1, x2 = xs[i - 1 : i + 2]
    y0, y1, y2 = ys[i - 1 : i + 2]
    den = (x0 - x1) * (x0 - x2) * (x1 - x2)
    a = (x2 * (y1 - y0) + x1 * (y0 - y2) + x0 * (y2 - y1)) / den
    b = (x2 * x2 * (y0 - y1) + x1 * x1 * (y2 - y0) + x0 * x0 * (y1 - y2)) / den
    return float(np.clip(-b / (2 * a), x0, x2)) if a > 0 else float(x1)


def _scale_curve(sim: _Simulator, grid: np.ndarray, sb: float, ab: float, threshold: float, fine: int):
    """(best scale, low, high, reaches low end, reaches high end) from the coarse grid, then `fine` more
    scales between the coarse neighbours of its best one; the deviance near the minimum is a
    parabola in log s fitted to the refined points (linear interpolation if that is not convex)."""
    logs = np.log(grid)
    dev = np.array([sim.candidate(float(s), sb, ab).deviance for s in grid])
    i = int(np.argmin(dev))
    a, b = logs[max(0, i - 1)], logs[min(len(logs) - 1, i + 1)]
    extra = np.linspace(a, b, fine + 2)[1:-1]
    xs = np.unique(np.concatenate([logs, extra]))
    ds = np.array([sim.candidate(float(math.exp(x)), sb, ab).deviance for x in xs])
    near = (xs >= a - 1e-12) & (xs <= b + 1e-12)
    coef = np.polyfit(xs[near], ds[near], 2)
    lo_end, hi_end = logs[0], logs[-1]
    if coef[0] > 0:
        x0 = float(np.clip(-coef[1] / (2 * coef[0]), lo_end, hi_end))
        r = math.sqrt(threshold / coef[0])
        lo, hi = x0 - r, x0 + r
        return math.exp(x0), math.exp(max(lo, lo_end)), math.exp(min(hi, hi_end)), lo <= lo_end, hi >= hi_end
    best = math.exp(_parabola_min(xs, ds))
    lo, hi, at_lo, at_hi = interval(xs, ds, threshold)
    return best, math.exp(lo), math.exp(hi), at_lo, at_hi


def fit_skill(
    t: TallySpec,
    throws: int | None = None,
    seed: int | None = None,
    grid: int = SCALE_GRID,
    fine: int = FINE_GRID,
    progress: bool = False,
) -> SkillFit:
    """Fit the spread scale of the tally's base skill (and aim biases its directions support);
    `progress`: a bar of the simulated throws on stderr, the first pass's candidates as its total."""
    n = int(throws or t.simulated_throws)
    d = {str(k): v for k, v in t.miss_directions.items()}
    biased = sum(
        len(g)
        for axis, g in ((("short", "long"), SPEED_BIAS_GRID), (("right", "left"), AZIMUTH_BIAS_GRID))
        if d.get(axis[0], 0) + d.get(axis[1], 0) >= MIN_DIRECTIONS
    )
    bar = WorkBar((grid + fine + biased + 1) * n, "throw", "fitting the skill", enabled=progress)
    sim = _Simulator(t, n, t.seed if seed is None else int(seed), bar)
    try:
        return _fit(t, sim, n, grid, fine)
    finally:
        bar.close()
        sim.close()


def _fit(t: TallySpec, sim: _Simulator, n: int, grid_n: int, fine: int) -> SkillFit:
    threshold = CHI2_95 * (1.0 + t.throws / n)
    grid = np.geomspace(*SCALE_RANGE, grid_n)
    notes: list[str] = []
    scale, lo, hi, at_lo, at_hi = _scale_curve(sim, grid, 0.0, 0.0, threshold, fine)
    _refuse_scale(t, lo, hi, at_lo, at_hi)
    biases: list[Bias] = []
    sb = ab = 0.0
    d: dict[str, int] = {str(k): v for k, v in t.miss_directions.items()}
    for name, axis, values in (
        ("speed_bias_frac", ("short", "long"), SPEED_BIAS_GRID),
        ("azimuth_bias_deg", ("right", "left"), AZIMUTH_BIAS_GRID),
    ):
        if d.get(axis[0], 0) + d.get(axis[1], 0) < MIN_DIRECTIONS:
            continue
        xs = np.array(values)
        devs = np.array(
            [
                sim.candidate(
                    scale,
                    float(x) if name.startswith("speed") else sb,
                    float(x) if name.startswith("azimuth") else 0.0,
                ).deviance
                for x in xs
            ]
        )
        v = _parabola_min(xs, devs)
        b_lo, b_hi, e_lo, e_hi = interval(xs, devs, threshold)
        used = not (b_lo <= 0.0 <= b_hi)
        if e_lo or e_hi:
            notes.append(
                f"{name}: the interval reaches the end of the searched range ({xs[0]:g} - {xs[-1]:g})"
            )
        biases.append(Bias(name, v, b_lo, b_hi, used))
        if used and name.startswith("speed"):
            sb = v
        elif used:
            ab = v
    if sb or ab:  # the scale again, with the biases the tally supports
        if sim.bar is not None:
            sim.bar.add((grid_n + fine) * n)
        scale, lo, hi, at_lo, at_hi = _scale_curve(sim, grid, sb, ab, threshold, fine)
        _refuse_scale(t, lo, hi, at_lo, at_hi)
    best = sim.candidate(scale, sb, ab)
    base = sim.scenario.skill
    text = (
        f"fitted by dfsim fit-skill to {t.throws} throws of {t.shot} ({t.source}): {base.name}'s spreads x "
        f"{scale:.3f} (95 % interval {lo:.3f} - {hi:.3f}), {n} simulated throws per candidate"
    )
    skill = scaled_skill(base, scale, sb, ab, name=t.name, notes=text)
    skill = SkillSpec.from_dict({**skill.model_dump(), "estimated": False}, source=t.source)
    return SkillFit(t, skill, scale, min(lo, scale), max(hi, scale), biases, best, sim.simulated, n, notes)


def _refuse_scale(t: TallySpec, lo: float, hi: float, at_lo: bool, at_hi: bool) -> None:
    if at_lo and at_hi:
        raise SpecError(
            t.source,
            "throws",
            f"the spread is not identifiable from this tally: every scale from "
            f"{lo:.2f} to {hi:.2f} explains it as well (tally more throws)",
        )
    if at_lo or at_hi:
        side = "tighter" if at_lo else "wider"
        raise SpecError(
            t.source,
            "hits",
            f"the tally needs a thrower {side} than {t.base_skill} scaled "
            f"{SCALE_RANGE[0] if at_lo else SCALE_RANGE[1]}x (interval {lo:.2f} - {hi:.2f}); "
            f"pick another base_skill",
        )


def skill_toml(skill: SkillSpec) -> str:
    """A skill as a TOML file in the shipped format (usable with --skill PATH and in experiments)."""
    import json
    import textwrap

    out = [f"# {line}" for line in textwrap.wrap(skill.notes, 100)]
    out += [
        f"name = {json.dumps(skill.name)}",
        f"estimated = {'true' if skill.estimated else 'false'}",
        f"notes = {json.dumps(skill.notes, ensure_ascii=False)}",
    ]
    for f in (*SPREADS, "speed_bias_frac", "azimuth_bias_deg"):
        out.append(f"{f} = {getattr(skill, f)!r}")
    return "\n".join(out) + "\n"
