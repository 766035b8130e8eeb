"""Element and special dice, and board modifiers that change what a landing is worth."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from sim.engine.release import Release
from sim.engine.worlds import thrower_for
from sim.rules.effects import apply_effects, combined_result
from sim.rules.outcome import Outcome
from sim.rules.requirements import RequirementContext
from sim.specs.die import DieSpec
from sim.specs.rules import RuleSet
from sim.specs.scenario import Scenario


def _o(result, face="blank", damage=0.0, die="die:0"):
    return Outcome(result=result, reason="hit" if result == "hit" else "off-board", face=face, damage=damage, die=die)


def _apply(outcomes, dice_names):
    sc = SimpleNamespace(dice=[SimpleNamespace(name=n) for n in dice_names])
    return apply_effects(outcomes, sc, RequirementContext(board=None, rules=RuleSet()), None)


# ---------------------------------------------------------------- faces ----
def test_iron_plus_two_only_on_a_hit():
    hit, miss = _apply([_o("hit", "+2", 3.0)], ["iron-d8"])[0], _apply([_o("miss", "+2")], ["iron-d8"])[0]
    assert hit.damage == 5.0 and miss.damage == 0.0


def test_boulder_deep_damage_and_monster_attack():
    assert _apply([_o("hit", "+8", 2.0)], ["boulder-d8"])[0].damage == 10.0
    assert _apply([_o("miss", "+8")], ["boulder-d8"])[0].damage == 0.0
    for result in ("hit", "miss"):  # "whether a Hit or a Miss, the Hero takes +5 damage"
        o = _apply([_o(result, "monster-attack", 4.0 if result == "hit" else 0.0)], ["boulder-d8"])[0]
        assert o.hero_damage == 5.0


@pytest.mark.parametrize("n", [1, 2, 3])
def test_fire_die_extra_damage_even_on_a_miss(n):
    assert _apply([_o("miss", f"fire+{n}")], ["fire-d8"])[0].damage == n
    assert _apply([_o("hit", f"fire+{n}", 4.0)], ["fire-d8"])[0].damage == 4 + n


def test_earth_gold_icon():
    assert "gold:3" in _apply([_o("hit", "gold", 2.0)], ["earth-d6"])[0].effects


def test_void_throws_get_no_effects():
    o = _apply([_o("void", "fire+3")], ["fire-d8"])[0]
    assert o.damage == 0 and o.effects == []


# ---------------------------------------------------------------- water ----
@pytest.mark.parametrize(
    "results, icon",
    [(("hit", "hit", "hit"), True), (("miss", "miss", "miss"), True), (("hit", "miss", "hit"), False),
     (("miss", "hit", "miss"), False)],
)
def test_water_collective_icon(results, icon):
    outs = [_o(r, damage=3.0 if r == "hit" else 0.0, die=f"die:{i}") for i, r in enumerate(results)]
    outs = _apply(outs, ["water-d6"] * 3)
    c = combined_result(outs)
    assert c["collective_icon"] is icon and c["icons"] == int(icon)
    assert c["hits"] == results.count("hit") and c["misses"] == results.count("miss")
    assert c["damage"] == 3.0 * results.count("hit")


def test_collective_icon_needs_water_dice():
    outs = _apply([_o("hit", die="die:0"), _o("hit", die="die:1")], ["hero-d8", "hero-d8"])
    assert not combined_result(outs)["collective_icon"]


def test_water_dice_thrown_together_report_each_die_and_the_combined_result():
    sc = Scenario.build(dice=["water-d6"] * 3)
    # three dice leave the hand together (explicit releases: an aim solve for three dice takes a minute)
    res = thrower_for(sc).throw_releases([
        Release((-0.65, dy, 0.10), (1.5, -2 * dy, 0.7), (0.0, 0.0, 0.0, 1.0), (0.0, 25.0, 0.0))
        for dy in (-0.03, 0.0, 0.03)
    ])
    d = res.to_json()
    assert len(d["dice"]) == 3 and {o["die"] for o in d["dice"]} == {"die:0", "die:1", "die:2"}
    c = d["combined"]
    results = [o["result"] for o in d["dice"]]
    assert c["hits"] == results.count("hit") and c["misses"] == results.count("miss")
    assert c["damage"] == pytest.approx(sum(o["damage"] for o in d["dice"]))
    everyone = len(set(results)) == 1 and results[0] != "void"
    assert c["collective_icon"] is everyone


def test_water_die_file():
    d = DieSpec.load("water-d6", "die")
    assert d.size_mm < 16 and not any(d.is_icon(f) for f in d.faces)


# ------------------------------------------------------ board modifiers ----
def _drop(shot, x_mm, y_mm, z_mm, die="hero-d8", up=0, templates=None):
    sc = Scenario.build(shots=[shot], dice=[die], templates=templates)
    th = thrower_for(sc)
    q = sc.dice[0].orientation_with_face(up, up=True, yaw_deg=0.0)
    return th, th.throw_releases([Release((x_mm * 1e-3, y_mm * 1e-3, z_mm * 1e-3), (0, 0, 0), tuple(q), (0, 0, 0))], placed=True)


def test_a_die_in_a_slow_token_hole_deals_two():
    hole = (145.7, 53.0)  # magma hole-1
    _, plain = _drop("standard", *hole, 14.0)
    assert plain.outcome.result == "miss" and plain.outcome.reason == "in-hole"
    _, filled = _drop("slow-tokens", *hole, 14.0)
    o = filled.outcome
    assert "prop:slow-tokens:hole-1" in o.touching
    assert o.result == "hit" and o.damage == 2 and o.section == "slow-token:hole-1"


def test_fire_token_section_deals_two_more():
    _, plain = _drop("standard", 60.0, -60.0, 14.0)
    th, fire = _drop("fire-token", 60.0, -60.0, 16.0)
    assert plain.outcome.result == "hit" and fire.outcome.result == "hit"
    assert fire.outcome.section == plain.outcome.section
    assert fire.outcome.damage == plain.outcome.damage + 2
    assert "fire-token:+2" in fire.outcome.effects


def test_volcano_crater_is_the_bullseye_and_icon_insta_kills():
    th, res = _drop("volcano", -100.0, 100.0, 80.0, up=0)  # hero-d8 face 0 is the icon
    o = res.outcome
    assert "prop:volcano" in o.touching and "board" not in o.touching
    assert o.result == "hit" and o.section == "volcano-crater" and o.damage == 10
    assert o.icon and o.insta_kill


def test_volcano_rim_is_a_zero_section():
    # on the volcano's top rim, between the crater (28 mm) and the top edge (40 mm): 34 mm from its axis
    th, res = _drop("volcano", -100.0 + 34.0, 100.0, 69.0, up=1)  # set down on the rim (top at 62 mm)
    o = res.outcome
    assert o.touching == ["prop:volcano"]
    assert o.result == "hit" and o.section == "volcano" and o.value == 0 and o.damage == 0
    # a die that slides off the flank onto the board is scored on the board as usual
    th, res = _drop("volcano", -100.0 + 50.0, 100.0, 90.0, up=1)
    assert res.outcome.touching == ["board"] and res.outcome.section.startswith("r")


ARMOR_AWAY = [{"name": "armor", "x_mm": 60, "y_mm": -120}]  # on the board, far from where the die lands


def test_the_armor_template_takes_one_off_a_die_in_the_volcano_crater():
    """"While the Shield Template is on the Target board, all Hero Hits deal -1 damage": the crater
    counts as the bullseye (10), so 9 with the Armor on the board (the insta-kill is unaffected)."""
    _, res = _drop("volcano", -100.0, 100.0, 80.0, up=1, templates=ARMOR_AWAY)
    o = res.outcome
    assert o.section == "volcano-crater" and not o.insta_kill
    assert o.damage == 9 and "armor:-1" in o.effects


def test_the_armor_template_takes_one_off_a_slow_token_hit():
    _, res = _drop("slow-tokens", 145.7, 53.0, 14.0, templates=ARMOR_AWAY)
    o = res.outcome
    assert o.section == "slow-token:hole-1" and o.damage == 1 and "armor:-1" in o.effects
