"""The bounce-before-board rule on hand-built event traces: anything lying on the board (board
props, templates, resting dice) is the board, so a straight drop onto it is a bounce failure."""

from __future__ import annotations

import pytest

from sim.rules.requirements import (
    FAILED,
    PASSED,
    RequirementContext,
    bounce_before_board,
    bounces_before_board,
)
from sim.specs.board import load_board
from sim.specs.prop import PlacedProp, load_prop
from sim.specs.rules import RuleSet
from sim.trace import ContactEvent, EventTrace

BOARD = load_board("magma")


def ctx_with(*props: tuple[str, list[str]], rules: RuleSet | None = None) -> RequirementContext:
    placed = {name: PlacedProp(load_prop(name), bodies=bodies) for name, bodies in props}
    return RequirementContext(board=BOARD, rules=rules or RuleSet(), props=placed)


def trace(*events: tuple[float, str, tuple[float, float, float]]) -> EventTrace:
    return EventTrace(events=[ContactEvent(t, "die:0", other, p, 2.0) for t, other, p in events])


VOLCANO = ("volcano", ["prop:volcano"])
SLOW = ("slow-tokens", ["prop:slow-tokens:hole-0"])
FIREWALL = ("firewall", ["prop:firewall"])


@pytest.mark.parametrize("props, other, point", [
    ((VOLCANO,), "prop:volcano", (0.0, 0.0, 0.06)),            # straight into the crater
    ((SLOW,), "prop:slow-tokens:hole-0", (0.1, 0.05, 0.003)),  # straight into a hole holding a Slow token
    ((("fire-token", ["prop:fire-token"]),), "prop:fire-token", (0.05, 0.0, 0.003)),
    ((), "die:1", (0.02, 0.01, 0.02)),                         # onto a die resting on the board
    ((), "template:0", (0.02, 0.01, 0.004)),                   # onto a laid template
])
def test_a_straight_drop_onto_anything_on_the_board_fails(props, other, point):
    ctx = ctx_with(*props)
    tr = trace((0.1, other, point))
    assert bounce_before_board(tr, "die:0", ctx) == FAILED
    # the same drop after a bounce on the table outside the board passes
    bounced = trace((0.05, "table", (-0.4, 0.0, 0.0)), (0.1, other, point))
    assert bounces_before_board(bounced, "die:0", ctx) == 1
    assert bounce_before_board(bounced, "die:0", ctx) == PASSED


def test_a_die_that_never_reaches_the_board_is_a_landing_miss_not_a_bounce_failure():
    ctx = ctx_with(VOLCANO, FIREWALL)
    # it brushes the firewall (off the board) and stops on the table: no board touch at all
    tr = trace((0.05, "prop:firewall", (-0.3, 0.0, 0.05)), (0.1, "table", (-0.25, 0.0, 0.0)))
    assert bounce_before_board(tr, "die:0", ctx) == PASSED


def test_a_table_contact_under_the_board_outline_is_no_bounce():
    ctx = ctx_with(SLOW)
    # through an empty hole onto the table: inside the outline, so not a bounce outside the board
    tr = trace((0.05, "table", (0.1, 0.05, 0.0)), (0.1, "board", (0.1, 0.0, 0.003)))
    assert bounce_before_board(tr, "die:0", ctx) == FAILED
