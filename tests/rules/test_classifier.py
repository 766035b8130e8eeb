"""The classifier on constructed poses: no physics, every die shape, border ties included."""

import math

import pytest

from sim.rules.classifier import classify
from sim.specs.board import BoardSpec
from sim.specs.die import load_die, quat_mul
from sim.specs.rules import RuleSet
from sim.trace import ContactEvent, DieRest, EventTrace

BOARD = BoardSpec.from_dict(
    {
        "name": "t",
        "thickness_mm": 2.0,
        "outline": {"shape": "circle", "radius_mm": 200},
        "sections": [
            {"id": "west", "value": 2, "shape": {"kind": "polygon", "points_mm": [[-200, -200], [0, -200], [0, 200], [-200, 200]]}},
            {"id": "east", "value": 5, "shape": {"kind": "polygon", "points_mm": [[0, -200], [200, -200], [200, 200], [0, 200]]}},
            {"id": "bull", "value": 10, "bullseye": True, "shape": {"kind": "circle", "center_mm": [100, 100], "radius_mm": 25}},
        ],
        "holes": [{"shape": {"kind": "circle", "center_mm": [-100, 100], "radius_mm": 20}}],
        "bones": [{"shape": {"kind": "polygon", "points_mm": [[-100, -140], [-60, -140], [-60, -100], [-100, -100]]}}],
    },
    "t.toml",
)


def bounced(die="die:0"):
    return EventTrace(events=[ContactEvent(0.1, die, "table", (-0.5, 0, 0), 2.0), ContactEvent(0.2, die, "board", (-0.1, 0, 0.002), 1.0)])


def rest_at(die, x_mm, y_mm, face=0, yaw=0.0, touching=("board",), tilt_deg=0.0):
    q = die.orientation_with_face(face, up=die.reading_rule == "top", yaw_deg=yaw)
    if tilt_deg:
        a = math.radians(tilt_deg) / 2
        q = quat_mul([math.sin(a), 0, 0, math.cos(a)], q)
    return DieRest("die:0", (x_mm * 1e-3, y_mm * 1e-3, 0.01), tuple(q), frozenset(touching), "rest", 1.0)


def go(die, rest, rules=None, trace=None):
    return classify(rest, die, BOARD, trace or bounced(), rules or RuleSet(), ["bounce-before-board"])


@pytest.mark.parametrize("name", ["d4", "d6", "d8", "d12", "hero-d8"])
def test_plain_hits_every_shape(name):
    d = load_die(name)
    o = go(d, rest_at(d, -100, -40))
    assert (o.result, o.reason, o.section, o.value, o.damage) == ("hit", "hit", "west", 2, 2.0)
    o = go(d, rest_at(d, 60, -60))
    assert (o.section, o.damage) == ("east", 5.0)


@pytest.mark.parametrize("name", ["d4", "d6", "d8", "d12"])
def test_face_read(name):
    d = load_die(name)
    for i, label in enumerate(d.faces):
        assert go(d, rest_at(d, -100, -40, face=i)).face == label


def test_border_majority_and_tie_go_lower():
    d6 = load_die("d6")
    # straddling x = 0 symmetrically: 2 corners each side -> tie -> lower value (west, 2)
    o = go(d6, rest_at(d6, 0.0, -50))
    assert o.section == "west"
    # shifted east by 5 mm with a 30 deg yaw: 3 of 4 corners east -> east
    o = go(d6, rest_at(d6, 5.0, -50, yaw=30))
    assert o.section == "east"
    d8 = load_die("d8")  # a triangle bottom face: 3 corners, no ties possible, majority wins
    o1 = go(d8, rest_at(d8, 3.0, -50, yaw=0))
    o2 = go(d8, rest_at(d8, -3.0, -50, yaw=0))
    assert {o1.section, o2.section} <= {"east", "west"}


def test_bullseye_damage_and_icon_insta_kill():
    d = load_die("hero-d8")
    o = go(d, rest_at(d, 100, 100, face=1))
    assert (o.section, o.damage, o.insta_kill, o.icon) == ("bull", 10.0, False, False)
    o = go(d, rest_at(d, 100, 100, face=0))
    assert o.icon and o.insta_kill and o.damage == 10.0


def test_miss_reasons():
    d = load_die("d6")
    assert go(d, rest_at(d, -100, 100, touching=("table",))).reason == "in-hole"
    assert go(d, rest_at(d, -80, -120)).reason == "on-bones"
    assert go(d, rest_at(d, 260, 0, touching=("table",))).reason == "off-board"
    no_bounce = EventTrace(events=[ContactEvent(0.1, "die:0", "board", (-0.1, 0, 0.002), 2.0)])
    o = go(d, rest_at(d, -100, -40), trace=no_bounce)
    assert (o.result, o.reason, o.requirements["bounce-before-board"]) == ("miss", "no-bounce", "failed")
    # a table contact inside the board outline (through a hole) is not a bounce outside the board
    via_hole = EventTrace(events=[ContactEvent(0.1, "die:0", "table", (-0.1, 0.1, 0), 2.0), ContactEvent(0.2, "die:0", "board", (-0.1, 0, 0.002), 1.0)])
    assert go(d, rest_at(d, -100, -40), trace=via_hole).reason == "no-bounce"


def test_cocked_flag_and_rule_options():
    d = load_die("d6")
    r = rest_at(d, -100, -40, tilt_deg=25, touching=("board", "die:1"))
    o = go(d, r)
    assert o.cocked and o.result == "hit" and abs(o.tilt_deg - 25) < 1e-6
    assert go(d, r, RuleSet(cocked="miss")).reason == "cocked"
    assert go(d, r, RuleSet(cocked="rethrow")).result == "void"
    assert not go(d, rest_at(d, -100, -40, tilt_deg=5)).cocked


def test_void_outcomes():
    d = load_die("d6")
    r = rest_at(d, -100, -40)
    for status in ("not-settled", "diverged"):
        o = go(d, DieRest(r.name, r.position_m, r.orientation_xyzw, r.touching, status, 8.0))
        assert (o.result, o.reason) == ("void", status)


def test_d4_reads_bottom_face():
    d4 = load_die("d4")
    q = d4.orientation_with_face(2, up=False)
    assert d4.reading_face(q)[0] == 2
    from sim.specs.die import quat_to_matrix

    # the read face points down when a d4 rests on it
    assert (quat_to_matrix(q) @ d4.face_normals[2])[2] == pytest.approx(-1.0)
