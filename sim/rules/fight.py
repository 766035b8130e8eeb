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

from dataclasses import dataclass, field
from typing import Any

from sim.errors import FightError
from sim.rules import abilities as ab
from sim.rules.outcome import Outcome
from sim.rules.policy import DEFAULT, POLICIES, Decision, Policy
from sim.rules.throw_source import (
    AIM_OBJECTIVES,
    AIMS,
    Aim,
    TemplateFlip,
    TemplateFlipRequest,
    ThrowRequest,
    ThrowSource,
    flips_that_stay,
)
from sim.specs.fight import FightSpec
from sim.specs.party import CHEST_DICE, COLOURS, HeroSpec

EPIC_LIFE = -3  # "if the last Hit on the Monster managed to reduce its life to -3 or less"
EPIC_GOLD = 1
MAX_RETHROWS = 20  # re-throws (ability, Arrogant, void) of one turn before the engine gives up
BULLSEYE_DAMAGE = 10
SPEND_BEER = "beer"  # the "prevent" option that spends a Beer token
FLIP_TABLE_DAMAGE = (
    1  # "If the Template lands with any portion touching the table, the player suffers 1 damage"
)


@dataclass
class HeroState:
    """One hero during the fight (the policy reads these)."""

    name: str
    life: int
    max_life: int
    scars: list[str]
    abilities: dict[str, str | None]  # colour -> ability on the sheet
    skill: str
    weapons: tuple = ()
    armors: list = field(default_factory=list)  # unused this combat
    spendables: list = field(default_factory=list)
    cards: list = field(default_factory=list)  # template cards not used yet this combat
    fainted: bool = False
    damage_taken: int = 0
    eliminated: bool = False
    key: tuple = ()  # the sheet (abilities, scars) this fight started with: what a policy may cache by
    level_up: list = field(default_factory=list)  # colours of unused Level Up tokens (the Level Up variant)

    def ability(self, colour: str) -> str | None:
        """The ability the icon of a die of this colour activates (None when scarred)."""
        return None if colour in self.scars else self.abilities.get(colour)

    def available_abilities(self) -> list[str]:
        """What a white die's icon may activate: "any one of their Hero's available (without a Scar)
        special abilities"."""
        return list(dict.fromkeys(a for c in COLOURS if (a := self.ability(c)) is not None))

    @classmethod
    def from_spec(cls, h: HeroSpec, skill: str) -> HeroState:
        """The hero at the start of the fight: sheet life (9 - 2 per Scar unless set), their own skill or
        the fight's `skill`, equipment split into weapons, armors and spendables."""
        eq = h.equipment
        return cls(
            name=h.name,
            life=h.start_life,
            max_life=h.max_life,
            scars=list(h.scars),
            abilities={c: h.ability(c) for c in COLOURS},
            skill=h.skill or skill,
            weapons=tuple(e for e in eq if e.kind == "weapon"),
            armors=[e for e in eq if e.kind == "armor"],
            spendables=[e for e in eq if e.kind == "spendable"],
            cards=[e for e in eq if e.kind == "template"],
        )


@dataclass
class FightResult:
    """What one fight came to: its outcome, the monster's life, rounds, turns and physical throws,
    what it cost the party (life points, white dice, retrievals, faints, Scars), gold, and the log."""

    outcome: str  # "won" | "lost" | "backed-down" | "unfinished"
    monster: str
    monster_life_start: int
    monster_life_end: int
    rounds: int
    turns: int
    throws: int  # physical throws, re-throws included
    rethrows: int
    hero_damage: int  # life lost by all heroes together
    hero_damage_by_hero: dict[str, int]
    white_dice_used: int
    white_dice_left: int
    retrievals: int
    fainted: list[str]
    scars: list[tuple[str, str]]
    eliminated: list[str]
    epic_shot: bool
    gold: int  # gold gained by the party in this fight (room, reward, Epic Shot, Pickpocket, templates)
    lost_reason: str
    heroes_after: list[dict[str, Any]]
    log: list[dict[str, Any]]
    life_by_throw: list[int] = field(default_factory=list)  # the monster's life after each physical throw

    @property
    def won(self) -> bool:
        return self.outcome == "won"

    def record(self) -> dict[str, Any]:
        """One flat row of primitives (for a table of many fights)."""
        return {
            "outcome": self.outcome,
            "won": self.won,
            "monster_life_end": self.monster_life_end,
            "rounds": self.rounds,
            "turns": self.turns,
            "throws": self.throws,
            "rethrows": self.rethrows,
            "hero_damage": self.hero_damage,
            "white_dice_used": self.white_dice_used,
            "retrievals": self.retrievals,
            "fainted": len(self.fainted),
            "scars": len(self.scars),
            "eliminated": len(self.eliminated),
            "epic_shot": self.epic_shot,
            "gold": self.gold,
            "lost_reason": self.lost_reason,
        }

    def to_json(self, log: bool = True) -> dict[str, Any]:
        """Every field as JSON-able values plus `won`; the blow-by-blow log only when `log`."""
        d = {k: v for k, v in self.__dict__.items() if k != "log"}
        d["won"] = self.won
        d["scars"] = [list(s) for s in self.scars]
        if log:
            d["log"] = self.log
        return d


@dataclass(frozen=True)
class FightPlan:
    """Everything about a fight that does not change while it is played, computed once per spec."""

    spec: FightSpec
    heroes: tuple  # HeroSpec
    skill: str
    monster_life: int
    retrieval_damage: int
    white_dice: int
    templates: tuple[str, ...]
    requirements: tuple[str, ...]
    rules: tuple
    noise: float
    house_rules: dict[str, Any]
    special_dice: tuple[str, ...] = ()  # the monster's and the room's special dice, thrown first
    bonus_rules: dict = field(default_factory=dict)  # template name -> what may add to a hit on it
    shots_cache: dict = field(default_factory=dict)  # weapon requirements -> shots in force
    hero_rows: list = field(default_factory=list)  # HeroState constructor arguments

    @classmethod
    def of(cls, spec: FightSpec) -> FightPlan:
        """The plan of `spec`, cached by identity (specs are frozen), so many fights of one spec compute
        it once."""
        hit = _PLANS.get(id(spec))
        if hit is not None and hit.spec is spec:
            return hit
        hr, room, m = spec.house_rules, spec.room, spec.monster
        plan = cls(
            spec=spec,
            heroes=tuple(spec.party.heroes),
            skill=spec.throws.skill,
            monster_life=spec.monster_life,
            retrieval_damage=hr.retrieval_damage(m.level),
            # "You cannot have more than 9 Bonus dice in your Chest!": a room's Gain 1 Die (or a house
            # rule's extra dice) beyond that is lost
            white_dice=min(CHEST_DICE, spec.party.white_dice + room.white_dice + hr.extra_white_dice),
            templates=tuple(sorted(set(m.templates) | set(room.templates))),
            requirements=tuple(dict.fromkeys([*m.requirements, *room.requirements])),
            rules=hr.throw_rules(),
            noise=hr.release_noise_factor,
            house_rules=hr.changed(),
            special_dice=(*m.special_dice, *room.special_dice),
        )
        from sim.specs.template import load_template

        for name in plan.templates:
            spec_t = load_template(name)
            plan.bonus_rules[spec_t.name] = spec_t.bonus_rule
        for h in plan.heroes:
            x = HeroState.from_spec(h, plan.skill)
            plan.hero_rows.append(
                (
                    x.name,
                    x.life,
                    x.max_life,
                    tuple(x.scars),
                    x.abilities,
                    x.skill,
                    x.weapons,
                    tuple(x.armors),
                    tuple(x.spendables),
                    tuple(x.cards),
                    (tuple(x.abilities.items()), tuple(x.scars)),
                )
            )
            for c in x.cards:
                spec_t = load_template(c.template)
                plan.bonus_rules[spec_t.name] = spec_t.bonus_rule
        if len(_PLANS) > PLAN_CACHE:
            _PLANS.clear()
        _PLANS[id(spec)] = plan
        return plan


_PLANS: dict[int, FightPlan] = {}
PLAN_CACHE = 1024  # plans kept: a game's decks make some 500 (monster, room) fights


def bonus_rule(out: Outcome, rules: dict[str, str]) -> str:
    """What may add to a hit (`sim.specs.template.BONUS_RULES`): "section" on the board; on a template
    its file's rule, read from the fight's templates (`rules`, by name) or, for one the fight does not
    know, from the effect the classifier marks it with."""
    if out.template is None:
        return "section"
    if out.template in rules:
        return rules[out.template]
    if "no-bonuses" in out.effects:
        return "none"
    if "equipment-bonus-only" in out.effects:
        return "equipment"
    return "section"


WATER_MISSES = "water-misses:"  # the text of the effect below, before its count (what banks record)


def water_misses(out: Outcome) -> int:
    """How many of the three Water dice of a combined Water throw missed (0 for any other throw)."""
    if out.effects:
        for e in out.effects:
            if e.kind == "water-misses":
                return e.amount
    return 0


def on_board_section(out: Outcome) -> bool:
    """Whether the die counts on a section of the Target board (Focused Damage, Set on Fire name
    only those): not on a template section, not in a hole a Slow token fills (a die the Slime moves
    onto the board is on the board)."""
    return out.section is not None and not out.section.startswith("slow-token:")


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


def possible_requests(spec: FightSpec) -> list[ThrowRequest]:
    """The kinds of throw a fight can ask its source for (one request per distinct scenario): every
    hero with the colored and the white die, under every combination of the hero's weapons, with
    the board's templates at the start, with every template card's template added to them (cards
    flip during the fight) and (the Armor can be knocked off) without the Armor. Used to
    check, before any fight is played, that a throw source covers the fight."""
    import itertools

    plan = FightPlan.of(spec)
    t = spec.throws
    cards = {c.template for h in spec.party.heroes for c in h.equipment if c.kind == "template"}
    start = tuple(sorted(set(plan.templates) | cards)) if cards else plan.templates
    tpls = {plan.templates, start}
    tpls |= {tuple(x for x in t if x != "armor") for t in tpls if "armor" in t}
    seen: dict[tuple, ThrowRequest] = {}
    for h in spec.party.heroes:
        weapons = [e for e in h.equipment if e.kind == "weapon"][:6]
        for k in range(len(weapons) + 1):
            for used in itertools.combinations(weapons, k):
                extra = tuple(r for w in used for r in w.requirements)
                shots = tuple(dict.fromkeys(plan.requirements + extra)) or (t.shot,)
                for die in (t.colored_die, t.white_die):
                    for tp in sorted(tpls):
                        req = ThrowRequest(
                            0,
                            0,
                            h.name,
                            "red",
                            "colored",
                            die,
                            shots,
                            h.skill or plan.skill,
                            t.board,
                            tp,
                            plan.rules,
                            plan.noise,
                        )
                        seen.setdefault((die, shots, req.skill, tp), req)
    return list(seen.values())


class Fight:
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

    def _flip(self, h: HeroState, names: tuple[str, ...], cause: str) -> None:
        """The hero flips `names` one after the other: each landing touching the table costs them
        `FLIP_TABLE_DAMAGE` ("the player suffers 1 damage and must flip the Template again"); a
        template that stays lies on the board for the rest of the combat (or until it is removed)."""
        req = TemplateFlipRequest(
            self.fight,
            self.flips,
            h.name,
            tuple(names),
            h.skill,
            self.board,
            self.templates_t,
            self.turns,
            self.retrievals,
            self.base_shots,
        )
        self.flips += len(names)
        flip = getattr(self.source, "flip", None)
        results: list[TemplateFlip] = flip(req) if flip is not None else flips_that_stay(req)
        for r in results:
            self._event(
                "flip",
                hero=h.name,
                template=r.template,
                stayed=r.stayed,
                flips=r.flips,
                table_touches=r.table_touches,
                cause=cause,
            )
            self._hurt(h, r.table_touches * FLIP_TABLE_DAMAGE, "template-flip")
            if r.stayed and r.template not in self.templates:
                self.templates.append(r.template)
        self.templates_t = tuple(sorted(self.templates))
        if self._all_fainted():
            self._lose("all heroes fainted")

    def _cards(self, h: HeroState) -> None:
        """A template card may be used at the start of its holder's turn, once per combat; a template
        already on the board is left as it is (rule T4's default, `leave`), so its card waits."""
        usable = tuple(c.name for c in h.cards if c.template not in self.templates)
        if not usable:
            return
        choice = self._ask("template", h, usable)
        if choice is None:
            return
        card = next(c for c in h.cards if c.name == choice)
        h.cards.remove(card)
        self._flip(h, (card.template,), card.name)

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

    def _shots(self, weapons: tuple) -> tuple[str, ...]:
        """The specific throws in force, identical ones once ("If the throw requirements of 2 or
        more cards are the same, then they count as one requirement"); the base shot if none."""
        key = tuple(r for w in weapons for r in w.requirements)
        s = self._shots_cache.get(key)
        if s is None:
            s = self._shots_cache[key] = tuple(dict.fromkeys(self.requirements + key)) or (
                self.throws_spec.shot,
            )
        return s

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

    # ---- one throw's consequences --------------------------------------------------------------
    def _hit_damage(self, h: HeroState, out: Outcome, ability: str | None, weapons: tuple) -> int:
        rule = bonus_rule(out, self.plan.bonus_rules)
        if rule == "none":  # "Hits the Monster for 0 damage": nothing adds
            return max(0, int(out.damage))
        value = out.value if out.value is not None else int(out.damage)
        extra = out.damage - value  # special-die bonuses, the Armor template's -1, ...
        if rule == "equipment":  # "the monster only suffers damage from bonuses from equipment"
            total = out.damage
        else:
            total = (
                ab.section_value(ability, value, on_board_section(out))
                + extra
                + ab.hit_bonus(ability, self.monster.type)
            )
        if self.fire_section is not None and out.section == self.fire_section:
            total += ab.SET_ON_FIRE_BONUS
        for w in weapons:
            total += w.bonus
        if value <= 0 and "armor" in self.templates and out.template != "armor" and total > 0:
            total -= 1  # the classifier's -1 skipped a 0 hit; bonuses still "deal -1 damage"
        return max(0, int(total))

    def _choose_ability(self, h: HeroState, colour: str, out: Outcome, hit: bool, weapons: tuple):
        if not out.icon and (not out.effects or "collective-icon" not in out.effects):
            if h.level_up and colour in h.level_up:
                return self._level_up(h, colour, out, hit, weapons)
            return None, None
        cands = h.available_abilities() if colour == "white" else [a for a in (h.ability(colour),) if a]
        options = tuple(a for a in cands if self._offered(a, hit))
        if not options:
            self._event("icon", hero=h.name, ability=None, note="no ability can activate")
            self.unused_icons[h.name] = self.unused_icons.get(h.name, 0) + 1
            return None, None
        damage_by = None
        if hit and not out.insta_kill:
            damage_by = {a: self._hit_damage(h, out, a, weapons) for a in (None, *options)}
        choice = self._ask("ability", h, options, {"outcome": out, "hit": hit, "damage": damage_by or {}})
        if choice is None:  # "If you can activate a special ability but choose not to, you still earn 2 XP"
            self.unused_icons[h.name] = self.unused_icons.get(h.name, 0) + 1
        return choice, damage_by

    def _offered(self, ability: str, hit: bool) -> bool:
        """Hook: whether an ability may be activated on this throw (its Hit/Miss condition; Beer not
        while every token is already active)."""
        r = ab.rule(ability)
        return ab.applies(ability, hit) and not (r.beer_tokens and self.beer == r.beer_tokens)

    def _level_up(self, h: HeroState, colour: str, out: Outcome, hit: bool, weapons: tuple):
        """Variant Level Up: "Anytime a Hero throws a die that doesn't show the Special icon as the
        result, they may use their Level Up token to activate the corresponding color die special
        ability [...] A Scar overrides a Level Up token"."""
        a = h.ability(colour)
        if a is None or not self._offered(a, hit) or ab.rule(a).rethrow:
            return None, None
        damage_by = None
        if hit and not out.insta_kill:
            damage_by = {x: self._hit_damage(h, out, x, weapons) for x in (None, a)}
        choice = self._ask(
            "ability", h, (a,), {"outcome": out, "hit": hit, "damage": damage_by or {}, "level_up": True}
        )
        if choice is not None:
            h.level_up.remove(colour)
            self.level_ups_used += 1
            self._event("level-up", hero=h.name, colour=colour, ability=a)
        return choice, damage_by

    def _resolve(
        self,
        h: HeroState,
        out: Outcome,
        hit: bool,
        ability: str | None,
        weapons: tuple,
        damage_by: dict | None,
    ) -> None:
        self.last_hero = h.name
        if hit or out.reason == "on-bones":
            self.dice_on_board += 1
        rule = ab.rule(ability) if ability is not None else None
        if ability is not None and rule is not None and not rule.rethrow:
            self._event("ability", hero=h.name, ability=ability)
            self._activate(h, ability)
        before = self.monster_life
        insta = False
        if hit:
            if out.insta_kill:  # "the Monster is immediately defeated and the Hit is considered an Epic Shot"
                insta = True
                dealt = max(self.monster_life, 0)
                self.monster_life = 0
            else:
                dealt = (
                    damage_by[ability]
                    if damage_by is not None
                    else self._hit_damage(h, out, ability, weapons)
                )
                if rule is not None and rule.marks_fire and on_board_section(out):
                    self.fire_section = out.section
                if bonus_rule(out, self.plan.bonus_rules) != "none":
                    dealt = self._spend(h, dealt)
                self.monster_life -= dealt
            if self.log is not None:
                self._event(
                    "hit",
                    hero=h.name,
                    damage=dealt,
                    insta_kill=insta,
                    monster_life=self.monster_life,
                    weapons=[w.name for w in weapons],
                )
        else:
            dealt = int(out.damage)  # e.g. the Fire element die's +N "even if the die misses"
            if rule is not None:
                dealt += rule.miss_damage
            self.monster_life -= dealt
            if self.log is not None:
                self._event(
                    "miss", hero=h.name, reason=out.reason, damage=dealt, monster_life=self.monster_life
                )
            if rule is not None and rule.dodges:
                self._event("dodge", hero=h.name, ability=ability)
            else:
                self._miss_damage(h, water_misses(out) or 1)
        if hit and (
            m := water_misses(out)
        ):  # the Water dice that missed: "then suffers that amount of damage"
            if rule is not None and rule.dodges:
                self._event("dodge", hero=h.name, ability=ability)
            else:
                self._miss_damage(h, m)
        self._outcome_effects(h, out)
        track = self.life_track
        track.extend([before] * (self.throws - 1 - len(track)))  # re-thrown and void throws changed nothing
        track.append(self.monster_life)
        if self.monster_life <= 0:
            self.epic = insta or (hit and self.monster_life <= EPIC_LIFE)
            self.outcome = "won"
            self._event(
                "defeated",
                hero=h.name,
                monster_life=self.monster_life,
                life_before=before,
                epic_shot=self.epic,
            )
        elif self._all_fainted():
            self._lose("all heroes fainted")

    def _activate(self, h: HeroState, ability: str) -> None:
        """Hook: what activating an ability does at once (`sim.rules.abilities.HeroRule`)."""
        r = ab.rule(ability)
        if r.beer_tokens:
            self.beer = r.beer_tokens
            self.beer_holder = h
            self._event("beer", tokens=self.beer, hero=h.name)
        if r.heal_party:
            for x in self.heroes:
                self._heal(x, r.heal_party, ability)
        if r.heal_self:
            self._heal(h, r.heal_self, ability)
        if r.gold:
            self.gold += r.gold
            self._event("gold", amount=r.gold, cause=ability)

    def _spend(self, h: HeroState, dealt: int) -> int:
        while True:
            names = tuple(s.name for s in h.spendables if s.damage > 0)
            if not names:
                return dealt
            choice = self._ask("spendable", h, names, {"damage": dealt, "monster_life": self.monster_life})
            if choice is None:
                return dealt
            s = next(s for s in h.spendables if s.name == choice)
            h.spendables.remove(s)
            dealt += s.damage
            self._event("spendable", hero=h.name, item=s.name, damage=s.damage)

    def _miss_damage(self, h: HeroState, misses: int = 1) -> None:
        m = self.monster
        dmg = (
            m.miss_damage * misses
        )  # the Water dice: "adds up the damage from all of the [...] dice that missed"
        dmg += self._monster_extra_miss_damage()
        while dmg > 0 and (self._beer_usable() or h.armors):
            opts = ((SPEND_BEER,) if self._beer_usable() else ()) + tuple(f"armor:{a.name}" for a in h.armors)
            if not opts:
                break
            choice = self._ask("prevent", h, opts, {"damage": dmg})
            if choice is None:
                break
            if choice == SPEND_BEER:  # "reduce the Monster's damage to zero"
                self.beer -= 1
                prevented = dmg
            else:  # an Armor, "once during each combat"
                a = next(a for a in h.armors if f"armor:{a.name}" == choice)
                h.armors.remove(a)
                prevented = dmg if a.reduce is None else min(dmg, a.reduce)
            dmg -= prevented
            self._event("prevent", hero=h.name, by=choice, prevented=prevented)
        if dmg > 0:
            self._hurt(h, dmg, "miss")
            self._monster_dealt_damage()

    # ---- the monster's ability hooks (sim.rules.abilities.MonsterRule) -------------------------
    def _monster_rethrows_miss(self) -> bool:
        """Hook, on a miss: whether it is thrown again (Arrogant: "If the Hero Misses and the Monster
        card is facedown, they must re-throw the die and flip the Monster card faceup again")."""
        if self.monster_rule.rethrows_facedown_miss and self.facedown:
            self.facedown = False
            return True
        return False

    def _monster_extra_miss_damage(self) -> int:
        """Hook, on miss damage: what the monster adds (Fury: "additional damage equal to the number
        of dice currently on the Target board")."""
        extra = self.monster_rule.miss_damage_per_board_die * self.dice_on_board
        if extra:
            self._event(self.monster.ability or "", extra=extra)
        return extra

    def _monster_dealt_damage(self) -> None:
        """Hook, after the monster dealt damage (Arrogant: "When the Monster deals damage, flip their
        card facedown")."""
        if self.monster_rule.facedown_on_damage and not self.facedown:
            self.facedown = True
            self._event(self.monster.ability or "", facedown=True)

    def _beer_usable(self) -> bool:
        """Beer tokens left and a hero to spend them: the one who activated them, while standing (a
        fainted hero "cannot act again during that combat")."""
        return bool(self.beer) and self.beer_holder is not None and not self.beer_holder.fainted

    def _outcome_effects(self, h: HeroState, out: Outcome) -> None:
        """What the classified outcome itself carries: hero damage (Firewall touch, Boulder die,
        Explosion template), healing, gold, a template removed from the board."""
        if not out.effects and not out.hero_damage and out.template is None:
            return
        every = 0
        for e in out.effects:
            kind = e.kind
            if kind == "every-hero-suffers":
                every += e.amount
            elif kind == "every-hero-heals":
                for x in self.heroes:
                    self._heal(x, e.amount, "template")
            elif kind == "gold":
                self.gold += e.amount
                self._event("gold", amount=e.amount, cause="throw")
        own = int(out.hero_damage) - every
        if own > 0:
            self._hurt(h, own, "throw")
        if every > 0:
            for x in self.heroes:
                self._hurt(x, every, "template")
        if out.template == "armor" and "armor" in self.templates:
            self.templates.remove("armor")  # "remove the Shield Template from the Target board"
            self.templates_t = tuple(sorted(self.templates))
            self._event("template-removed", template="armor")

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
