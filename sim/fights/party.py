"""Heroes, their equipment, and the party (`[party]` and `[[party.heroes]]` in a fight file).

A hero sheet: "A track with the Hero's current life points, going from 1 (bottom) to 9 (top)" and
"3 special abilities — one for each die color" (Hero Sheet Anatomy). Each Scar costs 2 life points
and the ability of its colour ("they have 2 fewer life points, and they cannot activate that color's
special ability for the rest of the game").

Equipment (Chambers of Malevolent Magma, Equipment):

- weapon: "A Weapon may be used on every throw and its bonus is only applied if the throw is a Hit.
  If a Hero carries more than one Weapon, they can choose to use one or more of them (or even none),
  combining their Specific Throw Requirements and bonuses." (`bonus`, `requirements`; `use = false`
  tells the default policy to leave it unused)
- armor: "Armors [...] may be used once during each combat to prevent damage or activate special
  effects if the throw is a Miss." (`reduce`: miss damage removed; omitted = all of it)
- spendable: "Spendables have a green border and a 'discard after use' effect." Modelled: extra
  damage on a hit (the Griller Queen example's Revenge Potion: "to deal an extra 1 damage").
- template: a card that flips a template during the fight ("some Equipment may allow the player to
  choose when to flip it"), once per combat at the start of its holder's turn (`template`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from sim.errors import SpecError
from sim.fights.abilities import parse_ability
from sim.fights.monster import reference_problems
from sim.specs.base import Spec
from sim.specs.datafiles import resolve

Colour = Literal["red", "green", "blue"]
COLOURS: tuple[str, ...] = ("red", "green", "blue")
LIFE_TRACK_MAX = 9
SCAR_LIFE = 2
CHEST_DICE = 9  # "You cannot have more than 9 Bonus dice in your Chest!"


class WeaponSpec(Spec):
    """A Weapon: `bonus` damage added only on a Hit, its Specific Throw `requirements` added to the
    throw it is used on; `use = false` tells the default policy to leave it unused."""

    model_config = ConfigDict(strict=True)

    kind: Literal["weapon"]
    name: str = Field(min_length=1, max_length=60)
    bonus: int = Field(default=0, ge=0, le=20)
    requirements: list[str] = Field(default_factory=list, max_length=4)
    use: bool = True
    text: str = ""


class ArmorSpec(Spec):
    """An Armor: once per combat, on a Miss, prevents `reduce` points of the damage (all of it when
    omitted)."""

    model_config = ConfigDict(strict=True)

    kind: Literal["armor"]
    name: str = Field(min_length=1, max_length=60)
    reduce: int | None = Field(default=None, ge=1, le=20)  # None: prevents all of the miss damage
    text: str = ""


class SpendableSpec(Spec):
    """A Spendable ("discard after use"): modelled as `damage` extra damage on one Hit."""

    model_config = ConfigDict(strict=True)

    kind: Literal["spendable"]
    name: str = Field(min_length=1, max_length=60)
    damage: int = Field(default=0, ge=0, le=20)  # extra damage on a hit
    text: str = ""


class TemplateCardSpec(Spec):
    """A card that flips a template during the fight ("some Equipment may allow the player to choose
    when to flip it"; Fire at Will's Dragon's Belch: "throws the Fireball template"): once per combat,
    at the start of its holder's turn, when the policy chooses."""

    model_config = ConfigDict(strict=True)

    kind: Literal["template"]
    name: str = Field(min_length=1, max_length=60)
    template: str = Field(min_length=1, max_length=200)  # built-in template name
    text: str = ""


Equipment = Annotated[WeaponSpec | ArmorSpec | SpendableSpec | TemplateCardSpec, Field(discriminator="kind")]


class HeroSpec(Spec):
    """One hero sheet: start life on the 1-9 track (2 fewer per Scar), the ability of each die colour,
    Scars, equipment, and an optional skill of the hero's own."""

    model_config = ConfigDict(strict=True)

    name: str = Field(min_length=1, max_length=40)
    life: int | None = Field(default=None, ge=1, le=LIFE_TRACK_MAX)  # start; default: full (9 - 2 per scar)
    red: str | None = None  # the ability activated by the red die's icon
    green: str | None = None
    blue: str | None = None
    scars: list[Colour] = Field(default_factory=list, max_length=3)
    equipment: list[Equipment] = Field(default_factory=list, max_length=8)
    skill: str | None = None  # skill level of this hero's throws (default: the fight's [throws] skill)

    @property
    def max_life(self) -> int:
        return LIFE_TRACK_MAX - SCAR_LIFE * len(self.scars)

    @property
    def start_life(self) -> int:
        return self.max_life if self.life is None else self.life

    def ability(self, colour: str) -> str | None:
        """The ability written on the sheet for this die colour, Scars ignored (None: none)."""
        return getattr(self, colour)

    def problems(self) -> list[tuple[str, str]]:
        """Unknown abilities, repeated Scars, a start life above the maximum, two Weapons of one name and
        unknown weapon requirements, as (field, problem)."""
        out = []
        for c in COLOURS:
            a = self.ability(c)
            if a is not None:
                try:
                    parse_ability(a)
                except ValueError as exc:
                    out.append((c, str(exc)))
        if len(set(self.scars)) != len(self.scars):
            out.append(("scars", "a Hero can only have 1 Scar token on each color"))
        if self.life is not None and self.life > self.max_life:
            out.append(("life", f"{self.life} is above this hero's maximum {self.max_life} (9 - 2 per scar)"))
        names = [e.name for e in self.equipment if e.kind == "weapon"]
        for i, e in enumerate(self.equipment):
            if e.kind == "weapon" and names.count(e.name) > 1:
                out.append((f"equipment.{i}.name", "a Hero can't have 2 Weapons with the same name"))
                break
            if e.kind == "weapon":
                out += [(f"equipment.{i}.{f}", p) for f, p in reference_problems(e.requirements, [])]
            if e.kind == "template":
                out += [(f"equipment.{i}.{f}", p) for f, p in reference_problems([], [e.template])]
        return out


class PartySpec(Spec):
    """The party: heroes in turn order, white Bonus dice on the Chest (at most 9) and its gold."""

    model_config = ConfigDict(strict=True)

    heroes: list[HeroSpec] = Field(
        min_length=1, max_length=6
    )  # in turn order: the first is the first Active Hero
    white_dice: int = Field(
        default=2, ge=0, le=CHEST_DICE
    )  # on the Chest ("You cannot have more than 9 Bonus dice")
    gold: int = Field(default=0, ge=0, le=999)

    def problems(self) -> list[tuple[str, str]]:
        """Repeated hero names and every hero's own problems, as (field, problem)."""
        return roster_problems(self.heroes)


def roster_problems(heroes: list[HeroSpec]) -> list[tuple[str, str]]:
    """Repeated hero names and every hero's own problems, as (field, problem): a fight's party and a
    game's roster are checked alike."""
    out = []
    seen: set[str] = set()
    for i, h in enumerate(heroes):
        if h.name in seen:
            out.append((f"heroes.{i}.name", f"two heroes are called '{h.name}'"))
        seen.add(h.name)
        out += [(f"heroes.{i}.{f}", p) for f, p in h.problems()]
    return out


def skill_problems(heroes: list[HeroSpec]) -> list[tuple[str, str]]:
    """Each hero's own skill must be a built-in skill or a skill file, as (field, problem)."""
    out = []
    for i, h in enumerate(heroes):
        if h.skill is not None:
            try:
                resolve("skill", h.skill)
            except SpecError as exc:
                out.append((f"heroes.{i}.skill", exc.problem))
    return out
