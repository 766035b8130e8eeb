"""The hole and bones house rules in the classifier (`RuleSet.holes`, `RuleSet.bones`), on
constructed poses: the printed reading stays the default, and the scenario key does not move."""

from __future__ import annotations

import math

import pytest

from sim.errors import SpecError
from sim.rules.classifier import classify
from sim.specs.board import BoardSpec
from sim.specs.die import load_die, quat_mul
from sim.specs.rules import RuleSet
from sim.specs.scenario import Scenario
from sim.trace import ContactEvent, DieRest, EventTrace

# west (2) | east (5); a hole cut into west, one cut into east; bones on west, bones across the border
BOARD = BoardSpec.from_dict(
    {
        "name": "t",
        "thickness_mm": 2.0,
        "outline": {"shape": "circle", "radius_mm": 200},
        "sections": [
            {"id": "west", "value": 2, "shape": {"kind": "polygon", "points_mm": [[-200, -200], [0, -200], [0, 200], [-200, 200]]}},
            {"id": "east", "value": 5, "shape": {"kind": "polygon", "points_mm": [[0, -200], [200, -200], [200, 200], [0, 200]]}},
        ],
        "holes": [{"shape": {"kind": "circle", "center_mm": [-100, 100], "radius_mm": 20}},
                  {"shape": {"kind": "circle", "center_mm": [100, 100], "radius_mm": 20}}],
        "bones": [{"shape": {"kind": "polygon", "points_mm": [[-100, -140], [-60, -140], [-60, -100], [-100, -100]]}},
                  {"shape": {"kind": "polygon", "points_mm": [[-30, 130], [30, 130], [30, 170], [-30, 170]]}}],
    },
    "t.toml",
)
HOLES = RuleSet(holes="section")
BONES = RuleSet(bones="outer-section")


def bounced():
    return EventTrace(events=[ContactEvent(0.1, "die:0", "table", (-0.5, 0, 0), 2.0),
                              ContactEvent(0.2, "die:0", "board", (-0.1, 0, 0.002), 1.0)])


def rest_at(die, x_mm, y_mm, face=0, touching=("board",), tilt_deg=0.0):
    q = die.orientation_with_face(face, up=die.reading_rule == "top", yaw_deg=0.0)
    if tilt_deg:
        a = math.radians(tilt_deg) / 2
        q = quat_mul([math.sin(a), 0, 0, math.cos(a)], q)
    return DieRest("die:0", (x_mm * 1e-3, y_mm * 1e-3, 0.01), tuple(q), frozenset(touching), "rest", 1.0)


def go(rest, rules, trace=None, die=None):
    return classify(rest, die or load_die("hero-d8"), BOARD, trace or bounced(), rules, ["bounce-before-board"])


def test_defaults_are_the_printed_rules():
    assert (RuleSet().holes, RuleSet().bones) == ("miss", "miss")
    d = load_die("hero-d8")
    assert go(rest_at(d, -100, 100, touching=("table",)), RuleSet()).reason == "in-hole"
    assert go(rest_at(d, -80, -120), RuleSet()).reason == "on-bones"


@pytest.mark.parametrize("x, section, value", [(-100, "west", 2), (100, "east", 5)])
def test_a_die_in_a_hole_counts_as_the_section_it_is_cut_into(x, section, value):
    d = load_die("hero-d8")
    o = go(rest_at(d, x, 100, touching=("table",)), HOLES)
    assert (o.result, o.reason, o.section, o.value, o.damage) == ("hit", "hit", section, value, float(value))
    # the bones rule alone leaves holes alone
    assert go(rest_at(d, x, 100, touching=("table",)), BONES).reason == "in-hole"


def test_a_die_on_the_bones_counts_as_the_outer_section_under_them():
    d = load_die("hero-d8")
    o = go(rest_at(d, -80, -120), BONES)
    assert (o.result, o.section, o.value, o.damage) == ("hit", "west", 2, 2.0)
    assert go(rest_at(d, -80, -120), HOLES).reason == "on-bones"
    # bones printed across the border: the section holding most corners, a tie to the lower value
    o = go(rest_at(load_die("d6"), 0.0, 150), BONES, die=load_die("d6"))
    assert (o.result, o.section) == ("hit", "west")


def test_other_rules_still_apply_under_the_house_rules():
    d = load_die("hero-d8")
    no_bounce = EventTrace(events=[ContactEvent(0.1, "die:0", "board", (-0.1, 0.1, 0.002), 1.0)])
    both = RuleSet(holes="section", bones="outer-section")
    assert go(rest_at(d, -100, 100, touching=("table",)), both, trace=no_bounce).reason == "no-bounce"
    cocked = rest_at(d, -80, -120, tilt_deg=30)
    assert go(cocked, RuleSet(bones="outer-section", cocked="miss")).reason == "cocked"
    assert go(cocked, RuleSet(bones="outer-section")).result == "hit"  # cocked = "count" by default
    assert go(rest_at(d, 0, 260), both).reason == "off-board"


def test_bad_values_are_refused():
    with pytest.raises(SpecError) as e:
        RuleSet.from_dict({"holes": "hit"}, "r.toml")
    assert e.value.field == "holes"
    with pytest.raises(SpecError):
        RuleSet.from_dict({"bones": "section"}, "r.toml")


def test_scenario_keys_do_not_move():
    """The new options are left out of a scenario's description at their defaults, so every key
    (and the records that carry it) recorded before they existed stays the same."""
    casual = Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual")
    assert "holes" not in casual.describe()["rules"] and "bones" not in casual.describe()["rules"]
    assert Scenario.build(rules={"holes": "miss"}).key == casual.key
    moved = Scenario.build(rules={"holes": "section"})
    assert moved.key != casual.key and moved.describe()["rules"]["holes"] == "section"
    assert Scenario.build(rules={"bones": "outer-section"}).key not in (casual.key, moved.key)
