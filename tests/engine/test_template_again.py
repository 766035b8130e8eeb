"""Rule T4 (a flip requested for a template already on the board) and flipped templates in one world."""

from __future__ import annotations

import math

from sim.engine.worlds import build_thrower
from sim.specs.rules import RuleSet
from sim.specs.scenario import Scenario

LAID = {"name": "fireball", "x_mm": 0, "y_mm": 0}
FLIPPED = {"name": "fireball", "flip": True, "skill": "expert"}


def _board_after_prepare(templates, rules=None, seed=1, index=0):
    sc = Scenario.build(templates=templates, rules=rules, flip_bank=0)  # flipped for the throw
    th = build_thrower(sc)
    layer = th.components[0]
    try:
        th.prepare(seed, index)
        return [(t.id, t.position_m) for t in th.templates], layer
    finally:
        th.physics.close()


def test_default_matches_the_rulebook_choice_to_leave_it():
    assert RuleSet().template_already_on_board == "leave"
    assert "template_already_on_board" not in RuleSet().describe()  # no existing scenario key changed
    assert RuleSet(template_already_on_board="reflip").describe()["template_already_on_board"] == "reflip"


def test_template_already_on_the_board_is_left_or_flipped_again():
    left, layer = _board_after_prepare([LAID, FLIPPED])
    assert [i for i, _ in left] == ["fireball"] and layer.last_flips == []
    assert math.hypot(*left[0][1][:2]) < 1e-3  # where it was laid
    again, layer = _board_after_prepare([LAID, FLIPPED], {"template_already_on_board": "reflip"})
    assert [i for i, _ in again] == ["fireball-2"] and len(layer.last_flips) == 1
    assert layer.last_flips[0].placed is not None


def test_two_flipped_templates_of_a_throw_share_one_board():
    board, layer = _board_after_prepare([{"name": "fireball", "flip": True}, {"name": "weak-point", "flip": True}], seed=9)
    assert [r.id for r in layer.last_flips] == ["fireball", "weak-point"]
    # seed 9, throw 0: the weak point lands on the fireball (2 mm higher); flipped in separate worlds
    # two templates can end inside each other (tests/world/test_flip_collisions.py)
    z = {i: p[2] for i, p in board}
    assert set(z) == {"fireball", "weak-point"}
    assert z["weak-point"] > z["fireball"] + 1e-3
