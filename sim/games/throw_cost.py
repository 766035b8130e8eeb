"""What a bank throw costs relative to a throw on a bare board, by the templates lying on the board.

Why: a recording's time left was the throws left times the mean seconds per throw so far, and a
game's scenarios differ by more than thirty times in cost (a template stack woken by a die near it is
stepped with the die; the Explosion is two pieces of nine welded bodies each). The first line of a
recording and its time left were wrong by that much whenever the cheap scenarios came back first.
Counting each throw in bare-throw units, at its template set's weight, keeps the estimate honest.

The weights were measured on a precision-sized bank of the base game (82 entries, casual and expert
hero, iron and boulder d8, every template set the game flips): each template set's workers' seconds
per throw over the bare board's (`python benchmarks/first_answer.py --breakdown BANK`). A set not
measured is the product of its templates' own weights, a template not measured counts as an Armor.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

# workers' seconds per throw over the bare board's, per template alone
TEMPLATE_WEIGHT: Mapping[str, float] = {"armor": 2.2, "fireball": 2.2, "explosion": 9.2}
# sets measured together (their cost is not the product: a stack wakes as one)
SET_WEIGHT: Mapping[frozenset[str], float] = {
    frozenset({"armor", "fireball"}): 3.2,
    frozenset({"explosion", "fireball"}): 17.3,
    frozenset({"armor", "explosion"}): 20.3,
    frozenset({"armor", "explosion", "fireball"}): 37.1,
}
UNKNOWN_TEMPLATE = TEMPLATE_WEIGHT["armor"]


def weight(templates: Iterable[str]) -> float:
    """A throw's cost in bare-throw units with these templates on the board."""
    names = frozenset(templates)
    if not names:
        return 1.0
    if names in SET_WEIGHT:
        return SET_WEIGHT[names]
    w = 1.0
    for name in names:
        w *= TEMPLATE_WEIGHT.get(name, UNKNOWN_TEMPLATE)
    return w


def scenario_weight(s: Mapping[str, Any]) -> float:
    """A bank scenario's throw cost in bare-throw units."""
    return weight(s.get("templates") or ())


__all__ = ["weight", "scenario_weight", "TEMPLATE_WEIGHT", "SET_WEIGHT"]
