"""What a combat holds: each hero's sheet as it stands, and what never changes between fights of one
spec (the plan: life, dice, shots, rules and templates in force).

Why apart from the engine: a game keeps heroes' states from combat to combat, and policies read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sim.fights.party import CHEST_DICE, COLOURS, HeroSpec
from sim.fights.spec import FightSpec

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
