"""The game loop (sim/games/engine.py): decks, Shop icons, the 3-Shop cycle and the Final Boss, the
Chest's limit, prices, Scars across combats, scoring and titles, special and Water dice."""

from __future__ import annotations

import pandas as pd
import pytest

from sim.fights.engine import Fight, HeroState
from sim.fights.spec import fight_from_dict
from sim.fights.throw_source import ScriptedSource, scripted
from sim.games.deck import EquipmentCard, load_deck
from sim.games.engine import Game, run_game
from sim.games.ladder import GAME_POLICIES
from sim.games.policy import ShopPlan
from sim.games.result import score, title
from sim.games.spec import load_game
from sim.games.throw_bank import water_rows
from sim.rules.outcome import Outcome


class Always:
    """Every throw the same outcome (a party that always hits the bullseye, or always misses)."""

    def __init__(self, out: Outcome) -> None:
        self.out = out
        self.requests: list = []

    def throw(self, req):
        self.requests.append(req)
        return self.out


BULLSEYE = scripted("hit", 10)
MISS = scripted("miss")


def base(**over):
    return load_game("base", over)


def test_monster_deck_is_three_of_levels_one_to_three_on_all_level_fours():
    g = Game(base(), Always(BULLSEYE), game=3)
    levels = [m.level for m in g.monster_deck]
    fours = sum(m.level == 4 for m in load_deck("base").cards("monsters"))
    assert levels == [1, 1, 1, 2, 2, 2, 3, 3, 3] + [4] * fours


def test_decks_are_shuffled_per_game_and_replay_per_seed():
    a, b, a2 = (Game(base(), Always(BULLSEYE), game=k) for k in (0, 1, 0))
    assert [c.name for c in a.dungeon] == [c.name for c in a2.dungeon]
    assert [c.name for c in a.dungeon] != [c.name for c in b.dungeon]


@pytest.mark.parametrize("level_up, at", [(False, 10), (True, 11)])
def test_a_shop_at_ten_shop_icons_eleven_with_level_up(level_up, at):
    spec = base(**{"options.level_up": level_up})
    g = Game(spec, Always(BULLSEYE), game=2)
    r = g.run()
    icons = {c.name: c.shop_icons for c in g.plan.dungeon}
    cycles: list[list[int]] = [[]]
    for t in r.trace:
        if t["final_boss"]:
            break
        if t["outcome"] == "backed-down":  # the next monster is fought in the same room
            continue
        if t["shops"] == len(cycles):
            cycles.append([])
        cycles[-1].append(icons[t["room"]])
    assert len(cycles) == 3
    for c in cycles:  # the Shop comes with the card that reaches the threshold, not before
        assert sum(c) >= at and sum(c[:-1]) < at


def test_three_shops_then_a_final_boss_and_a_won_game():
    g = Game(base(), Always(BULLSEYE), game=5)
    r = g.run()
    assert r.won and r.shops == 3
    assert r.trace[-1]["final_boss"] and r.boss in {b.name for b in g.plan.bosses}
    assert sum(t["final_boss"] for t in r.trace) == 1


def test_a_scripted_game_has_its_known_result_and_score():
    r = run_game(base(), Always(BULLSEYE), game=0)
    assert r.outcome == "won" and r.scars == 0 and r.eliminated == 0
    assert r.points == r.gold + 3 * r.white_dice + 5 + 5  # no Scar: +5; Normal: +5
    assert r.title == title(r.points)


def test_a_party_that_always_misses_loses_its_first_combat():
    r = run_game(base(), Always(MISS), game=0)
    assert r.outcome == "lost" and r.lost_at == "combat" and r.combats == 1 and r.shops == 0


def test_final_boss_without_white_dice_is_lost():
    spec = base(**{"party.white_dice": 0})
    g = Game(spec, Always(MISS), game=0)
    g.white = 0
    g._final_boss()
    assert g.outcome == "lost" and g.lost_at == "final-boss"


def shop_game(plan: ShopPlan, gold: int) -> Game:
    def policy(d):
        return plan if d.kind == "shop" else GAME_POLICIES["default"](d)

    g = Game(base(), Always(BULLSEYE), policy=policy, game=0)
    g.gold = gold
    return g


def test_shop_prices_equipment_healing_and_white_dice():
    card = EquipmentCard(name="Test Sword", kind="weapon", price=3, bonus=1)
    g = shop_game(ShopPlan(buy=((0, "Torm"),), heal=2, white_dice=3), gold=20)
    g.shop_deck = [card] + g.shop_deck
    for h in g.heroes:
        h.life = 4
    g._shop()
    assert g.gold == 20 - 3 - 2 * 1 - 3 * 2
    assert all(h.life == 6 for h in g.heroes)  # "heal 1 life point to every Hero" per gold
    assert g.white == 2 + 3
    assert any(e.name == "Test Sword" for e in g.heroes[0].equipment)


def test_the_chest_holds_at_most_nine_white_dice():
    g = shop_game(ShopPlan(white_dice=20), gold=100)
    g._shop()
    assert g.white == 9 and g.gold == 100 - 2 * 7


def test_the_shop_offers_two_plus_one_card_per_hero():
    seen = []

    def policy(d):
        if d.kind == "shop":
            seen.append(len(d.options))
            return ShopPlan()
        return GAME_POLICIES["default"](d)

    g = Game(base(**{"party.size": 4}), Always(BULLSEYE), policy=policy, game=0)
    g._shop()
    assert seen == [2 + 4]


def test_scars_carry_across_combats_and_a_fourth_faint_eliminates():
    spec = base()
    g = Game(spec, Always(BULLSEYE), game=0)
    torm = g.heroes[0]
    torm.scars, torm.max_life, torm.life = ["red", "green"], 5, 1
    monster = next(m for m in g.plan.monsters[1] if not m.requirements and not m.ability)
    # Torm (first seat) misses and faints; Brockenstock kills: Torm takes his third Scar after the win
    g.source = ScriptedSource([MISS, BULLSEYE])
    assert g._combat(monster, None) == "won"
    assert torm.scars == ["red", "green", "blue"] and torm.max_life == 3 and torm.life == 3 and not torm.eliminated
    torm.life = 1
    g.source = ScriptedSource([MISS, BULLSEYE])
    g.leader = len(g.heroes) - 1
    assert g._combat(monster, None) == "won"
    assert torm.eliminated and torm not in g.standing
    assert g.scars == 1  # the elimination is not a Scar
    assert score(0, 0, g.scars, 1, "normal") == -1 - 5 + 5


@pytest.mark.parametrize("points, name", [(-3, "Lame Ducks"), (0, "Lame Ducks"), (1, "Inept Optimists"),
                                          (15, "Rookie Adventurers"), (16, "Wannabe Heroes"), (40, "Epic Sourcebook Writers"),
                                          (41, "Heroic Awesomeness Beyond Human Comprehension")])
def test_titles(points, name):
    assert title(points) == name


def test_end_game_points():
    assert score(gold=4, white_dice=2, scars=0, eliminated=0, difficulty="hard") == 4 + 6 + 5 + 15
    assert score(gold=0, white_dice=0, scars=3, eliminated=1, difficulty="inferno") == -3 - 5 + 25


def test_a_special_die_is_thrown_first_and_counts_as_the_turn():
    spec = fight_from_dict({"name": "t", "monster": {"name": "m", "life": 12, "miss_damage": 1, "level": 1},
                            "room": {"special_dice": ["iron-d8"]},
                            "party": {"heroes": [{"name": "A"}, {"name": "B"}]}}, "<test>")
    src = ScriptedSource([scripted("hit", 3, damage=5.0), scripted("hit", 10)])
    f = Fight(spec, src, log=True)
    r = f.run()
    assert [q.die for q in src.requests] == ["iron-d8", "hero-d8"]
    assert [q.hero for q in src.requests] == ["A", "B"] and src.requests[0].kind == "special"
    assert r.won and r.monster_life_end == 12 - 5 - 10


def test_water_dice_rule_combines_three_dice():
    df = pd.DataFrame([
        {"result": "hit", "value": 3, "damage": 3.0, "section": "s3", "die1_result": "hit", "die1_value": 4,
         "die1_damage": 4.0, "die1_section": "s4", "die2_result": "miss", "die2_value": -1, "die2_damage": 0.0},
        {"result": "miss", "value": -1, "damage": 0.0, "die1_result": "miss", "die1_value": -1, "die1_damage": 0.0,
         "die2_result": "miss", "die2_value": -1, "die2_damage": 0.0},
        {"result": "hit", "value": 1, "damage": 1.0, "die1_result": "hit", "die1_value": 2, "die1_damage": 2.0,
         "die2_result": "hit", "die2_value": 5, "die2_damage": 5.0},
    ])
    rows = water_rows(df).to_dict("records")
    assert (rows[0]["result"], rows[0]["value"], rows[0]["effects"]) == ("hit", 7, "water-misses:1")
    assert (rows[1]["result"], rows[1]["effects"]) == ("miss", "water-misses:3;collective-icon")
    assert (rows[2]["value"], rows[2]["effects"]) == (8, "collective-icon")


def test_the_big_wave_example_sir_moo_vs_the_sea_witch():
    """"Sir Moo deals (3 + 4 =) 7 damage, plus the damage from his weapon (+2), so he deals a total of
    9 damage [...] the Sea Witch would deal 3 damage to him; however, his armor reduces it by 1"."""
    spec = fight_from_dict({"name": "t", "monster": {"name": "sea-witch", "life": 20, "miss_damage": 3, "level": 3,
                                                      "special_dice": ["water"]},
                            "party": {"heroes": [{"name": "Sir Moo", "equipment": [
                                {"kind": "weapon", "name": "Harpoon", "bonus": 2},
                                {"kind": "armor", "name": "Shell", "reduce": 1}]}, {"name": "B"}]}}, "<test>")
    water = Outcome(result="hit", reason="hit", section="s3", value=7, damage=7.0, effects=["water-misses:1"])
    src = ScriptedSource([water, MISS])
    r = Fight(spec, src, log=True, max_turns=2).run()
    assert src.requests[0].die == "water"
    assert r.monster_life_end == 20 - 9 - 0
    assert r.hero_damage_by_hero["Sir Moo"] == 2


def test_hero_state_carries_equipment_into_the_fight():
    g = Game(base(), Always(BULLSEYE), game=0)
    g.heroes[0].equipment = [EquipmentCard(name="Revenge Potion", kind="spendable", price=1, damage=1)]
    s = g.heroes[0].state()
    assert isinstance(s, HeroState) and [x.name for x in s.spendables] == ["Revenge Potion"]


def test_default_policy_backs_down_from_a_level_one_specific_throw_and_greedy_does_not():
    g = Game(base(), ScriptedSource([BULLSEYE] * 4), game=0)
    firewall = next(m for m in g.plan.monsters[1] if m.requirements)
    assert g._combat(firewall, None) == "backed-down"
    assert all(h.life == h.max_life - firewall.level for h in g.heroes)  # "loses life points equal to the [...] level"
    greedy = Game(base(), ScriptedSource([BULLSEYE] * 4), policy="greedy", game=0)
    assert greedy._combat(firewall, None) == "won"


def test_a_hero_who_faints_from_backing_down_sits_out_the_next_monster_and_takes_a_scar():
    """"Out of shame, each Hero loses life points equal to the current Monster's level"; a hero it
    takes below 1 life has fainted and "cannot act again during that combat": not the next monster's
    thrower at 0 life, but a Scar (and full health) at the Resting after it."""
    g = Game(base(), Always(BULLSEYE), game=0)
    firewall = next(m for m in g.plan.monsters[1] if m.requirements)
    weak = g.heroes[0]
    weak.life = firewall.level  # the shame takes all of it
    assert g._combat(firewall, None) == "backed-down"
    assert weak.life == 0
    plain = next(m for m in g.plan.monsters[1] if not m.requirements and not m.special_dice)
    src = Always(BULLSEYE)
    g.source = src
    assert g._combat(plain, None) == "won"
    assert all(r.hero != weak.name for r in src.requests)  # never the Active Hero
    assert weak.scars and weak.max_life == 9 - 2 and weak.life == weak.max_life


class Estimating(Always):
    """A source that can say how often a throw hits without throwing (as recorded throws can)."""

    def __init__(self, out, rates):
        super().__init__(out)
        self.rates = rates

    def estimate(self, req):
        return self.rates.get(req.shots, (0.8, 3.0))


def test_recorded_hit_rates_decide_backing_down_at_any_level():
    """"When [Specific Throw Requirements] make the throw virtually impossible, the Heroes can choose
    (as a group) to back down": with a source that knows the odds, the default policy backs down from
    a level-4 monster whose throw would cost more than the shame, and fights one it can hit."""
    spec = base()
    m = next(m for m in Game(spec, Always(BULLSEYE), game=0).plan.monsters[4] if m.requirements)
    hard = {tuple(m.requirements): (0.05, 3.0)}
    g = Game(spec, Estimating(BULLSEYE, hard), game=0)
    assert g._combat(m, None) == "backed-down"
    assert all(h.life == h.max_life - m.level for h in g.heroes)
    easy = {tuple(m.requirements): (0.7, 3.0)}
    assert Game(spec, Estimating(BULLSEYE, easy), game=0)._combat(m, None) == "won"
    assert Game(spec, Estimating(BULLSEYE, hard), policy="greedy", game=0)._combat(m, None) == "won"


def test_backing_down_is_for_the_monsters_own_throw_not_the_rooms():
    """The room's Specific Throw stays for the next monster, so the default policy does not back down
    from a plain monster in a Specific Throw room (it would only pay the shame)."""
    g = Game(base(), ScriptedSource([BULLSEYE] * 4), game=0)
    plain = next(m for m in g.plan.monsters[1] if not m.requirements and not m.special_dice)
    far_room = next(c for c in g.plan.dungeon if c.requirements)
    assert g._combat(plain, far_room) == "won"


def test_the_root_seed_reshuffles_the_decks():
    """`--seed`, an experiment's and a tune's seed root the shuffles too, not only the throws."""
    spec = base()
    a, b = Game(spec, Always(BULLSEYE), game=0), Game(spec.with_seed(spec.seed + 1), Always(BULLSEYE), game=0)
    assert spec.with_seed(spec.seed) is spec and spec.with_seed(5).seed == 5
    assert [c.name for c in a.dungeon] != [c.name for c in b.dungeon]
