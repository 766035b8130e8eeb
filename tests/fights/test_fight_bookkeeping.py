"""Fight bookkeeping the rulebook settles in a sentence each: whose Beer it is, when backing down is
open, how many Bonus dice the Chest holds."""

from __future__ import annotations

from sim.fights.engine import run_fight
from sim.fights.policy import ScriptedPolicy
from sim.fights.spec import fight_from_dict
from sim.fights.throw_source import ScriptedSource, scripted


def _fight(monster: dict, heroes: list[dict], white_dice: int = 2, **kw):
    m = {"name": "m", "life": 30, "miss_damage": 2, "level": 1, "reward_gold": 0} | monster
    return fight_from_dict({"name": "t", "monster": m, "party": {"heroes": heroes, "white_dice": white_dice}} | kw,
                           "t.toml")


def _events(r, kind):
    return [e for e in r.log if e["event"] == kind]


def test_a_fainted_heros_beer_cancels_no_miss_damage():
    """"The Hero may spend a Beer token any time a Hero Misses": the Hero who activated Beer. Once
    they have fainted they "cannot act again during that combat", so B's miss hurts."""
    spec = _fight({"miss_damage": 3}, [{"name": "Brock", "life": 3, "blue": "beer"}, {"name": "B"}])
    src = ScriptedSource([scripted("hit", 1, icon=True), scripted("miss"), scripted("miss"), scripted("miss"),
                          scripted("hit", 30)])
    # Brock's blue die: Beer (2 tokens); B misses: one Beer spent; Brock misses, keeps the last token,
    # takes his 3 and faints; B misses (a white die): the token left is Brock's, and Brock cannot act
    pol = ScriptedPolicy({"die": ["blue"], "prevent": ["beer", None], "dice-out": ["white", "white"]})
    r = run_fight(spec, src, pol)
    assert [e["by"] for e in _events(r, "prevent")] == ["beer"]
    assert "Brock" in r.fainted
    assert r.hero_damage_by_hero == {"Brock": 3, "B": 3}


def test_a_standing_heros_beer_still_cancels_a_miss():
    spec = _fight({"miss_damage": 3}, [{"name": "Brock", "blue": "beer"}, {"name": "B"}])
    src = ScriptedSource([scripted("hit", 1, icon=True), scripted("miss"), scripted("hit", 30)])
    r = run_fight(spec, src, ScriptedPolicy({"die": ["blue"]}))
    assert [e["by"] for e in _events(r, "prevent")] == ["beer"] and r.hero_damage == 0


def test_no_backing_down_against_the_final_boss():
    spec = _fight({"final_boss": True, "level": 4}, [{"name": "A"}], white_dice=1)
    pol = ScriptedPolicy({"back-down": [True, True, True]})
    r = run_fight(spec, ScriptedSource([scripted("hit", 2)] * 4), pol)
    assert r.outcome == "lost" and "back-down" not in {k for k, _, _ in pol.asked}
    # against any other monster the party may
    spec = _fight({"level": 4}, [{"name": "A"}])
    assert run_fight(spec, ScriptedSource([]), ScriptedPolicy({"back-down": [True]})).outcome == "backed-down"


def test_the_chest_holds_at_most_nine_bonus_dice_when_a_room_adds_dice():
    """"You cannot have more than 9 Bonus dice in your Chest!": 9 on the Chest and a Gain 1 Die room
    still make 9."""
    spec = _fight({"miss_damage": 0, "final_boss": True}, [{"name": "A"}], white_dice=9,
                  room={"name": "Treasure", "white_dice": 1})
    r = run_fight(spec, ScriptedSource([scripted("hit", 1)] * 20))
    assert r.outcome == "lost" and r.white_dice_used == 9 and r.throws == 12
    spec = _fight({"miss_damage": 0, "final_boss": True}, [{"name": "A"}], white_dice=9,
                  house_rules={"extra_white_dice": 2})
    assert run_fight(spec, ScriptedSource([scripted("hit", 1)] * 20)).white_dice_used == 9
