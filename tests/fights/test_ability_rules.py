"""Abilities are declared once: every hero and monster ability the catalogue names has exactly one rule
the fight engine reads at its hook points, every rule does something its activation condition allows,
and the engine tests no ability by name."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sim.fights import abilities as ab
from sim.fights.abilities import ABILITIES, MONSTER_ABILITIES
from sim.fights.monster import builtin_monsters

FIGHTS = Path(__file__).resolve().parents[2] / "sim" / "fights"
# the fight engine: every module of its rules but the ability table itself
ENGINE = [FIGHTS / f"{m}.py" for m in ("engine", "damage", "equipment", "state", "result")]


def test_every_ability_has_exactly_one_rule():
    assert set(ab.HERO_RULES) == set(ABILITIES)
    assert set(ab.MONSTER_RULES) == set(MONSTER_ABILITIES)


@pytest.mark.parametrize("name", sorted(ABILITIES))
def test_every_hero_rule_does_something_its_condition_allows(name):
    r, when = ab.HERO_RULES[name], ABILITIES[name].when
    assert r != ab.HeroRule(), f"{name}: its rule does nothing"
    on_hit = r.section_value is not ab.HeroRule().section_value or r.hit_bonus is not ab.HeroRule().hit_bonus
    on_miss = bool(r.miss_damage or r.dodges)
    assert not (on_hit and when == "miss") and not (on_miss and when == "hit"), name


def test_hero_rules_count_as_the_rulebook_says():
    assert ab.section_value("piercing", 3) == 5 and ab.section_value("berserk", 3) == 6
    assert ab.section_value("focused", 2) == 5 and ab.section_value("focused", 2, board_section=False) == 2
    assert ab.hit_bonus("sworn-enemy:demon", "demon") == 4
    assert ab.hit_bonus("sworn-enemy:demon", "undead") == 1
    assert ab.hit_bonus("set-on-fire", None) == 2 and ab.hit_bonus(None, "demon") == 0
    assert ab.monster_rule(None) == ab.MonsterRule()


def test_every_builtin_monster_ability_has_a_rule():
    named = {m.ability for m in builtin_monsters() if m.ability is not None}
    assert named and named <= set(ab.MONSTER_RULES)


def test_the_fight_engine_tests_no_ability_by_name():
    names = set(ABILITIES) | set(MONSTER_ABILITIES)
    found = []
    for path in ENGINE:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare):
                for x in (node.left, *node.comparators):
                    if isinstance(x, ast.Constant) and x.value in names:
                        found.append(f"{path.name} line {node.lineno}: {x.value!r}")
    assert not found, "read the ability's rule (sim.fights.abilities), not its name: " + "; ".join(found)
