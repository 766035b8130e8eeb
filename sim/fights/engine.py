"""The fight rules engine: a pure, deterministic state machine from classified throw outcomes to a
won or lost combat (Chambers of Malevolent Magma, "2 · Combat" to "3 · Resting", "5 · Final Boss
Combat", "Impossible Situations"). No physics: a `ThrowSource` answers every throw, a policy makes
every choice, and every event goes to a blow-by-blow log of plain dicts.

Rule readings (docs/fights.md has each with its rulebook sentence):

- monster life = card + room Monster Advantage + difficulty (hard +3, inferno +5) + house bonus;
- turns go round the party in list order (the first hero is "the Hero to the left of the Leader");
  fainted heroes skip their turns; a new round starts when play passes the first seat;
- the Active Hero takes one of the colored dice still available ("Each die can be thrown just once
  per combat"); with none left: a white Bonus die, or retrieve all three colored dice while every
  hero suffers the monster's level in damage (nothing prevents it). Final Boss: white dice only;
  none left = lost;
- hit: section value (bullseye 10) + ability + weapon bonuses (weapons only on hits) + spendables;
  icon on the bullseye: insta-kill. Miss: the hero suffers the monster's miss damage (Fury: + dice
  on the board), unless prevented (Beer, an Armor once per combat, Agile Instincts);
- Arrogant: after the monster deals damage its card is facedown; a miss while facedown is thrown
  again and the card turns faceup;
- faint at life < 1; all fainted = lost; Epic Shot when the last hit leaves the monster at -3 or
  less, or is an insta-kill (+1 gold); after a won combat each fainted hero takes a Scar (-2 life,
  that colour's ability lost; a fourth faint eliminates) and is restored to full health;
- backing down: every hero loses the monster's level in life, the monster is discarded.

Outcomes are used as the throw source classified them (templates in the request: the Armor
template's -1 is in the outcome's damage); the engine only tracks the board's templates (a die on
the Armor removes it) and applies what classification cannot know (hero abilities and equipment).
"""

from __future__ import annotations

from typing import Any

from sim.errors import FightError
from sim.fights import abilities as ab
from sim.fights.damage import Damage
from sim.fights.equipment import Equipment
from sim.fights.party import CHEST_DICE, COLOURS
from sim.fights.policy import DEFAULT, POLICIES, Decision, Policy
from sim.fights.result import FightResult
from sim.fights.spec import FightSpec
from sim.fights.state import (
    BULLSEYE_DAMAGE,
    EPIC_GOLD,
    MAX_RETHROWS,
    FightPlan,
    HeroState,
)
from sim.fights.throw_source import (
    AIM_OBJECTIVES,
    AIMS,
    Aim,
    ThrowRequest,
    ThrowSource,
)
from sim.rules.outcome import Outcome


def resolve_policy(policy: Policy | str | None, source: str = "<fight>") -> Policy:
    """A policy from a name in `POLICIES`, a callable (returned as is) or None (the default policy);
    an unknown name is a SpecError naming `source`."""
    if policy is None:
        return DEFAULT
    if isinstance(policy, str):
        if policy not in POLICIES:
            from sim.errors import SpecError

            raise SpecError(source, "policy", f"unknown policy '{policy}' (one of {', '.join(POLICIES)})")
        return POLICIES[policy]
    return policy


def run_fight(
    spec: FightSpec,
    source: ThrowSource,
    policy: Policy | str | None = None,
    fight: int = 0,
    log: bool = True,
    max_turns: int = 1000,
) -> FightResult:
    """Play one fight. `policy` defaults to the fight file's named policy; `fight` is the fight's
    index (the throw source's stream index); `log=False` skips the blow-by-blow log (faster)."""
    return Fight(spec, source, policy if policy is not None else spec.policy, fight, log, max_turns).run()


def run_fights(
    spec: FightSpec,
    source: ThrowSource,
    fights: int | range,
    policy: Policy | str | None = None,
    log: bool = False,
) -> list[FightResult]:
    """Play fights 0..n-1 (or the given range) of one spec: fight i draws only from stream i."""
    idx = range(fights) if isinstance(fights, int) else fights
    pol = resolve_policy(policy if policy is not None else spec.policy, spec.source)
    return [Fight(spec, source, pol, i, log).run() for i in idx]


class Fight(Damage, Equipment):
    """The state of one combat. Policies read it through `Decision.fight`; only the engine changes it."""

    def __init__(
        self,
        spec: FightSpec,
        source: ThrowSource,
        policy: Policy | str | None = None,
        fight: int = 0,
        log: bool = True,
        max_turns: int = 1000,
        *,
        heroes: list[HeroState] | None = None,
        white_dice: int | None = None,
        special_dice: tuple[str, ...] = (),
    ) -> None:
        """`heroes`, `white_dice` and `special_dice` let a game hand in the party as it stands (its
        heroes' life, Scars and equipment; the Chest's white dice; dice a Power card adds) instead of
        the fight file's."""
        plan = self.plan = FightPlan.of(spec)
        self.spec = spec
        self.monster = spec.monster
        self.monster_rule = ab.monster_rule(spec.monster.ability)
        self.throws_spec = spec.throws
        self.board = spec.throws.board
        self.source = source
        self.policy = resolve_policy(policy, spec.source)
        self.fight = fight
        self.max_turns = max_turns
        self.log: list[dict[str, Any]] | None = [] if log else None
        self.heroes = (
            heroes
            if heroes is not None
            else [
                HeroState(n, life, mx, list(sc), ab_, sk, w, list(a), list(sp), list(cd), key=k)
                for n, life, mx, sc, ab_, sk, w, a, sp, cd, k in plan.hero_rows
            ]
        )
        for h in self.heroes:
            # a hero who fainted from backing down stays out for the next monster of that room ("cannot
            # act again during that combat") and takes their Scar at the Resting that follows it
            if h.life < 1:
                h.fainted = True
        self.standing = sum(not h.fainted for h in self.heroes)
        self.scars: list[tuple[str, str]] = []
        self.monster_life_start = self.monster_life = plan.monster_life
        self.bullseye_damage = BULLSEYE_DAMAGE
        self.retrieval_damage = plan.retrieval_damage
        self.colored: list[str] = list(COLOURS)
        self.white_left = plan.white_dice if white_dice is None else min(CHEST_DICE, white_dice)
        self.white_used = 0
        self.special: list[str] = [*plan.special_dice, *special_dice]  # thrown first, one per turn
        self.special_thrown = 0
        self.last_hero = (
            ""  # who threw the last die ("The Hero who threw the last die receives the Leader token")
        )
        self.unused_icons: dict[str, int] = {}  # icons no ability took, by hero (XP: "you earn 2 XP")
        self.level_ups_used = 0
        self.retrievals = 0
        self.templates: list[str] = []  # on the board: flipped at the start (`run`) or by a card
        self.templates_t: tuple[str, ...] = ()  # what requests carry (sorted)
        self.flips = 0  # templates flipped so far this fight (the flip stream index)
        self.requirements = plan.requirements
        self.rules = plan.rules
        self.noise = plan.noise
        self.facedown = False  # Arrogant
        self.dice_on_board = 0  # Fury
        self.fire_section: str | None = None  # Set on Fire
        self.beer = 0
        self.beer_holder: HeroState | None = None  # "The Hero may spend a Beer token": theirs to spend
        self.gold = 0
        self.epic = False
        self.outcome = ""
        self.lost_reason = ""
        self.turns = self.rounds = self.throws = self.rethrows = 0
        self.seat = -1
        self.life_track: list[int] = []
        self._shots_cache = plan.shots_cache
        self.base_shots = self._shots(())

    # ---- helpers -------------------------------------------------------------------------------
    def _event(self, event: str, **kw: Any) -> None:
        if self.log is not None:
            kw["event"] = event
            self.log.append(kw)

    def _ask(self, kind: str, hero: HeroState, options: tuple, detail: dict | None = None) -> Any:
        choice = self.policy(Decision(kind, self, hero, options, detail))
        if kind == "weapons":
            chosen = tuple(choice or ())
            bad = [c for c in chosen if c not in options]
            if bad:
                raise FightError(f"policy chose weapon(s) {bad} not carried by {hero.name}")
            return chosen
        if kind == "aim":
            if isinstance(choice, Aim):
                try:
                    return choice.check()
                except ValueError as exc:
                    raise FightError(f"policy answered {choice!r} to 'aim': {exc}") from None
            aim = AIMS.get(choice)
            if aim is None:
                raise FightError(
                    f"policy answered {choice!r} to 'aim', not one of {AIM_OBJECTIVES} or an Aim"
                )
            return aim
        if choice is not None and choice not in options:
            raise FightError(f"policy answered {choice!r} to '{kind}', not one of {options}")
        if choice is None and kind in ("die", "dice-out", "scar"):
            raise FightError(f"policy must answer '{kind}' with one of {options}")
        return choice

    def _hurt(self, h: HeroState, amount: int, cause: str) -> None:
        if amount <= 0 or h.fainted:
            return
        lost = min(amount, h.life)
        h.life -= lost
        h.damage_taken += lost
        if self.log is not None:
            self._event("hero-damage", hero=h.name, damage=amount, cause=cause, life=h.life)
        if h.life < 1:  # "Any time a Hero has less than 1 life point, they faint"
            h.fainted = True
            self.standing -= 1
            self._event("faint", hero=h.name)

    def _heal(self, h: HeroState, amount: int, cause: str) -> None:
        if amount <= 0 or h.fainted:  # a fainted hero "cannot act again during that combat"
            return
        new = min(h.max_life, h.life + amount)
        if new != h.life:
            h.life = new
            self._event("heal", hero=h.name, amount=amount, cause=cause, life=h.life)

    def _all_fainted(self) -> bool:
        return self.standing == 0

    def _lose(self, reason: str) -> None:
        self.outcome, self.lost_reason = "lost", reason
        self._event("lost", reason=reason)

    # ---- the combat ----------------------------------------------------------------------------
    def run(self) -> FightResult:
        """Play the combat to its end (won, lost, backed down, or unfinished after `max_turns` turns),
        rest after a win, and return the result. Call once per `Fight`."""
        spec, room = self.spec, self.spec.room
        if self.log is not None:
            self._event(
                "start",
                monster=self.monster.label,
                life=self.monster_life,
                card_life=self.monster.life,
                room_bonus=room.life_bonus,
                difficulty=spec.difficulty,
                level=self.monster.level,
                miss_damage=self.monster.miss_damage,
                final_boss=self.monster.final_boss,
                heroes=[h.name for h in self.heroes],
                white_dice=self.white_left,
                requirements=list(self.requirements),
                templates=list(self.templates),
                house_rules=dict(self.plan.house_rules),
            )
        if room.gold:
            self.gold += room.gold
            self._event("gold", amount=room.gold, cause="room")
        if room.gain_life:
            for h in self.heroes:
                self._heal(h, room.gain_life, "room")
        # the party may back down when the monster is revealed, and again whenever it runs out of
        # colored dice ("When these situations arise, the Heroes can choose (as a group) to back down.")
        if self._may_back_down() and self._ask("back-down", self.heroes[0], (False, True)):
            self._back_down()
        elif (
            self.plan.templates
        ):  # "Monsters and Dungeons may request players to flip a Template at the start"
            self._flip(self.heroes[0], self.plan.templates, "start")
        while not self.outcome:
            h = self._next_hero()
            if self.turns >= self.max_turns:
                self.outcome, self.lost_reason = "unfinished", f"no result after {self.max_turns} turns"
                self._event("unfinished", turns=self.turns)
                break
            self._turn(h)
        if self.outcome == "won":
            self._rest()
        return self._result()

    def _next_hero(self) -> HeroState:
        n = len(self.heroes)
        while True:
            self.seat = (self.seat + 1) % n
            if self.seat == 0:
                self.rounds += 1
            h = self.heroes[self.seat]
            if not h.fainted:
                return h

    def throw_estimate(self, h: HeroState, requirements: tuple[str, ...]) -> tuple[float, float] | None:
        """(hit share, mean damage of a hit) of `h`'s colored die under `requirements` (the base shot
        if none), when the throw source can say without throwing (recorded throws can, physics
        cannot: None): what a policy weighs at "Impossible Situations"."""
        estimate = getattr(self.source, "estimate", None)
        if estimate is None:
            return None
        shots = tuple(dict.fromkeys(requirements)) or (self.throws_spec.shot,)
        return estimate(self._request(h, "red", "colored", self.throws_spec.colored_die, shots, AIMS["hit"]))

    def _may_back_down(self) -> bool:
        """Backing down ("Place the current Monster card back in the box") is not open against the
        Final Boss: its combat ends only in a win or, out of white dice, a lost game."""
        return not self.monster.final_boss

    def _back_down(self) -> None:
        """Impossible Situations: "Out of shame, each Hero loses life points equal to the current
        Monster's level." Then the monster goes back in the box."""
        self._event("back-down", shame=self.monster.level)
        for h in self.heroes:
            self._hurt(h, self.monster.level, "shame")
        if self._all_fainted():
            self._lose("all heroes fainted")
        else:
            self.outcome = "backed-down"

    def _turn(self, h: HeroState) -> None:
        self.turns += 1
        if self.log is not None:
            self._event(
                "turn", hero=h.name, round=self.rounds, turn=self.turns, monster_life=self.monster_life
            )
        if h.cards:
            self._cards(h)
            if self.outcome or h.fainted:
                return
        if (
            self.special
        ):  # "These dice must join the colored dice pool [...] throwing them counts as the player's turn"
            self._special_turn(h)
            return
        if not self.colored:
            if self._may_back_down() and self._ask("back-down", h, (False, True)):
                self._back_down()
                return
            if self.monster.final_boss:  # "the next player's only option is to throw a white Bonus die"
                if self.white_left == 0:
                    self._lose("out of white dice against the Final Boss")
                    return
                choice = "white"
            elif self.white_left == 0:
                choice = "retrieve"
            else:
                choice = self._ask("dice-out", h, ("white", "retrieve"))
            if choice == "retrieve":
                self._retrieve()
                if self.outcome or h.fainted:  # a fainted Active Hero cannot act: the next hero takes over
                    return
        if self.colored:
            colour = self.colored[0] if len(self.colored) == 1 else self._ask("die", h, tuple(self.colored))
            self.colored.remove(colour)
            kind, die = "colored", self.throws_spec.colored_die
        else:
            colour, kind, die = "white", "white", self.throws_spec.white_die
            self.white_left -= 1
            self.white_used += 1
            self._event("white-die", hero=h.name, left=self.white_left)
        self._throw_die(h, colour, kind, die)

    def _special_turn(self, h: HeroState) -> None:
        """A special or element die: "Special dice work like the white dice, but they're valid only
        during that combat"; its icon is resolved like a white die's."""
        die = self.special.pop(0)
        self.special_thrown += 1
        self._event("special-die", hero=h.name, die=die)
        self._throw_die(h, "white", "special", die)

    def _throw_die(self, h: HeroState, colour: str, kind: str, die: str) -> None:
        if h.weapons:
            weapons = self._ask("weapons", h, tuple(w.name for w in h.weapons))
            used = tuple(w for w in h.weapons if w.name in weapons)
            shots = self._shots(used)
        else:
            weapons = used = ()
            shots = self.base_shots
        aim = self._ask("aim", h, AIM_OBJECTIVES)
        if self.log is not None:
            self._event(
                "choose",
                hero=h.name,
                die=colour,
                weapons=list(weapons),
                shots=list(shots),
                aim=aim.objective,
                target_mm=aim.target_mm,
            )
        for _ in range(MAX_RETHROWS + 1):
            out = self._draw(h, colour, kind, die, shots, aim)
            hit = out.result == "hit"
            if not hit and self._monster_rethrows_miss():
                self.rethrows += 1
                self._event("re-throw", hero=h.name, cause=self.monster.ability)
                continue
            ability, damage_by = self._choose_ability(h, colour, out, hit, used)
            if ability is not None and ab.rule(ability).rethrow:  # "Ignore the result from the first throw."
                self.rethrows += 1
                self._event("ability", hero=h.name, ability=ability)
                self._event("re-throw", hero=h.name, cause="ability")
                continue
            self._resolve(h, out, hit, ability, used, damage_by)
            return
        raise FightError(f"more than {MAX_RETHROWS} re-throws in one turn")

    def _retrieve(self) -> None:
        """ "Retrieve the 3 colored dice from the board. This choice will, however, make the entire
        party of Heroes suffer damage equal to the Monster's level. No special ability or card can
        be used to prevent this damage." All dice leave the board (Fury's note)."""
        self.retrievals += 1
        self.colored = list(COLOURS)
        self.dice_on_board = 0
        self._event("retrieve", damage=self.retrieval_damage, retrievals=self.retrievals)
        for x in self.heroes:
            self._hurt(x, self.retrieval_damage, "retrieve")
        if self._all_fainted():
            self._lose("all heroes fainted")

    def _request(
        self, h: HeroState, colour: str, kind: str, die: str, shots: tuple, aim: Aim
    ) -> ThrowRequest:
        """The next throw as the fight stands now."""
        return ThrowRequest(
            self.fight,
            self.throws,
            h.name,
            colour,
            kind,
            die,
            shots,
            h.skill,
            self.board,
            self.templates_t,
            self.rules,
            self.noise,
            aim,
            self.monster_life,
            self.turns,
            self.retrievals,
        )

    def _draw(self, h: HeroState, colour: str, kind: str, die: str, shots: tuple, aim: Aim) -> Outcome:
        for _ in range(MAX_RETHROWS + 1):
            req = self._request(h, colour, kind, die, shots, aim)
            self.throws += 1
            out = self.source.throw(req)
            if self.log is not None:
                self._event(
                    "throw",
                    hero=h.name,
                    die=colour,
                    throw=req.throw,
                    result=out.result,
                    reason=out.reason,
                    section=out.section,
                    value=out.value,
                    face=out.face,
                    icon=bool(out.icon),
                    damage=out.damage,
                    template=out.template,
                )
            if out.result in ("hit", "miss"):
                return out
            if out.result != "void":
                raise FightError(f"throw source returned result '{out.result}' (expected hit, miss or void)")
            self.rethrows += 1
        raise FightError(f"the throw source returned void {MAX_RETHROWS + 1} times in a row")

    # ---- after the combat ----------------------------------------------------------------------
    def _rest(self) -> None:
        """3 · Resting: Epic Shot bonus, the reward, Scars."""
        m = self.monster
        if self.epic:
            self.gold += EPIC_GOLD
            self._event("gold", amount=EPIC_GOLD, cause="epic-shot")
        if m.reward_gold:
            self.gold += m.reward_gold
            self._event("gold", amount=m.reward_gold, cause="reward")
        for h in self.heroes:
            if not h.fainted:
                continue
            free = tuple(c for c in COLOURS if c not in h.scars)
            if not free:  # "If a Hero with 3 Scars faints once more, flip their sheet over"
                h.eliminated = True
                self._event("eliminated", hero=h.name)
                continue
            colour = free[0] if len(free) == 1 else self._ask("scar", h, free)
            h.scars.append(colour)
            self.scars.append((h.name, colour))
            h.max_life -= 2
            h.life = h.max_life  # "Then, that Hero is restored to full health."
            self._event("scar", hero=h.name, colour=colour, max_life=h.max_life)

    def _result(self) -> FightResult:
        fainted = [h.name for h in self.heroes if h.fainted]
        scars = self.scars
        return FightResult(
            outcome=self.outcome,
            monster=self.monster.name,
            monster_life_start=self.monster_life_start,
            monster_life_end=self.monster_life,
            rounds=self.rounds,
            turns=self.turns,
            throws=self.throws,
            rethrows=self.rethrows,
            hero_damage=sum(h.damage_taken for h in self.heroes),
            hero_damage_by_hero={h.name: h.damage_taken for h in self.heroes},
            white_dice_used=self.white_used,
            white_dice_left=self.white_left,
            retrievals=self.retrievals,
            fainted=fainted,
            scars=scars,
            eliminated=[h.name for h in self.heroes if h.eliminated],
            epic_shot=self.epic,
            gold=self.gold,
            lost_reason=self.lost_reason,
            heroes_after=[
                {
                    "name": h.name,
                    "life": h.life,
                    "max_life": h.max_life,
                    "scars": list(h.scars),
                    "eliminated": h.eliminated,
                }
                for h in self.heroes
            ],
            log=self.log if self.log is not None else [],
            life_by_throw=self.life_track,
        )
