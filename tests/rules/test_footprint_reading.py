"""The board reading of a resting die when its bottom corners fall on sections, bones, holes and past
the edge at once (`sim.rules.footprint.read_board`, docs/rules.md "Where the die stands"): pure cases
on hand-placed corners, each the reading of one figure panel in docs/figures/board-reading.png."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sim.errors import SpecError
from sim.rules.classifier import classify
from sim.rules.footprint import bottom_corners_xy, read_board, winning_region
from sim.specs.board import load_board
from sim.specs.die import load_die
from sim.specs.rules import RuleSet
from sim.trace import ContactEvent, DieRest, EventTrace

# west (2) | east (5) halves of a 200 mm disc; a hole (r 20) cut into west at (-100, 100); bones on west
BOARD = load_board(Path(__file__).with_name("two-halves-board.toml"))
MM = 1e-3


def read(corners_mm, centre_mm, touching=("board",), **kw):
    r = read_board(BOARD, np.array(corners_mm) * MM, np.array(centre_mm) * MM, touching, **kw)
    return r.region.kind, r.region.id, r.basis


def test_three_way_tie_at_the_edge_is_the_lower_section_not_off_board():
    # a d8's triangle: one corner in west, one in east, one past the edge; its centre is over the board
    corners, centre = [(-6, -190), (6, -190), (0, -204)], (0, -195)
    assert [r.kind for r in BOARD.regions_at(np.array(corners) * MM)] == ["section", "section", "off"]
    assert winning_region(BOARD, np.array(corners) * MM).kind == "off"  # the corner count alone says off
    assert read(corners, centre) == ("section", "west", "corners")
    # two corners past the edge, one on the board, the centre still over it: on the board
    assert read([(-6, -199), (6, -203), (0, -190)], (0, -197)) == ("section", "west", "corners")


def test_fell_off_only_when_the_board_does_not_carry_it():
    # centre of mass past the edge: off, even with two corners on the board
    assert read([(-6, -196), (6, -196), (0, -210)], (0, -201)) == ("off", "off", "centre-off-board")
    # lying on the table only: off, wherever its corners are
    assert read([(50, 0), (60, 0), (55, 8)], (55, 3), touching=("table",)) == ("off", "off", "on-table")
    # leaning on the board edge from the table with its centre over the board: on the board
    assert read([(-6, -190), (6, -190), (0, -204)], (0, -197), touching=("board", "table"))[0] == "section"


def test_a_hole_only_when_the_die_fell_in():
    over_hole = [(-110, 95), (-90, 95), (-100, 110)]
    # resting on the table through the hole
    assert read(over_hole, (-100, 100), touching=("table",)) == ("hole", "h", "fell-in-hole")
    # tilted into it: one corner over the hole, centre on the cardboard, touching table and rim
    assert read([(-130, 100), (-110, 100), (-122, 112)], (-121, 104), touching=("table", "board"))[0] == "hole"
    # lying across the hole on the cardboard around it: not in it; corners over the hole do not vote
    assert read([(-125, 75), (-75, 75), (-75, 125), (-125, 125)], (-100, 100)) == ("section", "west", "corners")
    # resting on what fills the hole (a Slow token): in it
    assert read(over_hole, (-100, 100), touching=("prop:slow-tokens:h",), hole_fillers=("prop:slow-tokens:h",))[0] == "hole"
    # no corner on cardboard and not fallen in: what lies under its centre, the hole left out
    assert read(over_hole, (-100, 100)) == ("section", "west", "under-centre")


def test_corners_over_a_hole_or_past_the_edge_do_not_vote():
    # 2 corners over the hole, 1 west: west (the corner count alone says hole)
    corners = [(-110, 95), (-96, 103), (-124, 104)]
    assert winning_region(BOARD, np.array(corners) * MM).kind == "hole"
    assert read(corners, (-110, 101))[:2] == ("section", "west")


@pytest.mark.parametrize("bones, expect", [("most-corners", "west"), ("any-corner", "b")])
def test_bones_reading_is_an_option(bones, expect):
    # a d6 face: 1 corner on the bones, 3 on west
    d6 = [(-65, -105), (-55, -105), (-55, -95), (-65, -95)]
    assert read(d6, (-60, -100), bones=bones)[1] == expect
    # 2 and 2: a tie is doubt, the bones are the lower value, under both readings
    assert read([(-65, -105), (-65, -115), (-55, -105), (-55, -115)], (-60, -110), bones=bones)[1] == "b"


def test_section_tie_goes_to_the_lower_value():
    assert read([(-5, 0), (5, 0), (5, 10), (-5, 10)], (0, 5))[1] == "west"
    assert read([(-5, 0), (5, 0), (5, 10)], (2, 3))[1] == "east"  # 2 east, 1 west: the majority


def test_house_rules_look_through_holes_and_bones():
    over_hole = [(-110, 95), (-90, 95), (-100, 110)]
    assert read(over_hole, (-100, 100), touching=("table",), ignore=("hole",))[:2] == ("section", "west")
    assert read([(-90, -130), (-70, -130), (-80, -110)], (-80, -123), ignore=("bones",))[:2] == ("section", "west")


def test_bad_bones_reading_is_refused():
    with pytest.raises(ValueError):
        read([(0, 0)], (0, 0), bones="some")  # type: ignore[arg-type]
    with pytest.raises(SpecError):
        RuleSet.from_dict({"bones_corners": "some"}, "t")


def test_classifier_reads_the_option_and_the_default_key_does_not_move():
    d6 = load_die("d6")
    q = d6.orientation_with_face(0, up=True, yaw_deg=0.0)
    # a d6 placed so that exactly its south-west bottom corner lies on the bones' north-east corner
    c0 = bottom_corners_xy(d6, (0.0, 0.0, 0.01), q)
    lo = c0.sum(axis=1).argmin()
    x, y = -62 - c0[lo, 0] * 1e3, -102 - c0[lo, 1] * 1e3
    assert [r.kind for r in BOARD.regions_at(c0 + np.array([x, y]) * MM)].count("bones") == 1
    rest = DieRest("die:0", (x * MM, y * MM, 0.01), tuple(q), frozenset({"board"}), "rest", 1.0)
    trace = EventTrace(events=[ContactEvent(0.1, "die:0", "table", (-0.5, 0, 0), 2.0),
                               ContactEvent(0.2, "die:0", "board", (-0.1, 0, 0.002), 1.0)])
    most = classify(rest, d6, BOARD, trace, RuleSet(), ["bounce-before-board"])
    anyc = classify(rest, d6, BOARD, trace, RuleSet(bones_corners="any-corner"), ["bounce-before-board"])
    assert (most.result, most.section) == ("hit", "west")
    assert (anyc.result, anyc.reason) == ("miss", "on-bones")
    assert "bones_corners" not in RuleSet().describe() and "bones_corners" in RuleSet(bones_corners="any-corner").describe()
