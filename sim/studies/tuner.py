"""The tuner: which value of a setting gives a target success rate, with an interval on the answer.

A designer asks "which monster life makes this fight a coin flip?" or "at which throw distance does
a casual player hit 30 % of the time?". Both are roots of a monotone *stochastic* response: at a
setting value x, n trials give Bernoulli outcomes with rate p(x), and we want x* with p(x*) = target.

The response is any callable `evaluate(value, n, seed) -> (successes, trials)` that uses **common
random numbers**: the same seed gives the same underlying draws at every value. The tuner exploits
that, and this is the whole design:

- Trials come in *batches* with a fixed schedule: batch b has a fixed size and a seed derived from
  (root seed, b) only. A value at stage s has batches 0..s, that is N_s = n0 * 2**s trials; extending
  a value adds its next batch, it never re-runs one (and never re-evaluates a value as a fresh point).
  So every value compared at stage s saw exactly the same draws.
- On the same draws a monotone response is (nearly) monotone per draw, so the rates at stage s form
  one empirical curve. Bisection on that curve (not on independent noisy samples) is a deterministic
  search; its only uncertainty is that of N_s draws, which doubling N_s reduces.
- Each explored value is classified by its Wilson interval: *below* (the interval lies under the
  target), *plausible* (it contains the target) or *above*. The confidence interval on the answer is
  the hull of the values that are not excluded: from the largest excluded value on the low side to
  the smallest excluded value on the high side (test inversion). The search bisects the gaps at the
  two ends of that hull while they dominate its width, and doubles N once the plausible stretch
  itself dominates, extending the hull's ends and the outermost values inside it (values further
  in cannot widen the hull, whatever their n). It stops when the interval is within
  answer +- tolerance, its ends measured at the current N, or before a step would overspend the
  budget.
- The answer is the crossing of an isotonic (pool-adjacent-violators) fit of the rates, linearly
  interpolated between the two explored values around the target; for an integer setting, the
  integer next to that crossing whose fitted rate is closest to the target.

Why the interval is honest: if x* lay outside [lo, hi], some value on the wrong side of x* would
have been excluded; with common random numbers and a per-draw monotone response, its rate is at
least as extreme as the rate at x* itself on the same draws, so the Wilson test *at x** would reject
too. Coverage is therefore at least Wilson's (nominal 95 %, each side 2.5 %); the hull only adds
margin (gaps between explored values). Without per-draw monotonicity (chaotic physics) the same
hull is a union of one-sided Wilson tests near x*, still close to nominal. The tests measure it.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sim.errors import NotBracketedError, SpecError
from sim.experiments.statistics import CONFIDENCE, Rate, wilson

Evaluate = Callable[[Any, int, int], tuple[int, int]]

STOP_TOLERANCE = "tolerance"
STOP_BUDGET = "budget"
METHOD = (
    "staged bisection on common random numbers (batches shared by every value, N doubled per stage); "
    "answer: isotonic fit, linear interpolation at the target; "
    "interval: Wilson test inversion (hull of the values not excluded)"
)
_BELOW, _PLAUSIBLE, _ABOVE = -1, 0, 1
_LABEL = {_BELOW: "below", _PLAUSIBLE: "plausible", _ABOVE: "above"}


@dataclass(frozen=True)
class TunePoint:
    """One explored value: its trials and Wilson interval, and where it lies against the target."""

    value: float | int
    rate: Rate
    side: str  # below / plausible / above the target
    fit: float  # the isotonic fit at this value (what the answer is read from)

    def to_json(self) -> dict:
        """One row of `points` in tune.json."""
        r = self.rate.as_dict()
        return {
            "value": self.value,
            "n": r["n"],
            "successes": r["count"],
            "rate": r["rate"],
            "lo": r["lo"],
            "hi": r["hi"],
            "side": self.side,
            "fit": self.fit,
        }


@dataclass
class TuneResult:
    """What `tune` found; `interval` is (lo, hi) at `confidence`, `stop` says why it stopped."""

    setting: str
    metric: str
    target: float
    answer: float | int
    interval: tuple[float, float] | tuple[int, int]
    interval_at_edge: tuple[bool, bool]  # an end is the range edge because the edge was not excluded
    answer_rate: float  # fitted rate at the answer
    direction: str  # increasing / decreasing / unknown
    integer: bool
    range: tuple[float, float]
    tolerance: float
    confidence: float
    budget: int
    trials: int
    final_n: int
    initial_n: int
    seed: int
    stop: str
    method: str
    points: list[TunePoint]
    batch_seeds: list[int]
    notes: list[str] = field(default_factory=list)
    context: dict[str, Any] = field(
        default_factory=dict
    )  # what the caller tuned (e.g. the fight), for tune.json

    @property
    def half_width(self) -> float:
        return max(self.answer - self.interval[0], self.interval[1] - self.answer)

    def to_json(self) -> dict:
        """The content of tune.json (non-finite numbers as null)."""

        def num(v):
            return None if isinstance(v, float) and not math.isfinite(v) else v

        return {
            "setting": self.setting,
            "metric": self.metric,
            "target": self.target,
            "answer": self.answer,
            "interval": list(self.interval),
            "interval_at_edge": list(self.interval_at_edge),
            "half_width": num(self.half_width),
            "answer_rate": num(self.answer_rate),
            "direction": self.direction,
            "integer": self.integer,
            "range": list(self.range),
            "tolerance": self.tolerance,
            "confidence": self.confidence,
            "budget": self.budget,
            "trials": self.trials,
            "final_n": self.final_n,
            "initial_n": self.initial_n,
            "seed": self.seed,
            "stop": self.stop,
            "method": self.method,
            "notes": list(self.notes),
            "points": [p.to_json() for p in self.points],
            "batch_seeds": list(self.batch_seeds),
        } | ({"context": dict(self.context)} if self.context else {})

    def summary_line(self) -> str:
        """The answer, its interval and what was spent, in one line."""
        lo, hi = self.interval
        edge = ", reaching the range edge" if any(self.interval_at_edge) else ""
        fmt = "{:d}" if self.integer else "{:.6g}"
        return (
            f"{self.setting} = {fmt.format(self.answer)} [{fmt.format(lo)}, {fmt.format(hi)}] "
            f"for {self.metric} {self.target:g} ({100 * self.confidence:g} % interval{edge}); "
            f"stopped on {self.stop} after {self.trials} of {self.budget} trials"
        )


@dataclass
class _Point:
    value: float | int
    successes: list[int] = field(default_factory=list)
    trials: list[int] = field(default_factory=list)

    @property
    def n(self) -> int:
        return sum(self.trials)

    @property
    def k(self) -> int:
        return sum(self.successes)


class _BudgetSpent(Exception):
    pass


def tune(
    evaluate: Evaluate,
    lo: float,
    hi: float,
    target: float,
    *,
    integer: bool = False,
    tolerance: float | None = None,
    budget: int = 10_000,
    initial_n: int = 64,
    seed: int = 0,
    confidence: float = CONFIDENCE,
    increasing: bool | None = None,
    setting: str = "value",
    metric: str = "rate",
) -> TuneResult:
    """Find the value in [lo, hi] whose success rate is `target` (see the module docstring).

    `tolerance` is the wanted half-width: stop once the interval lies within answer +- tolerance
    (default: 1 for an integer setting, 1 % of the range otherwise). `budget` caps the total trials.
    `increasing` fixes the direction (default: read from the range ends). Raises NotBracketedError
    when both ends of the range are clearly on the same side of the target.
    """
    return _Search(
        evaluate,
        lo,
        hi,
        target,
        integer=integer,
        tolerance=tolerance,
        budget=budget,
        initial_n=initial_n,
        seed=seed,
        confidence=confidence,
        increasing=increasing,
        setting=setting,
        metric=metric,
    ).run()


class _Search:
    def __init__(
        self,
        evaluate,
        lo,
        hi,
        target,
        *,
        integer,
        tolerance,
        budget,
        initial_n,
        seed,
        confidence,
        increasing,
        setting,
        metric,
    ) -> None:
        src = f"tune {setting}"
        if not (isinstance(target, (int, float)) and 0.0 < target < 1.0):
            raise SpecError(src, "target", f"must be a rate strictly between 0 and 1, got {target}")
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise SpecError(src, "range", f"need finite LO < HI, got {lo}:{hi}")
        if integer and (lo != int(lo) or hi != int(hi)):
            raise SpecError(src, "range", f"an integer setting needs integer ends, got {lo}:{hi}")
        if tolerance is None:
            tolerance = 1.0 if integer else 0.01 * (hi - lo)
        if not (tolerance > 0 and math.isfinite(tolerance)):
            raise SpecError(src, "tolerance", f"must be positive, got {tolerance}")
        if integer and tolerance < 1:
            raise SpecError(src, "tolerance", "an integer answer cannot be pinned closer than +-1")
        if int(initial_n) < 1:
            raise SpecError(src, "initial_n", f"must be at least 1, got {initial_n}")
        if int(budget) < 2 * int(initial_n):
            raise SpecError(
                src, "budget", f"must allow both range ends at {initial_n} trials (at least {2 * initial_n})"
            )
        if not 0.0 < confidence < 1.0:
            raise SpecError(src, "confidence", f"must lie in (0, 1), got {confidence}")
        self.evaluate = evaluate
        self.integer = bool(integer)
        self.lo = int(lo) if integer else float(lo)
        self.hi = int(hi) if integer else float(hi)
        self.target = float(target)
        self.tol = float(tolerance)
        self.budget = int(budget)
        self.n0 = int(initial_n)
        self.seed = int(seed)
        self.conf = float(confidence)
        self.increasing = increasing
        self.setting, self.metric, self.src = setting, metric, src
        self.points: dict[float | int, _Point] = {}
        self.used = 0
        self.stage = 0
        self._seeds: list[int] = []

    # ------------------------------------------------------------ batches and evaluation ----
    def batch_size(self, b: int) -> int:
        return self.n0 if b == 0 else self.n0 << (b - 1)

    def batch_seed(self, b: int) -> int:
        while len(self._seeds) <= b:
            ss = np.random.SeedSequence(self.seed, spawn_key=(len(self._seeds),))
            self._seeds.append(int(ss.generate_state(1, dtype=np.uint32)[0]))
        return self._seeds[b]

    def bring(self, value) -> None:
        """Give `value` every batch up to the current stage (new batches only); raise _BudgetSpent first
        if that would overspend, so no value is ever left half-extended."""
        p = self.points.get(value)
        have = len(p.trials) if p else 0
        cost = sum(self.batch_size(b) for b in range(have, self.stage + 1))
        if cost == 0:
            return
        if self.used + cost > self.budget:
            raise _BudgetSpent
        if p is None:
            p = self.points[value] = _Point(value)
        for b in range(have, self.stage + 1):
            k, t = self.evaluate(value, self.batch_size(b), self.batch_seed(b))
            k, t = int(k), int(t)
            if t < 1 or not 0 <= k <= t:
                raise SpecError(
                    self.src,
                    "evaluate",
                    f"returned ({k}, {t}) at {value}: need 0 <= successes <= trials, trials >= 1",
                )
            p.successes.append(k)
            p.trials.append(t)
            self.used += t

    # ------------------------------------------------------------ classification ----
    def rate(self, value) -> Rate:
        p = self.points[value]
        return wilson(p.k, p.n, self.conf)

    def raw_side(self, value) -> int:
        r = self.rate(value)
        return _BELOW if r.hi < self.target else _ABOVE if r.lo > self.target else _PLAUSIBLE

    def side(self, value) -> int:
        """-1: on the low-value side of the crossing, +1: the high-value side, 0: not excluded."""
        s = self.raw_side(value)
        return s if self.increasing is not False else -s

    def check_bracket(self) -> None:
        a, b = self.raw_side(self.lo), self.raw_side(self.hi)
        if a == b != _PLAUSIBLE:
            self._not_bracketed("both range ends are {} it".format("below" if a == _BELOW else "above"))
        if self.increasing is not None and (self.side(self.lo) == _ABOVE or self.side(self.hi) == _BELOW):
            word = "increasing" if self.increasing else "decreasing"
            self._not_bracketed(f"the response does not cross it {word} over the range")

    def _not_bracketed(self, why: str) -> None:
        def fmt(v):
            r = self.rate(v)
            return f"{r.rate:.3f} [{r.lo:.3f}, {r.hi:.3f}] at {v} (n={r.n})"

        raise NotBracketedError(
            self.src,
            "",
            f"target {self.metric} {self.target:g} is not inside the response over "
            f"[{self.lo}, {self.hi}]: {why}; {fmt(self.lo)}, {fmt(self.hi)}",
        )

    def settle_direction(self) -> bool:
        if self.increasing is not None:
            return True
        a, b = self.raw_side(self.lo), self.raw_side(self.hi)
        if a == _BELOW or b == _ABOVE:
            self.increasing = True
        elif a == _ABOVE or b == _BELOW:
            self.increasing = False
        return self.increasing is not None

    def bounds(self) -> tuple[Any, Any, list]:
        """(L, U, inside): the excluded values that bound the hull of the non-excluded ones (None: the
        range edge is not excluded), and the explored values between them (with such an edge)."""
        xs = sorted(self.points)
        sides = {x: self.side(x) for x in xs}
        first_not_low = min(x for x in xs if sides[x] != _BELOW)
        last_not_high = max(x for x in xs if sides[x] != _ABOVE)
        low = max((x for x in xs if sides[x] == _BELOW and x < first_not_low), default=None)
        high = min((x for x in xs if sides[x] == _ABOVE and x > last_not_high), default=None)
        a = self.lo if low is None else low
        b = self.hi if high is None else high
        inside = [x for x in xs if a < x < b or (x == a and low is None) or (x == b and high is None)]
        return low, high, inside

    # ------------------------------------------------------------ the answer ----
    def fit(self) -> tuple[list, np.ndarray]:
        """Isotonic fit (in the response's direction) of the explored rates, weighted by n."""
        xs = sorted(self.points)
        y = np.array([self.points[x].k / self.points[x].n for x in xs])
        w = np.array([self.points[x].n for x in xs], dtype=float)
        sign = -1.0 if self.increasing is False else 1.0
        return xs, sign * _isotonic(sign * y, w)

    def crossing(self, xs: list, f: np.ndarray) -> float:
        sign = -1.0 if self.increasing is False else 1.0
        g, t = sign * f, sign * self.target
        at = np.flatnonzero(g >= t)
        if at.size == 0:
            return float(xs[-1])
        i = int(at[0])
        if i == 0:
            return float(xs[0])
        if g[i] == t:  # a run of fitted values exactly at the target: its middle
            j = i
            while j + 1 < len(xs) and g[j + 1] == t:
                j += 1
            return 0.5 * (xs[i] + xs[j])
        x0, x1, g0, g1 = xs[i - 1], xs[i], g[i - 1], g[i]
        return float(x0 + (t - g0) * (x1 - x0) / (g1 - g0))

    def answer(self, a, b) -> tuple[float | int, float]:
        xs, f = self.fit()
        xc = min(max(self.crossing(xs, f), a), b)
        if not self.integer:
            return xc, float(np.interp(xc, xs, f))
        cands = sorted({math.floor(xc), math.ceil(xc)})
        best = min(cands, key=lambda k: (abs(float(np.interp(k, xs, f)) - self.target), abs(k - xc), k))
        return int(best), float(np.interp(best, xs, f))

    def midpoint(self, a, b):
        if self.integer:
            return (a + b) // 2 if b - a >= 2 else None
        return 0.5 * (a + b)

    # ------------------------------------------------------------ the search ----
    def run(self) -> TuneResult:
        stop = STOP_BUDGET
        self.bring(self.lo)
        self.bring(self.hi)
        try:
            while True:
                self.check_bracket()
                if not self.settle_direction():
                    self.stage += 1  # both ends plausible: more draws before anything else
                    self.bring(self.lo)
                    self.bring(self.hi)
                    continue
                low, high, inside = self.bounds()
                a = self.lo if low is None else low
                b = self.hi if high is None else high
                ans, _ = self.answer(a, b)
                behind = [
                    x
                    for x in self.key_values(low, high, inside, ans)
                    if len(self.points[x].trials) <= self.stage
                ]
                if max(ans - a, b - ans) <= self.tol and not any(x in behind for x in (low, high)):
                    stop = STOP_TOLERANCE
                    break
                if behind:
                    self.bring(behind[0])  # then look again: the hull may have moved
                    continue
                act = self.next_value(low, high, inside)
                if act is not None:
                    self.bring(act)
                    continue
                self.stage += 1  # the plausible stretch dominates: double N
        except _BudgetSpent:
            stop = STOP_BUDGET
        if self.integer:
            self.finish_integer()
        return self.result(stop)

    def key_values(self, low, high, inside: list, ans) -> list:
        """The values that must share the current N: the hull's ends (the coverage argument compares
        them with the crossing on the same draws) and the outermost values inside (the next ends if
        they turn out excluded). Values further in need not: they cannot widen the hull."""
        keys = [x for x in (low, high) if x is not None]
        if not inside:
            return keys
        keys += [inside[0], inside[-1]]
        return list(dict.fromkeys(keys))

    def next_value(self, low, high, inside):
        """A new value to bisect a hull-end gap, or None when the plausible stretch dominates (more N)."""
        if not inside:
            return self.midpoint(low, high)
        spread = inside[-1] - inside[0]
        gaps = []
        if low is not None:
            gaps.append((inside[0] - low, low, inside[0]))
        if high is not None:
            gaps.append((high - inside[-1], inside[-1], high))
        gaps = [g for g in gaps if self.midpoint(g[1], g[2]) is not None]
        if not gaps:
            return None
        width, a, b = max(gaps, key=lambda g: g[0])
        if width > 0.5 * max(spread, self.tol):
            return self.midpoint(a, b)
        return None

    def finish_integer(self) -> None:
        """Explore the two integers around the crossing (at the current stage) so the answer is the
        closer of two measured values, not an interpolation; skipped when the budget is spent."""
        if self.increasing is None:
            return
        # at the stage the values around the crossing reached (not one the budget cut short)
        self.stage = max(len(p.trials) for p in self.points.values()) - 1
        try:
            low, high, _ = self.bounds()
            a = self.lo if low is None else low
            b = self.hi if high is None else high
            xs, f = self.fit()
            xc = min(max(self.crossing(xs, f), a), b)
            for k in sorted({math.floor(xc), math.ceil(xc)}):
                if k not in self.points:
                    self.bring(k)
        except _BudgetSpent:
            pass

    def result(self, stop: str) -> TuneResult:
        notes: list[str] = []
        if self.increasing is None:
            low = high = None
            notes.append("direction unknown: both range ends stayed compatible with the target")
        else:
            low, high, _ = self.bounds()
        a = self.lo if low is None else low
        b = self.hi if high is None else high
        ans, ans_rate = self.answer(a, b)
        if low is None:
            notes.append(f"the range end {self.lo} is not excluded: the crossing may lie at or beyond it")
        if high is None:
            notes.append(f"the range end {self.hi} is not excluded: the crossing may lie at or beyond it")
        xs, f = self.fit()
        pts = [TunePoint(x, self.rate(x), _LABEL[self.raw_side(x)], float(fx)) for x, fx in zip(xs, f)]
        direction = (
            "unknown" if self.increasing is None else "increasing" if self.increasing else "decreasing"
        )
        return TuneResult(
            setting=self.setting,
            metric=self.metric,
            target=self.target,
            answer=ans,
            interval=(a, b),
            interval_at_edge=(low is None, high is None),
            answer_rate=ans_rate,
            direction=direction,
            integer=self.integer,
            range=(self.lo, self.hi),
            tolerance=self.tol,
            confidence=self.conf,
            budget=self.budget,
            trials=self.used,
            final_n=max(p.n for p in self.points.values()),
            initial_n=self.n0,
            seed=self.seed,
            stop=stop,
            method=METHOD,
            points=pts,
            batch_seeds=list(self._seeds),
            notes=notes,
        )


def _isotonic(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted least-squares non-decreasing fit (pool adjacent violators)."""
    vals: list[float] = []
    wts: list[float] = []
    counts: list[int] = []
    for yi, wi in zip(y, w):
        vals.append(float(yi))
        wts.append(float(wi))
        counts.append(1)
        while len(vals) > 1 and vals[-2] > vals[-1]:
            v2, w2, c2 = vals.pop(), wts.pop(), counts.pop()
            v1, w1, c1 = vals.pop(), wts.pop(), counts.pop()
            vals.append((v1 * w1 + v2 * w2) / (w1 + w2))
            wts.append(w1 + w2)
            counts.append(c1 + c2)
    return np.repeat(np.array(vals), counts)


# ---------------------------------------------------------------- figure and saving ----
def tune_figure(result: TuneResult, ax=None):
    """The explored response with Wilson bars, the target line, the answer and its interval.

    Uses matplotlib's object API (no pyplot, no backend change), so it is safe in servers and
    notebooks alike; returns the Figure."""
    from matplotlib.figure import Figure

    if ax is None:
        fig = Figure(figsize=(7, 4.2))
        ax = fig.add_subplot()
    else:
        fig = ax.figure
    pts = result.points
    x = np.array([p.value for p in pts], dtype=float)
    y = np.array([p.rate.rate for p in pts])
    err = np.array([[p.rate.rate - p.rate.lo for p in pts], [p.rate.hi - p.rate.rate for p in pts]])
    n = np.array([p.rate.n for p in pts], dtype=float)
    lo, hi = result.interval
    ax.axvspan(
        lo,
        hi,
        color="#1b9e77",
        alpha=0.15,
        lw=0,
        label=f"{100 * result.confidence:g} % interval [{lo:.4g}, {hi:.4g}]",
    )
    ax.axhline(result.target, color="#d95f02", ls="--", lw=1, label=f"target {result.target:g}")
    ax.errorbar(x, y, yerr=err, fmt="none", ecolor="0.35", lw=1, capsize=2)
    ax.plot(x, [p.fit for p in pts], color="#7570b3", lw=1, alpha=0.6, label="isotonic fit")
    sizes = 12 + 60 * np.sqrt(n / n.max())
    ax.scatter(x, y, s=sizes, color="#7570b3", zorder=3, label="explored (size ~ trials)")
    ax.axvline(result.answer, color="#1b9e77", lw=1.5, label=f"answer {result.answer:.4g}")
    ax.set_xlim(
        result.range[0] - 0.02 * (result.range[1] - result.range[0]),
        result.range[1] + 0.02 * (result.range[1] - result.range[0]),
    )
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(result.setting)
    ax.set_ylabel(f"{result.metric} ({100 * result.confidence:g} % Wilson bars)")
    ax.set_title(
        f"{result.setting} for {result.metric} {result.target:g}: {result.trials} trials, stop: "
        f"{result.stop}",
        fontsize=9,
    )
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return fig


def save_result(result: TuneResult, out_dir: str | Path, figure: bool = True) -> list[Path]:
    """Write OUT/tune.json and OUT/tune.png. Both are rendered to temporary files first and renamed
    only when both succeeded: an error leaves no new or half-written file behind."""
    import json

    out = Path(out_dir)
    made = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    targets = [out / "tune.json"] + ([out / "tune.png"] if figure else [])
    from sim.files import check_output

    for t in targets:
        check_output(t, "--out")
    tmps: list[Path] = []
    try:
        fd, name = tempfile.mkstemp(prefix=".tune.json.", dir=out)
        tmps.append(Path(name))
        with os.fdopen(fd, "w") as fh:
            fh.write(json.dumps(result.to_json(), indent=1, allow_nan=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        if figure:
            fd, name = tempfile.mkstemp(prefix=".tune.png.", dir=out)
            os.close(fd)
            tmps.append(Path(name))
            tune_figure(result).savefig(tmps[-1], format="png", dpi=120)
        for tmp, dst in zip(tmps, targets):
            os.replace(tmp, dst)
    except BaseException:
        for tmp in tmps:
            tmp.unlink(missing_ok=True)
        if made and not any(out.iterdir()):
            out.rmdir()
        raise
    return targets
