"""What adds to a hit on a template, and how templates and props read together (pure: no physics).

Each template's text says what a hit on it is worth: the Fireball's sections are sections ("the
number shown on the Template section"), the Explosion "Hits the Monster for 0 damage", the Armor is
"a Hit worth 0 damage", Major Healing: "the monster only suffers damage from bonuses from
equipment"; Focused Damage names "the Target board section" only."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from sim.fights.policy import ScriptedPolicy
from sim.fights.spec import fight_from_dict
from sim.fights.throw_source import ScriptedSource, scripted
from sim.rules.footprint import read_board
from sim.rules.outcome import Outcome
from sim.rules.templates import resolve
from sim.specs.template import load_template
from tests.rules.test_template_rules import BOARD, D8, die_at, lay

CLUB = {"kind": "weapon", "name": "Club", "bonus": 2}
POTION = {"kind": "spendable", "name": "Potion", "damage": 1}


def _fight(templates: list[str], hero: dict, life: int = 30) -> object:
    m = {"name": "m", "life": life, "miss_damage": 0, "level": 1, "reward_gold": 0, "type": "undead",
         "templates": templates}
    return fight_from_dict({"name": "t", "monster": m, "party": {"heroes": [hero], "white_dice": 2}}, "t.toml")


def _first_hit(spec, out: Outcome, **policy) -> int:
    from sim.fights.engine import run_fight

    r = run_fight(spec, ScriptedSource([out, scripted("hit", 30)]), ScriptedPolicy({"die": ["red"], **policy}))
    return [e for e in r.log if e["event"] == "hit"][0]["damage"]


def _explosion() -> Outcome:
    return Outcome(result="hit", reason="template", value=0, damage=0.0, template="explosion", icon=True,
                   face="icon", hero_damage=2.0, effects=["every-hero-suffers:2", "no-bonuses"])


def _healing(**kw) -> Outcome:
    return Outcome(result="hit", reason="template", value=0, damage=0.0, template="major-healing", icon=True,
                   face="icon", effects=["every-hero-heals:5", "equipment-bonus-only"], **kw)


@pytest.mark.parametrize("ability", ["piercing", "sworn-enemy:undead", "sworn-enemy:demon", "berserk", "set-on-fire"])
def test_the_explosion_is_a_hit_for_zero_whatever_the_ability_or_equipment(ability):
    spec = _fight(["explosion"], {"name": "A", "red": ability, "equipment": [CLUB, POTION]})
    assert _first_hit(spec, _explosion(), ability=[ability], spendable=["Potion"]) == 0


def test_the_explosion_reads_its_rule_without_the_recorded_effects():
    """Resampled throws recorded without the effects column carry only the template's name."""
    spec = _fight(["explosion"], {"name": "A", "red": "piercing", "equipment": [CLUB]})
    out = replace(_explosion(), effects=[])
    assert _first_hit(spec, out, ability=["piercing"]) == 0


def test_the_armor_template_is_a_hit_for_its_value_alone():
    spec = _fight(["armor"], {"name": "A", "red": "sworn-enemy:undead", "equipment": [CLUB]})
    armor = Outcome(result="hit", reason="template", value=1, damage=1.0, template="armor", icon=True, face="icon",
                    effects=["remove-template:armor", "no-bonuses"])
    assert _first_hit(spec, armor, ability=["sworn-enemy:undead"]) == 1


@pytest.mark.parametrize("ability, expect", [("piercing", 2), ("sworn-enemy:undead", 2), ("focused", 2), (None, 2)])
def test_major_healing_deals_only_equipment_bonuses(ability, expect):
    spec = _fight(["major-healing"], {"name": "A", "red": ability or "heal-party", "equipment": [CLUB]})
    assert _first_hit(spec, _healing(), ability=[ability]) == expect


def test_major_healing_with_no_equipment_deals_nothing():
    spec = _fight(["major-healing"], {"name": "A", "red": "sworn-enemy:undead"})
    assert _first_hit(spec, _healing(), ability=["sworn-enemy:undead"]) == 0


def test_focused_counts_a_board_section_as_five_not_a_template_section():
    spec = _fight(["fireball"], {"name": "A", "red": "focused"})
    fb = Outcome(result="hit", reason="template", value=6, damage=6.0, template="fireball", icon=True, face="icon")
    assert _first_hit(spec, fb, ability=["focused"]) == 6
    assert _first_hit(spec, scripted("hit", 2, icon=True), ability=["focused"]) == 5
    # Piercing and Sworn Enemy add on the Fireball's sections as on the board's
    spec = _fight(["fireball"], {"name": "A", "red": "piercing"})
    assert _first_hit(spec, fb, ability=["piercing"]) == 8


def test_the_classifier_marks_what_adds_to_a_hit_on_each_template():
    rule = {t: load_template(t).bonus_rule for t in ("fireball", "explosion", "armor", "major-healing",
                                                      "weak-point", "philosophers-stone", "slime")}
    assert rule == {"fireball": "section", "explosion": "none", "armor": "none", "major-healing": "equipment",
                    "weak-point": "section", "philosophers-stone": "section", "slime": "section"}
    from tests.rules.test_template_rules import run

    for name, mark in (("explosion", "no-bonuses"), ("armor", "no-bonuses"), ("major-healing", "equipment-bonus-only")):
        o = run(die_at(100, 0, {f"template:{name}"}), [lay(name, 100, 0)])
        assert o.template == name and mark in o.effects, (name, o.effects)


# ---- the top template, by outlines -----------------------------------------------------------------
@pytest.mark.parametrize("option", ["base", "expansion"])
def test_the_top_template_is_found_by_outlines_not_by_planes(option):
    """A die lying flat on the Fireball touching the edge of a Weak Point lying on the Fireball: the
    Weak Point's plane extended past its edge is higher under the die, but no corner lies over it."""
    fb = lay("fireball", 150, 20)
    wp = lay("weak-point", 190, 20, base=fb.top_z_m)
    rest = die_at(146.0, 20.0, {"template:fireball", "template:weak-point"}, z_m=fb.top_z_m + 0.007)
    assert wp.top_z_at(np.array([0.146, 0.020])) > fb.top_z_at(np.array([0.146, 0.020]))
    r = resolve(rest, D8, [fb, wp], option)
    assert (r.kind, r.template.id if r.template else None, r.partial) == ("template", "fireball", False)


def test_a_die_on_the_top_template_over_a_lower_one_is_on_the_top_one():
    fb = lay("fireball", 150, 20)
    wp = lay("weak-point", 170, 20, base=fb.top_z_m)
    rest = die_at(170, 20, {"template:weak-point"}, z_m=wp.top_z_m + 0.007)
    assert resolve(rest, D8, [fb, wp], "base").template.id == "weak-point"


# ---- Slow tokens: only a die that fell into the hole ----------------------------------------------
HOLE = "prop:slow-tokens:h"


def _read(corners_mm, centre_mm, touching):
    from tests.rules.test_footprint_reading import BOARD as HALVES

    r = read_board(HALVES, np.array(corners_mm) * 1e-3, np.array(centre_mm) * 1e-3, touching, hole_fillers=(HOLE,))
    return r.region.kind, r.region.id


def test_a_die_lying_flat_with_one_corner_over_a_filled_hole_reads_its_section():
    # the two-halves board's hole (r 20) at (-100, 100) in the west section (2): two corners on west,
    # one over the token filling the hole; the centre of mass on the cardboard
    assert _read([(-130, 100), (-112, 100), (-124, 112)], (-122, 104), ("board", HOLE)) == ("section", "west")
    # centre of mass over the filled hole with corners over it: it fell in
    assert _read([(-110, 95), (-90, 95), (-100, 110)], (-100, 100), (HOLE,)) == ("hole", "h")
    assert _read([(-112, 95), (-88, 95), (-100, 121)], (-100, 103), ("board", HOLE)) == ("hole", "h")
    # a die larger than the hole lying across it, every corner on the cardboard: not in it
    assert _read([(-125, 75), (-75, 75), (-75, 125), (-125, 125)], (-100, 100), ("board", HOLE))[0] == "section"


def test_board_is_the_magma_board():
    assert BOARD.name == "magma"
