"""The fight rules engine on scripted outcomes: the rulebooks' worked examples, then rule by rule."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from sim.errors import FightError, SpecError
from sim.fights.engine import Fight, run_fight, run_fights
from sim.fights.policy import ScriptedPolicy
from sim.fights.resample import RecordedTable, ResampleSource
from sim.fights.spec import fight_from_dict
from sim.fights.throw_source import AIMS, Aim, ScriptedSource, ThrowRequest, scripted
from sim.rules.outcome import Outcome

TORM = {"name": "Torm", "red": "re-throw", "green": "piercing", "blue": "berserk"}
BROCK = {"name": "Brockenstock", "red": "heal-party", "green": "sworn-enemy:undead", "blue": "beer"}
MELISSA = {"name": "Melissa", "red": "agile-instincts", "green": "self-healing", "blue": "set-on-fire"}


def fight(monster: dict, heroes: list[dict], **kw) -> object:
    m = {"name": "m", "life": 6, "miss_damage": 2, "level": 1, "reward_gold": 2} | monster
    data = {"name": "t", "monster": m, "party": {"heroes": heroes, "white_dice": kw.pop("white_dice", 2)}} | kw
    return fight_from_dict(data, "test.toml")


def events(result, kind: str) -> list[dict]:
    return [e for e in result.log if e["event"] == kind]


def hit(value: int, **kw) -> Outcome:
    return scripted("hit", value, **kw)


def miss(reason: str = "off-board", **kw) -> Outcome:
    return scripted("miss", reason=reason, **kw)


# ---- the rulebooks' worked examples -------------------------------------------------------------
def test_firewall_combat_example():
    """Malevolent Magma, Combat Example: the Firewall (6 life) in the Lost Treasure (+3): Torm's green
    die hits a 4; Brockenstock's blue die misses with the icon (Beer: 2 tokens, one spent on his own
    2 damage); Melissa's red die lands in a hole with the icon (Agile Instincts: no damage, 2 dealt);
    Torm takes a white die and hits a 3: defeated, 2 gold reward."""
    spec = fight({"name": "firewall", "life": 6, "miss_damage": 2, "reward_gold": 2, "requirements": ["firewall"]},
                 [TORM, BROCK, MELISSA], room={"name": "Lost Treasure", "life_bonus": 3, "gold": 1})
    assert spec.monster_life == 9
    src = ScriptedSource([hit(4), miss("requirement:firewall", icon=True), miss("in-hole", icon=True), hit(3)])
    pol = ScriptedPolicy({"die": ["green", "blue"], "dice-out": ["white"]})
    r = run_fight(spec, src, pol)
    assert r.won and r.monster_life_end == 0 and not r.epic_shot
    assert [(q.hero, q.colour, q.kind) for q in src.requests] == [
        ("Torm", "green", "colored"), ("Brockenstock", "blue", "colored"), ("Melissa", "red", "colored"),
        ("Torm", "white", "white")]
    assert all(q.shots == ("firewall",) for q in src.requests)
    assert [e["monster_life"] for e in events(r, "hit")] == [5, 0]
    assert [e["monster_life"] for e in events(r, "miss")] == [5, 3]
    assert [e["by"] for e in events(r, "prevent")] == ["beer"]
    assert events(r, "dodge")[0]["hero"] == "Melissa"
    assert r.hero_damage == 0 and r.white_dice_used == 1 and r.retrievals == 0 and r.throws == 4
    assert [(e["cause"], e["amount"]) for e in events(r, "gold")] == [("room", 1), ("reward", 2)]
    assert r.gold == 3 and r.rounds == 2


def test_griller_queen_example():
    """Malevolent Magma, second Combat Example: Floor is Lava (+2 life, Lava Shot). Torm (3 life) misses
    with his Bear Trap (Elbow Shot): 3 damage, he faints, the Arrogant Queen's card turns facedown.
    Brockenstock (Sword of Friendship, Friendly Shot, +2) hits a 3 with the icon: Sworn Enemy +1 = 6,
    Revenge Potion +1 = 7: the Queen (7 life) is at exactly 0: no Epic Shot; 1 gold; Torm's Scar."""
    spec = fight(
        {"name": "griller-queen", "life": 7, "miss_damage": 3, "level": 2, "reward_gold": 1, "ability": "arrogant"},
        [TORM | {"life": 1, "equipment": [{"kind": "weapon", "name": "Bear Trap", "bonus": 2, "requirements": ["elbow"]}]},
         BROCK | {"equipment": [{"kind": "weapon", "name": "Sword of Friendship", "bonus": 2, "requirements": ["friendly"]},
                                {"kind": "spendable", "name": "Revenge Potion", "damage": 1}]}],
        room={"name": "Floor is Lava", "gain_life": 2, "requirements": ["lava"]})
    src = ScriptedSource([miss("requirement:lava"), hit(3, icon=True)])
    pol = ScriptedPolicy({"die": ["red", "green"], "scar": ["green"]})
    r = run_fight(spec, src, pol)
    assert [q.shots for q in src.requests] == [("lava", "elbow"), ("lava", "friendly")]
    torm_damage = [e for e in events(r, "hero-damage") if e["hero"] == "Torm"]
    assert torm_damage == [{"hero": "Torm", "damage": 3, "cause": "miss", "life": 0, "event": "hero-damage"}]
    assert events(r, "faint") == [{"hero": "Torm", "event": "faint"}]
    assert events(r, "arrogant") == [{"facedown": True, "event": "arrogant"}]
    assert events(r, "ability")[0]["ability"] == "sworn-enemy:undead"
    assert events(r, "spendable")[0]["item"] == "Revenge Potion"
    assert events(r, "hit")[0]["damage"] == 7
    assert r.won and r.monster_life_end == 0 and not r.epic_shot and r.gold == 1
    assert r.scars == [("Torm", "green")] and r.fainted == ["Torm"]
    torm = r.heroes_after[0]
    assert torm["max_life"] == 7 and torm["life"] == 7  # "restored to full health", 2 fewer life points


def test_epic_shot_example():
    """3.1: "the Monster had a total of 2 life points and Torm made a throw with a total damage of 7
    [...] it goes to -5 life points. That's an Epic Shot! Torm takes a total of 5 Gold coins"."""
    spec = fight({"life": 2, "reward_gold": 4}, [TORM])
    r = run_fight(spec, ScriptedSource([hit(5, icon=True)]), ScriptedPolicy({"die": ["green"]}))  # Piercing: 5 + 2
    assert events(r, "hit")[0]["damage"] == 7
    assert r.monster_life_end == -5 and r.epic_shot
    assert [(e["cause"], e["amount"]) for e in events(r, "gold")] == [("epic-shot", 1), ("reward", 4)]
    assert r.gold == 5


def test_armor_template_example():
    """Rock and Roll: the Something (Defensive: the Armor template from the start). Marco's 2 deals 1;
    Caterina lands on the Armor: 1 damage (Rock and Roll wording) and it leaves the board; Luigi's 3
    deals all 3: "it still has 6 hit points left". The classifier puts the -1 into the outcome; the
    engine passes the board's templates in each request and removes the Armor when a die lands on it."""
    spec = fight({"name": "the-something", "life": 11, "templates": ["armor"]},
                 [{"name": "Marco"}, {"name": "Caterina"}, {"name": "Luigi"}])
    src = ScriptedSource([
        hit(2, damage=1.0, effects=["armor:-1"]),
        Outcome(result="hit", reason="template", value=1, damage=1.0, template="armor", effects=["remove-template:armor-0"]),
        hit(3),
        hit(6),
    ])
    r = run_fight(spec, src)
    assert [q.templates for q in src.requests] == [("armor",), ("armor",), (), ()]
    assert [e["damage"] for e in events(r, "hit")][:3] == [1, 1, 3]
    assert events(r, "hit")[2]["monster_life"] == 6
    assert events(r, "template-removed") == [{"template": "armor", "event": "template-removed"}]


def test_armor_template_bonus_on_a_zero_hit_is_reduced():
    """While the Armor is on the board "all Hero Hits deal -1 damage": a 0 hit with a +2 weapon deals 1
    (the classifier leaves 0 alone; the engine takes the 1 off the bonus)."""
    spec = fight({"life": 9, "templates": ["armor"]},
                 [{"name": "A", "equipment": [{"kind": "weapon", "name": "Club", "bonus": 2}]}])
    r = run_fight(spec, ScriptedSource([hit(0), hit(6)]))
    assert events(r, "hit")[0]["damage"] == 1


def test_final_boss_out_of_white_dice_is_lost():
    """5: "After all 3 colored Hero dice have been thrown, the next player's only option is to throw a
    white Bonus die. [...] If the Heroes run out of white Bonus dice before defeating the Final Boss,
    they lose the game." Nobody is asked to retrieve; nobody takes retrieval damage."""
    spec = fight({"life": 30, "miss_damage": 1, "level": 4, "reward_gold": 0, "final_boss": True},
                 [TORM, BROCK, MELISSA], white_dice=1)
    pol = ScriptedPolicy({})
    r = run_fight(spec, ScriptedSource([hit(2)] * 4), pol)
    assert r.outcome == "lost" and r.lost_reason == "out of white dice against the Final Boss"
    assert r.throws == 4 and r.white_dice_used == 1 and r.retrievals == 0
    assert "dice-out" not in {k for k, _, _ in pol.asked}
    assert r.monster_life_end == 30 - 8 and r.hero_damage == 0


def test_final_boss_reward_is_rejected():
    with pytest.raises(SpecError) as e:
        fight({"final_boss": True, "reward_gold": 3}, [TORM])
    assert e.value.field == "monster.reward_gold"


# ---- running out of dice, fainting, losing, backing down ----------------------------------------
def test_retrieval_costs_every_hero_the_level_and_cannot_be_prevented():
    spec = fight({"life": 20, "miss_damage": 0, "level": 3},
                 [BROCK | {"equipment": [{"kind": "armor", "name": "Shield"}]}, {"name": "B"}], white_dice=0)
    src = ScriptedSource([hit(1, icon=True)] + [hit(1)] * 3 + [hit(20)])  # Brockenstock's icon: Beer
    pol = ScriptedPolicy({"die": ["blue"]})
    r = run_fight(spec, src, pol)
    assert r.retrievals == 1 and r.won
    assert [(e["hero"], e["damage"]) for e in events(r, "hero-damage")] == [("Brockenstock", 3), ("B", 3)]
    assert not events(r, "prevent") and "prevent" not in {k for k, _, _ in pol.asked}


def test_retrieval_half_damage_house_rule_rounds_up():
    spec = fight({"life": 20, "miss_damage": 0, "level": 3}, [{"name": "A"}], white_dice=0,
                 house_rules={"retrieval_half_damage": True})
    r = run_fight(spec, ScriptedSource([hit(1)] * 3 + [hit(20)]))
    assert [e["damage"] for e in events(r, "hero-damage")] == [2]


def test_white_or_retrieve_is_the_policys_choice():
    spec = fight({"life": 20, "miss_damage": 0, "level": 1}, [{"name": "A"}], white_dice=2)
    r = run_fight(spec, ScriptedSource([hit(1)] * 3 + [hit(20)]), ScriptedPolicy({"dice-out": ["white"]}))
    assert r.white_dice_used == 1 and r.white_dice_left == 1 and r.retrievals == 0
    r = run_fight(spec, ScriptedSource([hit(1)] * 3 + [hit(20)]), ScriptedPolicy({"dice-out": ["retrieve"]}))
    assert r.white_dice_used == 0 and r.retrievals == 1


def test_all_heroes_faint_loses_and_fainted_heroes_skip_turns():
    spec = fight({"life": 20, "miss_damage": 5}, [{"name": "A", "life": 5}, {"name": "B", "life": 9}])
    src = ScriptedSource([miss(), miss(), miss()])
    r = run_fight(spec, src)
    assert [q.hero for q in src.requests] == ["A", "B", "B"]  # A fainted at once and is skipped
    assert r.outcome == "lost" and r.lost_reason == "all heroes fainted" and set(r.fainted) == {"A", "B"}
    assert r.scars == []  # no Resting phase after a lost combat


def test_back_down_costs_every_hero_the_level():
    spec = fight({"life": 20, "level": 2}, [{"name": "A"}, {"name": "B", "life": 2}])
    r = run_fight(spec, ScriptedSource([]), ScriptedPolicy({"back-down": [True]}))
    assert r.outcome == "backed-down" and r.throws == 0 and r.fainted == ["B"]
    assert r.heroes_after[0]["life"] == 7


def test_fainting_three_scars_eliminates():
    spec = fight({"life": 3, "miss_damage": 9}, [{"name": "A", "scars": ["red", "green", "blue"]}, {"name": "B"}])
    r = run_fight(spec, ScriptedSource([miss(), hit(3)]))
    assert r.won and r.eliminated == ["A"] and r.scars == []


# ---- hits, abilities, equipment ------------------------------------------------------------------
@pytest.mark.parametrize("ability,value,icon,expected", [
    ("piercing", 4, True, 6), ("focused", 2, True, 5), ("focused", 6, True, 6),  # Focused only if it helps
    ("berserk", 4, True, 8), ("sworn-enemy:undead", 3, True, 7), ("sworn-enemy:demon", 3, True, 4),
    ("set-on-fire", 3, True, 5), ("piercing", 4, False, 4),
])
def test_hit_abilities(ability, value, icon, expected):
    spec = fight({"life": 30, "type": "undead"}, [{"name": "A", "red": ability}])
    r = run_fight(spec, ScriptedSource([hit(value, icon=icon), hit(30)]), ScriptedPolicy({"die": ["red"]}))
    assert events(r, "hit")[0]["damage"] == expected


def test_set_on_fire_section_deals_two_more_for_the_rest_of_the_combat():
    spec = fight({"life": 30}, [{"name": "A", "red": "set-on-fire"}])
    src = ScriptedSource([hit(3, icon=True, section="s3"), hit(3, section="s3"), hit(3, section="s4"), hit(30)])
    r = run_fight(spec, src, ScriptedPolicy({"die": ["red"]}))
    assert [e["damage"] for e in events(r, "hit")][:3] == [5, 5, 3]


def test_white_die_icon_activates_any_unscarred_ability():
    spec = fight({"life": 30, "miss_damage": 0}, [{"name": "A", "red": "piercing", "green": "berserk", "scars": ["green"]}],
                 white_dice=1)
    r = run_fight(spec, ScriptedSource([hit(1)] * 3 + [hit(5, icon=True), hit(30)]), ScriptedPolicy({"dice-out": ["white"]}))
    assert events(r, "ability")[0]["ability"] == "piercing" and events(r, "hit")[3]["damage"] == 7


def test_agile_instincts_and_weapon_bonus_only_on_hits():
    spec = fight({"life": 30, "miss_damage": 3},
                 [{"name": "A", "red": "agile-instincts", "equipment": [{"kind": "weapon", "name": "W", "bonus": 3}]}])
    r = run_fight(spec, ScriptedSource([miss(icon=True), hit(2), hit(30)]), ScriptedPolicy({"die": ["red"]}))
    assert events(r, "miss")[0]["damage"] == 2 and r.hero_damage == 0  # no weapon bonus on the dodge
    assert events(r, "hit")[0]["damage"] == 5


def test_insta_kill_is_an_epic_shot():
    spec = fight({"life": 40, "reward_gold": 2}, [{"name": "A"}])
    r = run_fight(spec, ScriptedSource([hit(10, icon=True, insta_kill=True, effects=["insta-kill"])]))
    assert r.won and r.epic_shot and r.gold == 3 and events(r, "hit")[0]["insta_kill"]


def test_rethrow_ignores_the_first_result():
    spec = fight({"life": 30, "miss_damage": 4}, [TORM])
    src = ScriptedSource([miss(icon=True), hit(5), hit(30)])
    r = run_fight(spec, src, ScriptedPolicy({"die": ["red"]}))
    assert r.rethrows == 1 and r.hero_damage == 0 and events(r, "hit")[0]["damage"] == 5
    assert [q.throw for q in src.requests] == [0, 1, 2]


def test_armor_equipment_prevents_once_per_fight():
    spec = fight({"life": 30, "miss_damage": 2},
                 [{"name": "A", "equipment": [{"kind": "armor", "name": "Mail"}]}])
    r = run_fight(spec, ScriptedSource([miss(), miss(), hit(30)]))
    assert [e["by"] for e in events(r, "prevent")] == ["armor:Mail"] and r.hero_damage == 2


def test_armor_that_reduces_by_one():
    """The Big Wave example: "his armor reduces it by 1, so Sir Moo suffers only 2 damage"."""
    spec = fight({"life": 30, "miss_damage": 3},
                 [{"name": "Sir Moo", "equipment": [{"kind": "armor", "name": "Plate", "reduce": 1}]}])
    r = run_fight(spec, ScriptedSource([miss(), hit(30)]))
    assert r.hero_damage == 2


def test_arrogant_rethrow_after_damage():
    spec = fight({"life": 30, "miss_damage": 2, "ability": "arrogant"}, [{"name": "A"}, {"name": "B"}])
    src = ScriptedSource([miss(), miss(), hit(4), miss(), hit(30)])
    r = run_fight(spec, src, ScriptedPolicy({"dice-out": ["white"]}))
    # A misses: 2 damage, card facedown; B misses: re-throws (no damage), card faceup, hits 4;
    # A misses again: 2 damage, facedown; B hits.
    assert [e["hero"] for e in events(r, "hero-damage")] == ["A", "A"]
    assert [e["cause"] for e in events(r, "re-throw")] == ["arrogant"]
    assert [q.hero for q in src.requests] == ["A", "B", "B", "A", "B"]


def test_fury_adds_the_dice_on_the_board():
    spec = fight({"life": 30, "miss_damage": 1, "ability": "fury"}, [{"name": "A"}])
    r = run_fight(spec, ScriptedSource([hit(1), hit(1), miss(), hit(30)]))
    assert events(r, "hero-damage")[0]["damage"] == 3  # 1 + 2 dice on the board


def test_outcome_hero_damage_and_template_effects():
    """Firewall touch (the hero) and an Explosion template (every hero) from the outcome itself."""
    spec = fight({"life": 30, "miss_damage": 0}, [{"name": "A"}, {"name": "B"}])
    src = ScriptedSource([hit(3, hero_damage=1.0, effects=["touched:firewall:-1"]),
                          Outcome(result="hit", reason="template", value=0, damage=0.0, template="explosion",
                                  hero_damage=2.0, effects=["every-hero-suffers:2"]), hit(30)])
    r = run_fight(spec, src)
    assert r.hero_damage_by_hero == {"A": 3, "B": 2}


def test_void_throws_are_thrown_again():
    spec = fight({"life": 3}, [{"name": "A"}])
    src = ScriptedSource([Outcome(result="void", reason="not-settled"), hit(3)])
    r = run_fight(spec, src)
    assert r.won and r.throws == 2 and r.rethrows == 1


def test_policy_answering_outside_the_options_raises():
    spec = fight({"life": 30}, [TORM])
    with pytest.raises(FightError):
        run_fight(spec, ScriptedSource([hit(1)]), ScriptedPolicy({"die": ["purple"]}))
    with pytest.raises(FightError):
        run_fight(spec, ScriptedSource([hit(1)]), ScriptedPolicy({"aim": ["everything"]}))


def test_unknown_policy_name_is_a_spec_error():
    spec = fight({"life": 3}, [TORM], policy="telepathy")
    with pytest.raises(SpecError) as e:
        run_fight(spec, ScriptedSource([hit(3)]))
    assert e.value.field == "policy" and e.value.source == "test.toml"


def test_requests_carry_house_rules_difficulty_and_aim():
    spec = fight({"life": 6}, [{"name": "A", "skill": "expert"}], difficulty="inferno",
                 house_rules={"no_bounce": True, "holes_inactive": True, "eyes_closed": True, "monster_life_bonus": 2})
    assert spec.monster_life == 6 + 5 + 2
    src = ScriptedSource([hit(20)])
    pol = ScriptedPolicy({"aim": [Aim("kill", (10.0, -5.0))]})
    run_fight(spec, src, pol)
    q = src.requests[0]
    assert q.rules == (("holes", "section"), ("min_bounces", 0))
    assert q.noise_factor == pytest.approx(1.6) and q.skill == "expert" and q.shots == ("standard",)
    assert q.aim == Aim("kill", (10.0, -5.0)) and q.monster_life == 13 and q.die == "hero-d8"


def test_default_policy_aims_by_remaining_life():
    spec = fight({"life": 30, "miss_damage": 0}, [{"name": "A"}])
    src = ScriptedSource([hit(6), hit(6), hit(6), hit(6), hit(5), hit(1)])
    run_fight(spec, src, ScriptedPolicy({"dice-out": ["white"] * 3}))
    assert [q.aim.objective for q in src.requests] == ["damage"] * 4 + ["kill", "hit"]


# ---- the resampling source -----------------------------------------------------------------------
def _table(n: int = 1000, p_hit: float = 0.3, seed: int = 0, values=(2, 3, 4, 5, 6)) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    k = int(round(p_hit * n))
    hit_ = np.zeros(n, bool)
    hit_[:k] = True
    val = rng.choice(values, n)
    return pd.DataFrame({
        "result": np.where(hit_, "hit", "miss"), "reason": np.where(hit_, "hit", "off-board"),
        "section": np.where(hit_, "s", ""), "value": np.where(hit_, val, -1), "face": "blank", "icon": False,
        "damage": np.where(hit_, val, 0).astype(float), "insta_kill": False, "template": "",
        "partial_template": False, "hero_damage": 0.0,
    })


def test_recorded_table_reads_runner_records():
    df = _table(10)
    df.loc[9, "result"] = "void"
    t = RecordedTable(df)
    assert t.n == 9 and math.isclose(t.void_fraction, 0.1)
    o = t.outcomes[0]
    assert o.result == "hit" and o.value >= 2 and o.template is None and o.effects == []
    miss_row = next(o for o in t.outcomes if o.result == "miss")
    assert miss_row.value is None and miss_row.section is None


def test_recorded_throws_estimate_a_throw_without_spending_a_draw():
    """The hit share and the mean damage of a hit, read off the records (what a policy weighs before
    backing down); the draws that follow are the same as without the question."""
    spec = fight({"life": 9, "miss_damage": 2}, [TORM, BROCK, MELISSA])
    df = _table()
    src = ResampleSource(df, seed=5)
    f = Fight(spec, src, fight=0)
    hit, dmg = f.throw_estimate(f.heroes[0], ())
    ok = df[df["result"].isin(["hit", "miss"])]
    hits = ok[ok["result"] == "hit"]
    assert math.isclose(hit, len(hits) / len(ok)) and math.isclose(dmg, hits["damage"].mean())
    assert f.run().record() == run_fight(spec, ResampleSource(df, seed=5), fight=0).record()


def test_resample_is_deterministic_and_fight_i_depends_only_on_seed_and_i():
    spec = fight({"life": 9, "miss_damage": 2}, [TORM, BROCK, MELISSA])
    df = _table()
    a = [r.record() for r in run_fights(spec, ResampleSource(df, seed=5), 40)]
    b = [r.record() for r in run_fights(spec, ResampleSource(df, seed=5), 40)]
    c = [r.record() for r in run_fights(spec, ResampleSource(df, seed=6), 40)]
    d = [r.record() for r in run_fights(spec, ResampleSource(df, seed=5), range(30, 40))]
    assert a == b and a != c and d == a[30:]
    log1 = run_fight(spec, ResampleSource(df, seed=5), fight=33).log
    assert log1 == run_fight(spec, ResampleSource(df, seed=5), fight=33).log


def test_resample_uniforms_past_the_block_are_deterministic():
    s1, s2 = ResampleSource(_table(), seed=1), ResampleSource(_table(), seed=1)
    u1 = [s1.uniform(70, k) for k in range(100)]
    u2 = [s2.uniform(70, k) for k in reversed(range(100))][::-1]
    assert u1 == u2 and len(set(u1)) == 100 and all(0 <= u < 1 for u in u1)


def test_resample_win_probability_matches_the_exact_value():
    """Monster life 2, every hit deals >= 2 and nothing else happens in the first three throws: the
    party wins within three throws with probability 1 - (1 - p)^3 (p = the table's hit fraction).
    Tolerance: 4.5 binomial standard errors for n fights (false alarm < 1e-5)."""
    p, n = 0.3, 4000
    spec = fight({"life": 2, "miss_damage": 0}, [{"name": "A"}, {"name": "B"}])
    res = run_fights(spec, ResampleSource(_table(p_hit=p), seed=11), n)
    won3 = np.mean([r.won and r.throws <= 3 for r in res])
    exact = 1 - (1 - p) ** 3
    assert abs(won3 - exact) < 4.5 * math.sqrt(exact * (1 - exact) / n)
    # and the draws themselves: the hit fraction of first throws
    first = np.mean([r.throws == 1 and r.won for r in res])
    assert abs(first - p) < 4.5 * math.sqrt(p * (1 - p) / n)


def _req(aim=AIMS["hit"], life=5, **kw) -> ThrowRequest:
    base = dict(fight=0, throw=0, hero="A", colour="red", kind="colored", die="hero-d8", shots=("standard",),
                skill="casual", board="magma")
    return ThrowRequest(**(base | kw), aim=aim, monster_life=life)


def test_resample_table_choice_by_scenario_and_aim():
    safe = RecordedTable(_table(p_hit=0.8, values=(1, 2)), shots=["standard"], label="safe", target_mm=(0.0, 0.0))
    risky = RecordedTable(_table(p_hit=0.4, values=(6,)), shots=["standard"], label="risky", target_mm=(60.0, 0.0))
    wall = RecordedTable(_table(p_hit=0.2), shots=["firewall"], label="wall")
    src = ResampleSource([safe, risky, wall])
    assert src.table_for(_req(Aim("hit"))) is safe
    assert src.table_for(_req(Aim("damage"))) is risky  # 0.4 * 6 > 0.8 * 1.5
    assert src.table_for(_req(Aim("kill"), life=5)) is risky
    assert src.table_for(_req(Aim("kill"), life=2)) is safe
    assert src.table_for(_req(Aim("hit", (50.0, 5.0)))) is risky
    assert src.table_for(_req(shots=("firewall",))) is wall
    from sim.errors import UncoveredThrow

    with pytest.raises(UncoveredThrow):
        src.table_for(_req(shots=("far",)))


@pytest.mark.parametrize("value,epic", [(5, True), (4, False)])
def test_epic_shot_boundary_is_minus_three(value, epic):
    spec = fight({"life": 2, "reward_gold": 0}, [{"name": "A"}])
    r = run_fight(spec, ScriptedSource([hit(value)]))
    assert r.monster_life_end == 2 - value and r.epic_shot is epic and r.gold == int(epic)
