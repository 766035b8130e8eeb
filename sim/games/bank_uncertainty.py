"""The throw bank's own sampling uncertainty in a game's answer, by resampling the bank.

Why: a game replays recorded throws, and a bank entry is a sample of its scenario's throws: the same
2,000 games gave a 42.5 % win rate on 2,000-throw entries and 56.6 % on 100-throw ones, far outside
either interval, because the games' own (Wilson) interval treats the bank as the truth. Here each
entry's throws are bootstrapped (drawn again with replacement, its size kept), the same games are
replayed on each bootstrap bank (the same shuffles and throw streams: only the bank differs; a copy
lays its draws out in one order of the outcomes, RecordedTable.bootstrap, so a throw lands on the
same outcome in every copy unless the copy moved an edge near it, and the games' own noise is not
counted again), and the spread of their answers is the bank's part of the uncertainty. It is
combined with the games' own as independent parts (half-widths added in quadrature), and both parts
are reported: by `dfsim game`, by a game experiment for every win rate, difference and contrast
(sim.games.kind), by `dfsim tune --game` for its answer (GameResponse.with_bank).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from statistics import NormalDist
from typing import Any, TypeVar

import numpy as np

from sim.errors import SpecError
from sim.fights.resample import RecordedTable
from sim.fights.throw_source import ThrowRequest
from sim.games.throw_bank import MAX_PASSES, BankSource, ThrowBank

T = TypeVar("T")
REPLICATES = 8  # bootstrap banks per answer (the bank part's half-width known to about +-25 %)
REPLICATE_GAMES = 500  # games replayed per bootstrap bank at most (the first ones)


class BootstrapSource(BankSource):
    """A bank source whose every table is bootstrap replicate `replicate` of its entry, seeded by
    `bank_seed` (default: the game seed), the replicate and the entry's scenario (its throws' own seed,
    not the code's salt: a code change that throws the same resamples the same), so the same replicate
    is the same bank every time: give one `bank_seed` to sources of other throw seeds (a tune's batches, an
    experiment's variants) and they all play on the same bootstrap bank.
    Discovering by default: a replicate's games may go where the answer's did not."""

    def __init__(
        self,
        bank: ThrowBank,
        seed: int,
        replicate: int,
        alias: dict[str, str] | None = None,
        discover: bool = True,
        bank_seed: int | None = None,
    ) -> None:
        super().__init__(bank, seed, discover=discover, alias=alias)
        self.replicate = int(replicate)
        self.bank_seed = self.seed if bank_seed is None else int(bank_seed)
        self._boot: dict[int, RecordedTable] = {}

    def table_for(self, req: ThrowRequest) -> RecordedTable | None:  # type: ignore[override]
        """The replicate of the request's entry."""
        t = super().table_for(req)
        if t is None:
            return None
        b = self._boot.get(id(t))
        if b is None:
            entry = int(str(getattr(t, "replicate_key", "0"))[:12] or "0", 16)
            rng = np.random.default_rng([self.bank_seed, self.replicate, entry])
            b = self._boot[id(t)] = t.bootstrap(rng)
        return b


def on_replicate(
    run: Callable[[BankSource], T],
    bank: ThrowBank,
    seed: int,
    replicate: int,
    alias: dict[str, str] | None = None,
    bank_seed: int | None = None,
) -> T:
    """`run(source)` on bootstrap replicate `replicate` of the bank, recording first any scenario the
    replicate's games meet that the bank lacks (as `play` does)."""
    for _ in range(MAX_PASSES):
        src = BootstrapSource(bank, seed, replicate, alias, bank_seed=bank_seed)
        out = run(src)
        if not src.missing:
            return out
        bank.record(src.missing.values())
    raise SpecError(bank.dir, "bank", f"still meeting new throw scenarios after {MAX_PASSES} passes")


def replicate_values(
    run: Callable[[BankSource], Any],
    statistic: Callable[[Any], float],
    bank: ThrowBank,
    seed: int,
    alias: dict[str, str] | None = None,
    replicates: int = REPLICATES,
    bank_seed: int | None = None,
) -> list[float]:
    """`statistic(run(source))` on each of `replicates` bootstrap banks (the same games on each)."""
    return [
        float(statistic(on_replicate(run, bank, seed, b, alias, bank_seed))) for b in range(int(replicates))
    ]


def with_bank(
    run: Callable[[BankSource], Any],
    statistic: Callable[[Any], float],
    bank: ThrowBank,
    seed: int,
    value: float,
    games_half_width: float,
    alias: dict[str, str] | None = None,
    replicates: int = REPLICATES,
    confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0),
    games_interval: tuple[float, float] | None = None,
) -> dict[str, Any]:
    """The answer `value` with an interval that carries the bank's uncertainty: `run(source)` replayed
    on `replicates` bootstrap banks, `statistic` of each; the bank's half-width is z times their
    standard deviation, combined in quadrature with the games' own `games_half_width` (or, given
    `games_interval`, with each side of it: see `combine`)."""
    values = replicate_values(run, statistic, bank, seed, alias, replicates)
    return combine(value, games_half_width, values, confidence, bounds, games_interval)


def combine(
    value: float,
    games_half_width: float,
    values: list[float],
    confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0),
    games_interval: tuple[float, float] | None = None,
) -> dict[str, Any]:
    """`value`'s interval from its games' half-width and the statistic on each bootstrap bank
    (`values`): the bank's half-width is z times their standard deviation, the two added in
    quadrature. With the games' own interval (`games_interval`, e.g. Wilson's, lopsided near 0 or 1)
    each side is widened by the bank's part on its own: 0 won of 100 games stays [0, 3.7 %] on a
    bank that adds nothing, where value +- the half-width would say [0, 1.8 %]. What `dfsim game`,
    the studio and a game experiment report."""
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    bank_hw = z * float(np.std(values, ddof=1)) if len(values) > 1 else math.nan
    total = math.hypot(games_half_width, bank_hw) if not math.isnan(bank_hw) else games_half_width
    if games_interval is not None:
        b = 0.0 if math.isnan(bank_hw) else bank_hw
        lo = value - math.hypot(value - games_interval[0], b)
        hi = value + math.hypot(games_interval[1] - value, b)
    else:
        lo, hi = value - total, value + total
    lo, hi = max(bounds[0], lo), min(bounds[1], hi)
    return {
        "value": value,
        "lo": lo,
        "hi": hi,
        "confidence": confidence,
        "games_half_width": games_half_width,
        "bank_half_width": bank_hw,
        "bank_share": (bank_hw**2 / total**2) if total > 0 and not math.isnan(bank_hw) else 0.0,
        "replicates": len(values),
        "replicate_values": [round(v, 6) for v in values],
    }


def interval_text(d: dict[str, Any], unit: float = 100.0, suffix: str = " %") -> str:
    """'42.5 % (95 %: 38.0-47.0 %; games +-2.2, bank +-3.9 points, 10 bootstrap banks)'."""
    pts = "points" if suffix.strip() == "%" else ""
    return (
        (
            f"{unit * d['value']:.1f}{suffix} ({100 * d['confidence']:.0f} %: {unit * d['lo']:.1f}-"
            f"{unit * d['hi']:.1f}{suffix}; games +-{unit * d['games_half_width']:.1f}, bank "
            f"+-{unit * d['bank_half_width']:.1f} {pts}, {d['replicates']} bootstrap banks)"
        )
        .replace("  ", " ")
        .replace(" ,", ",")
    )


def bank_advice(d: dict[str, Any], throws: int | None, more: str = "more games") -> str:
    """What narrows the answer, when the bank's part is the larger one ('' when it is not): `more` (of
    what the answer was made from) would not, a larger bank would (each entry's part shrinks as the
    root of its throws)."""
    if not d.get("bank_half_width", 0.0) > d.get("games_half_width", 0.0):
        return ""
    now = (
        f"this answer read {throws:,} throws of each entry"
        if throws
        else "the entries were sized by the precision rule"
    )
    return (
        f"the bank's part is the larger: {more} will not narrow this answer much, a larger bank will "
        f"(four times the throws about halves its part; --bank-throws N grows every entry to N "
        f"throws, {now})"
    )


__all__ = [
    "bank_advice",
    "BootstrapSource",
    "on_replicate",
    "replicate_values",
    "combine",
    "with_bank",
    "interval_text",
    "REPLICATES",
    "REPLICATE_GAMES",
]
