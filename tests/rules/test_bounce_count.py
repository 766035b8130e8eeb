"""What a bounce is: the die leaves the surface, airborne for at least `rules.bounce_min_airborne_s`
and falling at least `rules.bounce_min_height_mm` onto it. A die that rattles on landing bounced once."""

from __future__ import annotations

import numpy as np

from sim.rules.requirements import (
    FAILED,
    PASSED,
    RequirementContext,
    bounce_before_board,
    bounces_before_board,
)
from sim.specs.board import load_board
from sim.specs.rules import RuleSet
from sim.trace import ContactEvent, EventTrace

BOARD = load_board("magma")
DT = 1 / 960


def build(hops: list[tuple[float, float, float]], board_at: float) -> EventTrace:
    """A die released at 100 mm that lands on the table at t=0.3 s, then hops: (lift-off time, landing
    time, apex height above its resting centre in m) each; finally it reaches the board at `board_at`."""
    t = np.arange(1, int(board_at / DT) + 2) * DT
    z = np.full_like(t, 0.008)
    fall = t < 0.3
    z[fall] = 0.008 + 0.092 * (1 - t[fall] / 0.3)
    events = [ContactEvent(0.3, "die:0", "table", (-0.45, 0.0, 0.0), 2.0)]
    lifts = []
    for t0, t1, apex in hops:
        m = (t >= t0) & (t <= t1)
        z[m] = 0.008 + apex * np.sin(np.pi * (t[m] - t0) / (t1 - t0))
        lifts.append(t0)
        events.append(ContactEvent(t1, "die:0", "table", (-0.4, 0.0, 0.0), 1.0))
    events.append(ContactEvent(board_at, "die:0", "board", (-0.2, 0.0, 0.003), 0.5))
    path = [(-0.4, 0.0, float(h)) for h in z]
    return EventTrace(events=events, path_t=t.tolist(), paths={"die:0": path}, lift_offs={"die:0": lifts})


def ctx(**rules) -> RequirementContext:
    return RequirementContext(board=BOARD, rules=RuleSet(**rules))


def test_rattling_on_landing_is_one_bounce():
    rattle = build([(0.302, 0.306, 0.0005), (0.31, 0.315, 0.0008), (0.32, 0.33, 0.001)], board_at=0.5)
    assert bounces_before_board(rattle, "die:0", ctx()) == 1
    assert bounce_before_board(rattle, "die:0", ctx(min_bounces=2)) == FAILED


def test_a_real_hop_is_a_second_bounce():
    hop = build([(0.302, 0.306, 0.0005), (0.31, 0.42, 0.015)], board_at=0.6)
    assert bounces_before_board(hop, "die:0", ctx()) == 2
    assert bounce_before_board(hop, "die:0", ctx(min_bounces=2)) == PASSED
    # the thresholds are rule options: a 20 mm height threshold makes the hop a rattle
    assert bounces_before_board(hop, "die:0", ctx(bounce_min_height_mm=20.0)) == 1


def test_a_trace_without_contact_state_counts_every_contact():
    bare = EventTrace(events=[ContactEvent(0.1, "die:0", "table", (-0.5, 0, 0), 2.0),
                              ContactEvent(0.11, "die:0", "table", (-0.5, 0, 0), 2.0),
                              ContactEvent(0.2, "die:0", "board", (-0.1, 0, 0.002), 1.0)])
    assert bounces_before_board(bare, "die:0", ctx()) == 2


def test_a_landing_across_the_board_edge_is_not_a_bounce_before_the_board_in_either_listing_order():
    """A die hopping onto the board's edge touches the table and the board in the same step: that table
    contact is not before the board, whichever order the engine lists the step's contacts in."""
    table_first = build([(0.31, 0.42, 0.015), (0.45, 0.6, 0.015)], board_at=0.6)  # hop lands at 0.6 on both
    assert [e.other for e in table_first.events[-2:]] == ["table", "board"]
    ev = table_first.events
    board_first = EventTrace(events=ev[:-2] + [ev[-1], ev[-2]], path_t=table_first.path_t, paths=table_first.paths,
                             lift_offs=table_first.lift_offs)
    assert bounces_before_board(table_first, "die:0", ctx()) == 2
    assert bounces_before_board(board_first, "die:0", ctx()) == 2


def reach_ctx(**rules) -> RequirementContext:
    # the hero d8: its farthest point 9.3 mm from its centre, 5.7 mm when it lies on a face
    return RequirementContext(board=BOARD, rules=RuleSet(**rules), die_reach_m={"die:0": 0.0093})


def test_a_landed_die_turning_over_a_few_mm_has_not_bounced_again():
    # after landing the die's centre rises 3.4 mm and drops (a turn onto a vertex and back, or a tiny
    # hop): its lowest point never cleared the table by the 3 mm a bounce needs
    turn = build([(0.31, 0.38, 0.0034)], board_at=0.5)
    assert bounces_before_board(turn, "die:0", reach_ctx()) == 1
    # without the die's size the centre's fall stands for the gap, and 3.4 mm counts
    assert bounces_before_board(turn, "die:0", ctx()) == 2


def test_a_landed_die_that_rises_clear_of_the_table_bounced_again():
    hop = build([(0.31, 0.42, 0.015)], board_at=0.6)  # centre 23 mm up: at least 13.7 mm under the die
    assert bounces_before_board(hop, "die:0", reach_ctx()) == 2
    assert bounces_before_board(hop, "die:0", reach_ctx(bounce_min_height_mm=15.0)) == 1
