"""Is the physics converged? Outcome shares of one setting against a finer one, on identical releases.

`convergence_check(scenario, n)` throws the same n releases (and the same prop jitter and templates)
in two worlds: the scenario's own physics (the candidate: adaptive flight, contact step `step_hz`,
its rest test) and a reference at `factor` x step_hz with the plain windowed rest test. The
reference's flight is exact by default (`reference_flight="analytic"`), so the check isolates the
contact step. With `reference_flight="step"` the reference steps the flight too; semi-implicit
Euler then lags the parabola by g*dt*t/2, and on tuned aimed releases that lag alone moved the hit
rate by several points even at 1920 Hz (docs/physics.md), so such a reference is not converged. For every
outcome category (hit, each miss reason, void; each face for free rolls) it gives the
paired difference of shares with a Newcombe interval. A row passes when its interval holds 0; the
intervals are Bonferroni-widened over the rows so that a converged engine passes the whole table
with probability >= `confidence`. `paired_check` is the same comparison for any two physics
settings (e.g. two rest tests at one step).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sim.engine.worlds import build_thrower
from sim.experiments.statistics import paired_rate_difference
from sim.specs.scenario import Scenario


def outcome_label(o) -> str:
    """The category a convergence check compares: hit, miss:<reason>, void:<reason>, face:<f> for rolls."""
    if o.result == "roll":
        return "face:cocked" if o.cocked else f"face:{o.face}"
    if o.result == "hit":
        return "hit"
    return f"{o.result}:{o.reason}"


@dataclass(frozen=True)
class Row:
    """One outcome category: its share at the candidate (a) and reference (b) physics, and the paired
    difference a - b with its interval; passed when the interval holds zero."""

    category: str
    a_share: float
    b_share: float
    diff: float
    lo: float
    hi: float
    passed: bool

    def as_dict(self) -> dict:
        """JSON form, shares rounded to 1e-4."""
        return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in dataclasses.asdict(self).items()}


@dataclass
class PairedTable:
    """Paired differences (a - b) of outcome shares, one row per category seen in either run."""

    n: int
    a: dict
    b: dict
    rows: list[Row]
    changed: int  # throws whose label differs between a and b
    a_steps_per_throw: float
    b_steps_per_throw: float
    a_s: float
    b_s: float
    confidence: float
    extra: dict = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.rows)

    def as_dict(self) -> dict:
        """JSON form: settings, pass/fail, speeds and every row."""
        return {
            "n": self.n,
            "a": self.a,
            "b": self.b,
            "passed": self.passed,
            "confidence": self.confidence,
            "changed_throws": self.changed,
            "a_steps_per_throw": round(self.a_steps_per_throw, 1),
            "b_steps_per_throw": round(self.b_steps_per_throw, 1),
            "a_throws_per_s": round(self.n / self.a_s, 1) if self.a_s else None,
            "b_throws_per_s": round(self.n / self.b_s, 1) if self.b_s else None,
            "rows": [r.as_dict() for r in self.rows],
            **self.extra,
        }

    def format(self) -> str:
        """A readable table, one line per category."""
        lines = [
            f"n={self.n}  a={self.a}  b={self.b}  changed throws={self.changed}  "
            f"steps/throw a={self.a_steps_per_throw:.0f} b={self.b_steps_per_throw:.0f}  "
            f"{'PASS' if self.passed else 'FAIL'}"
        ]
        for r in self.rows:
            lines.append(
                f"  {r.category:28s} a={r.a_share:6.3f} b={r.b_share:6.3f} diff={r.diff:+.3f} "
                f"[{r.lo:+.3f}, {r.hi:+.3f}] {'ok' if r.passed else 'FAIL'}"
            )
        return "\n".join(lines)


def with_physics(scenario: Scenario, **physics) -> Scenario:
    """The same scenario with some physics settings replaced."""
    return scenario.with_physics(**physics)


def paired_check(
    scenario_a: Scenario,
    scenario_b: Scenario,
    n: int,
    seed: int = 2024,
    confidence: float = 0.95,
    tick: Callable[[], None] | None = None,
    aim_progress: Callable[[int, int], None] | None = None,
) -> PairedTable:
    """Throw n identical releases (those of scenario_a's thrower) in both scenarios' worlds and compare;
    `tick` (a progress bar's) is called after each pair, `aim_progress` during the aim solve (the
    solver's observer: reference throws made, at most)."""
    ta, tb = build_thrower(scenario_a), build_thrower(scenario_b)
    try:
        la, lb, sa, sb = [], [], 0, 0
        ta_s = tb_s = 0.0
        ta.nominal(progress=aim_progress)  # an aimed release is solved once, outside the timing
        for k in range(n):
            t0 = time.perf_counter()
            ra = ta.throw(seed, k)  # the same laid / flipped templates and prop jitter in both worlds
            t1 = time.perf_counter()
            rb = tb.replay(ra.releases, seed, k)
            t2 = time.perf_counter()
            ta_s, tb_s = ta_s + t1 - t0, tb_s + t2 - t1
            la.append(outcome_label(ra.outcome))
            lb.append(outcome_label(rb.outcome))
            sa += len(ra.trace.path_t) - ta.last_stats.skipped
            sb += len(rb.trace.path_t) - tb.last_stats.skipped
            if tick is not None:
                tick()
    finally:
        ta.physics.close()
        tb.physics.close()
    cats = sorted(set(la) | set(lb))
    # Bonferroni over the rows: each row at 1 - (1 - confidence) / rows
    row_conf = 1 - (1 - confidence) / max(1, len(cats))
    rows = []
    for c in cats:
        x = [v == c for v in la]
        y = [v == c for v in lb]
        est = paired_rate_difference(x, y, row_conf)
        lo, hi = est.lo, est.hi
        if not (math.isfinite(lo) and math.isfinite(hi)):
            lo = hi = est.value
        rows.append(Row(c, sum(x) / n, sum(y) / n, est.value, lo, hi, lo <= 0.0 <= hi))
    keys = ("step_hz", "coarse_step_hz", "fine_speed_mps", "flight", "rest")
    a_desc = {k: v for k, v in scenario_a.physics.model_dump().items() if k in keys}
    b_desc = {k: v for k, v in scenario_b.physics.model_dump().items() if k in keys}
    return PairedTable(
        n, a_desc, b_desc, rows, sum(x != y for x, y in zip(la, lb)), sa / n, sb / n, ta_s, tb_s, confidence
    )


def convergence_check(
    scenario: Scenario,
    n: int,
    seed: int = 2024,
    factor: float = 4.0,
    confidence: float = 0.95,
    reference_flight: str = "analytic",
    tick: Callable[[], None] | None = None,
    aim_progress: Callable[[int, int], None] | None = None,
) -> PairedTable:
    """The scenario's physics against a `factor` x finer contact step (windowed rest test; flight exact
    unless reference_flight = "step")."""
    hz = scenario.physics.step_hz * factor
    ref = with_physics(scenario, step_hz=hz, coarse_step_hz=hz, flight=reference_flight, rest="windows")
    return paired_check(scenario, ref, n, seed, confidence, tick, aim_progress)


QUICK_SCENES: dict[str, dict[str, Any]] = {
    "reference": dict(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual"),
    "firewall": dict(board="magma", dice=["hero-d8"], shots=["firewall"], skill="casual"),
    "template": dict(
        board="magma",
        dice=["hero-d8"],
        shots=["standard"],
        skill="casual",
        templates=[{"name": "weak-point", "x_mm": 120, "y_mm": 0}],
    ),
    "roll-d6": dict(dice=["d6"], shots=["roll"]),
    "roll-d8": dict(dice=["d8"], shots=["roll"]),
}


def quick_check(
    scene: str = "reference", n: int = 40, seed: int = 11, confidence: float = 0.95, **physics
) -> PairedTable:
    """The small-N form for CI: one of QUICK_SCENES (default physics unless overridden) against 4x finer."""
    sc = Scenario.build(**QUICK_SCENES[scene])
    if physics:
        sc = with_physics(sc, **physics)
    return convergence_check(sc, n, seed=seed, confidence=confidence)
