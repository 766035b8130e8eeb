"""Throw requirements as predicates over the event trace (pure: no PyBullet).

A predicate answers "passed", "failed" or "touched" (met, but with a contact the rules charge
for, e.g. brushing the Firewall). Predicates register by name; shot profiles list the names they
need, and combined shots ask each distinct name once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .board import BoardSpec
from .rules import RuleSet
from .trace import EventTrace

PASSED, FAILED, TOUCHED = "passed", "failed", "touched"


@dataclass
class RequirementContext:
    """What a predicate may look at besides the trace."""

    board: BoardSpec | None
    rules: RuleSet
    props: dict[str, Any] = field(default_factory=dict)  # prop name -> prop spec/placement (issue: props)


Predicate = Callable[[EventTrace, str, RequirementContext], str]
REGISTRY: dict[str, Predicate] = {}


def requirement(name: str) -> Callable[[Predicate], Predicate]:
    def deco(fn: Predicate) -> Predicate:
        REGISTRY[name] = fn
        return fn

    return deco


def bounces_before_board(trace: EventTrace, die: str, board: BoardSpec | None) -> int:
    """Table contacts that began outside the board outline before the die first touched the board."""
    n = 0
    for e in trace.of(die):
        if e.other == "board" or e.other.startswith("template"):
            break
        if e.other == "table":
            if board is None or not bool(board.on_board(np.array([e.point_m[:2]]))[0]):
                n += 1
    return n


@requirement("bounce-before-board")
def _bounce(trace: EventTrace, die: str, ctx: RequirementContext) -> str:
    """The standard rule: at least `rules.min_bounces` table bounces outside the board first."""
    touched_board = trace.first(die, "board") is not None or trace.first(die, "template") is not None
    if not touched_board:
        return PASSED  # never reached the board: that is a landing miss, not a bounce failure
    return PASSED if bounces_before_board(trace, die, ctx.board) >= ctx.rules.min_bounces else FAILED


def evaluate(names: list[str], trace: EventTrace, die: str, ctx: RequirementContext) -> dict[str, str]:
    out: dict[str, str] = {}
    for n in dict.fromkeys(names):  # identical requirements count once
        if n not in REGISTRY:
            raise KeyError(n)
        out[n] = REGISTRY[n](trace, die, ctx)
    return out


from . import shot_requirements  # noqa: E402,F401  (registers the specific-throw predicates)
