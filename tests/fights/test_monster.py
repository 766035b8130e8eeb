"""Monster, room, party, house-rule and fight specs: the built-in data, and bad files naming file and field."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from sim.errors import SpecError
from sim.fights.house_rules import RULEBOOK, HouseRules
from sim.fights.monster import MonsterSpec, builtin_monsters, load_monster
from sim.fights.spec import FightSpec, fight_from_dict, load_fight
from sim.specs.rules import RuleSet

MONSTER = 'name = "x"\nlife = 6\nmiss_damage = 2\nlevel = 1\nreward_gold = 2\n'
HEAD, HERO = 'name = "f"\nmonster = "firewall"\n', '[[party.heroes]]\nname = "A"\n'
FIGHT = HEAD + HERO


def test_rulebook_monsters_have_the_rulebook_numbers():
    fw = load_monster("firewall")
    assert (fw.life, fw.miss_damage, fw.reward_gold, fw.requirements) == (6, 2, 2, ["firewall"])
    gq = load_monster("griller-queen")
    assert (gq.life, gq.miss_damage, gq.reward_gold, gq.ability) == (7, 3, 1, "arrogant")
    assert load_monster("the-something").templates == ["armor"]


def test_every_builtin_monster_is_valid_and_says_what_is_estimated():
    ms = builtin_monsters()
    assert len(ms) >= 5 and any(m.final_boss for m in ms)
    for m in ms:
        assert m.estimated_fields or not m.estimated, m.name
        assert "ESTIMATED" in Path(m.source).read_text() or m.source_rulebook, m.name


def test_builtin_fights_load():
    ref = load_fight("reference")
    assert ref.monster.name == "firewall" and ref.monster_life == 9 and len(ref.party.heroes) == 3
    assert all(h.start_life == 9 for h in ref.party.heroes)
    for name in ("griller-queen", "boss"):
        assert isinstance(load_fight(name), FightSpec)


@pytest.mark.parametrize("text,field,problem", [
    (MONSTER.replace("life = 6", "life = 0"), "life", "greater than or equal to 1"),
    (MONSTER.replace("life = 6", 'life = "6"'), "life", "whole number"),
    (MONSTER.replace("life = 6", "life = 6.0"), "life", "valid integer"),
    (MONSTER + "colour = 3\n", "colour", "unknown key"),
    (MONSTER + 'requirements = ["moonwalk"]\n', "requirements.0", "unknown shot 'moonwalk'"),
    (MONSTER + 'requirements = ["far", "far"]\n', "requirements.1", "listed twice"),
    (MONSTER + 'ability = "sleepy"\n', "ability", "arrogant"),
    (MONSTER + 'templates = ["lasagne"]\n', "templates.0", "unknown template"),
    (MONSTER + 'estimated_fields = ["hat"]\n', "estimated_fields.0", "not a monster field"),
    (MONSTER + "final_boss = true\n", "reward_gold", "no reward"),
])
def test_bad_monster_file_names_file_and_field(tmp_path, text, field, problem):
    p = tmp_path / "bad.toml"
    p.write_text(text)
    with pytest.raises(SpecError) as e:
        load_monster(p)
    assert e.value.source == str(p) and e.value.field == field and problem in e.value.problem


@pytest.mark.parametrize("text,field,problem", [
    (FIGHT.replace('"firewall"', '"dragon"'), "monster", "unknown monster 'dragon'"),
    (FIGHT + 'red = "laser-eyes"\n', "party.heroes.0.red", "unknown ability"),
    (FIGHT + 'red = "sworn-enemy"\n', "party.heroes.0.red", "needs its monster type"),
    (FIGHT + 'scars = ["red", "red"]\n', "party.heroes.0.scars", "1 Scar token"),
    (FIGHT + 'scars = ["red"]\nlife = 9\n', "party.heroes.0.life", "maximum 7"),
    (FIGHT + "life = 10\n", "party.heroes.0.life", "less than or equal to 9"),
    (FIGHT + 'equipment = [{ kind = "weapon", name = "W", requirements = ["nope"] }]\n',
     "party.heroes.0.equipment.0.requirements.0", "unknown shot"),
    (FIGHT + 'equipment = [{ kind = "helmet", name = "H" }]\n', "party.heroes.0.equipment.0", "kind"),
    (FIGHT + '[[party.heroes]]\nname = "A"\n', "party.heroes.1.name", "two heroes"),
    ('difficulty = "nightmare"\n' + FIGHT, "difficulty", "normal"),
    (HEAD + "[house_rules]\nno_bounce = true\ntwo_bounces = true\n" + HERO, "house_rules.two_bounces", "no_bounce"),
    (HEAD + '[throws]\nshot = "moonwalk"\n' + HERO, "throws.shot", "unknown shot"),
    ('name = "f"\n[monster]\nname = "m"\nlife = -1\nmiss_damage = 1\nlevel = 1\n' + HERO, "monster.life", "greater than"),
])
def test_bad_fight_file_names_file_and_field(tmp_path, text, field, problem):
    p = tmp_path / "fight.toml"
    p.write_text(text)
    with pytest.raises(SpecError) as e:
        load_fight(p)
    assert e.value.source == str(p) and e.value.field == field and problem in e.value.problem


def test_party_size_limits(tmp_path):
    heroes = [{"name": f"H{i}"} for i in range(7)]
    with pytest.raises(SpecError) as e:
        fight_from_dict({"name": "f", "monster": "firewall", "party": {"heroes": heroes}}, "x.toml")
    assert e.value.field == "party.heroes"
    with pytest.raises(SpecError) as e:
        fight_from_dict({"name": "f", "monster": "firewall", "party": {"heroes": []}}, "x.toml")
    assert e.value.field == "party.heroes"


def test_a_bad_monster_file_named_by_a_fight_reports_the_monster_file(tmp_path):
    (tmp_path / "m.toml").write_text(MONSTER.replace("level = 1", "level = 9"))
    p = tmp_path / "fight.toml"
    p.write_text(FIGHT.replace('"firewall"', '"m.toml"'))
    with pytest.raises(SpecError) as e:
        load_fight(p)
    assert e.value.source == str(tmp_path / "m.toml") and e.value.field == "level"


def test_non_finite_and_out_of_range_numbers_are_rejected():
    with pytest.raises(SpecError) as e:
        fight_from_dict({"name": "f", "monster": "firewall", "party": {"heroes": [{"name": "A"}]},
                         "house_rules": {"eyes_closed_noise": math.nan}}, "x.toml")
    assert e.value.field == "house_rules.eyes_closed_noise"
    with pytest.raises(SpecError):
        fight_from_dict({"name": "f", "monster": "firewall", "party": {"heroes": [{"name": "A"}], "white_dice": 10}}, "x.toml")


@pytest.mark.parametrize("difficulty,room,house,expected", [
    ("normal", 0, 0, 6), ("hard", 0, 0, 9), ("inferno", 3, 0, 14), ("normal", 0, -10, 1), ("normal", 3, 2, 11),
])
def test_monster_life(difficulty, room, house, expected):
    f = fight_from_dict({"name": "f", "monster": "firewall", "difficulty": difficulty, "room": {"life_bonus": room},
                         "house_rules": {"monster_life_bonus": house}, "party": {"heroes": [{"name": "A"}]}}, "x.toml")
    assert f.monster_life == expected


def test_house_rules_map_onto_ruleset_fields():
    hr = HouseRules(no_bounce=True, partial_templates_hit=True, holes_inactive=True, bones_outer_section=True,
                    eyes_closed=True, off_hand=True)
    RuleSet(**hr.ruleset_overrides())  # existing fields, valid values
    assert hr.ruleset_overrides() == {"min_bounces": 0, "partial_template": "c", "holes": "section",
                                      "bones": "outer-section"}
    assert HouseRules(two_bounces=True).ruleset_overrides() == {"min_bounces": 2}
    assert hr.throw_rules() == tuple(sorted(hr.ruleset_overrides().items()))
    assert hr.release_noise_factor == pytest.approx(1.6 * 1.3)
    assert HouseRules().release_noise_factor == 1.0 and HouseRules().throw_rules() == ()
    assert set(RULEBOOK) == set(HouseRules.model_fields) - {"eyes_closed_noise", "off_hand_noise"}
    assert HouseRules(retrieval_half_damage=True).retrieval_damage(3) == 2
    assert HouseRules().retrieval_damage(3) == 3


def test_monster_check_file_via_catalog(tmp_path):
    from sim.specs.catalog import check_file

    kind, spec = check_file(Path(load_monster("firewall").source))
    assert kind == "monster" and isinstance(spec, MonsterSpec)
    kind, spec = check_file(Path(load_fight("reference").source))
    assert kind == "fight" and spec.name == "reference"
