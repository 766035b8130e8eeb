"""The `strong` game policy: the best play the model can find, `default` with its knobs optimised on
paired games as a base, and Monte Carlo rollouts where they were measured to pay.

The base (`BASE_KNOBS`) is `default` with the knobs a coordinate search on paired training games
chose (studies/strong_base.py; docs/game.md has its held-out gain). At the decisions searched (by
default what to buy at a Shop, and a white die or retrieving the colored dice; the room and backing
down can be searched too, by option), the policy races the choices on rollouts: each plays the rest
of the game `rollouts` times, a challenger still ahead of the base's choice gets twice as many, up to
`max_rollouts`, and replaces the base's choice once its paired gain is above `GAIN_Z` standard errors
(so the rollouts go to the close decisions, and a clear one stops early); every other decision, and
every decision inside a rollout, is the base's. A rollout replays the round so far from the game's
checkpoint (sim.games.engine: the state at the start of the round, with the answers given since),
forces the choice, and plays on:

- what the table has seen stays as it was (the throws already made, the cards already drawn);
- what it has not seen is drawn afresh from the rollout's own stream: the unseen part of every deck is
  reshuffled, and every throw not yet made is drawn from the recorded throws with the rollout's own
  uniform numbers, never the game's (a rollout that used the game's stream would see its future);
- rollout j of a decision uses the same stream for every choice (common random numbers: choices are
  compared on paired rollouts), seeded by (root seed, game, decision number, j): the same seed gives
  the same game, whatever the number of workers.

A rollout needs a throw source that can draw recorded throws with other uniform numbers (the throw
bank, recorded tables); with physics in the loop the policy plays as `default`. The round-by-round log
says what each searched decision weighed: "strong dice-out -> white die: white die 62 % vs retrieve 55 %
(8-32 rollouts each)".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.fights.policy import Decision, Policy
from sim.games.policy import GAME_KINDS, GamePolicy, ShopPlan, Table, table_with
from sim.rules.outcome import Outcome

STREAM_ROLLOUT = 18  # spawn-key stream of rollouts (the game's shuffles use 17, fight resampling 16)
SEARCHED = ("room", "shop", "dice-out", "back-down")  # the decisions that can be searched
# searched unless told: adding rooms or backing down measured no gain for their cost (docs/game.md)
DEFAULT_DECISIONS = ("shop", "dice-out")
DEFAULT_ROLLOUTS = 8  # each choice's first rollouts
MAX_ROLLOUTS = 256  # the most a choice still in the race gets (doubling from DEFAULT_ROLLOUTS)
# a choice replaces default's only when its paired gain over default's choice, rollout by rollout, is
# above this many standard errors (noise alone would otherwise pick among equals at random)
GAIN_Z = 2.0
NOT_BANKED = Outcome(result="miss", reason="not-banked")
# strong's base: default's knobs as a coordinate search on paired training games chose them
# (studies/strong_base.py: games 10000-11499 of 3 and 4 casual heroes at Normal and Hard, monster life -8)
BASE_KNOBS = {"heal_below": "5", "room": "danger", "boss_dice": "4"}
PROGRESS_WEIGHT = 1e-3  # a rollout's value: 1 for a win, plus this per Shop reached (ties between losses)


class RolloutSource:
    """The game's recorded throws with the rollout's own uniform numbers for every throw not yet made
    (throw `throws` onwards of fight `fight`, and every later fight); the throws made stay the game's."""

    def __init__(self, base: Any, fight: int, throws: int, rng: np.random.Generator) -> None:
        self.base, self.fight, self.throws, self.rng = base, fight, throws, rng

    def throw(self, req: Any) -> Outcome:
        """The game's own throw where it was made already, else a fresh draw from the rollout's stream."""
        t = self.base.table_for(req)
        if t is None:  # a bank still discovering its scenarios: noted there, recorded before the replay
            return NOT_BANKED
        made = req.fight < self.fight or (req.fight == self.fight and req.throw < self.throws)
        u = self.base.uniform(req.fight, req.throw) if made else self.rng.random()
        return t.outcomes[int(u * t.n)]

    def estimate(self, req: Any) -> tuple[float, float] | None:
        """The bank's own estimate: a rollout's policy reads what the game's would."""
        return self.base.estimate(req)


class Replay:
    """A rollout's policy: the game's answers since the checkpoint, then the forced choice, then `base`.
    Should the replay ask something else than the game did (a rare reshuffle of an empty Monster deck
    drawn from the rollout's stream), it plays on with `base`."""

    def __init__(
        self, answers: list[tuple[str, Any]], forced: tuple[str, Any], base: Policy, on_forced: Any = None
    ) -> None:
        self.answers, self.forced, self.base, self.on_forced = answers, forced, base, on_forced
        self.i = 0
        self.diverged = False

    def __call__(self, d: Decision) -> Any:
        i = self.i
        self.i += 1
        if self.diverged or i > len(self.answers):
            return self.base(d)
        if i == len(self.answers):
            if d.kind != self.forced[0]:
                self.diverged = True
                return self.base(d)
            if self.on_forced is not None:
                self.on_forced()
            return self.forced[1]
        kind, answer = self.answers[i]
        if kind != d.kind:
            self.diverged = True
            return self.base(d)
        return answer


def can_roll_out(source: Any) -> bool:
    """Whether rollouts can draw from `source` with their own numbers (recorded throws can, physics
    cannot)."""
    return hasattr(source, "table_for") and hasattr(source, "uniform")


class StrongPolicy:
    """The `strong` rung: `StrongPolicy(rollouts=8, decisions=("shop", "dice-out"), max_rollouts=256,
    base=BASE_KNOBS)`; a game binds it to a `StrongPlayer` (`for_game`). Options by name:
    "strong:rollouts=16,max_rollouts=128,decisions=room+shop", and any knob of `default` sets the
    base's ("strong:heal_below=3": sim.games.policy.Table)."""

    def __init__(
        self,
        rollouts: int = DEFAULT_ROLLOUTS,
        decisions: tuple[str, ...] = DEFAULT_DECISIONS,
        max_rollouts: int = MAX_ROLLOUTS,
        base: dict[str, str] | None = None,
    ) -> None:
        self.rollouts = int(rollouts)
        self.max_rollouts = max(int(max_rollouts), self.rollouts)
        self.decisions = tuple(decisions)
        self.knobs = dict(BASE_KNOBS if base is None else base)
        self.base = GamePolicy("default", dict(self.knobs))
        self.__name__ = "strong"
        opts = []
        if self.rollouts != DEFAULT_ROLLOUTS:
            opts.append(f"rollouts={self.rollouts}")
        if self.max_rollouts != max(MAX_ROLLOUTS, self.rollouts):
            opts.append(f"max_rollouts={self.max_rollouts}")
        if self.decisions != DEFAULT_DECISIONS:
            opts.append(f"decisions={'+'.join(self.decisions)}")
        opts += [f"{k}={v}" for k, v in self.knobs.items() if BASE_KNOBS.get(k) != v]
        opts += [f"{k}=default" for k in BASE_KNOBS if k not in self.knobs]
        if opts:
            self.__name__ += ":" + ",".join(opts)

    def with_options(self, opts: dict[str, str]) -> StrongPolicy:
        """A copy with options from a policy name; ValueError names the bad one."""
        rollouts, most, decisions = self.rollouts, self.max_rollouts, self.decisions
        knobs = dict(self.knobs)
        for k, v in opts.items():
            if k in ("rollouts", "max_rollouts"):
                if not v.isdigit() or not 1 <= int(v) <= 10_000:
                    raise ValueError(
                        f"option {k}={v} of game policy 'strong': expected a whole number 1-10000"
                    )
                if k == "rollouts":
                    rollouts = int(v)
                else:
                    most = int(v)
            elif k == "decisions":
                decisions = tuple(x for x in v.split("+") if x)
                bad = [x for x in decisions if x not in SEARCHED]
                if bad or not decisions:
                    raise ValueError(
                        f"option decisions={v} of game policy 'strong': expected some of {'+'.join(SEARCHED)}"
                    )
            elif k in Table._fields:
                if v == "default":  # default's own knob, not the base's tuned one
                    knobs.pop(k, None)
                    continue
                table_with("default", {k: v})  # checked here: the error names the option
                knobs[k] = v
            else:
                raise ValueError(
                    f"unknown option '{k}' of game policy 'strong' (one of rollouts, max_rollouts, "
                    f"decisions, or a knob of default: {', '.join(Table._fields)})"
                )
        if "max_rollouts" not in opts:
            most = max(most, rollouts)
        return StrongPolicy(rollouts, decisions, most, knobs)

    def for_game(self, game: Any) -> Policy:
        """The player of one game (it reads the game's checkpoint to roll out)."""
        if not can_roll_out(game.source):
            return self.base
        return StrongPlayer(self, game)

    def __call__(self, d: Decision) -> Any:  # outside a game (a lone fight): default's play
        return self.base(d)


class StrongPlayer:
    """One game's strong player: searches the decisions of `policy.decisions`, asks `default` the rest."""

    records = True  # the game keeps the answers since its checkpoint for the rollouts to replay

    def __init__(self, policy: StrongPolicy, game: Any) -> None:
        self.policy, self.game, self.base = policy, game, policy.base
        self.__name__ = policy.__name__
        self.searched = 0  # decisions searched so far (each rollout's stream is keyed by its number)
        self.rollouts_played = 0

    def __call__(self, d: Decision) -> Any:
        if d.kind not in self.policy.decisions or self.game.checkpoint is None:
            return self.base(d)
        # backing down is weighed where the rulebook means it: a revealed monster demanding a
        # Specific Throw (the engine also asks whenever the colored dice run out)
        if d.kind == "back-down" and (d.fight.turns or not d.fight.monster.requirements):
            return self.base(d)
        choices = self._choices(d)
        mine = self.base(d)
        if len(choices) < 2:
            return mine
        return self._search(d, choices, mine)

    def _choices(self, d: Decision) -> list[Any]:
        if d.kind == "room":
            return list(range(len(d.options)))
        if d.kind == "shop":
            return shop_plans(d, self.base)
        return list(dict.fromkeys(d.options))

    def _search(self, d: Decision, choices: list[Any], mine: Any) -> Any:
        """Race the choices on paired rollouts: `rollouts` each, then doubling for the challengers still
        in the race (paired gain over the base's choice, rollout by rollout, not yet below zero by
        `GAIN_Z` standard errors), up to `max_rollouts`; a challenger wins once its gain is above
        `GAIN_Z` standard errors (and still then is the best), else the base's choice stays."""
        g = self.game
        if d.kind in GAME_KINDS:
            fight, throws = g.game * 64 + g.combats, 0
        else:
            fight, throws = d.fight.fight, d.fight.throws
        n = self.searched
        self.searched += 1
        p = self.policy
        m = choices.index(mine) if mine in choices else 0
        vals: list[list[float]] = [[] for _ in choices]
        wins = [0.0] * len(choices)
        alive = [i for i in range(len(choices)) if i != m]
        pick, played, batch = m, 0, p.rollouts
        while alive:
            for i in [m, *alive]:
                for j in range(played, played + batch):
                    won, progress = self._rollout((d.kind, choices[i]), n, j, fight, throws)
                    wins[i] += won
                    vals[i].append(won + PROGRESS_WEIGHT * progress)
                self.rollouts_played += batch
            played += batch
            gains = {i: _paired(vals[i], vals[m]) for i in alive}
            alive = [i for i in alive if gains[i][0] > 0]  # ahead so far: worth more rollouts
            ahead = [i for i in alive if gains[i][0] > GAIN_Z * gains[i][1]]
            if ahead:
                pick = max(ahead, key=lambda i: gains[i][0])
                break
            if played >= p.max_rollouts:
                break
            batch = min(played, p.max_rollouts - played)
        if g.log is not None:
            shown = [i for i in range(len(choices)) if vals[i]]
            order = sorted(shown, key=lambda i: -wins[i] / len(vals[i]))
            counts = sorted({len(vals[i]) for i in shown})
            each = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
            note = "; default would take " + _label(d, mine) if pick != m else ""
            g.note(
                f"    strong {d.kind} -> {_label(d, choices[pick])}: "
                + " vs ".join(f"{_label(d, choices[i])} {100 * wins[i] / len(vals[i]):.0f} %" for i in order)
                + f" ({each} rollouts each{note})"
            )
        return choices[pick]

    def _rollout(
        self, choice: tuple[str, Any], n: int, j: int, fight: int, throws: int, peek: bool = False
    ) -> tuple[float, int]:
        """Play the rest of the game once with `choice` forced; `peek` (a test's check of the replay)
        keeps the decks' order and the game's own throws, as if the table knew the future."""
        g = self.game
        ss = np.random.SeedSequence(g.spec.seed, spawn_key=(int(g.game), STREAM_ROLLOUT, n, j))
        rng = np.random.Generator(np.random.PCG64(ss))
        r = g.checkpoint.clone()
        decks = (("dungeon", "dungeon"), ("monster", "monster_deck"), ("shop", "shop_deck"))
        for deck, attr in (*decks, ("power", "power_deck")):
            seen = g.drawn[deck] - g.drawn_at[deck]
            cards = getattr(r, attr)
            if not peek and 0 <= seen < len(cards) - 1:
                rest = cards[seen:]
                setattr(r, attr, cards[:seen] + [rest[i] for i in rng.permutation(len(rest))])
        r.source = g.source if peek else RolloutSource(g.source, fight, throws, rng)

        def unseen() -> None:  # from the choice on, the game's own draws (the Final Boss, a
            r.rng = rng  # reshuffled Monster deck) come from the rollout's stream too

        replay = Replay(list(g.answers), choice, self.base, None if peek else unseen)
        r.policy = r.fight_policy = replay
        r.play()
        return (1.0 if r.outcome == "won" else 0.0), r.shops + (r.boss != "")


def _paired(a: list[float], b: list[float]) -> tuple[float, float]:
    """The mean paired difference a - b and its standard error (0 for fewer than two pairs)."""
    diff = np.asarray(a) - np.asarray(b)
    se = float(diff.std(ddof=1) / np.sqrt(len(diff))) if len(diff) > 1 else 0.0
    return float(diff.mean()), se


def shop_plans(d: Decision, base: GamePolicy) -> list[ShopPlan]:
    """The Shop plans a strong table weighs: default's, the classic heal-first plan, every coin on
    white dice, dice then healing, healing to full then dice (duplicates dropped)."""
    g = d.fight
    gold, room = g.gold, 9 - g.white
    wound = max((h.max_life - h.life for h in g.standing), default=0)
    plans = [base(d), GamePolicy("default", {"shop": "heal-first"})(d)]
    dice = min(room, gold // 2)
    plans.append(ShopPlan(white_dice=dice))
    plans.append(ShopPlan(white_dice=dice, heal=min(wound, gold - 2 * dice)))
    heal = min(wound, gold)
    plans.append(ShopPlan(heal=heal, white_dice=min(room, (gold - heal) // 2)))
    return list(dict.fromkeys(plans))


def _label(d: Decision, choice: Any) -> str:
    if d.kind == "room":
        return str(d.options[choice].name)
    if d.kind == "shop":
        p = choice
        parts = [f"{len(p.buy)} cards"] if p.buy else []
        parts += [f"heal {p.heal}"] if p.heal else []
        parts += [f"{p.white_dice} dice"] if p.white_dice else []
        return "+".join(parts) or "nothing"
    if d.kind == "back-down":
        return "back down" if choice else "fight"
    return "white die" if choice == "white" else str(choice)


__all__ = ["StrongPolicy", "StrongPlayer", "RolloutSource", "Replay", "shop_plans", "SEARCHED"]
