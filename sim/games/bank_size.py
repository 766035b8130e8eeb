"""How many throws a bank entry holds: enough to know its hit rate and mean damage to a stated
precision, between a floor and a cap.

Why a precision and not a fixed count: a scenario hit 90 % of the time is known to 2 points after a
few hundred throws, one hit half the time needs five times as many, and an expensive scenario
(templates flipped on the board) should not be thrown 2,000 times when 600 tell as much. The size
is decided on prefixes of the throws at checkpoints (the floor, then as many throws as the
half-widths so far say are needed, rounded up to whole chunks), so it is a function of the throws
alone: the same entry gets the same size whatever the number of workers or the order chunks came
back, and an entry recorded further (grown) keeps the size its first throws decided.

Why an expensive scenario is held to a looser precision: the bank is bought in CPU seconds, and the
Explosion's welded templates make one of its throws cost ten to thirty bare ones. For a game answer
that leans on many scenarios alike, the bank's share of its variance is the sum over scenarios of
each one's variance over its throws, and the throws that make that sum least for the CPU spent are,
scenario by scenario, in proportion to the spread over the square root of the cost per throw (optimal
allocation, as in stratified sampling). The rule keeps its own dependence on the spread and takes
the cost factor from that law: a scenario costing `w` bare throws has its half-widths widened by
w ** (cost_exponent = 1/4), so it is recorded to 1/sqrt(w) of the throws (its floor and cap alike).
The entry's manifest keeps the rule it was sized by (`cost_weight` among it); the game's answers
carry the bank's own sampling error (sim.games.bank_uncertainty), so what the looser entries cost in
precision shows in every interval.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from statistics import NormalDist
from typing import Any

import numpy as np

CHUNK = 100  # throws per recorded chunk (and the grid checkpoints are rounded up to)
MIN_FLOOR = 2 * CHUNK  # the least floor a costly scenario's rule goes down to


@dataclass(frozen=True)
class BankSize:
    """The precision rule: 95 % half-widths on the hit rate and on the mean damage per throw (a miss
    deals 0), the floor and cap on throws, for a throw of a bare board; `costed` gives the rule for a
    scenario whose throws cost more (`cost_exponent`: 0 sizes every scenario alike)."""

    hit_half_width: float = 0.03
    damage_half_width: float = 0.3
    floor: int = 400
    cap: int = 4000
    confidence: float = 0.95
    cost_exponent: float = 0.25
    cost_weight: float = 1.0  # the throw cost (bare-throw units) this rule was made for by `costed`

    def costed(self, weight: float) -> BankSize:
        """The rule for a scenario whose throw costs `weight` bare throws: half-widths times
        weight ** cost_exponent, floor and cap divided by the square of that (whole chunks, the floor
        at least MIN_FLOOR or the rule's own, whichever is less). A weight of 1 or less, or a
        cost_exponent of 0, leaves the rule as it is."""
        if self.cost_weight != 1.0:
            raise ValueError("costed: this rule is already made for a scenario's cost")
        if weight <= 1.0 or self.cost_exponent == 0.0:
            return self
        widen = float(weight) ** self.cost_exponent
        floor = min(self.floor, max(MIN_FLOOR, CHUNK * math.ceil(self.floor / widen**2 / CHUNK)))
        return replace(
            self,
            hit_half_width=self.hit_half_width * widen,
            damage_half_width=self.damage_half_width * widen,
            floor=floor,
            cap=max(floor, CHUNK * math.ceil(self.cap / widen**2 / CHUNK)),
            cost_weight=float(weight),
        )

    def as_dict(self) -> dict[str, Any]:
        """The rule as the entry's manifest keeps it."""
        return asdict(self)

    def widest(self) -> int:
        """The size the hit rate's half-width asks for where it is widest (a hit rate of one half),
        rounded up to whole chunks, within the floor and cap: before a scenario's first throws, all a
        recording can promise about how far the rule will take it (the mean damage's half-width is
        met sooner on the game's scenarios)."""
        z = NormalDist().inv_cdf(0.5 + self.confidence / 2)
        need = (z * 0.5 / self.hit_half_width) ** 2
        return int(min(self.cap, max(self.floor, CHUNK * math.ceil(need / CHUNK))))


DEFAULT_SIZE = BankSize()


@dataclass(frozen=True)
class Settled:
    """Where the rule stands on a prefix of throws: `throws` is the size once `settled`, else the next
    checkpoint the entry must be recorded up to."""

    throws: int
    settled: bool
    by: str = ""  # "precision" or "cap" once settled
    hit_rate: float = math.nan
    hit_half_width: float = math.nan
    mean_damage: float = math.nan
    damage_half_width: float = math.nan

    def as_dict(self) -> dict[str, Any]:
        """For the manifest and the command's JSON."""
        return {k: (round(v, 5) if isinstance(v, float) else v) for k, v in asdict(self).items()}


def half_widths(hit: np.ndarray, damage: np.ndarray, confidence: float) -> tuple[float, float]:
    """Normal half-widths of the hit rate and the mean damage per throw of these throws (the hit
    rate's variance kept off zero by one pseudo-hit and pseudo-miss, so 0 of 400 is not 'exact')."""
    n = len(hit)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = (float(hit.sum()) + 1.0) / (n + 2.0)
    return z * math.sqrt(p * (1 - p) / n), z * float(np.std(damage, ddof=1)) / math.sqrt(
        n
    ) if n > 1 else math.inf


def settle(hit: np.ndarray, damage: np.ndarray, rule: BankSize = DEFAULT_SIZE) -> Settled:
    """Walk the rule's checkpoints over the recorded throws (`hit`: bool per throw, `damage`: per
    throw, 0 for a miss) and say where it stops, or how far it must be recorded to decide."""
    n = min(max(1, rule.floor), rule.cap)
    while True:
        if n > len(hit):
            return Settled(n, False)
        h, d = hit[:n], damage[:n]
        hw, dw = half_widths(h, d, rule.confidence)
        stats = dict(
            hit_rate=float(h.mean()), hit_half_width=hw, mean_damage=float(d.mean()), damage_half_width=dw
        )
        if hw <= rule.hit_half_width and dw <= rule.damage_half_width:
            return Settled(n, True, "precision", **stats)
        if n >= rule.cap:
            return Settled(n, True, "cap", **stats)
        need = n * max((hw / rule.hit_half_width) ** 2, (dw / rule.damage_half_width) ** 2)
        n = min(rule.cap, max(n + CHUNK, CHUNK * math.ceil(need / CHUNK)))


def exact(hit: np.ndarray, damage: np.ndarray, throws: int, confidence: float = 0.95) -> Settled:
    """A size asked for (`--bank-throws`): settled once that many are recorded."""
    if len(hit) < throws:
        return Settled(throws, False)
    h, d = hit[:throws], damage[:throws]
    hw, dw = half_widths(h, d, confidence)
    return Settled(throws, True, "asked", float(h.mean()), hw, float(d.mean()), dw)


__all__ = ["BankSize", "DEFAULT_SIZE", "Settled", "settle", "exact", "half_widths", "CHUNK", "MIN_FLOOR"]
