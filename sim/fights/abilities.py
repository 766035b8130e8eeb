"""The hero and monster abilities: one table of each, every ability with its rulebook text, when it
activates and its rule (what it does in a fight, hook by hook).

A hero sheet maps each die colour to one ability; it activates when a die of that colour (or a white
Bonus die, which may activate any unscarred ability) lands showing the special icon. An ability that
takes an argument is written `name:arg` (`sworn-enemy:demon`). The fight engine reads an ability's
rule at its hook points (sim/fights/damage.py) and never tests an ability by name. Data and pure
functions only: importable by the specs (a fight file names abilities) without the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

AGILE_DAMAGE = 2  # "still deals 2 damage to the Monster"
PIERCING_BONUS = 2  # "Add 2 to the value of the section the die lands in"
FOCUSED_VALUE = 5  # "Consider the value of the Target board section the die lands on as a 5"
SWORN_MATCH, SWORN_OTHER = 4, 1  # "deals 4 additional damage to that specific type [...] only 1 additional"
SET_ON_FIRE_BONUS = 2  # "Deal +2 damage" and "That section deals +2 damage for the rest of that combat"
HEAL_PARTY, SELF_HEALING = 1, 3
PICKPOCKET_GOLD = 1
BEER_TOKENS = 2


def _same(value: int, board_section: bool) -> int:
    return value


def _no_bonus(arg: str, monster_type: str | None) -> int:
    return 0


@dataclass(frozen=True)
class HeroRule:
    """What one hero ability does, hook by hook (the defaults do nothing)."""

    section_value: Callable[[int, bool], int] = _same  # (value, on a board section) -> value counted
    hit_bonus: Callable[[str, str | None], int] = _no_bonus  # (argument, monster type) -> damage added
    miss_damage: int = 0  # damage dealt to the monster on a miss
    dodges: bool = False  # the hero suffers no miss damage
    rethrow: bool = False  # "Ignore the result from the first throw": thrown again
    marks_fire: bool = False  # a hit's board section deals +SET_ON_FIRE_BONUS for the rest of the combat
    heal_party: int = 0  # life every hero recovers on activation
    heal_self: int = 0  # life the hero recovers on activation
    gold: int = 0  # gold coins to the Chest on activation
    beer_tokens: int = 0  # Beer tokens turned active on activation (not offered while all are)


def _sworn_enemy(arg: str, monster_type: str | None) -> int:
    return SWORN_MATCH if monster_type is not None and arg == monster_type else SWORN_OTHER


@dataclass(frozen=True)
class MonsterRule:
    """What one monster ability does, hook by hook (the defaults do nothing)."""

    rethrows_facedown_miss: bool = False  # a miss while the card is facedown is thrown again, card faceup
    facedown_on_damage: bool = False  # the card turns facedown when the monster deals damage
    miss_damage_per_board_die: int = 0  # extra miss damage for each die on the Target board


When = Literal["hit", "miss", "any"]


@dataclass(frozen=True)
class AbilityInfo:
    """One hero ability: its name, when it may activate (on a Hit, a Miss, or either), the rulebook
    text it implements, and what its argument names, if it takes one."""

    name: str
    when: When  # "hit" / "miss": "Activated only when the Hero Hits/Misses"; "any": lands anywhere
    text: str  # the rulebook sentence(s)
    arg: str = ""  # what `name:arg` names, if the ability takes an argument
    rule: HeroRule = HeroRule()  # what it does in a fight, hook by hook


_COMMON = "Chambers of Malevolent Magma, Common Hero Abilities"
ABILITIES: dict[str, AbilityInfo] = {
    a.name: a
    for a in (
        AbilityInfo(
            "agile-instincts",
            "miss",
            f'{_COMMON}: "Agile Instincts: Activated only when the Hero Misses. The '
            "Hero dodges the Monster's counterattack, does not suffer damage, and still deals 2 damage to "
            "the "
            'Monster. (Weapon bonuses are not applied, since they only work when the Hero Hits.)"',
            rule=HeroRule(miss_damage=AGILE_DAMAGE, dodges=True),
        ),
        AbilityInfo(
            "piercing",
            "hit",
            f'{_COMMON}: "Piercing Damage: Activated only when the Hero Hits. Add 2 to the '
            'value of the section the die lands in. Then deal damage to the Monster equal to the total."',
            rule=HeroRule(section_value=lambda v, _board: v + PIERCING_BONUS),
        ),
        AbilityInfo(
            "focused",
            "hit",
            f'{_COMMON}: "Focused Damage: Activated only when the Hero Hits. Consider the '
            'value of the Target board section the die lands on as a 5."',
            # Focused names only "the Target board section the die lands on": a template section keeps
            # its value
            rule=HeroRule(section_value=lambda v, board: FOCUSED_VALUE if board else v),
        ),
        AbilityInfo(
            "re-throw",
            "any",
            f'{_COMMON}: "Re-throw: If activated, the Hero may choose to swing at the '
            "Monster again: The player retrieves the die they just threw and throws it again. Ignore the "
            'result from the first throw."',
            rule=HeroRule(rethrow=True),
        ),
        AbilityInfo(
            "heal-party",
            "any",
            f'{_COMMON}: "Heal Party: If activated, the Hero casts a healing spell on the '
            'entire party: every Hero recovers 1 life point."',
            rule=HeroRule(heal_party=HEAL_PARTY),
        ),
        AbilityInfo(
            "pickpocket",
            "any",
            f'{_COMMON}: "Pickpocket: If activated, the Hero takes 1 Gold coin from the '
            'supply and places it on the Chest tile."',
            rule=HeroRule(gold=PICKPOCKET_GOLD),
        ),
        AbilityInfo(
            "self-healing",
            "any",
            f'{_COMMON}: "Self Healing: If activated, the Hero heals 3 life points."',
            rule=HeroRule(heal_self=SELF_HEALING),
        ),
        AbilityInfo(
            "sworn-enemy",
            "hit",
            f'{_COMMON}: "Sworn Enemy: Activated only when the Hero Hits. [...] The Hero '
            "deals 4 additional damage to that specific type of Monster. If the Monster in the combat does "
            "not "
            'match the icon, the Hero deals only 1 additional damage to the Monster."',
            arg="monster type",
            rule=HeroRule(hit_bonus=_sworn_enemy),
        ),
        AbilityInfo(
            "berserk",
            "hit",
            'Chambers of Malevolent Magma, Unique Hero Abilities (Torm): "Berserk: Activated '
            "only when the Hero Hits. Double the Target section value when determining the total damage "
            "dealt "
            "by this throw. If combined with any other bonus that has the same effect, the Target value is "
            'doubled only ONCE."',
            # "the Target value is doubled only ONCE": one ability per throw
            rule=HeroRule(section_value=lambda v, _board: 2 * v),
        ),
        AbilityInfo(
            "beer",
            "any",
            'Chambers of Malevolent Magma, Unique Hero Abilities (Brockenstock): "Beer: If '
            "activated, flip the 2 Beer tokens to the active side. The Hero may spend a Beer token any time "
            "a "
            "Hero Misses (including themselves) to reduce the Monster's damage to zero.\"",
            rule=HeroRule(beer_tokens=BEER_TOKENS),
        ),
        AbilityInfo(
            "set-on-fire",
            "hit",
            'Chambers of Malevolent Magma, Unique Hero Abilities (Melissa): "Set on '
            "Fire: Activated only when the Hero Hits. Deal +2 damage. Then activate the Fire token and place "
            "it "
            'on the Target section the die is in: That section deals +2 damage for the rest of that combat."',
            rule=HeroRule(hit_bonus=lambda _arg, _type: SET_ON_FIRE_BONUS, marks_fire=True),
        ),
    )
}


HERO_RULES: dict[str, HeroRule] = {n: a.rule for n, a in ABILITIES.items()}


def parse_ability(text: str) -> tuple[str, str]:
    """`"sworn-enemy:demon"` -> ("sworn-enemy", "demon"); ValueError naming the known abilities."""
    name, _, arg = text.partition(":")
    info = ABILITIES.get(name)
    if info is None:
        raise ValueError(f"unknown ability '{name}' (one of {', '.join(ABILITIES)})")
    if info.arg and not arg:
        raise ValueError(f"ability '{name}' needs its {info.arg}, e.g. '{name}:demon'")
    if arg and not info.arg:
        raise ValueError(f"ability '{name}' takes no argument (got ':{arg}')")
    return name, arg


@dataclass(frozen=True)
class MonsterAbilityInfo:
    """One monster Special Ability: its name (what a monster file's `ability` says) and the rulebook text."""

    name: str
    text: str
    rule: MonsterRule = MonsterRule()  # what it does in a fight, hook by hook


_MONSTER = "Chambers of Malevolent Magma, Monster Special Abilities"
MONSTER_ABILITIES: dict[str, MonsterAbilityInfo] = {
    a.name: a
    for a in (
        MonsterAbilityInfo(
            "arrogant",
            f'{_MONSTER}: "Arrogant: When the Monster deals damage, flip their card '
            "facedown. If the Hero Misses and the Monster card is facedown, they must re-throw the die and "
            'flip the Monster card faceup again."',
            rule=MonsterRule(rethrows_facedown_miss=True, facedown_on_damage=True),
        ),
        MonsterAbilityInfo(
            "fury",
            f'{_MONSTER}: "Fury: If a Hero Misses, the Monster deals additional damage equal '
            'to the number of dice currently on the Target board." Note: "All dice are removed from the '
            'Target board when the Party retrieves dice and at the end of each combat."',
            rule=MonsterRule(miss_damage_per_board_die=1),
        ),
    )
}


MONSTER_RULES: dict[str, MonsterRule] = {n: a.rule for n, a in MONSTER_ABILITIES.items()}
NO_MONSTER_RULE = MonsterRule()


def rule(ability: str) -> HeroRule:
    """The rule of a hero ability as a sheet names it (`sworn-enemy:demon` -> Sworn Enemy's)."""
    return HERO_RULES[ability.partition(":")[0]]


def monster_rule(ability: str | None) -> MonsterRule:
    """The rule of a monster's ability (one that does nothing for a monster without one)."""
    return NO_MONSTER_RULE if ability is None else MONSTER_RULES[ability]


def applies(ability: str, hit: bool) -> bool:
    """Whether an ability can activate on this throw: "Unless an ability specifically states that it
    is 'Activated only when the Hero Hits/Misses,' the ability activates when the die lands anywhere.\""""
    when = ABILITIES[ability.partition(":")[0]].when
    return when == "any" or (when == "hit") == hit


def section_value(ability: str | None, value: int, board_section: bool = True) -> int:
    """The section value a hit counts with this ability active (Piercing, Focused, Berserk).
    `board_section`: the die lies on a Target board section."""
    return value if ability is None else rule(ability).section_value(value, board_section)


def hit_bonus(ability: str | None, monster_type: str | None) -> int:
    """Damage an active ability adds to a hit on top of the section value (Sworn Enemy, Set on Fire)."""
    if ability is None:
        return 0
    name, arg = parse_ability(ability)
    return HERO_RULES[name].hit_bonus(arg, monster_type)


def monster_ability_problem(name: str) -> str | None:
    """None if `name` is a monster ability; otherwise what is wrong."""
    if name in MONSTER_ABILITIES:
        return None
    return f"unknown monster ability '{name}' (one of {', '.join(MONSTER_ABILITIES)})"
