"""How many throws a bank entry holds: enough to know its hit rate and mean damage to a stated
precision, between a floor and a cap.

Why a precision and not a fixed count: a scenario hit 90 % of the time is known to 2 points after a
few hundred throws, one hit half the time needs five times as many, and an expensive scenario
(templates flipped on the board) should not be thrown 2,000 times when 600 tell as much. The size
is decided on prefixes of the throws at checkpoints (the floor, then as many throws as the
half-widths so far say are needed, rounded up to whole chunks), so it is a function of the throws
alone: the same entry gets the same size whatever the number of workers or the order chunks came
back, and an entry recorded further (grown) keeps the size its first throws decided.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

CHUNK = 100  # throws per recorded chunk (and the grid checkpoints are rounded up to)


@dataclass(frozen=True)
class BankSize:
    """The precision rule: 95 % half-widths on the hit rate and on the mean damage per throw (a miss
    deals 0), the floor and cap on throws."""

    hit_half_width: float = 0.03
    damage_half_width: float = 0.3
    floor: int = 400
    cap: int = 4000
    confidence: float = 0.95

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


__all__ = ["BankSize", "DEFAULT_SIZE", "Settled", "settle", "exact", "half_widths", "CHUNK"]
