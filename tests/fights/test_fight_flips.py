"""Templates flipped in fights: at the start of the combat and during it (a card at a hero's turn),
and the 1 damage for a landing touching the table ("If the Template lands with any portion touching
the table, the player suffers 1 damage and must flip the Template again")."""

from __future__ import annotations

from sim.fights.engine import run_fight
from sim.fights.policy import ScriptedPolicy
from sim.fights.spec import fight_from_dict
from sim.fights.throw_source import ScriptedSource, TemplateFlip, scripted
from sim.rules.outcome import Outcome

BELCH = {"kind": "template", "name": "Dragon's Belch", "template": "fireball"}


def _fight(heroes, templates=(), life=30):
    m = {"name": "m", "life": life, "miss_damage": 1, "level": 1, "reward_gold": 0, "templates": list(templates)}
    return fight_from_dict({"name": "t", "monster": m, "party": {"heroes": heroes, "white_dice": 2}}, "t.toml")


def _events(r, kind):
    return [e for e in r.log if e["event"] == kind]


def test_a_start_flip_touching_the_table_costs_the_flipping_hero_one_per_landing():
    spec = _fight([{"name": "A"}, {"name": "B"}], templates=["armor"], life=12)
    src = ScriptedSource([scripted("hit", 6)] * 2, flips=[TemplateFlip("armor", True, 2, 3)])
    r = run_fight(spec, src)
    assert r.hero_damage_by_hero == {"A": 2, "B": 0}
    assert [(e["hero"], e["template"], e["table_touches"], e["cause"]) for e in _events(r, "flip")] == [
        ("A", "armor", 2, "start")]
    assert [e["cause"] for e in _events(r, "hero-damage")] == ["template-flip"]
    assert src.flip_requests[0].templates == ("armor",) and src.flip_requests[0].flip == 0
    assert src.requests[0].templates == ("armor",)


def test_a_template_that_never_stays_is_not_on_the_board():
    spec = _fight([{"name": "A"}], templates=["armor"])
    src = ScriptedSource([scripted("hit", 6)] * 5, flips=[TemplateFlip("armor", False, 0, 25)])
    run_fight(spec, src)
    assert all(q.templates == () for q in src.requests)


def test_flip_damage_can_fell_the_party():
    spec = _fight([{"name": "A", "life": 1}], templates=["armor"])
    r = run_fight(spec, ScriptedSource([], flips=[TemplateFlip("armor", True, 1, 2)]))
    assert r.outcome == "lost" and r.throws == 0


def test_a_card_flips_its_template_at_its_holders_turn_once_per_combat():
    """Fire at Will: "This template is usually flipped at the beginning of a player's turn" (Dragon's
    Belch: "throws the Fireball template"). B holds the card: the Fireball lies there from B's turn."""
    spec = _fight([{"name": "A"}, {"name": "B", "equipment": [BELCH]}], life=30)
    src = ScriptedSource([scripted("hit", 2)] * 2 + [scripted("hit", 30)], flips=[TemplateFlip("fireball", True, 1, 2)])
    r = run_fight(spec, src)
    assert [q.templates for q in src.requests] == [(), ("fireball",), ("fireball",)]
    assert [(e["hero"], e["cause"]) for e in _events(r, "flip")] == [("B", "Dragon's Belch")]
    assert r.hero_damage_by_hero["B"] == 1 and len(src.flip_requests) == 1


def test_a_card_waits_while_its_template_lies_on_the_board_and_joins_the_start_templates():
    spec = _fight([{"name": "A", "equipment": [BELCH]}], templates=["fireball", "armor"])
    src = ScriptedSource([scripted("hit", 2)] * 3 + [scripted("hit", 30)])
    pol = ScriptedPolicy({})
    run_fight(spec, src, pol)
    assert src.flip_requests[0].templates == ("armor", "fireball")
    assert "template" not in {k for k, _, _ in pol.asked}  # the Fireball is there already: leave it


def test_a_card_may_be_kept_for_later():
    spec = _fight([{"name": "A", "equipment": [BELCH]}])
    src = ScriptedSource([scripted("hit", 2), scripted("hit", 2), scripted("hit", 30)])
    run_fight(spec, src, ScriptedPolicy({"template": [None]}))
    assert [q.templates for q in src.requests] == [(), ("fireball",), ("fireball",)]
    assert src.flip_requests[0].flip == 0 and src.flip_requests[0].on_board == ()


def test_the_armor_knocked_off_by_a_die_can_be_the_only_template_left():
    spec = _fight([{"name": "A", "equipment": [BELCH]}], templates=["armor"])
    armor = Outcome(result="hit", reason="template", value=0, damage=0.0, template="armor")
    src = ScriptedSource([armor, scripted("hit", 30)])
    run_fight(spec, src)
    assert [q.templates for q in src.requests] == [("armor", "fireball"), ("fireball",)]
    assert [f.on_board for f in src.flip_requests] == [(), ("armor",)]
