"""What each hero ability does to a throw (the catalogue with the rulebook sentences is
`sim.specs.abilities.ABILITIES`). Pure arithmetic; the fight engine decides when to call it."""

from __future__ import annotations

from sim.specs.abilities import ABILITIES, parse_ability

AGILE_DAMAGE = 2  # "still deals 2 damage to the Monster"
PIERCING_BONUS = 2  # "Add 2 to the value of the section the die lands in"
FOCUSED_VALUE = 5  # "Consider the value of the Target board section the die lands on as a 5"
SWORN_MATCH, SWORN_OTHER = 4, 1  # "deals 4 additional damage to that specific type [...] only 1 additional"
SET_ON_FIRE_BONUS = 2  # "Deal +2 damage" and "That section deals +2 damage for the rest of that combat"
HEAL_PARTY, SELF_HEALING = 1, 3
PICKPOCKET_GOLD = 1
BEER_TOKENS = 2


def applies(ability: str, hit: bool) -> bool:
    """Whether an ability can activate on this throw: "Unless an ability specifically states that it
    is 'Activated only when the Hero Hits/Misses,' the ability activates when the die lands anywhere.\""""
    when = ABILITIES[ability.partition(":")[0]].when
    return when == "any" or (when == "hit") == hit


def section_value(ability: str | None, value: int, board_section: bool = True) -> int:
    """The section value a hit counts with this ability active (Piercing, Focused, Berserk).
    `board_section`: the die lies on a Target board section; Focused names only those ("the Target
    board section the die lands on"), so on a template section it leaves the value as it is."""
    if ability == "piercing":
        return value + PIERCING_BONUS
    if ability == "focused":
        return FOCUSED_VALUE if board_section else value
    if ability == "berserk":  # "the Target value is doubled only ONCE": one ability per throw
        return 2 * value
    return value


def hit_bonus(ability: str | None, monster_type: str | None) -> int:
    """Damage an active ability adds to a hit on top of the section value (Sworn Enemy, Set on Fire)."""
    if ability is None:
        return 0
    name, arg = parse_ability(ability)
    if name == "sworn-enemy":
        return SWORN_MATCH if monster_type is not None and arg == monster_type else SWORN_OTHER
    if name == "set-on-fire":
        return SET_ON_FIRE_BONUS
    return 0
