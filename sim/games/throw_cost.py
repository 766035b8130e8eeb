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

# A flip session (one entry of a scenario's flip bank: its templates flipped onto the empty board, made
# the first time a throw picks it, then kept on disk: sim/engine/flip_bank.py) in bare-throw units: CPU
# per entry over a bare-board throw's, from an empty cache, 24 entries of each set and 200 bare throws
# in one process (magma board, casual hero d8). A fixed cost of the set's first throws, not of each
# throw: the weights above were measured on banks whose flips were made already, so a recording's time
# estimate adds the flips it will make (`fresh_flips`) at these weights. Not in the bank's sizes.
FLIP_SESSION_WEIGHT: Mapping[frozenset[str], float] = {
    frozenset({"armor"}): 2.4,
    frozenset({"fireball"}): 4.7,
    frozenset({"explosion"}): 22.2,
    frozenset({"armor", "fireball"}): 9.3,
    frozenset({"explosion", "fireball"}): 57.6,
    frozenset({"armor", "explosion"}): 28.1,
    frozenset({"armor", "explosion", "fireball"}): 66.4,
}


def flip_session_weight(templates: Iterable[str]) -> float:
    """A flip session of these templates in bare-throw units (a set not measured: the sum of its
    templates' own, a template not measured as a Fireball; stacks cost more than that)."""
    names = frozenset(templates)
    if names in FLIP_SESSION_WEIGHT:
        return FLIP_SESSION_WEIGHT[names]
    unknown = FLIP_SESSION_WEIGHT[frozenset({"fireball"})]
    return sum(FLIP_SESSION_WEIGHT.get(frozenset({n}), unknown) for n in names)


def fresh_flips(throws: float, size: int, held: int) -> float:
    """The entries `throws` more throws are expected to make in a flip bank of `size` entries holding
    `held`: each throw picks an entry uniformly at random (sim/engine/flip_bank.py), so an entry not
    held is still unpicked after n throws with chance (1 - 1/size)^n."""
    if size < 1 or throws <= 0:
        return 0.0
    return max(0, size - held) * (1.0 - (1.0 - 1.0 / size) ** throws)


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


__all__ = [
    "weight",
    "scenario_weight",
    "flip_session_weight",
    "fresh_flips",
    "TEMPLATE_WEIGHT",
    "SET_WEIGHT",
    "FLIP_SESSION_WEIGHT",
]
