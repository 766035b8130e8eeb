"""What each hero and monster ability does in a fight: one rule per ability the catalogue
`sim.specs.abilities` names (a test checks both tables agree), read by the fight engine at its named
hook points. Pure numbers and arithmetic; the engine keeps the bookkeeping (life, tokens, the log).

Hero hook points (`HeroRule`): the section value a hit counts with (`section_value`), damage added to
a hit (`hit_bonus`), damage dealt on a miss and the miss damage dodged (`miss_damage`, `dodges`), the
throw ignored and thrown again (`rethrow`), the hit's section set on fire (`marks_fire`), and what
activating it does at once (`heal_party`, `heal_self`, `gold`, `beer_tokens`). Monster hook points
(`MonsterRule`): a miss thrown again while the card is facedown (`rethrows_facedown_miss`), the card
turned facedown when it deals damage (`facedown_on_damage`), extra miss damage per die on the board
(`miss_damage_per_board_die`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sim.specs.abilities import ABILITIES, parse_ability

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


HERO_RULES: dict[str, HeroRule] = {
    "agile-instincts": HeroRule(miss_damage=AGILE_DAMAGE, dodges=True),
    "piercing": HeroRule(section_value=lambda v, _board: v + PIERCING_BONUS),
    # Focused names only "the Target board section the die lands on": a template section keeps its value
    "focused": HeroRule(section_value=lambda v, board: FOCUSED_VALUE if board else v),
    "re-throw": HeroRule(rethrow=True),
    "heal-party": HeroRule(heal_party=HEAL_PARTY),
    "pickpocket": HeroRule(gold=PICKPOCKET_GOLD),
    "self-healing": HeroRule(heal_self=SELF_HEALING),
    "sworn-enemy": HeroRule(hit_bonus=_sworn_enemy),
    # "the Target value is doubled only ONCE": one ability per throw
    "berserk": HeroRule(section_value=lambda v, _board: 2 * v),
    "beer": HeroRule(beer_tokens=BEER_TOKENS),
    "set-on-fire": HeroRule(hit_bonus=lambda _arg, _type: SET_ON_FIRE_BONUS, marks_fire=True),
}


@dataclass(frozen=True)
class MonsterRule:
    """What one monster ability does, hook by hook (the defaults do nothing)."""

    rethrows_facedown_miss: bool = False  # a miss while the card is facedown is thrown again, card faceup
    facedown_on_damage: bool = False  # the card turns facedown when the monster deals damage
    miss_damage_per_board_die: int = 0  # extra miss damage for each die on the Target board


MONSTER_RULES: dict[str, MonsterRule] = {
    "arrogant": MonsterRule(rethrows_facedown_miss=True, facedown_on_damage=True),
    "fury": MonsterRule(miss_damage_per_board_die=1),
}
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
