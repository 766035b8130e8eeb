"""The game loop read against the rulebook, a test per reading (docs/rules.md "Rules and their tests",
the game rows): the starting loot, the path not taken, a Dungeon card's effects happening once, the
Leader token, a new cycle, Free Equipment, the Final Boss's difficulty, and the empty Monster deck
(an option of the simulator: the rulebooks have no rule for it)."""

from __future__ import annotations

from sim.fights.throw_source import scripted
from sim.games.deck import DungeonCard
from sim.games.engine import Game
from sim.games.spec import load_game

BULLSEYE = scripted("hit", 10)
MISS = scripted("miss")


class Always:
    def __init__(self, out):
        self.out = out

    def throw(self, req):
        return self.out


def base(**over):
    return load_game("base", over)


def card(name, **kw):
    return DungeonCard(name=name, shop_icons=kw.pop("shop_icons", 1), **kw)


def test_starting_loot_is_two_white_dice_and_players_minus_two_gold():
    for size in (2, 3, 4):
        g = Game(base(**{"party.size": size}), Always(BULLSEYE))
        assert (g.white, g.gold) == (2, size - 2)


def test_the_path_not_taken_goes_to_the_bottom_of_the_dungeon_deck():
    g = Game(base(), Always(BULLSEYE), game=1)
    first, second = g.dungeon[0], g.dungeon[1]
    g._round()
    picked = next(c for c in (first, second) if c in g.set_aside)
    other = second if picked is first else first
    assert g.dungeon[-1] is other and g.dungeon.count(other) == 1


def test_a_rooms_gold_and_healing_happen_once_when_revealed_not_again_after_backing_down():
    spec = base()
    g = Game(spec, Always(BULLSEYE), game=0, policy=lambda d: True if d.kind == "back-down" else _default(d))
    room = card("Rich Hall", gold=3, gain_life=2)
    for h in g.heroes:
        h.life = 5
    g.dungeon = [room, room] + g.dungeon
    g.gold = 0
    g._reveal(room)
    assert g.gold == 3 and all(h.life == 7 for h in g.heroes)
    monster = next(m for m in g.plan.monsters[1] if not m.requirements and not m.ability)
    g.policy = g.fight_policy = _default
    assert g._combat(monster, room) == "won"
    # the fight adds only the monster's reward (and an Epic Shot's coin), never the room's gold again
    assert g.gold - 3 <= monster.reward_gold + 1
    assert all(h.life <= 7 for h in g.heroes)


def _default(d):
    from sim.games.ladder import GAME_POLICIES

    return GAME_POLICIES["default"](d)


def test_the_hero_who_threw_the_last_die_leads_and_the_one_on_the_left_throws_first():
    g = Game(base(), Always(BULLSEYE), game=0)
    assert g.heroes[g.leader].name == "Melissa" and g.seating()[0].name == "Torm"
    monster = next(m for m in g.plan.monsters[1] if not m.requirements and not m.ability)
    assert g._combat(monster, None) == "won"  # Torm's bullseye kills at once
    assert g.heroes[g.leader].name == "Torm" and g.seating()[0].name == "Brockenstock"


def test_a_new_cycle_puts_the_set_aside_cards_at_the_bottom_and_counts_icons_afresh():
    g = Game(base(), Always(BULLSEYE), game=0)
    aside = [g.dungeon.pop(0), g.dungeon.pop(0)]
    g.set_aside, g.icons = list(aside), 10
    g._shop()
    assert g.dungeon[-2:] == aside and g.set_aside == [] and g.icons == 0 and g.shops == 1


def test_free_equipment_is_the_top_card_of_the_shop_deck():
    g = Game(base(), Always(BULLSEYE), game=0)
    top = g.shop_deck[0]
    g._reveal(card("Armory", free_equipment=1))
    holders = [h for h in g.heroes if top in h.equipment]
    assert g.shop_deck[0] is not top and (len(holders) == 1 or top.kind == "relic")


def test_the_final_boss_is_drawn_at_random_and_takes_the_difficulty():
    bosses = set()
    for k in range(12):
        g = Game(base(difficulty="hard"), Always(BULLSEYE), game=k)
        g._final_boss()
        bosses.add(g.boss)
        boss = g.boss_card
        assert g.trace[-1]["final_boss"] and g.outcome == "won"
    assert len(bosses) > 1
    from sim.fights.state import FightPlan

    plan = FightPlan.of(g.plan.fight_spec(boss, None))
    assert plan.monster_life == boss.life + 3  # "Hard: +3 ... every time you start a new combat"


def test_an_empty_monster_deck_is_reshuffled_or_loses_by_option():
    for option, outcome in (("reshuffle", ""), ("lose", "lost")):
        g = Game(base(**{"options.empty_monster_deck": option}), Always(BULLSEYE), game=0)
        g.monster_discard, g.monster_deck = list(g.monster_deck[:3]), []
        m = g._draw_monster()
        assert g.outcome == outcome
        assert (m is not None) == (option == "reshuffle")
        assert g.reshuffles == (1 if option == "reshuffle" else 0)


def test_a_card_estimate_shifts_only_the_stand_ins_and_keeps_its_floor():
    from sim.games.deck import load_deck
    from sim.games.estimates import shifted

    deck = load_deck("base")
    new = shifted([deck], {"monster life": 3, "Shop icons": -1, "Final Boss life": -100})[0]
    for old, m in zip(deck.monsters, new.monsters):
        assert m.life == (old.life + 3 if old.name.startswith("unnamed") else old.life)
    assert all(b.life == 1 for b in new.bosses if b.name.startswith("unnamed"))
    assert all(c.shop_icons == max(0, o.shop_icons - (1 if o.name.startswith("unnamed") else 0))
               for o, c in zip(deck.dungeon, new.dungeon))
