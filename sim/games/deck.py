"""Deck files (`decks/*.toml`): the cards of one Dungeon Fighter box, as a game deals them.

One file per box (the base game, each expansion, or a user's own box: `decks/template.toml` is a
documented blank). Cards are facts, not card text: the numbers a game needs. A card whose numbers
the rulebooks do not print carries `estimated = "why"` (one line: what is guessed and on what
basis); a printed card leaves it empty. Schema (every list optional)::

    kind = "deck"
    name = "base"                       # the box's name (file stem)
    title = "Chambers of Malevolent Magma"
    [[monsters]]                        # Monster cards, levels 1-4 (sim.fights.monster.MonsterSpec)
    name = "firewall"; life = 6; miss_damage = 2; level = 1; reward_gold = 2; requirements = ["firewall"]
    special_dice = []                   # special / element dice that join the pool ("iron-d8", "water")
    count = 1                           # copies of the card in the box
    estimated = "level: the Combat Example does not say"
    [[bosses]]                          # Final Boss cards (final_boss = true is implied)
    [[dungeon]]                         # Dungeon cards (sim.fights.monster.RoomSpec plus:)
    name = "Lost Treasure"; shop_icons = 2; gold = 1; life_bonus = 3
    free_equipment = 0                  # "Free Equipment: take the top card from the Shop deck"
    [[equipment]]                       # Shop cards: weapon, armor, spendable, template, relic
    name = "Sword of Friendship"; kind = "weapon"; price = 3; bonus = 2; requirements = ["friendly"]
    [[powers]]                          # expansions' Power cards, bought with XP
    name = "Dragon's Belch"; xp = 1; effect = "template"; template = "fireball"

Mixing boxes ("Mixing Dungeon Fighter Boxes!"): a game names several deck files and each of its
decks is the cards of all of them shuffled together (sim.games.engine).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field

from sim.errors import SpecError
from sim.fights.monster import (
    NAME,
    MonsterSpec,
    RoomSpec,
    checked,
    load_monster,
    reference_problems,
    special_die_problem,
)
from sim.fights.party import ArmorSpec, SpendableSpec, TemplateCardSpec, WeaponSpec
from sim.specs.base import Spec
from sim.specs.datafiles import beside, read_toml, resolve


class MonsterCard(MonsterSpec):
    """A Monster card of a deck: the fight engine's monster, with its copies and the reason its
    unprinted numbers are what they are."""

    estimated: str = ""  # type: ignore[assignment]  # why the unprinted numbers are what they are
    count: int = Field(default=1, ge=1, le=10)

    def problems(self) -> list[tuple[str, str]]:
        """The monster's problems, a Final Boss or a level 5 among Monster cards."""
        out = super().problems()
        if self.final_boss:
            out.append(("final_boss", "a Final Boss belongs in [[bosses]], not [[monsters]]"))
        if self.level > 4:
            out.append(("level", "Monster cards are Level 1 to 4 (the card back's colour)"))
        return out


class BossCard(MonsterSpec):
    """A Final Boss card ("Each Boss shows a damage value, a type, and may have a special ability,
    but they provide no reward")."""

    estimated: str = ""  # type: ignore[assignment]
    final_boss: bool = True
    count: int = Field(default=1, ge=1, le=10)

    def problems(self) -> list[tuple[str, str]]:
        """The monster's problems, and a Boss card that is not a Final Boss."""
        out = super().problems()
        if not self.final_boss:
            out.append(("final_boss", "a [[bosses]] card is a Final Boss"))
        return out


class DungeonCard(RoomSpec):
    """A Dungeon card: its Shop icons ("how many steps the party is advancing inside the Dungeon"),
    its immediate effects (Gold Bonus, Heal Party, Gain 1 Die, Free Equipment, Monster Advantage)
    and what it does to the combat (specific throws, templates, special dice)."""

    name: str = Field(min_length=1, max_length=60)
    shop_icons: int = Field(ge=0, le=5)
    free_equipment: int = Field(default=0, ge=0, le=3)
    xp: int = Field(default=0, ge=0, le=10)  # Training Room: "receives as many XP tokens as shown"
    estimated: str = ""
    count: int = Field(default=1, ge=1, le=10)

    def problems(self) -> list[tuple[str, str]]:
        """The room's problems (requirements, templates, special dice)."""
        return super().problems()

    def room(self) -> RoomSpec:
        """The card as the fight engine's room, its immediate effects left to the game (they happen
        once, when the card is revealed, not again for the next monster after backing down)."""
        return RoomSpec(
            name=self.name,
            life_bonus=self.life_bonus,
            requirements=list(self.requirements),
            templates=list(self.templates),
            special_dice=list(self.special_dice),
        )


EquipmentKind = Literal["weapon", "armor", "spendable", "template", "relic"]


class EquipmentCard(Spec):
    """A Shop card: price and what it does. Weapons (`bonus` on a Hit, `requirements`), Armors
    (`reduce` of a Miss's damage once per combat; all of it when omitted), Spendables (`damage` extra
    on one Hit, then discarded), template cards (`template` flipped once per combat) and Relics (the
    party's, not a hero's: `heal_at_rest` life for every hero at each Resting, `white_dice` more for
    every combat)."""

    model_config = ConfigDict(strict=True)

    name: str = Field(min_length=1, max_length=60)
    kind: EquipmentKind
    price: int = Field(ge=0, le=20)
    bonus: int = Field(default=0, ge=0, le=20)
    requirements: list[str] = Field(default_factory=list, max_length=4)
    reduce: int | None = Field(default=None, ge=1, le=20)
    damage: int = Field(default=0, ge=0, le=20)
    template: str | None = Field(default=None, min_length=1, max_length=200)
    heal_at_rest: int = Field(default=0, ge=0, le=9)
    white_dice: int = Field(default=0, ge=0, le=3)
    estimated: str = ""
    count: int = Field(default=1, ge=1, le=10)

    def problems(self) -> list[tuple[str, str]]:
        """Unknown shots or templates, and fields that do not belong to the card's kind."""
        out = reference_problems(self.requirements, [self.template] if self.template else [])
        out = [("template" if f.startswith("templates.") else f, p) for f, p in out]
        if self.kind == "template" and self.template is None:
            out.append(("template", "a template card names the template it flips"))
        if self.kind != "template" and self.template is not None:
            out.append(("template", f"only a template card flips a template (this is a {self.kind})"))
        if self.kind != "weapon" and (self.bonus or self.requirements):
            out.append(
                (
                    "bonus" if self.bonus else "requirements",
                    f"only a weapon has a bonus or requirements (this is a {self.kind})",
                )
            )
        if self.kind == "relic" and not (self.heal_at_rest or self.white_dice):
            out.append(("kind", "a relic needs an effect: heal_at_rest or white_dice"))
        if self.kind != "relic" and (self.heal_at_rest or self.white_dice):
            out.append(
                ("heal_at_rest" if self.heal_at_rest else "white_dice", "only a relic has this effect")
            )
        if self.kind == "spendable" and not self.damage:
            out.append(("damage", "a spendable is modelled as extra damage on one hit: give damage"))
        return out

    def equipment(self) -> WeaponSpec | ArmorSpec | SpendableSpec | TemplateCardSpec:
        """The card as the fight engine's equipment of the hero who carries it (not for relics)."""
        if self.kind == "weapon":
            return WeaponSpec(
                kind="weapon", name=self.name, bonus=self.bonus, requirements=list(self.requirements)
            )
        if self.kind == "armor":
            return ArmorSpec(kind="armor", name=self.name, reduce=self.reduce)
        if self.kind == "spendable":
            return SpendableSpec(kind="spendable", name=self.name, damage=self.damage)
        if self.kind == "template":
            assert self.template is not None
            return TemplateCardSpec(kind="template", name=self.name, template=self.template)
        raise ValueError("a relic belongs to the party, not to a hero")


class PowerCard(Spec):
    """A Power card (Fire at Will, The Big Wave, Rock and Roll): bought for 1 XP at a Shop, kept by a
    hero (at most 3), activated at the start of their turn by paying `xp`. Effects modelled: throw an
    element die (`die`), flip a template (`template`), or remove a Scar and heal fully (`miracle`)."""

    model_config = ConfigDict(strict=True)

    name: str = Field(min_length=1, max_length=60)
    xp: int = Field(ge=0, le=10)
    effect: Literal["die", "template", "miracle"]
    die: str | None = Field(default=None, min_length=1, max_length=200)
    template: str | None = Field(default=None, min_length=1, max_length=200)
    estimated: str = ""
    count: int = Field(default=1, ge=1, le=10)

    def problems(self) -> list[tuple[str, str]]:
        """A die or template power without (or with an unknown) die or template."""
        out: list[tuple[str, str]] = []
        if self.effect == "die":
            if self.die is None:
                out.append(("die", "a 'die' power names the die it throws"))
            elif p := special_die_problem(self.die):
                out.append(("die", p))
        if self.effect == "template":
            if self.template is None:
                out.append(("template", "a 'template' power names the template it flips"))
            else:
                out += [("template", p) for _, p in reference_problems([], [self.template])]
        return out


class DeckSpec(Spec):
    """The cards of one box."""

    model_config = ConfigDict(strict=True)

    name: str = Field(pattern=NAME, max_length=60)
    title: str = Field(default="", max_length=120)
    description: str = ""
    notes: str = ""
    source_rulebook: str = ""
    estimated: str = ""  # what is estimated about the box as a whole (card counts, ...)
    monsters: list[MonsterCard] = Field(default_factory=list, max_length=100)
    bosses: list[BossCard] = Field(default_factory=list, max_length=20)
    dungeon: list[DungeonCard] = Field(default_factory=list, max_length=100)
    equipment: list[EquipmentCard] = Field(default_factory=list, max_length=100)
    powers: list[PowerCard] = Field(default_factory=list, max_length=50)

    def problems(self) -> list[tuple[str, str]]:
        """Every card's own problems and repeated card names, as (field, problem)."""
        out: list[tuple[str, str]] = []
        for group in ("monsters", "bosses", "dungeon", "equipment", "powers"):
            seen: set[str] = set()
            for i, card in enumerate(getattr(self, group)):
                if card.name in seen:
                    out.append(
                        (f"{group}.{i}.name", f"two {group} cards are called '{card.name}' (use count)")
                    )
                seen.add(card.name)
                out += [(f"{group}.{i}.{f}", p) for f, p in card.problems()]
        return out

    @classmethod
    def check_file(cls, path: Path, data: dict[str, Any]) -> DeckSpec:
        """Validate a deck file (fields, then every card's problems) for `dfsim check`."""
        return deck_from_dict(data, path)

    def cards(self, group: str) -> list[Any]:
        """The cards of a group with their copies, in file order."""
        return [c for c in getattr(self, group) for _ in range(c.count)]


CARD_KEYS = ("count", "estimated")  # what a card naming a monster file may add to it


def deck_from_dict(data: dict[str, Any], source: str | Path) -> DeckSpec:
    """Validate a deck; a monster or boss card `{ monster = "firewall", count = 1, estimated = "..." }`
    is the monster file's card (monsters/, or a path relative to the deck file), so the numbers live
    in one place. A bad reference is blamed on the card's `monster` key."""
    data = dict(data)
    for group in ("monsters", "bosses"):
        cards = data.get(group)
        if not isinstance(cards, list):
            continue
        out = []
        for i, card in enumerate(cards):
            if isinstance(card, dict) and "monster" in card:
                extra = sorted(set(card) - {"monster", *CARD_KEYS})
                if extra:
                    raise SpecError(
                        source,
                        f"{group}.{i}.{extra[0]}",
                        "a card naming a monster file takes only "
                        "count and estimated (edit the monster file for the rest)",
                    )
                ref = card["monster"]
                if not isinstance(ref, str):
                    raise SpecError(
                        source, f"{group}.{i}.monster", "must be a monster name or a monster file path"
                    )
                try:
                    m = load_monster(beside(ref, source))
                except SpecError as exc:
                    raise SpecError(source, f"{group}.{i}.monster", f"{exc.problem}") from None
                fields = m.model_dump(exclude={"estimated", "estimated_fields"})
                fields = {k: v for k, v in fields.items() if v != MonsterSpec.model_fields[k].default}
                fields.update({k: card[k] for k in CARD_KEYS if k in card})
                if group == "bosses":
                    fields["final_boss"] = True
                card = fields
            out.append(card)
        data[group] = out
    return checked(DeckSpec, data, source)


def load_deck(name_or_path: str | Path) -> DeckSpec:
    """A built-in deck (`base`, `fire-at-will`, ...) or a deck file."""
    path = resolve("deck", name_or_path)
    return deck_from_dict(read_toml(path), path)
