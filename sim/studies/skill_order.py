"""The skill order: a better thrower is never worse, in any shot, beyond noise.

Every skill throws the same throws (throw k of one seed: the same standard normal draws scaled by each
skill's spreads, the same die orientation, the same prop jitter: common random numbers), each with its
own technique (the aimed release solved under its own spread). The hit rates of neighbouring skills are
then compared as paired differences (Newcombe's interval, sim/experiments/statistics.py) at a
family-wise confidence (Bonferroni over every comparison made), so that one run over every shot raises a
false alarm at most 5 % of the time. A pair is out of order when the whole interval of
(better - worse) lies below zero.

`studies/skill_order.py` runs every shot and every combination the rulebooks name; the test suite a
quick form.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.experiments.statistics import Estimate, paired_rate_difference
from sim.seeding import Draw
from sim.specs.scenario import Scenario
from sim.specs.skill import load_skill

SKILLS = ("novice", "casual", "expert")
FAMILY_CONFIDENCE = 0.95
# combinations of specific throws the rulebooks name (Malevolent Magma's combat examples: the Floor is
# Lava with Bear Trap's Elbow Shot and with the Sword of Friendship's Friendly Shot), and the Far Shot
# with a prop shot
RULEBOOK_COMBINATIONS: tuple[tuple[str, ...], ...] = (
    ("lava", "elbow"),
    ("lava", "friendly"),
    ("firewall", "far"),
)


@dataclass(frozen=True)
class SkillStep:
    """One comparison: the better skill's hit rate minus the worse one's on the same throws."""

    shots: tuple[str, ...]
    worse: str
    better: str
    worse_rate: float
    better_rate: float
    difference: Estimate

    @property
    def out_of_order(self) -> bool:
        """The better thrower is worse beyond noise: the whole interval lies below zero."""
        return self.difference.hi < 0.0

    def format(self) -> str:
        """One line: the two rates and the paired difference with its interval."""
        d = self.difference
        flag = "  OUT OF ORDER" if self.out_of_order else ""
        return (
            f"{'+'.join(self.shots):<22} {self.worse:>7} {self.worse_rate:6.1%} -> {self.better:<7} "
            f"{self.better_rate:6.1%}"
            f"  diff {d.value:+6.1%} [{d.lo:+6.1%}, {d.hi:+6.1%}]{flag}"
        )


def hits_on_common_throws(
    shots: tuple[str, ...],
    n: int,
    seed: int,
    skills: tuple[str, ...] = SKILLS,
    board: str = "magma",
    die: str = "hero-d8",
    overrides: dict[str, Any] | None = None,
) -> dict[str, np.ndarray]:
    """Per skill, whether each of throws 0..n-1 of `seed` hit, every skill throwing the same draws in
    one world with its own technique (`overrides`: dotted-path settings, as `--set` takes them)."""
    from sim.engine.worlds import thrower_for  # the engine is only needed to throw

    th = thrower_for(
        Scenario.build(board=board, dice=[die], shots=list(shots), skill=skills[0], overrides=overrides)
    )
    out: dict[str, np.ndarray] = {}
    for name in skills:
        skill = load_skill(name)
        hits = np.zeros(n, dtype=bool)
        for k in range(n):
            releases = th.release_for(Draw.for_throw(seed, k), skill)
            hits[k] = th.replay(releases, seed, k, skill).outcome.result == "hit"
        out[name] = hits
    return out


def skill_steps(
    shots: tuple[str, ...], hits: dict[str, np.ndarray], comparisons: int, skills: tuple[str, ...] = SKILLS
) -> list[SkillStep]:
    """Each neighbouring pair of `skills` (worst first) compared on the same throws, at the confidence
    that keeps `comparisons` such comparisons together at `FAMILY_CONFIDENCE`."""
    confidence = 1.0 - (1.0 - FAMILY_CONFIDENCE) / max(1, comparisons)
    steps = []
    for worse, better in zip(skills, skills[1:]):
        a, b = hits[worse], hits[better]
        steps.append(
            SkillStep(
                tuple(shots),
                worse,
                better,
                float(a.mean()),
                float(b.mean()),
                paired_rate_difference(b, a, confidence),
            )
        )
    return steps
