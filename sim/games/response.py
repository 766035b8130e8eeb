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
