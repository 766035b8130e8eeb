"""The win rate of a game as a function of one of its settings: what `dfsim tune --game` searches."""

from __future__ import annotations

from typing import Any

from sim.errors import SpecError


class GameResponse:
    """The win rate of a game as a function of one setting, for `dfsim tune --game`: a call
    `response(value, n, seed)` plays games 0..n-1 with `path` at `value` (over `overrides`), throws
    from the bank (recorded on demand). Game i uses the same shuffles and throw streams at every value
    (common random numbers), so the tuner compares values on paired games. The bank is recorded on
    `workers` local processes or a Dask cluster (`executor`, `scheduler`, `security`); the games
    themselves are played here (a few milliseconds each: a batch is over before workers would start)."""

    def __init__(
        self,
        game: str,
        path: str,
        *,
        overrides: dict[str, Any] | None = None,
        bank: str | None = None,
        bank_throws: int | None = None,
        policy: str | None = None,
        workers: int | None = None,
        executor: Any = "local",
        scheduler: str | None = None,
        security: Any = None,
    ) -> None:
        from sim.games.spec import load_game
        from sim.games.throw_bank import ThrowBank

        self.game, self.path = game, path
        self.overrides = dict(overrides or {})
        self.base = load_game(game, self.overrides)
        self.base.load_decks()
        node: Any = self.base
        for part in path.split("."):
            node = getattr(node, part, None)
            if node is None:
                raise SpecError(
                    "command line", "--set", f"'{path}' is not a setting of the game {self.base.name}"
                )
        self.current = node
        self.integer_setting = isinstance(node, int) and not isinstance(node, bool)
        self.policy = policy or self.base.policy
        from sim.games.ladder import resolve_game_policy

        resolve_game_policy(self.policy, "command line" if policy else self.base.source)
        self.bank = ThrowBank(
            bank, bank_throws, workers=workers, executor=executor, scheduler=scheduler, security=security
        )
        self._specs: dict[Any, Any] = {}

    def spec_at(self, value: Any, seed: int | None = None) -> Any:
        """The game spec with the tuned setting at `value` (validated once per value), its shuffles
        rooted at `seed` (the tune's seed; None: the game file's)."""
        from sim.games.spec import load_game

        s = self._specs.get((value, seed))
        if s is None:
            v = int(value) if self.integer_setting else value
            s = load_game(self.game, {**self.overrides, self.path: v})
            s = self._specs[(value, seed)] = s if seed is None else s.with_seed(seed)
        return s

    def __call__(self, value: Any, n: int, seed: int) -> tuple[int, int]:
        from sim.games.engine import run_games
        from sim.games.throw_bank import die_alias, play

        spec = self.spec_at(value, seed)
        alias = die_alias(spec.throws.colored_die, spec.throws.white_die)

        def games(src: Any) -> list:
            return run_games(spec, src, int(n), self.policy)

        results, _ = play(games, self.bank, seed, alias)
        return sum(r.won for r in results), int(n)

    def with_bank(
        self, result: Any, replicates: int | None = None, games: int | None = None
    ) -> dict[str, Any] | None:
        """The tune's answer with the bank's part of its interval, as `dfsim game` carries it
        (sim.games.bank_uncertainty): the two explored values around the answer are played again on
        `replicates` bootstrap banks (the tune's first batches, at most `games` games each, the same
        banks for both values and every batch); the spread of the win rate at the answer over those
        banks, divided by the slope of the tune's fitted rate there, is the bank's half-width in the
        setting's units, added in quadrature to each side of the tune's own interval. None when the
        tune explored fewer than two values."""
        import math
        from statistics import NormalDist

        import numpy as np

        from sim.games.bank_uncertainty import REPLICATE_GAMES, REPLICATES, on_replicate
        from sim.games.engine import run_games
        from sim.games.throw_bank import die_alias

        reps = REPLICATES if replicates is None else int(replicates)
        most = REPLICATE_GAMES if games is None else int(games)
        pts = sorted(result.points, key=lambda p: p.value)
        if reps < 2 or len(pts) < 2:
            return None
        ans = float(result.answer)
        i = max(0, min(len(pts) - 2, sum(p.value <= ans for p in pts) - 1))
        x0, x1 = pts[i], pts[i + 1]  # the explored values around the answer
        slope = _slope(pts, i)
        # the tune's batches (sizes n0, n0, 2 n0, 4 n0 ...), as many as both values had, up to `most` games
        n0, have = result.initial_n, min(x0.rate.n, x1.rate.n)
        batches: list[tuple[int, int]] = []
        for b, seed in enumerate(result.batch_seeds):
            size = n0 if b == 0 else n0 << (b - 1)
            used = sum(s for s, _ in batches)
            if batches and (used + size > have or used >= most):
                break
            batches.append((size, seed))
        rates = []
        for r in range(reps):
            row = []
            for p in (x0, x1):
                won = n = 0
                for size, seed in batches:
                    spec = self.spec_at(p.value, seed)
                    alias = die_alias(spec.throws.colored_die, spec.throws.white_die)

                    def games_of(src: Any, spec: Any = spec, size: int = size) -> list:
                        return run_games(spec, src, size, self.policy)

                    out = on_replicate(games_of, self.bank, seed, r, alias, bank_seed=result.seed)
                    won, n = won + sum(g.won for g in out), n + len(out)
                row.append(won / n)
            rates.append(row)
        w = 0.0 if x1.value == x0.value else min(1.0, max(0.0, (ans - x0.value) / (x1.value - x0.value)))
        at = [(1 - w) * a + w * b for a, b in rates]  # each bank's win rate at the answer
        z = NormalDist().inv_cdf(0.5 + result.confidence / 2)
        rate_hw = z * float(np.std(at, ddof=1))
        bank_hw = rate_hw / abs(slope) if slope else math.inf
        lo, hi = result.interval
        wide_lo = ans - math.hypot(ans - lo, bank_hw)
        wide_hi = ans + math.hypot(hi - ans, bank_hw)
        wide_lo = max(result.range[0], wide_lo) if math.isfinite(wide_lo) else result.range[0]
        wide_hi = min(result.range[1], wide_hi) if math.isfinite(wide_hi) else result.range[1]
        if result.integer:  # outward: the integers the interval reaches
            wide_lo, wide_hi = math.floor(wide_lo), math.ceil(wide_hi)
        tune_hw = max(ans - lo, hi - ans)
        total = math.hypot(tune_hw, bank_hw)
        return {
            "answer": result.answer,
            "lo": int(wide_lo) if result.integer else wide_lo,
            "hi": int(wide_hi) if result.integer else wide_hi,
            "confidence": result.confidence,
            "tune_interval": list(result.interval),
            "bank_half_width": bank_hw if math.isfinite(bank_hw) else None,
            "bank_rate_half_width": rate_hw,
            "bank_share": (bank_hw**2 / total**2) if math.isfinite(bank_hw) and total > 0 else 1.0,
            "slope": slope,
            "values": [x0.value, x1.value],
            "games": sum(s for s, _ in batches),
            "replicates": reps,
            "replicate_rates": [[round(a, 6), round(b, 6)] for a, b in rates],
        }


def _slope(points: list, i: int) -> float:
    """The fitted rate's change per unit of the setting around points i and i+1: between them, else
    (a flat stretch of the isotonic fit) between the nearest points outward whose fits differ; 0 when
    the whole fit is flat."""
    lo, hi = i, i + 1
    while points[hi].fit == points[lo].fit and (lo > 0 or hi < len(points) - 1):
        lo, hi = max(0, lo - 1), min(len(points) - 1, hi + 1)
    dx = float(points[hi].value) - float(points[lo].value)
    return (points[hi].fit - points[lo].fit) / dx if dx else 0.0


def tune_bank_advice(d: dict[str, Any], throws: int | None) -> str:
    """`bank_advice` for a tune: its own interval's half-width (in the setting's units) against the
    bank's part ('' when the bank's is not the larger, or unbounded)."""
    from sim.games.bank_uncertainty import bank_advice

    if d.get("bank_half_width") is None:
        return ""
    lo, hi = d["tune_interval"]
    own = {"bank_half_width": d["bank_half_width"], "games_half_width": (hi - lo) / 2}
    return bank_advice(own, throws, more="a larger budget")


def with_bank_text(d: dict[str, Any], setting: str, integer: bool) -> str:
    """'house_rules.extra_white_dice = 3 [1, 6] (95 %; the tune's own [2, 4], the bank's +-1.3: its
    win rate +-2.1 points at the answer, 8 bootstrap banks)'."""
    fmt = "{:d}" if integer else "{:.4g}"
    lo, hi = d["tune_interval"]
    bank = d["bank_half_width"]
    flat = "the bank's part unbounded (the fitted rate is flat)"
    part = f"the bank's +-{bank:.2g}" if bank is not None else flat
    return (
        f"{setting} = {fmt.format(d['answer'])} [{fmt.format(d['lo'])}, {fmt.format(d['hi'])}] "
        f"({100 * d['confidence']:g} %; the tune's own [{fmt.format(lo)}, {fmt.format(hi)}], {part}: its win "
        f"rate +-{100 * d['bank_rate_half_width']:.1f} points at the answer, {d['games']} games on "
        f"{d['replicates']} bootstrap banks)"
    )
