"""The hero and monster abilities a fight file may name, each with the rulebook sentence it implements.

Data only (names, when they activate, the text): the one table of each, `ABILITIES` (heroes) and
`MONSTER_ABILITIES`; what each one does in a fight is its rule in `sim.rules.abilities` (a test checks
every name here has one). A hero sheet maps each die colour to one ability; it activates when a die of
that colour (or a white Bonus die, which may activate any unscarred ability) lands showing the
special icon. An ability that takes an argument is written `name:arg` (`sworn-enemy:demon`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

When = Literal["hit", "miss", "any"]


@dataclass(frozen=True)
class AbilityInfo:
    """One hero ability: its name, when it may activate (on a Hit, a Miss, or either), the rulebook
    text it implements, and what its argument names, if it takes one."""

    name: str
    when: When  # "hit" / "miss": "Activated only when the Hero Hits/Misses"; "any": lands anywhere
    text: str  # the rulebook sentence(s)
    arg: str = ""  # what `name:arg` names, if the ability takes an argument


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
        ),
        AbilityInfo(
            "piercing",
            "hit",
            f'{_COMMON}: "Piercing Damage: Activated only when the Hero Hits. Add 2 to the '
            'value of the section the die lands in. Then deal damage to the Monster equal to the total."',
        ),
        AbilityInfo(
            "focused",
            "hit",
            f'{_COMMON}: "Focused Damage: Activated only when the Hero Hits. Consider the '
            'value of the Target board section the die lands on as a 5."',
        ),
        AbilityInfo(
            "re-throw",
            "any",
            f'{_COMMON}: "Re-throw: If activated, the Hero may choose to swing at the '
            "Monster again: The player retrieves the die they just threw and throws it again. Ignore the "
            'result from the first throw."',
        ),
        AbilityInfo(
            "heal-party",
            "any",
            f'{_COMMON}: "Heal Party: If activated, the Hero casts a healing spell on the '
            'entire party: every Hero recovers 1 life point."',
        ),
        AbilityInfo(
            "pickpocket",
            "any",
            f'{_COMMON}: "Pickpocket: If activated, the Hero takes 1 Gold coin from the '
            'supply and places it on the Chest tile."',
        ),
        AbilityInfo(
            "self-healing", "any", f'{_COMMON}: "Self Healing: If activated, the Hero heals 3 life points."'
        ),
        AbilityInfo(
            "sworn-enemy",
            "hit",
            f'{_COMMON}: "Sworn Enemy: Activated only when the Hero Hits. [...] The Hero '
            "deals 4 additional damage to that specific type of Monster. If the Monster in the combat does "
            "not "
            'match the icon, the Hero deals only 1 additional damage to the Monster."',
            arg="monster type",
        ),
        AbilityInfo(
            "berserk",
            "hit",
            'Chambers of Malevolent Magma, Unique Hero Abilities (Torm): "Berserk: Activated '
            "only when the Hero Hits. Double the Target section value when determining the total damage "
            "dealt "
            "by this throw. If combined with any other bonus that has the same effect, the Target value is "
            'doubled only ONCE."',
        ),
        AbilityInfo(
            "beer",
            "any",
            'Chambers of Malevolent Magma, Unique Hero Abilities (Brockenstock): "Beer: If '
            "activated, flip the 2 Beer tokens to the active side. The Hero may spend a Beer token any time "
            "a "
            "Hero Misses (including themselves) to reduce the Monster's damage to zero.\"",
        ),
        AbilityInfo(
            "set-on-fire",
            "hit",
            'Chambers of Malevolent Magma, Unique Hero Abilities (Melissa): "Set on '
            "Fire: Activated only when the Hero Hits. Deal +2 damage. Then activate the Fire token and place "
            "it "
            'on the Target section the die is in: That section deals +2 damage for the rest of that combat."',
        ),
    )
}


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


_MONSTER = "Chambers of Malevolent Magma, Monster Special Abilities"
MONSTER_ABILITIES: dict[str, MonsterAbilityInfo] = {
    a.name: a
    for a in (
        MonsterAbilityInfo(
            "arrogant",
            f'{_MONSTER}: "Arrogant: When the Monster deals damage, flip their card '
            "facedown. If the Hero Misses and the Monster card is facedown, they must re-throw the die and "
            'flip the Monster card faceup again."',
        ),
        MonsterAbilityInfo(
            "fury",
            f'{_MONSTER}: "Fury: If a Hero Misses, the Monster deals additional damage equal '
            'to the number of dice currently on the Target board." Note: "All dice are removed from the '
            'Target board when the Party retrieves dice and at the end of each combat."',
        ),
    )
}


def monster_ability_problem(name: str) -> str | None:
    """None if `name` is a monster ability; otherwise what is wrong."""
    if name in MONSTER_ABILITIES:
        return None
    return f"unknown monster ability '{name}' (one of {', '.join(MONSTER_ABILITIES)})"
