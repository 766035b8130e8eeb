"""Monster and room (Dungeon card) specs for fights: `monsters/*.toml`, and a fight file's `[room]`.

A monster file (all numbers are what its card prints; numbers nobody has read off a card are
listed in `estimated_fields`)::

    name = "firewall"            # the built-in name (file stem)
    title = "Firewall"
    life = 6                     # life points on the card
    miss_damage = 2              # damage a Hero suffers on a Miss
    level = 1                    # 1-4 (the card back); retrieving dice / backing down costs this much
    reward_gold = 2              # gold on the card (a Final Boss has none)
    type = "elemental"           # for Sworn Enemy; optional
    requirements = ["firewall"]  # specific throws (shot names, shots/); identical ones count once
    ability = "arrogant"         # optional: one of sim.fights.abilities.MONSTER_ABILITIES
    templates = ["armor"]        # optional: templates flipped at the start of the combat
    final_boss = false
    estimated = true
    estimated_fields = ["level"]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ConfigDict, Field, field_validator, model_serializer

from sim.errors import FieldError, SpecError
from sim.fights.abilities import monster_ability_problem
from sim.specs.base import Spec
from sim.specs.datafiles import builtin_names, read_toml, resolve

NAME = r"^[a-z0-9][a-z0-9-]*$"


def shot_problem(name: str) -> str | None:
    """None if `name` is a built-in shot or a shot file; otherwise what is wrong."""
    try:
        resolve("shot", name)
    except SpecError as exc:
        return exc.problem
    return None


def template_problem(name: str) -> str | None:
    """None if `name` is a built-in template or a template file; otherwise what is wrong."""
    known = builtin_names("template")
    if name in known or (name.endswith(".toml") and Path(name).is_file()):
        return None
    return f"unknown template '{name}' (built-in: {', '.join(known) or 'none'})"


# a special die on a card: a die file or built-in die, or "water" (the three Water dice, thrown at once)
WATER = "water"
WATER_DIE = "water-d6"
WATER_DICE = 3  # "The water element die consists of three small dice"
MAX_SPECIAL_DICE = 4  # Elemental Mastery: "the first 4 players must use one of the Element dice"


def special_die_problem(name: str) -> str | None:
    """None if `name` is "water" or a die name / die file; otherwise what is wrong."""
    if name == WATER:
        return None
    from sim.specs.die import die_name_problem

    return die_name_problem(name)


def special_dice_problems(dice: list[str]) -> list[tuple[str, str]]:
    """Special dice that name no die, as (field, problem)."""
    return [(f"special_dice.{i}", p) for i, d in enumerate(dice) if (p := special_die_problem(d))]


def without_empty_special_dice(spec, dumped):
    """A monster's or room's dump without `special_dice` when it has none: what a fight file without
    special dice dumped (and hashed) before they existed stays the same."""
    if isinstance(dumped, dict) and not spec.special_dice:
        dumped.pop("special_dice", None)
    return dumped


def reference_problems(requirements: list[str], templates: list[str]) -> list[tuple[str, str]]:
    """Requirements that name no shot or are listed twice, and templates that name no template, as
    (field, problem)."""
    out = []
    for i, r in enumerate(requirements):
        p = shot_problem(r)
        if p:
            out.append((f"requirements.{i}", p))
        if r in requirements[:i]:
            out.append((f"requirements.{i}", f"'{r}' is listed twice"))
    for i, t in enumerate(templates):
        p = template_problem(t)
        if p:
            out.append((f"templates.{i}", p))
    return out


class MonsterSpec(Spec):
    """One monster card."""

    model_config = ConfigDict(strict=True)

    name: str = Field(pattern=NAME, max_length=60)
    title: str = Field(default="", max_length=120)
    description: str = ""
    notes: str = ""
    source_rulebook: str = ""
    estimated: bool = True
    estimated_fields: list[str] = Field(default_factory=list, max_length=100)
    life: int = Field(ge=1, le=99)
    miss_damage: int = Field(ge=0, le=20)
    level: int = Field(ge=1, le=5)
    reward_gold: int = Field(default=0, ge=0, le=20)
    type: str | None = Field(default=None, pattern=NAME, max_length=40)
    requirements: list[str] = Field(default_factory=list, max_length=8)
    ability: str | None = None  # a Monster Special Ability (`MONSTER_ABILITIES`)
    templates: list[str] = Field(default_factory=list, max_length=4)
    # special / element dice that join the pool, thrown first ("These dice must join the colored dice
    # pool when a Monster or Dungeon indicates it"; Elemental Mastery)
    special_dice: list[str] = Field(default_factory=list, max_length=MAX_SPECIAL_DICE)
    final_boss: bool = False

    @field_validator("ability")
    @classmethod
    def _known_ability(cls, v: str | None) -> str | None:
        if v is not None and (problem := monster_ability_problem(v)):
            raise FieldError("", problem)
        return v

    @model_serializer(mode="wrap")
    def _dump(self, handler):
        return without_empty_special_dice(self, handler(self))

    def problems(self) -> list[tuple[str, str]]:
        """Cross-field and reference problems as (field, problem); the first is raised on load."""
        out = []
        fields = set(type(self).model_fields)
        for i, f in enumerate(self.estimated_fields):
            if f not in fields:
                out.append((f"estimated_fields.{i}", f"'{f}' is not a monster field"))
        if self.final_boss and self.reward_gold:
            out.append(("reward_gold", 'a Final Boss provides no reward ("the reward is victory!")'))
        out += reference_problems(self.requirements, self.templates)
        out += special_dice_problems(self.special_dice)
        return out

    @classmethod
    def check_file(cls, path: Path, data: dict[str, Any]) -> MonsterSpec:
        """Validate a monster file (its fields, then `problems()`) for `dfsim check`."""
        return checked(cls, data, path)

    @property
    def label(self) -> str:
        return self.title or self.name


class RoomSpec(Spec):
    """The Dungeon card of the fight's room (`[room]` in a fight file); every entry is optional.

    Dungeon Card Effects: "Gold Bonus: When revealed, add the quantity of Gold coins indicated to the
    Chest tile. Heal Party x2: When revealed, heal every member of the party 2 life points. Gain 1 Die:
    When revealed, add 1 white Bonus die to the Chest tile. [...] Monster Advantage: When revealing the
    Monster card, remember to add the indicated value to the Monster Life Tracker. Specific Throw
    Requirement: [...]"."""

    model_config = ConfigDict(strict=True)

    name: str = Field(default="room", max_length=60)
    description: str = ""
    life_bonus: int = Field(default=0, ge=0, le=30)  # Monster Advantage (+N)
    gain_life: int = Field(default=0, ge=0, le=9)  # every hero gains this much life when the room is revealed
    gold: int = Field(default=0, ge=0, le=20)  # Gold Bonus
    white_dice: int = Field(default=0, ge=0, le=9)  # Gain 1 Die
    requirements: list[str] = Field(default_factory=list, max_length=8)
    templates: list[str] = Field(default_factory=list, max_length=4)
    special_dice: list[str] = Field(
        default_factory=list, max_length=MAX_SPECIAL_DICE
    )  # Fire Altar, Water Shrine

    @model_serializer(mode="wrap")
    def _dump(self, handler):
        return without_empty_special_dice(self, handler(self))

    def problems(self) -> list[tuple[str, str]]:
        """Requirements, templates and special dice that name no shot, template or die, as (field,
        problem)."""
        return reference_problems(self.requirements, self.templates) + special_dice_problems(
            self.special_dice
        )


def checked(cls, data: dict[str, Any], source: str | Path, prefix: str = ""):
    """`cls.from_dict` plus the spec's `problems()`, as one SpecError naming file and field."""
    try:
        spec = cls.from_dict(data, source)
    except SpecError as exc:
        if prefix:
            raise SpecError(exc.source, ".".join(x for x in (prefix, exc.field) if x), exc.problem) from None
        raise
    for field, problem in spec.problems():
        raise SpecError(source, ".".join(x for x in (prefix, field) if x), problem)
    return spec


def load_monster(name_or_path: str | Path) -> MonsterSpec:
    """A built-in monster name (`firewall`) or a monster file path."""
    path = resolve("monster", name_or_path)
    return checked(MonsterSpec, read_toml(path), path)


def builtin_monsters() -> list[MonsterSpec]:
    """Every built-in monster (`monsters/*.toml`), loaded and checked, in name order."""
    return [load_monster(n) for n in builtin_names("monster")]
