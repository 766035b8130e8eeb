"""Physics in the loop (sim/fights/physics_source.py): dice stay on the board and can be struck; on a
clear board the physics source and the resampling source give one answer."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from sim.engine.release import Release
from sim.engine.worlds import build_thrower
from sim.fights.board_templates import FLIPS_PER_FIGHT, FightTemplates, flip_fight_templates
from sim.fights.engine import run_fights
from sim.fights.physics_source import THROWS_PER_FIGHT, BoardDice, BoardDie, BoardState, PhysicsSource
from sim.fights.resample import ResampleSource
from sim.fights.spec import fight_from_dict
from sim.fights.throw_source import ThrowRequest
from sim.specs.die import load_die
from sim.specs.scenario import Scenario
from sim.specs.template import load_template
from sim.world.flip import flip_template

# a one-hero fight that ends at the first hit (1 life): the board holds at most the misses lying on it
CLEAR_FIGHT = {
    "name": "one-hit",
    "monster": {"name": "target-dummy", "title": "Target dummy", "life": 1, "miss_damage": 2, "level": 1},
    "party": {"white_dice": 0, "heroes": [{"name": "Solo", "life": 3}]},
    "throws": {"board": "magma", "skill": "casual", "shot": "standard"},
    "seed": 7,
}


def _layered():
    sc = Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual")
    th = build_thrower(sc)
    state = BoardState()
    layer = BoardDice(th, state, load_die("hero-d8"), load_die("white-d8"))
    th.attach(layer)
    return th, layer, state


def _rest_at(th, state, slot, x_m, y_m):
    o = th.place(x_m, y_m).outcome
    state.dice[slot] = BoardDie(slot, "hero-d8", tuple(v * 1e-3 for v in o.position_mm), tuple(o.orientation_xyzw),
                                o.section, o.result)
    return o


def _req(colour="green", throw=0):
    return ThrowRequest(0, throw, "h", colour, "colored", "hero-d8", ("standard",), "casual", "magma")


def test_thrown_die_knocks_a_resting_die_into_another_section():
    th, layer, state = _layered()
    before = _rest_at(th, state, "red", 0.06, 0.0)
    assert before.result == "hit" and before.section == "r115-0"
    # slid low and straight along the x axis at the resting die
    res = th.replay([Release((-0.10, 0.0, 0.030), (2.0, 0.0, 0.0), (0, 0, 0, 1), (0, 0, 0))], 1, 0)
    assert "die:board-red" in {e.other for e in res.trace.events}  # it struck the resting die
    layer.after_throw(th, res, "green", "hero-d8", _req())
    (move,) = state.moves
    assert move["slot"] == "red" and move["shift_mm"] > 10
    assert move["from"] == "r115-0" and move["to"] not in (None, "r115-0")
    assert state.dice["red"].section == move["to"]
    assert "green" in state.dice  # the thrown die stays where it came to rest


def test_a_die_not_struck_stays_exactly_put():
    th, layer, state = _layered()
    _rest_at(th, state, "red", 0.0, 0.12)
    pose = state.dice["red"].position_m
    res = th.replay([Release((-0.10, -0.0, 0.030), (0.8, 0.0, 0.0), (0, 0, 0, 1), (0, 0, 0))], 1, 0)
    layer.after_throw(th, res, "green", "hero-d8", _req())
    assert state.moves == []
    assert state.dice["red"].position_m == pose


def test_first_throw_of_a_fight_is_the_plain_throw_and_retrieval_clears_the_board():
    src = PhysicsSource(3)
    plain = build_thrower(Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual"))
    for f in (0, 1):
        out = src.throw(ThrowRequest(f, 0, "h", "red", "colored", "hero-d8", ("standard",), "casual", "magma"))
        ref = plain.throw(3, f * THROWS_PER_FIGHT).outcome
        assert (out.result, out.section, out.position_mm) == (ref.result, ref.section, ref.position_mm)
    src.throw(ThrowRequest(1, 1, "h", "green", "colored", "hero-d8", ("standard",), "casual", "magma", turn=1))
    on = set(src.state.dice)
    # a re-throw in the same turn picks up the die just thrown; a retrieval empties the board
    src.throw(ThrowRequest(1, 2, "h", "green", "colored", "hero-d8", ("standard",), "casual", "magma", turn=1))
    assert set(src.state.dice) <= on | {"green"}
    src.throw(ThrowRequest(1, 3, "h", "red", "colored", "hero-d8", ("standard",), "casual", "magma", turn=2,
                           retrievals=1))
    assert set(src.state.dice) <= {"red"}


def test_two_engines_one_answer_on_a_clear_board():
    """Win rates of the one-hit fight from physics in the loop and from resampled records of the same
    scene agree within 3 standard errors of their difference (both estimates' sampling error)."""
    spec = fight_from_dict(CLEAR_FIGHT, "test")
    n_phys, n_rec, n_res = 24, 48, 4000
    phys = run_fights(spec, PhysicsSource(spec.seed), n_phys)
    p1 = float(np.mean([r.won for r in phys]))
    th = build_thrower(Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual"))
    recs = pd.DataFrame([th.throw(99, i).record() for i in range(n_rec)])
    h = float((recs["result"] == "hit").sum() / recs["result"].isin(["hit", "miss"]).sum())
    p2 = float(np.mean([r.won for r in run_fights(spec, ResampleSource(recs, seed=5), n_res)]))
    # the fight allows 2 throws: p = 1 - (1 - h)^2; the table's error reaches p with dp/dh = 2 (1 - h)
    var = p1 * (1 - p1) / n_phys + p2 * (1 - p2) / n_res + (2 * (1 - h)) ** 2 * h * (1 - h) / n_rec
    tol = 3 * math.sqrt(max(var, 0.25 / n_phys))
    assert abs(p1 - p2) <= tol, (p1, p2, h, tol)
    assert max(r.throws for r in phys) <= 2


@pytest.mark.parametrize("bad", [THROWS_PER_FIGHT, -1])
def test_throw_index_bounded(bad):
    with pytest.raises(ValueError):
        PhysicsSource(0).throw(_req(throw=bad))


# the one-hit fight against a monster with the Armor template ("Defensive": flipped at the start)
ARMOR_FIGHT = {**CLEAR_FIGHT, "name": "armored",
               "monster": {**CLEAR_FIGHT["monster"], "life": 2, "templates": ["armor"]}}


class _Watch(PhysicsSource):
    """A physics source noting, per throw, the fight and the templates the thrown die met."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.seen: list[tuple[int, list]] = []

    def throw(self, request):
        out = super().throw(request)
        th, _ = self.world(request)
        self.seen.append((request.fight, [(t.id, t.position_m, t.orientation_xyzw) for t in th.templates]))
        return out


def test_fight_templates_flipped_once_per_fight_and_laid_at_that_pose_every_throw():
    spec = fight_from_dict(ARMOR_FIGHT, "test")
    src = _Watch(spec.seed)
    results = run_fights(spec, src, 2)
    assert all(r.throws >= 1 for r in results)
    by_fight: dict[int, set] = {}
    for f, tpls in src.seen:
        by_fight.setdefault(f, set()).add(tuple(tpls))
    # the Armor lies at one pose through a fight (unless a die landed on it: then it is gone)
    for poses in by_fight.values():
        with_armor = {p for p in poses if p}
        assert len(with_armor) == 1
    first = {f: next(iter(p for p in poses if p)) for f, poses in by_fight.items()}
    assert first[0][0][0] == "armor" and first[0] != first[1]  # re-flipped for the next fight
    # fight 1's pose is the flip of stream (seed, 1 * FLIPS_PER_FIGHT + 0)
    board = Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual").board
    (ref,) = flip_template(board, load_template("armor"), spec.seed, 1 * FLIPS_PER_FIGHT + 0, "casual")
    assert first[1][0][1] == ref.placed.position_m
    assert src.last.extra["tpl_on_board"] in ("armor", "")


def test_a_template_the_requests_stop_listing_leaves_the_board():
    src = PhysicsSource(2)
    base = ("h", "red", "colored", "hero-d8", ("standard",), "casual", "magma")
    src.throw(ThrowRequest(0, 0, *base, templates=("armor",)))
    assert set(src.templates.placed) == {"armor"}
    src.throw(ThrowRequest(0, 1, *base, turn=1, templates=()))  # a die landed on it: the rules dropped it
    assert src.templates.placed == {} and src.last.extra.get("tpl_on_board") is None


def test_a_template_flipped_onto_a_resting_die_removes_it():
    sc = Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual")
    assert sc.board is not None
    seed = 6
    bare = FightTemplates()
    assert flip_fight_templates(bare, sc.board, ["armor"], seed, 0) == []
    x, y = bare.placed["armor"].position_m[:2]
    o = build_thrower(sc).place(x, y).outcome  # a die resting where the same flip lands
    die = (load_die("hero-d8"), tuple(v * 1e-3 for v in o.position_mm), tuple(o.orientation_xyzw))
    st = FightTemplates()
    assert flip_fight_templates(st, sc.board, ["armor"], seed, 0, dice={"red": die}) == ["red"]
    assert any("die:red" in a.dice_removed for a in st.flips[0].attempts)  # the flip world saw it land on it
    # a die far from where the template lands stays
    far = (die[0], (-x, -y, die[1][2]), die[2])
    assert flip_fight_templates(FightTemplates(), sc.board, ["armor"], seed, 0, dice={"blue": far}) == []


def test_a_flip_landing_on_the_table_costs_the_hero_in_a_physics_fight():
    """Seed 7: fight 0's Armor flip (stream index 0) touches the table once before it stays."""
    board = Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual").board
    (ref,) = flip_template(board, load_template("armor"), 7, 0, "casual")
    assert ref.damage == 1 and ref.placed is not None
    spec = fight_from_dict({**ARMOR_FIGHT, "party": {"white_dice": 0, "heroes": [{"name": "Solo", "life": 9}]}}, "test")
    (r,) = run_fights(spec, PhysicsSource(7), 1, log=True)
    flips = [e for e in r.log if e["event"] == "flip"]
    assert [(e["template"], e["stayed"], e["table_touches"]) for e in flips] == [("armor", True, 1)]
    assert [e["cause"] for e in r.log if e["event"] == "hero-damage"][0] == "template-flip"


def test_a_template_flipped_during_a_fight_lands_among_those_lying_there():
    from sim.fights.board_templates import flip_index
    from sim.fights.throw_source import TemplateFlipRequest

    src = PhysicsSource(3)
    (a,) = src.flip(TemplateFlipRequest(0, 0, "h", ("armor",), "casual", "magma"))
    armor = src.templates.placed["armor"]
    (f,) = src.flip(TemplateFlipRequest(0, 1, "h", ("fireball",), "casual", "magma", on_board=("armor",)))
    assert a.stayed and f.stayed and set(src.templates.placed) == {"armor", "fireball"}
    assert src.templates.flips[0].index == flip_index(0, 1) * 8
    # the Armor is still where it lay, unless the Fireball shoved it
    moved = np.linalg.norm(np.subtract(src.templates.placed["armor"].position_m, armor.position_m))
    assert moved < 0.05
    src.throw(ThrowRequest(0, 0, *("h", "red", "colored", "hero-d8", ("standard",), "casual", "magma"),
                           templates=("armor", "fireball")))
    assert set(src.last.extra["tpl_on_board"].split(",")) == {"armor", "fireball"}


def test_a_seventh_white_die_comes_to_rest_among_six_on_the_board():
    """A full Chest is 9 Bonus dice, each thrown once per combat: all of them may lie on the board."""
    from sim.fights.physics_source import WHITE_SLOTS

    assert WHITE_SLOTS == 9
    src = PhysicsSource(5)
    base = ("h", "white", "white", "white-d8", ("standard",), "casual", "magma")
    src.throw(ThrowRequest(0, 0, *base))  # starts fight 0 on an empty board
    for k in range(6):
        src.state.dice[f"white-{k}"] = BoardDie(f"white-{k}", "white-d8", (-0.15 + 0.05 * k, -0.2, 0.012),
                                                (0.0, 0.0, 0.0, 1.0), None, "hit")
    src.throw(ThrowRequest(0, 1, *base, turn=1))
    assert len([s for s in src.state.dice if s.startswith("white")]) in (6, 7)  # 7 unless it fell off
