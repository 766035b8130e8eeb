"""What a game holds between its combats: the heroes' sheets and what never changes between games
of one spec (the plan: decks, each monster's fight spec, the party's sheets).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sim.fights.engine import FightPlan, HeroState
from sim.fights.party import COLOURS, HeroSpec, PartySpec
from sim.fights.spec import FightSpec
from sim.games.deck import BossCard, DeckSpec, DungeonCard, EquipmentCard, MonsterCard, PowerCard
from sim.games.spec import GameSpec

_EQUIPMENT: dict[int, tuple[EquipmentCard, Any]] = {}


def _equipment(card: EquipmentCard) -> Any:
    """The fight engine's equipment of a card, built once per card (cards are frozen)."""
    hit = _EQUIPMENT.get(id(card))
    if hit is None or hit[0] is not card:
        if len(_EQUIPMENT) > 4096:
            _EQUIPMENT.clear()
        hit = _EQUIPMENT[id(card)] = (card, card.equipment())
    return hit[1]


@dataclass
class GameHero:
    """One hero across the game: the sheet, life, Scars, carried cards, Level Up progress."""

    sheet: HeroSpec
    skill: str
    life: int
    max_life: int
    scars: list[str] = field(default_factory=list)
    equipment: list[EquipmentCard] = field(default_factory=list)
    powers: list[PowerCard] = field(default_factory=list)
    eliminated: bool = False
    xp: int = 0  # Level Up track (0-3)
    level_up: list[str] = field(default_factory=list)  # colours of Level Up tokens held
    level_up_spent: list[str] = field(default_factory=list)  # used since the last Shop

    @property
    def name(self) -> str:
        return self.sheet.name

    def carries(self, kind: str) -> int:
        """How many cards of one kind the hero carries."""
        return sum(e.kind == kind for e in self.equipment)

    def heal(self, n: int) -> None:
        """Heal up to the hero's maximum (9 - 2 per Scar)."""
        self.life = min(self.max_life, self.life + max(0, n))

    def state(self, template_powers: tuple = ()) -> HeroState:
        """The hero as the fight engine's HeroState for the next combat (Armors realigned)."""
        eq = [_equipment(e) for e in self.equipment]
        abilities = {c: self.sheet.ability(c) for c in COLOURS}
        return HeroState(
            name=self.name,
            life=self.life,
            max_life=self.max_life,
            scars=list(self.scars),
            abilities=abilities,
            skill=self.skill,
            weapons=tuple(e for e in eq if e.kind == "weapon"),
            armors=[e for e in eq if e.kind == "armor"],
            spendables=[e for e in eq if e.kind == "spendable"],
            cards=[e for e in eq if e.kind == "template"] + list(template_powers),
            key=(tuple(abilities.items()), tuple(self.scars)),
            level_up=list(self.level_up),
        )



class GamePlan:
    """What does not change between games of one spec: the decks, the fight spec of each (monster,
    room) pair (built on first use and kept), the party's sheets."""

    def __init__(self, spec: GameSpec, decks: list[DeckSpec] | None = None) -> None:
        self.spec = spec
        self.decks: list[DeckSpec] = spec.load_decks() if decks is None else decks
        self.monsters: dict[int, list[MonsterCard]] = {lv: [] for lv in (1, 2, 3, 4)}
        for d in self.decks:
            for m in d.cards("monsters"):
                self.monsters[m.level].append(m)
        self.bosses: list[BossCard] = [b for d in self.decks for b in d.cards("bosses")]
        self.dungeon: list[DungeonCard] = [c for d in self.decks for c in d.cards("dungeon")]
        self.equipment: list[EquipmentCard] = [
            c for d in self.decks for c in d.cards("equipment") if spec.options.relics or c.kind != "relic"
        ]
        self.powers: list[PowerCard] = (
            [c for d in self.decks for c in d.cards("powers")] if spec.options.xp else []
        )
        self.heroes = spec.party.seated()
        # a combat's house rules: the extra white dice are the starting loot's, not every combat's
        self.house_rules = spec.house_rules.model_copy(update={"extra_white_dice": 0})
        self.party = PartySpec(heroes=list(self.heroes), white_dice=0)
        self.templates = sorted(
            {c.template for c in self.equipment if c.template}
            | {p.template for p in self.powers if p.template}
        )
        self._fights: dict[tuple[str, str], FightSpec] = {}

    def fight_spec(self, monster: MonsterCard | BossCard, room: DungeonCard | None) -> FightSpec:
        """The fight spec of a monster in a room (built once; the party is handed in per combat)."""
        key = (monster.name, room.name if room is not None else "")
        spec = self._fights.get(key)
        if spec is None:
            s = self.spec
            kw: dict[str, Any] = {"room": room.room()} if room is not None else {}
            spec = FightSpec(
                name=f"{s.name}: {monster.name}",
                monster=monster,
                party=self.party,
                difficulty=s.difficulty,
                house_rules=self.house_rules,
                throws=s.throws,
                **kw,
            )
            plan = FightPlan.of(spec)
            from sim.specs.template import load_template

            for t in self.templates:  # templates of cards a hero may carry: their bonus rules
                plan.bonus_rules.setdefault(load_template(t).name, load_template(t).bonus_rule)
            self._fights[key] = spec
        return spec


_PLANS: dict[int, GamePlan] = {}


def game_plan(spec: GameSpec, decks: list[DeckSpec] | None = None) -> GamePlan:
    """The plan of a spec, kept by identity (specs are frozen); `decks` gives it other cards than its
    files' (a study of the estimated cards: sim.games.estimates), kept for that spec."""
    p = _PLANS.get(id(spec))
    if p is None or p.spec is not spec or decks is not None:
        if len(_PLANS) > 32:
            _PLANS.clear()
        p = _PLANS[id(spec)] = GamePlan(spec, decks)
    return p
