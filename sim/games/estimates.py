"""The stand-in cards' estimated numbers as parameters: what a study of the unknown cards varies.

Most cards of the base deck are stand-ins ("unnamed-...") whose numbers are estimates (decks/base.toml
gives each its reason). An `Estimates` point shifts every stand-in's estimated number by an offset
(monster life, miss damage, reward, Final Boss life, Equipment prices, Shop icons, Monster Advantage),
leaving the printed cards as printed, so a sensitivity study (studies/card_sensitivity.py) can say
which estimate moves the answer most: the cards a user should type in first.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from sim.games.deck import DeckSpec

STAND_IN = "unnamed"  # the stand-in cards' names start with this


class Estimate(NamedTuple):
    """One estimated number: the cards it shifts, the field, the offsets studied (low, high), the floor."""

    group: str
    field: str
    low: int
    high: int
    floor: int


ESTIMATES: dict[str, Estimate] = {
    "monster life": Estimate("monsters", "life", -4, 4, 1),
    "miss damage": Estimate("monsters", "miss_damage", -1, 1, 1),
    "reward gold": Estimate("monsters", "reward_gold", -1, 1, 0),
    "Final Boss life": Estimate("bosses", "life", -8, 8, 1),
    "Equipment price": Estimate("equipment", "price", -1, 1, 1),
    "Shop icons": Estimate("dungeon", "shop_icons", -1, 1, 0),
    "Monster Advantage": Estimate("dungeon", "life_bonus", -2, 2, 0),
}


def shifted(decks: list[DeckSpec], offsets: dict[str, float]) -> list[DeckSpec]:
    """The decks with every stand-in card's estimated numbers shifted by the (rounded) offsets, each
    kept at its floor (a monster keeps 1 life, a card no fewer than 0 Shop icons)."""
    by_group: dict[str, list[tuple[str, int, int]]] = {}
    for name, off in offsets.items():
        e = ESTIMATES[name]
        by_group.setdefault(e.group, []).append((e.field, int(round(off)), e.floor))
    out = []
    for d in decks:
        update: dict[str, Any] = {}
        for group, changes in by_group.items():
            cards = []
            for c in getattr(d, group):
                if c.name.startswith(STAND_IN):
                    new = {f: max(floor, getattr(c, f) + k) for f, k, floor in changes}
                    c = c.model_copy(update=new)
                cards.append(c)
            update[group] = cards
        out.append(d.model_copy(update=update))
    return out


__all__ = ["ESTIMATES", "Estimate", "shifted"]
