"""A setting of a game and the games played of it: what the page's controls stand for, checked as a
game file is, and the tally that grows batch by batch.

Why batches of game indices: game i depends only on (seed, i) (sim.games.engine), so games 0..n-1 played
in any number of batches are the games `dfsim game --games n --seed S` plays, and two settings played
on the same indices share their shuffles and throws (common random numbers): their difference is
paired game by game.

The bank's own part of the interval is `dfsim game`'s (sim.games.bank_uncertainty): the first
REPLICATE_GAMES games replayed on each of a few bootstrap banks. Game i on bootstrap bank b depends
only on (seed, b, i) too, so those replays grow batch by batch beside the games.
"""

from __future__ import annotations

import json
import shlex
from collections import Counter
from dataclasses import dataclass, field, fields
from functools import cached_property
from pathlib import Path
from typing import Any, cast

import numpy as np

from sim.errors import SpecError
from sim.experiments.statistics import paired_rate_difference, wilson
from sim.games.bank_uncertainty import REPLICATE_GAMES, REPLICATES, BootstrapSource, combine
from sim.games.engine import run_games
from sim.games.ladder import GAME_POLICIES
from sim.games.report import summarize_games
from sim.games.result import TITLES, GameResult
from sim.games.spec import GameSpec, game_from_dict
from sim.games.throw_bank import MAX_PASSES, BankSource, ThrowBank, die_alias
from sim.specs.datafiles import read_toml, resolve
from sim.studio.controls import check_value, coerce, game_controls
from sim.studio.library import Library

SETTING_FIELDS = ("game", "policy", "seed", "set")
MAX_SETTINGS = 64  # settings whose games the session keeps (a setting seen before answers at once)
MAX_KEPT_GAMES = 1_000_000  # games kept over all of them (about 200 bytes each)


def policy_names() -> list[str]:
    """Every rung of the game-policy registry, in its order."""
    return list(GAME_POLICIES)


def refuse_unknown(body: dict[str, Any], known: tuple[str, ...], where: str) -> None:
    """One line for the first field a request has that nobody reads."""
    for k in body:
        if k not in known:
            raise SpecError("request", f"{where}{k}", f"unknown field (known: {', '.join(known)})")


@dataclass(frozen=True)
class Setting:
    """One point of the page: a game file, the overrides of its controls, the policy and the seed."""

    game: str  # the library id ("base" or "<folder>:<path>")
    path: str  # what the loader reads (a built-in name or the folder file's path)
    overrides: tuple[tuple[str, Any], ...]
    policy: str
    seed: int

    @property
    def key(self) -> str:
        return json.dumps([self.path, self.overrides, self.policy, self.seed], sort_keys=True)

    @cached_property
    def spec(self) -> GameSpec:
        """The game file with the overrides, its root seed the setting's (the shuffles' too, as
        `dfsim game --seed` makes it)."""
        return game_from_dict(
            read_toml(resolve("game", self.path)), resolve("game", self.path), dict(self.overrides)
        ).with_seed(self.seed)

    def command(
        self, games: int, bank: ThrowBank, default_bank: Path | None = None, replicates: int = REPLICATES
    ) -> str:
        """The `dfsim game` command line that plays these games on the same seeds and bank (and
        reports the bank's part of the interval on as many bootstrap banks)."""
        words = ["dfsim", "game", self.path, "--games", str(games), "--seed", str(self.seed)]
        words += ["--policy", self.policy]
        for k, v in self.overrides:
            words += ["--set", f"{k}={json.dumps(v) if not isinstance(v, str) else v}"]
        if default_bank is None or bank.dir.resolve() != default_bank.resolve():
            words += ["--bank", str(bank.dir)]
        if bank.throws is not None:
            words += ["--bank-throws", str(bank.throws)]
        if replicates != REPLICATES:
            words += ["--bank-replicates", str(replicates)]
        return shlex.join(words)


def parse_setting(body: Any, library: Library) -> Setting:
    """A setting from a request's JSON: only known fields, each checked against its control, then the
    whole game validated as a game file is (SpecError: one line naming the field)."""
    if not isinstance(body, dict):
        raise SpecError("request", "setting", "must be a JSON object")
    refuse_unknown(body, SETTING_FIELDS, "")
    game = body.get("game", "base")
    path = library.path_of("game", game)
    try:
        base = game_from_dict(read_toml(resolve("game", path)), resolve("game", path))
    except SpecError as exc:
        raise SpecError("request", "game", f"{exc}") from None
    controls = {c["key"]: c for c in game_controls(base)}
    sets = body.get("set", {})
    if not isinstance(sets, dict):
        raise SpecError("request", "set", "must be a JSON object of control keys and values")
    overrides = []
    for k, v in sets.items():
        c = controls.get(k)
        if c is None:
            raise SpecError("request", f"set.{k}", "is not a control of this game")
        problem = check_value(c, v)
        if problem:
            raise SpecError("request", f"set.{k}", problem)
        if v is None and c["default"] is None:
            continue
        if coerce(c, v) != c["default"]:
            overrides.append((k, coerce(c, v)))
    policy = body.get("policy", base.policy)
    if not isinstance(policy, str) or policy not in policy_names():
        raise SpecError("request", "policy", f"must be one of {', '.join(policy_names())}, got {policy!r}")
    seed = body.get("seed", base.seed)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= 2**63 - 1:
        raise SpecError("request", "seed", f"must be a whole number from 0 to 2**63-1, got {seed!r}")
    s = Setting(game, path, tuple(sorted(overrides)), policy, int(seed))
    try:
        spec = s.spec
        library.check_game(spec)
        spec.load_decks()
    except SpecError as exc:
        field_ = exc.field
        key = next((k for k, _ in s.overrides if field_ == k or field_.startswith(k + ".")), None)
        if key is not None or exc.source == str(resolve("game", path)):
            raise SpecError("request", f"set.{key}" if key else field_ or "game", exc.problem) from None
        raise SpecError("request", "game", str(exc)) from None
    return s


@dataclass(slots=True)
class KeptGame:
    """What a tally keeps of a game: the fields a summary reads (a GameResult without its log and
    trace, in a tenth of the memory)."""

    outcome: str
    lost_at: str
    lost_level: int
    combats: int
    rounds: int
    shops: int
    boss: str
    points: int
    title: str
    gold: int
    white_dice: int
    xp: int
    scars: int
    eliminated: int
    backed_down: int
    throws: int
    policy: str

    @property
    def won(self) -> bool:
        return self.outcome == "won"


KEPT = tuple(f.name for f in fields(KeptGame))


@dataclass
class Tally:
    """Games 0..n-1 of one setting, kept small (no logs, traces folded into per-combat sums)."""

    results: list[KeptGame] = field(default_factory=list)
    reached: Counter = field(default_factory=Counter)  # combat k was played
    gold: Counter = field(default_factory=Counter)  # gold summed after combat k
    white: Counter = field(default_factory=Counter)  # white dice summed after combat k
    tables: dict[str, dict[str, Any]] = field(default_factory=dict)  # the bank entries played on
    boot: list[list[bool]] = field(default_factory=list)  # won or not of games 0.. on bootstrap bank b

    @property
    def n(self) -> int:
        return len(self.results)

    @property
    def replayed(self) -> int:
        """How many of the first games every bootstrap bank has replayed (0 without any)."""
        return min((len(b) for b in self.boot), default=0)

    def bank_part(self, replicates: int) -> int:
        """The games each of `replicates` bootstrap banks replays for the bank's part of the interval
        (`dfsim game`'s rule: the first REPLICATE_GAMES games, fewer when fewer are played)."""
        return min(self.n, REPLICATE_GAMES) if replicates > 1 else 0

    def add(self, results: list[GameResult], used: dict[str, Any]) -> None:
        """Add games (the next indices), folding their traces into the per-combat sums."""
        for r in results:
            for row in r.trace:
                k = int(row["combat"])
                self.reached[k] += 1
                self.gold[k] += int(row["gold"])
                self.white[k] += int(row["white_dice"])
            self.results.append(KeptGame(*(getattr(r, k) for k in KEPT)))
        for label, t in used.items():
            self.tables.setdefault(label, t.describe())

    def won(self, n: int | None = None) -> np.ndarray:
        """Won or not, game by game, of the first `n` games (all by default)."""
        return np.array([r.won for r in self.results[: self.n if n is None else n]], dtype=bool)

    def charts(self) -> dict[str, Any]:
        """What the page draws: where games are lost, survival by combat, gold and white dice after
        each combat (mean over the games that played it), titles."""
        n = self.n
        survived = Counter(r.combats if r.won else max(0, r.combats - 1) for r in self.results)
        top = max(self.reached, default=0)
        alive, left = [], n
        for k in range(0, top + 1):
            alive.append(left / n if n else 0.0)
            left -= survived.get(k, 0)
        titles = Counter(r.title for r in self.results)
        return {
            "survival": alive,  # share of games still going after k combats (k = 0, 1, ...)
            "gold": [self.gold[k] / self.reached[k] for k in range(1, top + 1)],
            "white_dice": [self.white[k] / self.reached[k] for k in range(1, top + 1)],
            "reached": [self.reached[k] for k in range(1, top + 1)],
            "titles": [[t, titles[t]] for _, t in TITLES if titles[t]],
        }


class Player:
    """Plays batches of a setting on the bank, recording what the bank lacks first (`on_record`), and
    replays them on `replicates` bootstrap banks for the bank's part of the interval (0: none)."""

    def __init__(self, bank: ThrowBank, replicates: int = REPLICATES) -> None:
        if replicates == 1 or not 0 <= replicates <= 1000:
            raise SpecError("command line", "--bank-replicates", "must be 0 (none) or from 2 to 1000")
        self.bank = bank
        self.replicates = int(replicates)
        self.tallies: dict[str, Tally] = {}

    def tally(self, s: Setting) -> Tally:
        """The setting's tally (made empty on first use)."""
        t = self.tallies.get(s.key)
        if t is None:
            # a long session: forget the oldest settings (a game kept costs about a kilobyte)
            while len(self.tallies) > 1 and (
                len(self.tallies) >= MAX_SETTINGS or sum(x.n for x in self.tallies.values()) > MAX_KEPT_GAMES
            ):
                self.tallies.pop(next(iter(self.tallies)))
            t = self.tallies[s.key] = Tally()
        return t

    def source(self, s: Setting, discover: bool) -> BankSource:
        """A bank throw source of the setting's seed (the white die answered by the colored die's throws
        when they share a body)."""
        t = s.spec.throws
        return BankSource(self.bank, s.seed, discover=discover, alias=die_alias(t.colored_die, t.white_die))

    def play(self, s: Setting, upto: int, on_record: Any = None) -> Tally:
        """Extend the setting's tally to games 0..upto-1: a discovery pass records what the bank
        lacks (`on_record(scenarios)` does it, with progress), then the games are played for real."""
        t = self.tally(s)
        if upto <= t.n:
            return t
        games = range(t.n, upto)
        for _ in range(12):
            src = self.source(s, discover=True)
            results = run_games(s.spec, src, games, s.policy)
            if not src.missing:
                t.add(results, src.used)
                return t
            (on_record or self.bank.record)(list(src.missing.values()))
        raise SpecError(self.bank.dir, "bank", "still meeting new throw scenarios after 12 passes")

    def replay(self, s: Setting, on_record: Any = None, check: Any = None) -> Tally:
        """Replay the games the bank's part needs (`Tally.bank_part`) on each bootstrap bank not yet
        there, recording what a bootstrap bank's games meet that the bank lacks; `check()` between
        banks (a cancel)."""
        t = self.tally(s)
        upto = t.bank_part(self.replicates)
        while len(t.boot) < self.replicates:
            t.boot.append([])
        dice = s.spec.throws
        alias = die_alias(dice.colored_die, dice.white_die)
        for b, won in enumerate(t.boot):
            if len(won) >= upto:
                continue
            if check is not None:
                check()
            games = range(len(won), upto)
            for _ in range(MAX_PASSES):
                src = BootstrapSource(self.bank, s.seed, b, alias)
                results = run_games(s.spec, src, games, s.policy)
                if not src.missing:
                    break
                (on_record or self.bank.record)(list(src.missing.values()))
            else:
                raise SpecError(
                    self.bank.dir, "bank", f"still meeting new throw scenarios after {MAX_PASSES} passes"
                )
            won.extend(r.won for r in results)
        return t


def with_bank(t: Tally, won: dict[str, Any], replicates: int, confidence: float) -> dict[str, Any] | None:
    """The win rate's interval with the bank's part, as `dfsim game` reports it (None before every
    bootstrap bank has replayed games; `replayed` says on how many of the first games it rests, and
    `complete` whether that is all the bank's part takes at this many games)."""
    need, have = t.bank_part(replicates), t.replayed
    if need == 0 or have == 0:
        return None
    values = [sum(b[:have]) / have for b in t.boot[:replicates]]
    d = combine(
        won["rate"], (won["hi"] - won["lo"]) / 2, values, confidence, games_interval=(won["lo"], won["hi"])
    )
    return d | {"replayed": have, "complete": have >= need}


def answer(
    t: Tally, base: Tally | None, confidence: float = 0.95, replicates: int = REPLICATES
) -> dict[str, Any]:
    """The page's answer for a tally: the summary (win rate with Wilson interval, where lost, ...) and
    the same win rate with the bank's part of its interval (`won_with_bank`, once bootstrap banks have
    replayed games), the charts and, against a pinned baseline, the paired difference on the games
    both played."""
    out: dict[str, Any] = {"n": t.n}
    if t.n:
        # a KeptGame has every field a summary reads (duck-typed: the summary never needs the trace)
        out["summary"] = summarize_games(cast(list[GameResult], t.results), confidence)
        wb = with_bank(t, out["summary"]["won"], replicates, confidence)
        if wb is not None:
            out["summary"]["won_with_bank"] = wb
        out["charts"] = t.charts()
    if base is not None:
        m = min(t.n, base.n)
        out["baseline_n"] = base.n
        if m:
            out["baseline_won"] = wilson(int(base.won(m).sum()), m, confidence).as_dict()
            out["difference"] = paired_rate_difference(t.won(m), base.won(m), confidence).as_dict()
            k, d = min(t.replayed, base.replayed), out["difference"]
            if replicates > 1 and k and d["lo"] is not None and d["hi"] is not None:
                # the same bootstrap bank under both settings: the bank's part of the paired difference
                values = [sum(a[:k]) / k - sum(b[:k]) / k for a, b in zip(t.boot, base.boot, strict=False)]
                games = (d["lo"], d["hi"])
                wb = combine(
                    d["value"], (games[1] - games[0]) / 2, values[:replicates], confidence, (-1.0, 1.0), games
                )
                d["with_bank"] = wb | {"replayed": k, "complete": k >= min(m, REPLICATE_GAMES)}
    return out
