"""The game rules engine: a whole game of Dungeon Fighter as a pure, deterministic loop (Chambers of
Malevolent Magma, "Setup" to "End Game Scoring"), each combat played by the fight engine
(sim.fights.engine). No physics and no hidden randomness: shuffles and the Final Boss come from the
game's own stream (root seed, game index), every throw from the throw source, every choice from the
policy (sim.games.policy).

Rule readings (docs/game.md has each with its rulebook sentence):

- Setup: the Monster deck is 3 shuffled cards of each of Levels 1, 2 and 3 on top of all the Level 4
  cards (the other Level 1-3 cards stay in the box); Dungeon and Shop decks shuffled; the Chest holds
  2 white dice (+ house rule extra_white_dice) and players - 2 gold; the last seated hero is the
  first Leader, so the first seat is the first Active Hero;
- a round: the Leader draws 2 Dungeon cards, keeps one (policy), the other goes to the bottom; its
  immediate effects (Gold Bonus, Heal Party, Gain 1 Die, Free Equipment) happen once; the top Monster
  card is fought in that room (life = card + Monster Advantage + difficulty, in the fight engine);
  backing down sends the monster to the box and the next one is fought in the same room;
- Resting (after a won combat, in the fight engine: Epic Shot, reward, Scars and elimination at a
  fourth faint): the Leader token goes to the hero who threw the last die, used white dice are gone,
  life, Scars, gold, white dice and equipment carry to the next combat, spent Spendables are
  discarded, Armors are realigned (every combat starts with them), Relics heal;
- the Shop at 10 Shop icons (11 with Level Up): 2 + 1 per hero Equipment cards, bought with gold;
  healing at 1 gold per life point for everyone; white dice at 2 gold each up to 9 on the Chest;
  unbought cards go back to the box; the Dungeon cards set aside go to the bottom of the deck;
- after the third Shop, a random Final Boss: white dice only after the colored ones; winning it wins
  the game; all heroes fainted in any combat loses it;
- End Game Scoring and titles (`score`, `title`).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from sim.fights.engine import Fight, resolve_policy
from sim.fights.party import CHEST_DICE
from sim.fights.policy import Decision, Policy
from sim.fights.throw_source import ThrowSource
from sim.games.deck import BossCard, DungeonCard, EquipmentCard, MonsterCard, PowerCard
from sim.games.ladder import policy_label, resolve_game_policy
from sim.games.result import GameResult, score, title
from sim.games.shop import LEVEL_UP_XP, Shopping
from sim.games.spec import SHOPS, GameSpec
from sim.games.state import GameHero, game_plan

STREAM_GAME = 17  # spawn-key stream of a game's shuffles (fight resampling uses 16)
COMBATS_PER_GAME = 64  # fight stream indices per game: combat k of game g is fight g * 64 + k
MONSTERS_PER_LEVEL = 3  # "Take 3 cards from each of Level 1 [...], Level 2 [...], and Level 3"
XP_PER_ICON = 2  # "you earn 2 XP"


class Game(Shopping):
    """The state of one game. Policies read it through `Decision.fight` (the game) for game decisions."""

    def __init__(
        self,
        spec: GameSpec,
        source: ThrowSource,
        policy: Policy | str | None = None,
        game: int = 0,
        log: bool = True,
        policy_name: str | None = None,
    ) -> None:
        self.plan = game_plan(spec)
        self.spec = spec
        self.source = source
        self.policy = resolve_game_policy(policy if policy is not None else spec.policy, spec.source)
        self.policy_name = policy_name or policy_label(policy if policy is not None else spec.policy)
        # a searching policy (sim.games.strong) plays this game through its own player, which replays
        # the round so far from a checkpoint: every answer since the round began is recorded
        bind = getattr(self.policy, "for_game", None)
        if bind is not None:
            self.policy = bind(self)
        self.recording = bool(getattr(self.policy, "records", False))
        self.answers: list[Any] = []  # the answers given since the checkpoint (when recording)
        self.checkpoint: Game | None = None
        self.drawn = {"dungeon": 0, "monster": 0, "shop": 0, "power": 0}  # cards taken off each deck
        self.drawn_at: dict[str, int] = dict(self.drawn)
        self.fight_policy = self._recorded if self.recording else resolve_policy(self.policy)
        self.boss_card: BossCard | None = None
        self.game = game
        self.log: list[str] | None = [] if log else None
        ss = np.random.SeedSequence(spec.seed, spawn_key=(int(game), STREAM_GAME))
        self.rng = np.random.Generator(np.random.PCG64(ss))
        skill = spec.throws.skill
        self.heroes = [
            GameHero(h, h.skill or skill, h.start_life, h.max_life, list(h.scars)) for h in self.plan.heroes
        ]
        self.gold = spec.party.start_gold
        self.white = min(CHEST_DICE, spec.party.white_dice + spec.house_rules.extra_white_dice)
        self.xp = 0
        self.relics: list[EquipmentCard] = []
        self.leader = len(self.heroes) - 1
        self.icons = 0
        self.shops = 0
        self.combats = 0
        self.rounds = 0
        self.backed_down = 0
        self.reshuffles = 0  # times the empty Monster deck was made again from the defeated monsters
        self.throws = 0
        self.scars = 0
        self.trace: list[dict[str, Any]] = []
        self.outcome = ""
        self.lost_at = self.lost_reason = ""
        self.lost_level = 0
        self.boss = ""
        # decks
        p = self.plan
        self.dungeon = self._shuffled(p.dungeon)
        self.set_aside: list[DungeonCard] = []
        self.shop_deck = self._shuffled(p.equipment)
        self.power_deck = self._shuffled(p.powers)
        self.power_discard: list[PowerCard] = []
        self.monster_deck: list[MonsterCard] = []
        for lv in (1, 2, 3):
            self.monster_deck += self._shuffled(p.monsters[lv])[:MONSTERS_PER_LEVEL]
        self.monster_deck += self._shuffled(p.monsters[4])
        self.monster_discard: list[MonsterCard] = []

    # ---- helpers -------------------------------------------------------------------------------
    def _shuffled(self, cards: list) -> list:
        return [cards[i] for i in self.rng.permutation(len(cards))] if cards else []

    def note(self, text: str) -> None:
        """A line of the round-by-round log (a policy's explanation of its choice too)."""
        if self.log is not None:
            self.log.append(text)

    def _ask(self, kind: str, options: tuple, detail: dict | None = None, hero: Any = None) -> Any:
        d = Decision(kind, self, hero, options, detail)
        return self._recorded(d) if self.recording else self.policy(d)

    def _recorded(self, d: Decision) -> Any:
        """The policy's answer, kept in `answers` so a rollout can replay the round up to here."""
        answer = self.policy(d)
        self.answers.append((d.kind, answer))
        return answer

    def _mark(self) -> None:
        """A checkpoint at the start of a round (or of the Final Boss combat) that rollouts replay from."""
        if not self.recording:
            return
        self.answers = []
        self.checkpoint = None  # not part of the copy
        self.checkpoint = self.clone()
        self.drawn_at = dict(self.drawn)

    def clone(self) -> Game:
        """A copy of the game state that plays on without changing this one (no log)."""
        g = copy.copy(self)
        g.heroes = [
            dataclasses.replace(
                h,
                scars=list(h.scars),
                equipment=list(h.equipment),
                powers=list(h.powers),
                level_up=list(h.level_up),
                level_up_spent=list(h.level_up_spent),
            )
            for h in self.heroes
        ]
        for name in (
            "relics", "dungeon", "set_aside", "shop_deck", "power_deck", "power_discard", "monster_deck",
            "monster_discard", "answers",
        ):  # fmt: skip
            setattr(g, name, list(getattr(self, name)))
        g.drawn = dict(self.drawn)
        g.rng = copy.deepcopy(self.rng)
        g.trace = []
        g.log = None
        g.recording = False
        g.checkpoint = None
        return g

    def _pop(self, deck: str, cards: list, n: int = 1) -> list:
        """Take `n` cards off the top of a deck (counted: a rollout reshuffles only the unseen ones)."""
        out = cards[:n]
        del cards[:n]
        self.drawn[deck] += len(out)
        return out

    @property
    def standing(self) -> list[GameHero]:
        """The heroes still in the game (not eliminated), in seating order."""
        return [h for h in self.heroes if not h.eliminated]

    def seating(self) -> list[GameHero]:
        """The heroes from the one to the left of the Leader (the first Active Hero), clockwise."""
        n = len(self.heroes)
        order = [self.heroes[(self.leader + 1 + i) % n] for i in range(n)]
        return [h for h in order if not h.eliminated]

    def can_carry(self, h: GameHero, card: EquipmentCard) -> bool:
        """Whether `h` may take `card` (the carry limits; "A Hero can't have 2 Weapons with the same
        name")."""
        if card.kind == "relic":
            return True
        limit = getattr(self.spec.options.carry, card.kind)
        if h.carries(card.kind) >= limit:
            return False
        return not (card.kind == "weapon" and any(e.name == card.name for e in h.equipment))

    def _give(self, card: EquipmentCard, hero_name: str | None, why: str) -> bool:
        if card.kind == "relic":
            self.relics.append(card)
            self.note(f"  {why}: {card.name} (relic, the party's)")
            return True
        h = next((x for x in self.standing if x.name == hero_name), None)
        if h is None or not self.can_carry(h, card):
            return False
        h.equipment.append(card)
        self.note(f"  {why}: {card.name} to {h.name}")
        return True

    # ---- the game ------------------------------------------------------------------------------
    def run(self) -> GameResult:
        """Play the game to its end: three Shop cycles, the Final Boss, the score."""
        s = self.spec
        self.note(
            f"{s.name}: {len(self.heroes)} heroes ({', '.join(h.name for h in self.heroes)}), "
            f"{s.difficulty}, {self.white} white dice, {self.gold} gold; leader "
            f"{self.heroes[self.leader].name}"
        )
        self.play()
        return self._result()

    def play(self) -> None:
        """Play on from where the game stands (a new game, or a rollout's copy at its checkpoint)."""
        s = self.spec
        while not self.outcome and self.shops < SHOPS:
            self._mark()
            self._round()
            if not self.outcome and self.icons >= s.shop_icons:
                self._shop()
        if not self.outcome:
            if self.boss_card is None:
                self._draw_boss()
                self._mark()  # after the draw: the Boss is seen before any choice of its combat
            self._final_boss()

    def _round(self) -> None:
        self.rounds += 1
        drawn = self._pop("dungeon", self.dungeon, 2)
        if not drawn:
            self._lose("combat", "the Dungeon deck is empty", 0)
            return
        pick = 0 if len(drawn) == 1 else int(self._ask("room", tuple(drawn)))
        room = drawn[pick]
        self.dungeon += [
            c for i, c in enumerate(drawn) if i != pick
        ]  # "place the other Dungeon card on the bottom"
        if self.log is not None:
            self.note(
                f"round {self.rounds}: {self.heroes[self.leader].name} leads into {room.name} "
                f"({room.shop_icons} shop icons, {self.icons + room.shop_icons}/{self.spec.shop_icons})"
                + (f" instead of {drawn[1 - pick].name}" if len(drawn) == 2 else "")
            )
        self._reveal(room)
        while not self.outcome:
            monster = self._draw_monster()
            if monster is None:
                return
            res = self._combat(monster, room)
            if res != "backed-down":
                break
            self.backed_down += (
                1  # "Place the current Monster card back in the box. Draw the next Monster card"
            )
        if self.outcome:
            return
        if room.xp and self.spec.options.xp:  # Training Room: "After the fight ends in this room"
            self.xp += room.xp
        self.set_aside.append(room)
        self.icons += room.shop_icons

    def _reveal(self, room: DungeonCard) -> None:
        """Dungeon Card Effects, "When revealed"."""
        if room.gold:
            self.gold += room.gold
        if room.gain_life:
            for h in self.standing:
                h.heal(room.gain_life)
        if room.white_dice:
            self.white = min(CHEST_DICE, self.white + room.white_dice)
        for _ in range(room.free_equipment):
            if not self.shop_deck:
                break
            card = self._pop("shop", self.shop_deck)[0]
            takers = tuple(h.name for h in self.standing if self.can_carry(h, card))
            who = self._ask("assign", takers, {"card": card}) if takers and card.kind != "relic" else None
            if not self._give(card, who, "free equipment"):
                self.note(f"  free equipment: {card.name} (nobody can carry it)")

    def _draw_monster(self) -> MonsterCard | None:
        if not self.monster_deck:
            if self.spec.options.empty_monster_deck == "lose" or not self.monster_discard:
                self._lose("combat", "the Monster deck is empty", 0)
                return None
            self.monster_deck = self._shuffled(self.monster_discard)
            self.monster_discard = []
            self.reshuffles += 1
            self.note("  the Monster deck is empty: the defeated monsters are shuffled into a new one")
        return self._pop("monster", self.monster_deck)[0]

    def _powers(self, monster: Any) -> tuple[dict[str, tuple], tuple[str, ...]]:
        """Power cards activated for this combat (paid now): template cards per hero, element dice."""
        cards: dict[str, tuple] = {}
        dice: list[str] = []
        if not self.spec.options.xp:
            return cards, ()
        from sim.fights.party import TemplateCardSpec

        for h in self.seating():
            for p in h.powers:
                if p.effect == "miracle" or p.xp > self.xp:
                    continue
                if self._ask("power", (False, True), {"power": p, "monster": monster}, hero=h):
                    self.xp -= p.xp
                    if p.effect == "die" and p.die:
                        dice.append(p.die)
                    elif p.effect == "template" and p.template:
                        cards[h.name] = cards.get(h.name, ()) + (
                            TemplateCardSpec(kind="template", name=p.name, template=p.template),
                        )
                    self.note(f"  {h.name} activates {p.name} ({p.xp} XP)")
        return cards, tuple(dice)

    def _combat(self, monster: MonsterCard | BossCard, room: DungeonCard | None) -> str:
        if self.combats >= COMBATS_PER_GAME:
            self._lose("combat", f"more than {COMBATS_PER_GAME} combats", monster.level)
            return "lost"
        spec = self.plan.fight_spec(monster, room)
        seated = self.seating()
        power_cards, power_dice = self._powers(monster)
        states = [h.state(power_cards.get(h.name, ())) for h in seated]
        relic_dice = sum(r.white_dice for r in self.relics)
        fight = Fight(
            spec,
            self.source,
            self.fight_policy,
            self.game * COMBATS_PER_GAME + self.combats,
            log=False,
            heroes=states,
            white_dice=self.white + relic_dice,
            special_dice=power_dice,
        )
        self.combats += 1
        r = fight.run()
        self.throws += r.throws
        used_from_chest = max(0, r.white_dice_used - relic_dice)
        self.white = max(0, self.white - used_from_chest)  # "Bonus dice are thrown only once."
        self.gold += r.gold
        for h, x in zip(seated, fight.heroes):
            h.life, h.max_life, h.eliminated = x.life, x.max_life, x.eliminated
            h.scars = list(x.scars)
            left = [s.name for s in x.spendables]
            kept = []
            for e in h.equipment:  # spent Spendables are discarded ("discard after use")
                if e.kind == "spendable":
                    if e.name in left:
                        left.remove(e.name)
                        kept.append(e)
                else:
                    kept.append(e)
            h.equipment = kept
            h.level_up_spent += [c for c in h.level_up if c not in x.level_up]
            h.level_up = list(x.level_up)
        self.scars += len(r.scars)
        unused = sum(fight.unused_icons.values())
        if self.spec.options.xp:
            self.xp += XP_PER_ICON * unused
        if self.spec.options.level_up:
            for h in seated:
                gain = fight.unused_icons.get(h.name, 0) + (1 if r.won and h.name == fight.last_hero else 0)
                h.xp = min(LEVEL_UP_XP, h.xp + gain)
        if self.log is not None:
            self.note(
                f"  {monster.title or monster.name} (level {monster.level}, {r.monster_life_start} life): "
                f"{r.outcome.upper()} in {r.throws} throws; gold +{r.gold} = {self.gold}, white dice "
                f"{self.white}, "
                + ", ".join(
                    f"{h.name} {h.life}/{h.max_life}" + (" ELIMINATED" if h.eliminated else "")
                    for h in seated
                )
            )
        self.trace.append(
            {
                "combat": self.combats,
                "round": self.rounds,
                "shops": self.shops,
                "room": room.name if room else "",
                "monster": monster.name,
                "level": monster.level,
                "final_boss": monster.final_boss,
                "outcome": r.outcome,
                "throws": r.throws,
                "gold": self.gold,
                "white_dice": self.white,
                "life": sum(h.life for h in self.standing),
                "standing": len(self.standing),
            }
        )
        if r.outcome == "won":
            if fight.last_hero:
                self.leader = next(i for i, h in enumerate(self.heroes) if h.name == fight.last_hero)
            for h in self.standing:
                for rel in self.relics:
                    h.heal(rel.heal_at_rest)
            if isinstance(monster, MonsterCard):
                self.monster_discard.append(monster)  # "Place the defeated Monster card in the discard pile."
        elif r.outcome == "lost":
            self._lose("final-boss" if monster.final_boss else "combat", r.lost_reason, monster.level)
        elif r.outcome == "unfinished":
            self._lose("final-boss" if monster.final_boss else "combat", r.lost_reason, monster.level)
        return r.outcome

    def _final_boss(self) -> None:
        """5 · Final Boss Combat: "Shuffle the Final Boss cards, draw a random card"."""
        boss = self.boss_card or self._draw_boss()
        self.boss = boss.name
        self.note(f"FINAL BOSS: {boss.title or boss.name}")
        if self._combat(boss, None) == "won":
            self.outcome = "won"

    def _draw_boss(self) -> BossCard:
        bosses = self.plan.bosses
        self.boss_card = bosses[int(self.rng.integers(len(bosses)))]
        return self.boss_card

    def _lose(self, where: str, reason: str, level: int) -> None:
        self.outcome, self.lost_at, self.lost_reason, self.lost_level = "lost", where, reason, level
        self.note(f"LOST ({where}): {reason}")

    def _result(self) -> GameResult:
        elim = sum(h.eliminated for h in self.heroes)
        pts = score(self.gold, self.white, self.scars, elim, self.spec.difficulty)
        self.note(
            f'{self.outcome.upper()}: {pts} points, "{title(pts)}" ({self.gold} gold, {self.white} white '
            f"dice, {self.scars} scars, {elim} eliminated)"
        )
        return GameResult(
            outcome=self.outcome,
            lost_at=self.lost_at,
            lost_reason=self.lost_reason,
            lost_level=self.lost_level,
            combats=self.combats,
            rounds=self.rounds,
            shops=self.shops,
            boss=self.boss,
            points=pts,
            title=title(pts),
            gold=self.gold,
            white_dice=self.white,
            xp=self.xp,
            scars=self.scars,
            eliminated=elim,
            backed_down=self.backed_down,
            throws=self.throws,
            reshuffles=self.reshuffles,
            trace=self.trace,
            log=self.log if self.log is not None else [],
            policy=str(self.policy_name),
        )


def run_game(
    spec: GameSpec, source: ThrowSource, policy: Policy | str | None = None, game: int = 0, log: bool = True
) -> GameResult:
    """Play game `game` of a spec (its shuffles from (seed, game), its throws from the source's
    streams game * 64 + combat)."""
    return Game(spec, source, policy, game, log).run()


def run_games(
    spec: GameSpec,
    source: ThrowSource,
    games: int | range,
    policy: Policy | str | None = None,
    log: bool = False,
    progress: Callable[[], None] | None = None,
) -> list[GameResult]:
    """Play games 0..n-1 (or the given range): game i depends only on (seed, i). `progress` is called
    after each game (a bar's update: sim.games.progress.games_bar)."""
    idx = range(games) if isinstance(games, int) else games
    given: Any = policy if policy is not None else spec.policy
    name = policy_label(given)
    pol = resolve_game_policy(given, spec.source)
    out = []
    for i in idx:
        out.append(Game(spec, source, pol, i, log, policy_name=name).run())
        if progress is not None:
            progress()
    return out


__all__ = ["Game", "run_game", "run_games"]
