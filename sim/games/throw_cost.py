"""What a bank throw costs relative to a throw on a bare board, by the templates lying on the board.

Why: a recording's time left was the throws left times the mean seconds per throw so far, and a
game's scenarios differ by more than thirty times in cost (a template stack woken by a die near it is
stepped with the die; the Explosion is two pieces of nine welded bodies each). The first line of a
recording and its time left were wrong by that much whenever the cheap scenarios came back first.
Counting each throw in bare-throw units, at its template set's weight, keeps the estimate honest.

The weights were measured on the ladder's bank of the base game (147 entries of 500 throws: casual
and expert parties, hero, iron and boulder d8, every template set the game flips): each template
set's workers' seconds per throw over the bare board's (`python benchmarks/first_answer.py
--breakdown BANK`). A precision-sized bank recorded earlier on a busier machine gave the same order
and up to twice the ratios (Explosion 9.2, all three 37): they are estimates to a factor of two, far
better than counting every throw alike. A set not measured is the product of its templates' own
weights; a template not measured counts as a Fireball.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

# workers' seconds per throw over the bare board's, per template alone
TEMPLATE_WEIGHT: Mapping[str, float] = {"armor": 1.3, "fireball": 1.7, "explosion": 7.7}
# sets measured together (their cost is not the product: a stack wakes as one)
SET_WEIGHT: Mapping[frozenset[str], float] = {
    frozenset({"armor", "fireball"}): 2.0,
    frozenset({"explosion", "fireball"}): 10.2,
    frozenset({"armor", "explosion"}): 8.9,
    frozenset({"armor", "explosion", "fireball"}): 15.9,
}
UNKNOWN_TEMPLATE = TEMPLATE_WEIGHT["fireball"]


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
